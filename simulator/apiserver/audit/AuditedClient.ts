/**
 * The audit of in-process requests: a component of serve's live cluster (node agents, scheduler, controllers) calls
 * the server without a wire, so its requests are audited here (an observer of ../ObservedClient.ts), as the same
 * requests over HTTP would be (./Auditor.ts; upstream records its components' requests, which come over HTTP). Each
 * call gets the RequestInfo of the URL the HTTP client would send for it (`callRequestInfo`), so the policy sees the
 * same verb, group, resource, namespace and name; its `requestURI` is that URL with the query client-go would send
 * (keys sorted, as `url.Values.Encode`). The user is the identity's (a certificate: the same on every call); the
 * source IP is the loopback, as a component on the API server's own machine would have; the decision annotations are
 * the authorizer's. A watch is `ResponseStarted` when it opens and `ResponseComplete` when it ends.
 */
import { randomUUID } from "node:crypto"
import type { ResourceType } from "../../../src/api/Resources.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { InProcessClientService } from "../../../src/client/Capabilities.js"
import type { AccessControl } from "../auth/AccessControl.js"
import { callAttributes } from "../auth/RequestAttributes.js"
import type { UserInfo } from "../auth/UserInfo.js"
import { observedClient, type CallObserver, type CallUriQuery } from "../ObservedClient.js"
import type { CallVerb } from "../RequestInfo.js"
import { decisionAnnotation, reasonAnnotation, type Auditor } from "./Auditor.js"

/** The URL the HTTP client sends for a call: path, then the query's set parameters, keys sorted. */
export const callURI = (
  verb: CallVerb,
  resource: Pick<ResourceType, "group" | "version" | "plural" | "namespaced">,
  namespace: string | undefined,
  name: string | undefined,
  subresource: string | undefined,
  query: CallUriQuery
): string => {
  let path = resource.group === "" ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`
  if (resource.namespaced && namespace !== undefined && namespace !== "") path += `/namespaces/${encodeURIComponent(namespace)}`
  path += `/${resource.plural}`
  const collection = verb === "list" || verb === "watch" || verb === "deletecollection"
  if (!collection && name !== undefined && name !== "") path += `/${encodeURIComponent(name)}`
  if (!collection && subresource !== undefined && subresource !== "") path += `/${subresource}`
  const params = new URLSearchParams()
  for (const key of Object.keys(query).sort()) {
    const v = query[key]
    if (v === undefined || v === false) continue
    for (const one of Array.isArray(v) ? v : [v]) params.append(key, String(one))
  }
  const text = params.toString()
  return text === "" ? path : `${path}?${text}`
}

const loopback: ReadonlyArray<string> = ["127.0.0.1"]

/**
 * Each call audited as `user`'s, who makes them through an identity client (which authenticates and authorizes); the
 * decision recorded is the authorizer's for the same attributes.
 */
export const auditObserver = (auditor: Auditor, access: AccessControl, user: UserInfo, userAgent: string): CallObserver => ({
  begin: (call) => {
    const { verb, resource, namespace, name, subresource, listOptions } = call
    const attrs = callAttributes(verb, resource, namespace, name, subresource, listOptions)
    const audit = auditor.begin({
      auditID: randomUUID(),
      requestURI: callURI(verb, resource, namespace, name, subresource, call.query),
      user,
      sourceIPs: loopback,
      userAgent,
      attrs,
      receivedNanos: auditor.nowNanos()
    })
    if (audit === undefined) return undefined
    const decision = access.allowsEverything ? { allowed: true, reason: "" } : access.authorizer.authorize(user, attrs)
    audit.annotate(decisionAnnotation, decision.allowed ? "allow" : "forbid")
    audit.annotate(reasonAnnotation, decision.reason)
    if (call.requestObject !== undefined) audit.requestBody(call.requestObject)
    if (call.requestPatch !== undefined) audit.requestPatch(call.requestPatch.patch)
    if (call.deleteOptions !== undefined) {
      const { namespace: _namespace, ...fields } = call.deleteOptions as { namespace?: string }
      audit.requestBody({ kind: "DeleteOptions", apiVersion: resource.group === "" ? resource.version : `${resource.group}/${resource.version}`, ...fields })
    }
    return {
      responded: (code, body) => {
        if (body !== undefined) audit.responseBody(body)
        audit.responseStarted(code)
      },
      broke: (status) => audit.responseBody(status),
      events: () => {},
      complete: () => audit.complete()
    }
  }
})

/** `client` (the identity client of `user`) with each call audited as `user`'s. */
export function auditedClient(auditor: Auditor, access: AccessControl, user: UserInfo, client: InProcessClientService, userAgent: string): InProcessClientService
export function auditedClient(auditor: Auditor, access: AccessControl, user: UserInfo, client: ApiClientService, userAgent: string): ApiClientService
export function auditedClient(auditor: Auditor, access: AccessControl, user: UserInfo, client: ApiClientService, userAgent: string): ApiClientService {
  return observedClient(auditObserver(auditor, access, user, userAgent), client)
}
