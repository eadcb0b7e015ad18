/**
 * Each verb of a resource request (`GET`, `POST`, `PUT`, `PATCH`, `DELETE` on an object, a collection or a
 * subresource), as upstream's `endpoints/handlers` (`get.go`, `create.go`, `update.go`, `patch.go`, `delete.go`)
 * serve them: the query's options and the body read in the format its Content-Type names, the call to the API server,
 * the answer in the negotiated representation. Watches go on in ./ServeWatch.ts, logs in ./ServePodLog.ts.
 */
import type * as http from "node:http"
import { Clock, Effect, Either } from "effect"
import { depthOverflowInText, maxBodyNestingDepth } from "../../../src/api/JsonDepth.js"
import { negotiate, requestBodyFormat } from "../../../src/api/MediaType.js"
import type { KObject } from "../../../src/api/Object.js"
import { patchTypeOf } from "../../../src/api/Patch.js"
import type { DeleteOptions, ListOptions } from "../../../src/api/Requests.js"
import { unrecognizedObject, versionKindError } from "../../../src/api/UnrecognizedObject.js"
import { Nodes, Pods } from "../../../src/api/Resources.js"
import { bodyToStore, renameFieldLabels, type ResourceView } from "../../../src/api/ServedNames.js"
import * as Status from "../../../src/api/Status.js"
import { ApiError } from "../../../src/api/Status.js"
import type { ApiServerImpl, Body } from "../ApiServer.js"
import type { UserInfo } from "../auth/UserInfo.js"
import { checkDeleteOptionsBody } from "../Decode.js"
import { connectSubresources, connectTarget, proxyFailure } from "../PodConnect.js"
import type { RequestInfo } from "../RequestInfo.js"
import { getScale, patchScale, scaleType, updateScale } from "../Scale.js"
import { auditOf } from "./AuditFilter.js"
import { userAgentOf } from "./HeaderText.js"
import type { ServerLimits } from "./Limits.js"
import { queryBool, queryInt } from "./QueryParams.js"
import { decodeDeleteOptions, decodeProtobufBody, tableRequest } from "./Representation.js"
import { parseJsonBody, parseYamlBody, readApplyBody, readBody } from "./RequestBody.js"
import type { Responder } from "./Responder.js"
import type { Route } from "./Routes.js"
import { servePodLog } from "./ServePodLog.js"
import type { ServerMetrics } from "./ServerMetrics.js"
import { serveWatch } from "./ServeWatch.js"
import { warningHeaders } from "./WarningHeader.js"

const write = (r: Effect.Effect<{ code: number; object: KObject; warnings: ReadonlyArray<string> }, ApiError>, out: Responder) =>
  Effect.map(r, (result) =>
    out.body(result.code, result.object, result.warnings.length > 0 ? { Warning: warningHeaders(result.warnings) } : {})
  )

/** The field selector in the stored type's spelling (a view may name fields otherwise). */
const fieldSelectorOf = (query: URLSearchParams, view: ResourceView | undefined): string | undefined => {
  const text = query.get("fieldSelector") ?? undefined
  return text === undefined || view === undefined ? text : renameFieldLabels(text, view.fieldLabel)
}

/** A list's options from the query (the fast read path, ./ServeReadNow.ts, reads them alike). */
export const listOptionsOf = (query: URLSearchParams, namespace: string | undefined, limit: number | undefined, view?: ResourceView): ListOptions => ({
  namespace,
  labelSelector: query.get("labelSelector") ?? undefined,
  fieldSelector: fieldSelectorOf(query, view),
  limit,
  continue: query.get("continue") ?? undefined,
  resourceVersion: query.get("resourceVersion") ?? undefined,
  resourceVersionMatch: query.get("resourceVersionMatch") ?? undefined,
  sendInitialEvents: queryBool(query, "sendInitialEvents")
})

/** Subresources a GET reads; the others (binding, eviction, token, finalize) have no getter: 405. */
const readableSubresources: ReadonlySet<string> = new Set(["status", "scale", "log", "exec", "attach", "portforward"])

/**
 * exec, attach, port-forward (PodConnect.ts): the pod, its container and node checked as upstream's
 * `streamLocation`, then the failure a missing kubelet gives — 400 without an upgrade, 500 with one.
 */
const connectPod = (api: ApiServerImpl, route: Route, query: URLSearchParams, req: http.IncomingMessage): Effect.Effect<never, ApiError> =>
  Effect.gen(function* () {
    const pod = yield* api.get(Pods, route.name!, { namespace: route.namespace })
    const target = connectTarget(pod, route.subresource!, query.get("container") ?? undefined)
    if (target instanceof ApiError) return yield* Effect.fail(target)
    const node = yield* api.get(Nodes, target.nodeName, {})
    const upgrade = (req.headers.connection ?? "").toLowerCase().split(/\s*,\s*/).includes("upgrade") && (req.headers.upgrade ?? "") !== ""
    return yield* Effect.fail(proxyFailure(upgrade, node))
  })

/** A watch: a GET whose RequestInfo verb is `watch` (`?watch=true` on a collection, or a legacy `/watch/` path). */
const isWatchRequest = (req: http.IncomingMessage, info: RequestInfo): boolean => req.method === "GET" && info.verb === "watch"

/** One resource request, its route known; a failure is the caller's to answer, in the negotiated representation. */
export const serveResource = (
  api: ApiServerImpl,
  route: Route,
  info: RequestInfo,
  query: URLSearchParams,
  req: http.IncomingMessage,
  out: Responder,
  limits: ServerLimits,
  onDefect: (req: http.IncomingMessage, res: http.ServerResponse, defect: unknown) => void,
  user: UserInfo,
  metrics: ServerMetrics | undefined
): Effect.Effect<void, ApiError> =>
  Effect.gen(function* () {
    const method = req.method ?? "GET"
    const { resource, name, subresource, view } = route
    const namespace = route.namespace
    out.view = view
    // A namespaced type's path without a namespace is the all-namespaces collection: list and watch only.
    if (resource.namespaced && namespace === undefined && method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
    // A legacy `/watch/` path serves GET only: its verb (what was authorized) is `watch`, whatever the method.
    if (route.watch === true && method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
    // Upstream's verb, which authorization saw: `?watch=true` on a named object's path is a plain get.
    const isWatch = isWatchRequest(req, info)
    if (view?.readOnly && method !== "GET" && method !== "DELETE") return yield* Effect.fail(Status.methodNotAllowed())
    if (resource.virtual && (method !== "POST" || name !== undefined)) return yield* Effect.fail(Status.methodNotAllowed())
    if (subresource !== undefined && name !== undefined) {
      // A subresource's REST has only some verbs (upstream registers a handler per verb it implements): 405 for the rest.
      if (method === "GET" && !readableSubresources.has(subresource)) return yield* Effect.fail(Status.methodNotAllowed())
      if (subresource === "log") {
        if (method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
        return yield* servePodLog(api, name, namespace, query, out.res)
      }
      if (connectSubresources.has(subresource)) {
        if (method !== "GET" && method !== "POST") return yield* Effect.fail(Status.methodNotAllowed())
        return yield* connectPod(api, route, query, req)
      }
    }
    const accept = req.headers.accept
    if (accept !== undefined && accept !== "application/json" && accept !== "*/*")
      out.representation = yield* negotiate(accept, { watch: isWatch, collection: name === undefined })
    out.table = yield* tableRequest(out.representation, resource, query.get("includeObject"), yield* Clock.currentTimeMillis, view?.toWire)
    const limit = yield* queryInt(query, "limit")
    const timeoutSeconds = yield* queryInt(query, "timeoutSeconds")
    const str = (k: string) => query.get(k) ?? undefined
    const selectors = { labelSelector: str("labelSelector"), fieldSelector: fieldSelectorOf(query, view) }
    const dryRun = query.has("dryRun") ? query.getAll("dryRun") : undefined
    const writeOptions = {
      namespace,
      dryRun,
      fieldValidation: str("fieldValidation"),
      fieldManager: str("fieldManager"),
      subresource,
      force: queryBool(query, "force"),
      userAgent: userAgentOf(req),
      // RBAC's escalation check compares a role or binding with what this user holds (auth/RoleEscalation.ts).
      caller: user
    }
    const readBodyJson = (refusal: (jsonError: string, bytes: Buffer) => string) =>
      Effect.flatMap(
        Effect.promise(() => readBody(req, limits.maxBodyBytes)),
        (bytes) => Effect.flatMap(bytes, (b) => parseJsonBody(b.toString("utf8"), (jsonError) => refusal(jsonError, b)))
      )
    const readBytes = Effect.flatMap(Effect.promise(() => readBody(req, limits.maxBodyBytes)), (b) => b)
    /** A POST or PUT body of `type` in the format its Content-Type names. */
    const readTypedBody = (type: typeof resource | typeof scaleType, apiVersion?: string) =>
      Effect.gen(function* () {
        const format = yield* requestBodyFormat(req.headers["content-type"])
        // The create and update handlers' transformDecodeError (handlers/rest.go): no kind could be read.
        if (format === "json") return yield* readBodyJson((jsonError, bytes) => unrecognizedObject(type.kind, versionKindError(jsonError), bytes))
        if (format === "yaml") return yield* parseYamlBody((yield* readBytes).toString("utf8"), limits.maxBodyBytes, "YAML")
        return { value: yield* decodeProtobufBody(yield* readBytes, type, apiVersion) } satisfies Body
      })
    const readObjectBody = Effect.gen(function* () {
      const body: Body = yield* readTypedBody(resource, view?.apiVersion)
      return view ? { ...body, value: yield* bodyToStore(view, body.value) } : body
    })
    switch (method) {
      case "GET": {
        if (isWatch) {
          if (subresource) return yield* Effect.fail(Status.methodNotAllowed())
          return yield* serveWatch(api, resource, name, {
            namespace,
            ...selectors,
            resourceVersion: str("resourceVersion"),
            resourceVersionMatch: str("resourceVersionMatch"),
            allowWatchBookmarks: queryBool(query, "allowWatchBookmarks"),
            sendInitialEvents: queryBool(query, "sendInitialEvents"),
            continue: str("continue"),
            timeoutSeconds
          }, out, limits, (defect) => onDefect(req, out.res, defect), view, (bytes) => metrics?.watchEventSent(resource, bytes))
        }
        if (name === undefined) {
          const list = yield* api.list(resource, listOptionsOf(query, namespace, limit, view))
          return out.body(200, list)
        }
        if (subresource === "scale") return out.body(200, yield* getScale(api, resource, name, namespace))
        const obj = yield* api.get(resource, name, { namespace, resourceVersion: str("resourceVersion") })
        return out.object(obj)
      }
      case "POST": {
        if (name !== undefined && subresource === undefined) return yield* Effect.fail(Status.methodNotAllowed())
        if (subresource !== undefined && subresource !== "binding" && subresource !== "eviction" && subresource !== "token") return yield* Effect.fail(Status.methodNotAllowed())
        const body = yield* readObjectBody
        auditOf(out.res)?.requestBody(body.value)
        if (resource.virtual) return yield* write(api.review(resource, body.value, user), out)
        if (subresource !== undefined) {
          const value = body.value as Record<string, unknown>
          const meta = (value?.metadata ?? {}) as Record<string, unknown>
          // BindingREST.Create (pkg/registry/core/pod/storage/storage.go): the body names the pod of the URL.
          if (subresource === "binding" && meta.name !== undefined && meta.name !== name)
            return yield* Effect.fail(Status.badRequest("name in URL does not match name in Binding object"))
          return yield* write(api.create(resource, { value: { ...value, metadata: { ...meta, name: meta.name ?? name } } }, writeOptions), out)
        }
        return yield* write(api.create(resource, body, writeOptions), out)
      }
      case "PUT": {
        if (name === undefined) return yield* Effect.fail(Status.methodNotAllowed())
        if (subresource === "scale") {
          const body: Body = yield* readTypedBody(scaleType)
          auditOf(out.res)?.requestBody(body.value)
          return yield* write(updateScale(api, resource, name, body, writeOptions), out)
        }
        const body = yield* readObjectBody
        auditOf(out.res)?.requestBody(body.value)
        return yield* write(api.update(resource, name, body, writeOptions), out)
      }
      case "PATCH": {
        if (name === undefined) return yield* Effect.fail(Status.methodNotAllowed())
        const patchType = patchTypeOf(req.headers["content-type"] ?? "")
        if (patchType === undefined) return yield* Effect.fail(Status.unsupportedMediaType("415: Unsupported Media Type", true))
        const sent = patchType === "apply" ? yield* readApplyBody(req, limits.maxBodyBytes) : yield* readBodyJson((jsonError) => `error decoding patch: json parse error: ${jsonError}`)
        auditOf(out.res)?.requestPatch(sent.value)
        // An apply configuration at a view's path names the view's apiVersion (`rbac.authorization.k8s.io/v1`).
        const body = view && patchType === "apply" ? { ...sent, value: yield* bodyToStore(view, sent.value, true) } : sent
        if (body.raw !== undefined && depthOverflowInText(body.raw, maxBodyNestingDepth) !== undefined)
          return yield* Effect.fail(Status.badRequest(`error decoding patch: exceeded max depth of ${maxBodyNestingDepth}`))
        if (subresource === "scale") {
          // Server-side apply of a Scale is not modelled (docs/stock-clients.md "Scale").
          if (patchType === "apply") return yield* Effect.fail(Status.unsupportedMediaType("415: Unsupported Media Type", true))
          return yield* write(patchScale(api, resource, name, patchType, body, writeOptions), out)
        }
        return yield* write(api.patch(resource, name, patchType, body, writeOptions), out)
      }
      case "DELETE": {
        const bytes = yield* Effect.flatMap(Effect.promise(() => readBody(req, limits.maxBodyBytes)), (t) => t)
        const text = bytes.toString("utf8")
        // client-go's protobuf clients send DeleteOptions as protobuf.
        const protobufBody = bytes.length > 0 && Either.getOrUndefined(requestBodyFormat(req.headers["content-type"])) === "protobuf"
        const fromBody = protobufBody
          ? { value: yield* decodeDeleteOptions(bytes) }
          : text.trim() === ""
            ? undefined
            : yield* parseJsonBody(text, versionKindError)
        const badOptions = fromBody && checkDeleteOptionsBody(fromBody.value)
        if (badOptions) return yield* Effect.fail(badOptions)
        const opts: DeleteOptions = fromBody
          ? deleteOptionsFromBody(fromBody.value, namespace)
          : {
              namespace,
              dryRun,
              propagationPolicy: str("propagationPolicy"),
              orphanDependents: queryBool(query, "orphanDependents"),
              gracePeriodSeconds: (yield* queryInt(query, "gracePeriodSeconds")) ?? undefined
            }
        auditOf(out.res)?.requestBody(deleteOptionsObject(opts, route.resource))
        if (name === undefined) {
          const list = yield* api.deleteCollection(resource, { ...opts, ...selectors })
          return out.body(200, list)
        }
        if (subresource !== undefined) return yield* Effect.fail(Status.methodNotAllowed())
        const result = yield* api.delete(resource, name, opts)
        return out.body(result.code, result.object ?? result.status ?? {})
      }
      default:
        return yield* Effect.fail(Status.methodNotAllowed())
    }
  })

/** The DeleteOptions a delete was read with, as upstream's delete handler records them (`LogRequestObject`). */
const deleteOptionsObject = (opts: DeleteOptions, resource: { readonly group: string; readonly version: string }): object => {
  const { namespace: _namespace, ...fields } = opts
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  return { kind: "DeleteOptions", apiVersion: resource.group === "" ? resource.version : `${resource.group}/${resource.version}`, ...defined }
}

const deleteOptionsFromBody = (value: unknown, namespace: string | undefined): DeleteOptions => {
  const v = (value ?? {}) as Record<string, unknown>
  const pre = v.preconditions as Record<string, unknown> | undefined
  return {
    namespace,
    dryRun: Array.isArray(v.dryRun) ? (v.dryRun as string[]) : undefined,
    propagationPolicy: typeof v.propagationPolicy === "string" ? v.propagationPolicy : undefined,
    orphanDependents: typeof v.orphanDependents === "boolean" ? v.orphanDependents : undefined,
    gracePeriodSeconds: typeof v.gracePeriodSeconds === "number" ? v.gracePeriodSeconds : undefined,
    preconditions: pre ? { uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined } : undefined
  }
}
