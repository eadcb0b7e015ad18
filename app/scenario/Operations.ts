/**
 * What one iteration of a load action does against the `ApiClient`, and the metric key it is recorded
 * under (per (operation, resource, scope), as upstream's SLIs: docs/measurement.md).
 *
 * Writers stamp `clustersim.io/written-at` and log when the write was acknowledged, so watchers can
 * measure watch-event latency (write acknowledged → event received, same process clock).
 */
import { Cause, Effect, Option } from "effect"
import { isConnectionFailure } from "../../src/loadgen/ConnectionFailure.js"
import type { KObject } from "../../src/api/Object.js"
import { resolveResource, type ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ClientError } from "../../src/client/TransportError.js"
import type { DirectIteration, IterationContext, Operation } from "../../src/loadgen/Arrival.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { isMeasuring } from "../../src/client/Capabilities.js"
import type { ExecutionSegment } from "../../src/loadgen/ExecutionSegment.js"
import { LatencyRecorder, type MetricKey, nowMillis } from "../../src/loadgen/LatencyRecorder.js"
import { writtenAtAnnotation } from "../../src/loadgen/ReflectorMetrics.js"
import type { ObjectSet, Request, Scenario } from "./Scenario.js"

/** One name for the writers' stamp, shared with the reflector measurements. */
export const WrittenAtAnnotation = writtenAtAnnotation

/** mulberry32: small, seeded, good enough for picking objects. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const resourceOf = (name: string): ResourceType => {
  const r = resolveResource(name)
  if (!r) throw new Error(`unknown resource "${name}"`) // decoding already rejected it
  return r
}

export const namespaceFor = (r: ResourceType, ns: string | undefined): string | undefined => (r.namespaced ? (ns ?? "default") : undefined)

export const setNamePrefix = (set: ObjectSet): string => set.namePrefix ?? `${set.name}-`

/** The object a set's template produces for name `name`. */
export const objectFromTemplate = (
  template: Readonly<Record<string, unknown>> | undefined,
  name: string,
  namespace: string | undefined,
  annotations?: Readonly<Record<string, string>>
): KObject => {
  const t = (template ?? {}) as { metadata?: Record<string, unknown> } & Record<string, unknown>
  const meta = { ...(t.metadata ?? {}) } as Record<string, unknown>
  const ann = { ...((meta.annotations as Record<string, string> | undefined) ?? {}), ...annotations }
  return {
    ...t,
    metadata: { ...meta, name, ...(namespace ? { namespace } : {}), ...(Object.keys(ann).length > 0 ? { annotations: ann } : {}) }
  } as unknown as KObject
}

/** When each stamped write was acknowledged, for watch-event latency; entries expire after a minute. */
export class WriteLog {
  private readonly acked = new Map<string, number>()
  private readonly waiting = new Map<string, Array<{ receivedAt: number; record: (ackAt: number) => void }>>()

  static key = (namespace: string | undefined, name: string | undefined, rv: string | undefined): string => `${namespace ?? ""}/${name ?? ""}@${rv ?? ""}`

  ack(key: string, atMs: number): void {
    this.acked.set(key, atMs)
    const w = this.waiting.get(key)
    if (w) {
      this.waiting.delete(key)
      for (const x of w) x.record(atMs)
    }
    if (this.acked.size > 200_000) this.prune(atMs - 60_000)
  }

  /** The ack time if known; otherwise `record` is called when the ack arrives. */
  observe(key: string, receivedAt: number, record: (ackAt: number) => void): void {
    const at = this.acked.get(key)
    if (at !== undefined) return record(at)
    const list = this.waiting.get(key) ?? []
    list.push({ receivedAt, record })
    this.waiting.set(key, list)
  }

  private prune(before: number): void {
    for (const [k, t] of this.acked) if (t < before) this.acked.delete(k)
    this.waiting.clear()
  }
}

/** Counters shown on the progress line. */
export class Progress {
  phase = "setup"
  phaseStartedAt = 0
  /** When an action whose phase has no set duration expects to be done (a replay: its schedule's last start), Clock ms. */
  expectedEndAtMs: number | undefined = undefined
  ops = 0
  errors = 0
  /** Setup creates planned and not yet answered: a setup stopped midway (Ctrl-C) leaves some (outcome:setup-complete). */
  setupUnfinished = 0
  readonly errorMessages = new Map<string, number>()
  /** Lines for the user that the progress line prints once (before the phase's own output goes on). */
  readonly notices: Array<string> = []

  error(where: string, e: unknown): void {
    this.errors++
    const msg = `${where}: ${errorText(e)}`
    if (this.errorMessages.size < 200 || this.errorMessages.has(msg)) this.errorMessages.set(msg, (this.errorMessages.get(msg) ?? 0) + 1)
  }
}

export const errorText = (e: unknown): string => {
  if (typeof e === "object" && e !== null && "_tag" in e && (e as { _tag: string })._tag === "ApiError") {
    const st = (e as ApiError).status
    return `${st.code ?? "?"} ${st.reason ?? ""}: ${st.message ?? ""}`.trim()
  }
  return e instanceof Error ? e.message : String(e)
}

export interface RunEnv {
  readonly scenario: Scenario
  readonly random: () => number
  readonly writes: WriteLog
  readonly progress: Progress
  /** Distinguishes names this run creates from earlier runs' against the same server. */
  readonly runTag: string
  /** This generator worker's share of the load. */
  readonly segment: ExecutionSegment
}

const verbOperation: Record<Request["verb"], string> = {
  get: "GET",
  list: "LIST",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  churn: "CHURN"
}

export interface ResolvedRequest {
  readonly request: Request
  readonly resource: ResourceType
  readonly namespace: string | undefined
  readonly set: ObjectSet | undefined
}

export const resolveRequest = (scenario: Scenario, request: Request): ResolvedRequest => {
  const set = request.objects === undefined ? undefined : scenario.setup?.objects?.find((o) => o.name === request.objects)
  const resource = resourceOf(request.resource ?? set!.resource)
  const given = request.namespace ?? set?.namespace
  // a list without a namespace is across all namespaces (scope cluster); other verbs default to "default"
  const namespace = request.verb === "list" && given === undefined ? undefined : namespaceFor(resource, given)
  return { request, resource, namespace, set }
}

export const apiCallKey = (operation: string, resource: ResourceType, scope: string): MetricKey => ({
  metric: "api_call",
  operation,
  resource: resource.plural,
  scope
})

/** The series an action's iterations go to: the API call itself, or the churn iteration. */
export const keyOf = (r: ResolvedRequest): MetricKey => {
  const verb = r.request.verb
  if (verb === "churn") return { metric: "iteration", operation: "CHURN", resource: r.resource.plural, scope: "resource" }
  const scope = verb === "list" ? (r.namespace === undefined || !r.resource.namespaced ? "cluster" : "namespace") : "resource"
  return apiCallKey(verbOperation[verb], r.resource, scope)
}

const stamp = () => Effect.map(nowMillis, (t) => ({ [WrittenAtAnnotation]: String(Math.round(t)) }))

/** Build the per-iteration operation for a resolved request. */
export const makeOperation = (
  env: RunEnv,
  r: ResolvedRequest,
  actionName: string,
  /** Per-action counters for the report: list `pages` and `items`. */
  counts: Record<string, number> = {}
): Operation<ClientError, ApiClient | LatencyRecorder> => {
  const { request: q, resource, namespace, set } = r
  const pickName = (): string => {
    if (q.name !== undefined) return q.name
    const count = Math.max(1, set!.count)
    return `${setNamePrefix(set!)}${Math.floor(env.random() * count)}`
  }
  const template = q.template ?? set?.template
  const ackWrite = (obj: KObject) =>
    Effect.map(nowMillis, (t) => env.writes.ack(WriteLog.key(obj.metadata.namespace, obj.metadata.name, obj.metadata.resourceVersion), t))
  const counted = <A, E, R>(e: Effect.Effect<A, E, R>) =>
    Effect.tapBoth(e, {
      onSuccess: () => Effect.sync(() => void env.progress.ops++),
      onFailure: (err) => Effect.sync(() => env.progress.error(actionName, err))
    })
  /**
   * GET and DELETE read nothing of the answer but its status: over HTTP it is measured, not decoded (`measure`);
   * other clients answer with the object. Over HTTP without a credential source they also come in callback form
   * (`direct`): one request per iteration with no Effect around it (docs/benchmarks.md, "Load generator").
   */
  const measured = (verb: "GET" | "DELETE"): Operation<ClientError, ApiClient> => {
    const opts = { namespace, resourceVersion: verb === "GET" ? q.resourceVersion : undefined }
    const effectForm = (ctx: IterationContext): Effect.Effect<void, ClientError, ApiClient> =>
      counted(
        Effect.flatMap(ApiClient, (api) =>
          Effect.zipRight(
            ctx.markSent,
            Effect.asVoid<unknown, ClientError, never>(
              isMeasuring(api) ? api.measure(verb, resource, pickName(), opts) : verb === "GET" ? api.get(resource, pickName(), opts) : api.delete(resource, pickName(), { namespace })
            )
          )
        )
      )
    const direct = Effect.flatMap(ApiClient, (api) =>
      !isMeasuring(api)
        ? Effect.succeed(undefined)
        : Effect.map(
            api.directMeasure(verb, resource, opts),
            (measure): DirectIteration<ClientError> | undefined =>
              measure &&
              ((_iteration, _intendedStart, done) =>
                measure(pickName(), (failure) => {
                  if (failure === undefined) env.progress.ops++
                  else env.progress.error(actionName, failure)
                  done(failure)
                }))
          )
    )
    return Object.assign(effectForm, { direct })
  }

  const body = (ctx: IterationContext): Effect.Effect<void, ClientError, ApiClient | LatencyRecorder> =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      switch (q.verb) {
        case "list": {
          yield* ctx.markSent
          let cont: string | undefined
          do {
            const page = yield* api.list(resource, {
              namespace,
              limit: q.limit,
              continue: cont,
              // a continued page carries its rv in the token
              resourceVersion: cont === undefined ? q.resourceVersion : undefined,
              resourceVersionMatch: cont === undefined ? q.resourceVersionMatch : undefined,
              labelSelector: q.labelSelector,
              fieldSelector: q.fieldSelector
            })
            counts.pages = (counts.pages ?? 0) + 1
            counts.items = (counts.items ?? 0) + page.items.length
            cont = q.limit !== undefined && page.metadata?.continue ? page.metadata.continue : undefined
          } while (cont !== undefined)
          return
        }
        case "create": {
          const name = `${env.runTag}-${actionName}-${ctx.iteration}`
          const obj = objectFromTemplate(template, name, namespace, yield* stamp())
          yield* ctx.markSent
          const res = yield* api.create(resource, obj, { namespace })
          yield* ackWrite(res.object)
          return
        }
        case "update": {
          const current = yield* api.get(resource, pickName(), { namespace })
          const ann = { ...(current.metadata.annotations ?? {}), ...(yield* stamp()) }
          yield* ctx.markSent
          const res = yield* api.update(resource, { ...current, metadata: { ...current.metadata, annotations: ann } }, { namespace })
          yield* ackWrite(res.object)
          return
        }
        case "patch": {
          yield* ctx.markSent
          const res = yield* api.patch(resource, pickName(), "merge", { metadata: { annotations: yield* stamp() } }, { namespace })
          yield* ackWrite(res.object)
          return
        }
        case "churn": {
          // create one, delete the one from `keep` iterations ago: a steady live set with constant churn
          const recorder = yield* LatencyRecorder
          const keep = q.keep ?? 10
          const name = (i: number) => `${env.runTag}-${actionName}-${i}`
          const obj = objectFromTemplate(template, name(ctx.iteration), namespace, yield* stamp())
          yield* ctx.markSent
          const sent = yield* nowMillis
          const created = yield* Effect.exit(api.create(resource, obj, { namespace }))
          const createdAt = yield* nowMillis
          yield* recorder.record(apiCallKey("POST", resource, "resource"), {
            intendedStart: ctx.intendedStart,
            sentAt: sent,
            completedAt: createdAt,
            ok: created._tag === "Success",
            ...(created._tag === "Failure" && isConnectionFailure(Option.getOrUndefined(Cause.failureOption(created.cause))) ? { connectionError: true } : {}),
            model: "open"
          })
          if (created._tag === "Success") yield* ackWrite(created.value.object)
          if (ctx.iteration >= keep) {
            const deleted = yield* Effect.exit(api.delete(resource, name(ctx.iteration - keep), { namespace }))
            const deletedAt = yield* nowMillis
            yield* recorder.record(apiCallKey("DELETE", resource, "resource"), {
              intendedStart: createdAt,
              sentAt: createdAt,
              completedAt: deletedAt,
              ok: deleted._tag === "Success",
              ...(deleted._tag === "Failure" && isConnectionFailure(Option.getOrUndefined(Cause.failureOption(deleted.cause))) ? { connectionError: true } : {}),
              model: "open"
            })
            if (deleted._tag === "Failure") return yield* deleted
          }
          if (created._tag === "Failure") return yield* created
          return
        }
      }
    })
  if (q.verb === "get") return measured("GET")
  if (q.verb === "delete") return measured("DELETE")
  return (ctx) => counted(body(ctx))
}
