/**
 * In-process calls as the server's request instruments see HTTP requests: a component of serve's live cluster (node
 * agents, scheduler, controllers) calls the server without a wire, so what records each HTTP request — the audit log
 * (audit/AuditedClient.ts), the request metrics (http/InProcessMetrics.ts) — is told of its calls here, each
 * described as the HTTP request its client would send (verb, resource, namespace, name, subresource, query), and
 * of its answer: the status code and body, a watch's events, its end. Every verb is wrapped, and the in-process
 * client's capabilities are kept (src/client/Capabilities.ts): its watch pulls, and its immediate view, whose
 * answers are observed as they are given.
 */
import { Chunk, Effect, Either, Exit, Stream } from "effect"
import type { WatchEvent } from "../../src/api/Object.js"
import type { DeleteOptions, PatchType, WatchOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { hasImmediateView, hasWatchPulls, type ImmediateView, type InProcessClientService, type WatchPull, type WatchPulls } from "../../src/client/Capabilities.js"
import type { ClientError } from "../../src/client/TransportError.js"
import type { CallQuery, CallVerb } from "./RequestInfo.js"

/** The query parameters the HTTP client would send for a call (unset ones left out). */
export type CallUriQuery = Readonly<Record<string, string | number | boolean | ReadonlyArray<string> | undefined>>

/** One call, as the HTTP request it stands for. */
export interface ObservedCall {
  readonly verb: CallVerb
  readonly resource: ResourceType
  readonly namespace: string | undefined
  readonly name: string | undefined
  readonly subresource: string | undefined
  /** What authorization and RequestInfo read of a collection's query (selectors, limit). */
  readonly listOptions: CallQuery | undefined
  readonly query: CallUriQuery
  /** The object a create or update sends. */
  readonly requestObject?: unknown
  /** A patch's body and type (`apply` is server-side apply's). */
  readonly requestPatch?: { readonly patchType: PatchType; readonly patch: unknown }
  /** A delete's options (its body). */
  readonly deleteOptions?: DeleteOptions
}

/** What an observer is told of one call it began recording. */
export interface CallRecord {
  /** The answer's status line and body: an object or list, a Status for a failure; a watch is 200 as it opens. */
  readonly responded: (code: number, body: object | undefined) => void
  /** An open watch broke, with this Status. */
  readonly broke: (status: object) => void
  /** An open watch handed these events to its reader. */
  readonly events: (events: Chunk.Chunk<WatchEvent>) => void
  /** The call is over (a watch: closed). */
  readonly complete: () => void
}

export interface CallObserver {
  /** A call begins: the record to tell of it, or undefined when nothing is to be recorded. */
  readonly begin: (call: ObservedCall) => CallRecord | undefined
}

/** Both observers told of every call. */
export const observeBoth = (a: CallObserver, b: CallObserver): CallObserver => ({
  begin: (call) => {
    const first = a.begin(call)
    const second = b.begin(call)
    if (first === undefined) return second
    if (second === undefined) return first
    return {
      responded: (code, body) => {
        first.responded(code, body)
        second.responded(code, body)
      },
      broke: (status) => {
        first.broke(status)
        second.broke(status)
      },
      events: (events) => {
        first.events(events)
        second.events(events)
      },
      complete: () => {
        first.complete()
        second.complete()
      }
    }
  }
})

/** What a call answered: its status code and body (an object, a list, or a Status for a failure). */
const outcomeOf = (value: unknown): { readonly code: number; readonly body: object } => {
  const v = value as { code?: unknown; object?: object; status?: object; kind?: unknown }
  if (typeof v.code === "number" && (v.object !== undefined || v.status !== undefined)) return { code: v.code, body: (v.object ?? v.status)! }
  return { code: 200, body: value as object }
}

const failureOf = (error: ClientError): { readonly code: number; readonly body: object } | undefined =>
  error._tag === "ApiError" ? { code: error.code, body: error.status } : undefined

const finish = (record: CallRecord, exit: Exit.Exit<unknown, ClientError>): void => {
  if (Exit.isSuccess(exit)) {
    const { code, body } = outcomeOf(exit.value)
    record.responded(code, body)
  } else {
    const failure = exit.cause._tag === "Fail" ? failureOf(exit.cause.error) : undefined
    if (failure !== undefined) record.responded(failure.code, failure.body)
  }
  record.complete()
}

/** `client` with each call told to `observer`. */
export function observedClient(observer: CallObserver, client: InProcessClientService): InProcessClientService
export function observedClient(observer: CallObserver, client: ApiClientService): ApiClientService
export function observedClient(observer: CallObserver, client: ApiClientService): ApiClientService & Partial<WatchPulls & ImmediateView> {
  /** A call's answer, observed: a synchronous one (the immediate view's Either) at once, an effect when it ends. */
  const around = <A>(record: CallRecord | undefined, answer: Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> => {
    if (record === undefined) return answer
    if (Either.isEither(answer)) {
      finish(record, Either.isRight(answer) ? Exit.succeed(answer.right) : Exit.fail(answer.left as ClientError))
      return answer
    }
    return Effect.onExit(answer, (exit) => Effect.sync(() => finish(record, exit)))
  }
  const call = (verb: CallVerb, resource: ResourceType, namespace: string | undefined, name: string | undefined, subresource: string | undefined, listOptions: CallQuery | undefined, query: CallUriQuery) =>
    ({ verb, resource, namespace, name, subresource, listOptions, query }) satisfies ObservedCall
  const watchCall = (resource: ResourceType, opts: WatchOptions | undefined): ObservedCall =>
    call("watch", resource, opts?.namespace, undefined, undefined, opts, {
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
    get: (resource, name, opts) => around(observer.begin(call("get", resource, opts?.namespace, name, undefined, undefined, { resourceVersion: opts?.resourceVersion })), inner.get(resource, name, opts)),
    list: (resource, opts) =>
      around(
        observer.begin(
          call("list", resource, opts?.namespace, undefined, undefined, opts, {
            continue: opts?.continue,
            fieldSelector: opts?.fieldSelector,
            labelSelector: opts?.labelSelector,
            limit: opts?.limit,
            resourceVersion: opts?.resourceVersion,
            resourceVersionMatch: opts?.resourceVersionMatch
          })
        ),
        inner.list(resource, opts)
      ),
    create: (resource, obj, opts) => {
      const name = opts?.subresource ? ((obj as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? "") : undefined
      const query = { dryRun: opts?.dryRun, fieldManager: opts?.fieldManager, fieldValidation: opts?.fieldValidation }
      return around(observer.begin({ ...call("create", resource, opts?.namespace, name, opts?.subresource, undefined, query), requestObject: obj }), inner.create(resource, obj, opts))
    },
    update: (resource, obj, opts) => {
      const query = { dryRun: opts?.dryRun, fieldManager: opts?.fieldManager, fieldValidation: opts?.fieldValidation }
      const observed = call("update", resource, opts?.namespace ?? obj.metadata.namespace, obj.metadata.name, opts?.subresource, undefined, query)
      return around(observer.begin({ ...observed, requestObject: obj }), inner.update(resource, obj, opts))
    },
    patch: (resource, name, patchType, patch, opts) => {
      const query = { dryRun: opts?.dryRun, fieldManager: opts?.fieldManager, fieldValidation: opts?.fieldValidation, force: opts?.force }
      const observed = call("patch", resource, opts?.namespace, name, opts?.subresource, undefined, query)
      return around(observer.begin({ ...observed, requestPatch: { patchType, patch } }), inner.patch(resource, name, patchType, patch, opts))
    },
    delete: (resource, name, opts) =>
      around(observer.begin({ ...call("delete", resource, opts?.namespace, name, undefined, undefined, {}), deleteOptions: opts ?? {} }), inner.delete(resource, name, opts)),
    deleteCollection: (resource, opts) =>
      around(
        observer.begin(call("deletecollection", resource, opts?.namespace, undefined, undefined, opts, { fieldSelector: opts?.fieldSelector, labelSelector: opts?.labelSelector })),
        inner.deleteCollection(resource, opts)
      ),
    watch: (resource, opts) =>
      Stream.suspend(() => {
        const record = observer.begin(watchCall(resource, opts))
        if (record === undefined) return inner.watch(resource, opts)
        return inner.watch(resource, opts).pipe(
          Stream.onStart(Effect.sync(() => record.responded(200, undefined))),
          Stream.tapError((e) =>
            Effect.sync(() => {
              const failure = failureOf(e)
              if (failure !== undefined) record.broke(failure.body)
            })
          ),
          Stream.mapChunks((events) => {
            record.events(events)
            return events
          }),
          Stream.ensuring(Effect.sync(() => record.complete()))
        )
      })
  })
  const pulls = (inner: WatchPulls): WatchPulls => ({
    pullWatch: (resource, opts) =>
      Effect.suspend(() => {
        const record = observer.begin(watchCall(resource, opts))
        const opened = inner.pullWatch(resource, opts)
        if (record === undefined) return opened
        return Effect.acquireRelease(
          Effect.tapBoth(opened, {
            onSuccess: () => Effect.sync(() => record.responded(200, undefined)),
            onFailure: (e) => Effect.sync(() => finish(record, Exit.fail(e)))
          }),
          () => Effect.sync(() => record.complete())
        ).pipe(Effect.map((pull): WatchPull => Effect.tap(pull, (events) => Effect.sync(() => record.events(events)))))
      })
  })
  const observed = hasWatchPulls(client) ? { ...wrap(client), ...pulls(client) } : wrap(client)
  if (!hasImmediateView(client)) return observed
  return {
    ...observed,
    at: (now: number) => {
      const view = client.at(now)
      return view === undefined ? undefined : { ...wrap(view), ...pulls(view) }
    }
  }
}
