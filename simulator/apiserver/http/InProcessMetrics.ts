/**
 * serve's live cluster in `/metrics` (docs/metrics.md "The live cluster's requests"): its node agents, scheduler and
 * controllers call the server in-process (../ObservedClient.ts), where a real cluster's kubelets, scheduler and
 * controller manager come over HTTP and kube-apiserver counts them like any client. So each call is counted here in
 * the same series an HTTP request of the same verb, resource and outcome updates (./ServerMetrics.ts): with the
 * RequestInfo of the URL its client would send (`callRequestInfo`), the method and content type that client would
 * use, the code and body it was answered with, and the time from the call to its answer on the server's clock. A
 * watch is long-running while open, its events counted and sized as written to a client, and it counts once closed.
 * The virtual-time simulator never passes here: its server has its own modelled metrics (`run --metrics-out`).
 */
import type { WatchEvent } from "../../../src/api/Object.js"
import type { AccessControl } from "../auth/AccessControl.js"
import { callAttributes } from "../auth/RequestAttributes.js"
import type { UserInfo } from "../auth/UserInfo.js"
import { jsonLength, storedItemsLength, storedJsonLength } from "../JsonLength.js"
import type { CallObserver } from "../ObservedClient.js"
import { callMethods, callRequestInfo } from "../RequestInfo.js"
import type { ServerMetrics } from "./ServerMetrics.js"

/** Server-side apply's media type, which makes a PATCH count as APPLY. */
const applyPatchContentType = "application/apply-patch+yaml"

/** The JSON length of an answer's body, as the HTTP response would carry it; stored objects are measured once each. */
const answerLength = (body: object): number => {
  const items = (body as { items?: unknown }).items
  if (!Array.isArray(items)) return storedJsonLength(body)
  // `{…,"items":[a,b]}`: the list without its items, then the items and their commas
  return jsonLength({ ...body, items: [] }) + storedItemsLength(items as ReadonlyArray<object>) + Math.max(0, items.length - 1)
}

/** A watch event's JSON frame, `{"type":"ADDED","object":{…}}` and its newline. */
const eventLength = (event: WatchEvent): number => 22 + event.type.length + storedJsonLength(event.object)

/**
 * Each in-process call of `user` counted in `metrics`, timed on `nowNanos` (the HTTP server's clock). Not counted, as
 * over HTTP (./ServerMetrics.ts `isInstrumented`): a call its identity client refused before the server saw it — a
 * 401 (an expired token), a 403 of the authorizer (checked again only for a 403, which a handler's admission can give
 * too).
 */
export const meteredCalls = (metrics: ServerMetrics, access: AccessControl, user: UserInfo, nowNanos: () => bigint): CallObserver => ({
  begin: (call) => {
    const info = callRequestInfo(call.verb, call.resource, call.namespace, call.name, call.subresource, call.listOptions)
    const method = callMethods[call.verb]
    const contentType = call.requestPatch?.patchType === "apply" ? applyPatchContentType : undefined
    const dryRun = call.query.dryRun
    const query = Array.isArray(dryRun) ? dryRun.map((v) => `dryRun=${encodeURIComponent(v)}`).join("&") : ""
    const started = nowNanos()
    const inflight = metrics.started(info, method, contentType, true)
    let code: number | undefined
    let responseBytes = 0
    return {
      responded: (answered, body) => {
        code = answered
        if (body !== undefined && (info.verb === "get" || info.verb === "list")) responseBytes = answerLength(body)
      },
      broke: () => {},
      events: (events) => {
        for (const event of events) metrics.watchEventSent(call.resource, eventLength(event))
      },
      complete: () => {
        inflight?.dec()
        // a call that never got an answer (interrupted, or a defect) has no code to count
        if (code === undefined || code === 401) return
        if (code === 403 && access.authorize(user, callAttributes(call.verb, call.resource, call.namespace, call.name, call.subresource, call.listOptions)) !== undefined) return
        metrics.finished({ method, info, contentType, query, code, seconds: Number(nowNanos() - started) / 1e9, responseBytes, instrumented: true })
      }
    }
  }
})
