/**
 * The audit of in-process requests: a component of serve's live cluster (node agents, scheduler, controllers) calls
 * the server without a wire, so its requests are audited here, as the same requests over HTTP would be (./Auditor.ts;
 * upstream records its components' requests, which come over HTTP). Each call gets the RequestInfo of the URL the
 * HTTP client would send for it (`callRequestInfo`), so the policy sees the same verb, group, resource, namespace and
 * name; its `requestURI` is that URL with the query client-go would send (keys sorted, as `url.Values.Encode`). The
 * user is the identity's (a certificate: the same on every call); the source IP is the loopback, as a component on
 * the API server's own machine would have; the decision annotations are the authorizer's. A watch is
 * `ResponseStarted` when it opens and `ResponseComplete` when it ends.
 */
import { randomUUID } from "node:crypto"
import { Effect, Either, Exit, Stream } from "effect"
import type { ResourceType } from "../../../src/api/Resources.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import { hasImmediateView, hasWatchPulls, type ImmediateView, type InProcessClientService, type WatchPulls } from "../../../src/client/Capabilities.js"
import type { ClientError } from "../../../src/client/TransportError.js"
import type { AccessControl } from "../auth/AccessControl.js"
import { callAttributes } from "../auth/RequestAttributes.js"
import type { UserInfo } from "../auth/UserInfo.js"
import type { CallQuery, CallVerb } from "../RequestInfo.js"
import { decisionAnnotation, reasonAnnotation, type Auditor, type RequestAudit } from "./Auditor.js"

type Query = Readonly<Record<string, string | number | boolean | ReadonlyArray<string> | undefined>>

/** The URL the HTTP client sends for a call: path, then the query's set parameters, keys sorted. */
export const callURI = (
  verb: CallVerb,
  resource: Pick<ResourceType, "group" | "version" | "plural" | "namespaced">,
  namespace: string | undefined,
  name: string | undefined,
  subresource: string | undefined,
  query: Query
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

/** What a call answered: its status code and body (an object, a list, or a Status for a failure). */
const outcomeOf = (value: unknown): { readonly code: number; readonly body: object } => {
  const v = value as { code?: unknown; object?: object; status?: object; kind?: unknown }
  if (typeof v.code === "number" && (v.object !== undefined || v.status !== undefined)) return { code: v.code, body: (v.object ?? v.status)! }
  return { code: 200, body: value as object }
}

const failureOf = (error: ClientError): { readonly code: number; readonly body: object } | undefined =>
  error._tag === "ApiError" ? { code: error.code, body: error.status } : undefined

/**
 * `client` with each call audited as `user`'s. `client` is the identity client of that user (it authenticates and
 * authorizes); the decision recorded is the authorizer's for the same attributes.
 */
export function auditedClient(auditor: Auditor, access: AccessControl, user: UserInfo, client: InProcessClientService, userAgent: string): InProcessClientService
export function auditedClient(auditor: Auditor, access: AccessControl, user: UserInfo, client: ApiClientService, userAgent: string): ApiClientService
export function auditedClient(
  auditor: Auditor,
  access: AccessControl,
  user: UserInfo,
  client: ApiClientService,
  userAgent: string
): ApiClientService & Partial<WatchPulls & ImmediateView> {
  const begin = (
    verb: CallVerb,
    resource: ResourceType,
    namespace: string | undefined,
    name: string | undefined,
    subresource: string | undefined,
    listOptions: CallQuery | undefined,
    query: Query
  ): RequestAudit | undefined => {
    const attrs = callAttributes(verb, resource, namespace, name, subresource, listOptions)
    const audit = auditor.begin({
      auditID: randomUUID(),
      requestURI: callURI(verb, resource, namespace, name, subresource, query),
      user,
      sourceIPs: loopback,
      userAgent,
      attrs,
      receivedNanos: auditor.nowNanos()
    })
    if (audit !== undefined) {
      const decision = access.allowsEverything ? { allowed: true, reason: "" } : access.authorizer.authorize(user, attrs)
      audit.annotate(decisionAnnotation, decision.allowed ? "allow" : "forbid")
      audit.annotate(reasonAnnotation, decision.reason)
    }
    return audit
  }
  const finish = (audit: RequestAudit, exit: Exit.Exit<unknown, ClientError>): void => {
    if (Exit.isSuccess(exit)) {
      const { code, body } = outcomeOf(exit.value)
      audit.responseBody(body)
      audit.responseStarted(code)
    } else {
      const failure = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? failureOf(exit.cause.error) : undefined
      if (failure !== undefined) {
        audit.responseBody(failure.body)
        audit.responseStarted(failure.code)
      }
    }
    audit.complete()
  }
  /** A call's answer, audited: a synchronous one (the immediate view's Either) at once, an effect when it ends. */
  const around = <A>(audit: RequestAudit | undefined, answer: Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> => {
    if (audit === undefined) return answer
    if (Either.isEither(answer)) {
      finish(audit, Either.isRight(answer) ? Exit.succeed(answer.right) : Exit.fail(answer.left as ClientError))
      return answer
    }
    return Effect.onExit(answer, (exit) => Effect.sync(() => finish(audit, exit)))
  }
  const watchQuery = (opts: Parameters<ApiClientService["watch"]>[1]): Query => ({
    allowWatchBookmarks: opts?.allowWatchBookmarks,
    fieldSelector: opts?.fieldSelector,
    labelSelector: opts?.labelSelector,
    resourceVersion: opts?.resourceVersion,
    resourceVersionMatch: opts?.resourceVersionMatch,
    sendInitialEvents: opts?.sendInitialEvents,
    timeoutSeconds: opts?.timeoutSeconds,
    watch: true
  })
  const wrap = (inner: ApiClientService): ApiClientService => ({
    get: (resource, name, opts) => around(begin("get", resource, opts?.namespace, name, undefined, undefined, { resourceVersion: opts?.resourceVersion }), inner.get(resource, name, opts)),
    list: (resource, opts) =>
      around(
        begin("list", resource, opts?.namespace, undefined, undefined, opts, {
          continue: opts?.continue,
          fieldSelector: opts?.fieldSelector,
          labelSelector: opts?.labelSelector,
          limit: opts?.limit,
          resourceVersion: opts?.resourceVersion,
          resourceVersionMatch: opts?.resourceVersionMatch
        }),
        inner.list(resource, opts)
      ),
    create: (resource, obj, opts) => {
      const name = opts?.subresource ? ((obj as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? "") : undefined
      const audit = begin("create", resource, opts?.namespace, name, opts?.subresource, undefined, { dryRun: opts?.dryRun, fieldManager: opts?.fieldManager, fieldValidation: opts?.fieldValidation })
      audit?.requestBody(obj)
      return around(audit, inner.create(resource, obj, opts))
    },
    update: (resource, obj, opts) => {
      const audit = begin("update", resource, opts?.namespace ?? obj.metadata.namespace, obj.metadata.name, opts?.subresource, undefined, {
        dryRun: opts?.dryRun,
        fieldManager: opts?.fieldManager,
        fieldValidation: opts?.fieldValidation
      })
      audit?.requestBody(obj)
      return around(audit, inner.update(resource, obj, opts))
    },
    patch: (resource, name, patchType, patch, opts) => {
      const audit = begin("patch", resource, opts?.namespace, name, opts?.subresource, undefined, {
        dryRun: opts?.dryRun,
        fieldManager: opts?.fieldManager,
        fieldValidation: opts?.fieldValidation,
        force: opts?.force
      })
      audit?.requestPatch(patch)
      return around(audit, inner.patch(resource, name, patchType, patch, opts))
    },
    delete: (resource, name, opts) => {
      const audit = begin("delete", resource, opts?.namespace, name, undefined, undefined, {})
      const { namespace: _namespace, ...fields } = opts ?? {}
      audit?.requestBody({ kind: "DeleteOptions", apiVersion: resource.group === "" ? resource.version : `${resource.group}/${resource.version}`, ...fields })
      return around(audit, inner.delete(resource, name, opts))
    },
    deleteCollection: (resource, opts) =>
      around(
        begin("deletecollection", resource, opts?.namespace, undefined, undefined, opts, { fieldSelector: opts?.fieldSelector, labelSelector: opts?.labelSelector }),
        inner.deleteCollection(resource, opts)
      ),
    watch: (resource, opts) =>
      Stream.suspend(() => {
        const audit = begin("watch", resource, opts?.namespace, undefined, undefined, opts, watchQuery(opts))
        if (audit === undefined) return inner.watch(resource, opts)
        return inner.watch(resource, opts).pipe(
          Stream.onStart(Effect.sync(() => audit.responseStarted(200))),
          Stream.tapError((e) =>
            Effect.sync(() => {
              const failure = failureOf(e)
              if (failure !== undefined) audit.responseBody(failure.body)
            })
          ),
          Stream.ensuring(Effect.sync(() => audit.complete()))
        )
      })
  })
  // the in-process client's capabilities kept, audited as its verbs are (Capabilities.ts): its watch pulls, and its
  // immediate view, whose answers are audited as they are given
  const pulls = (inner: WatchPulls): WatchPulls => ({
    pullWatch: (resource, opts) =>
      Effect.suspend(() => {
        const audit = begin("watch", resource, opts?.namespace, undefined, undefined, opts, watchQuery(opts))
        const opened = inner.pullWatch(resource, opts)
        if (audit === undefined) return opened
        return Effect.acquireRelease(
          Effect.tapBoth(opened, {
            onSuccess: () => Effect.sync(() => audit.responseStarted(200)),
            onFailure: (e) => Effect.sync(() => finish(audit, Exit.fail(e)))
          }),
          () => Effect.sync(() => audit.complete())
        )
      })
  })
  const audited = hasWatchPulls(client) ? { ...wrap(client), ...pulls(client) } : wrap(client)
  if (!hasImmediateView(client)) return audited
  return {
    ...audited,
    at: (now: number) => {
      const view = client.at(now)
      return view === undefined ? undefined : { ...wrap(view), ...pulls(view) }
    }
  }
}
