/**
 * One start for the segments of a distributed run, agreed through the target itself (docs/distributed.md): a
 * ConfigMap `clustersim-rendezvous-ID` in the scenario's rendezvous namespace. Each segment adds its key
 * (`segment-2: <when>`, by merge patch, so concurrent registrations never conflict); once all n keys are there, the
 * first segment to see it writes `startAt` = the target's now + the margin, guarded by the resourceVersion it read, so
 * exactly one writer wins and every segment reads the same instant. Instants in the ConfigMap are the target's clock;
 * each segment converts with its own measured skew (./ClockSkew.ts). A segment missing at the deadline fails every
 * segment that waited, naming it. The ConfigMap also holds the plan (`segments`, `sequence`): a segment of another
 * plan is refused, and writes why as `refused`, so the segments waiting there fail with it before any load — k6 too
 * needs every segment to have the same `--execution-segment-sequence`.
 */
import { Clock, Data, Duration, Effect } from "effect"
import { ConfigMaps, Namespaces } from "../api/Resources.js"
import { ApiClient } from "../client/ApiClient.js"
import { type ClientError, hasStatusCode } from "../client/TransportError.js"
import { type ExecutionSegment, segmentText, sequenceText } from "./ExecutionSegment.js"

export class RendezvousFailed extends Data.TaggedError("RendezvousFailed")<{ readonly message: string }> {}

export interface RendezvousPlan {
  /** Shared by every segment of the run (a Job's name): the ConfigMap's name is made from it. */
  readonly id: string
  readonly namespace: string
  readonly segment: ExecutionSegment
  /** From the moment all segments are there to the start. */
  readonly marginMs: number
  /** How long a segment waits for the others. */
  readonly timeoutMs: number
  /** Our clock minus the target's (./ClockSkew.ts); 0 when unknown. */
  readonly skewMs: number
  readonly pollMs?: number
}

/** The ConfigMap's name: `clustersim-rendezvous-` and the id as a DNS subdomain. */
export const rendezvousName = (id: string): string =>
  `clustersim-rendezvous-${id.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "")}`.slice(0, 253).replace(/[-.]+$/, "")

const keyOf = (index: number) => `segment-${index + 1}`

const registered = (data: Readonly<Record<string, string>>, count: number): ReadonlyArray<number> =>
  Array.from({ length: count }, (_, i) => i).filter((i) => data[keyOf(i)] !== undefined)

const dataOf = (o: unknown): Record<string, string> => ((o as { data?: Record<string, string> }).data ?? {}) as Record<string, string>

const failed = (plan: RendezvousPlan, what: string) => new RendezvousFailed({ message: `rendezvous ${plan.namespace}/${rendezvousName(plan.id)}: ${what}` })

const clientFailure = (plan: RendezvousPlan, doing: string) => (e: ClientError) => failed(plan, `${doing}: ${e.message}`)

/** The agreed start: as written (the target's clock) and on this machine's clock (epoch ms). */
export interface AgreedStart {
  readonly startAtMs: number
  readonly localStartAtMs: number
}

/** Registers this segment, waits for the others and the start. */
export const rendezvous = (plan: RendezvousPlan): Effect.Effect<AgreedStart, RendezvousFailed, ApiClient> =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const name = rendezvousName(plan.id)
    const count = plan.segment.count
    const scope = { namespace: plan.namespace }
    const targetNow = Effect.map(Clock.currentTimeMillis, (t) => t - plan.skewMs)
    const me = keyOf(plan.segment.index)
    const sequence = sequenceText(plan.segment)
    /** This segment cannot be one of the run registered there: said to the segments waiting too, then failed. */
    const refuse = (what: string) =>
      Effect.gen(function* () {
        const refusal = failed(plan, what)
        yield* Effect.ignore(api.patch(ConfigMaps, name, "merge", { data: { refused: refusal.message } }, scope))
        return yield* Effect.fail(refusal)
      })

    // the namespace may be the run's own; one that exists already (or that this user may not create) is fine
    yield* Effect.ignore(api.create(Namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: plan.namespace } }))
    const stamp = new Date(yield* targetNow).toISOString()
    const created = yield* Effect.either(
      api.create(ConfigMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: plan.namespace, labels: { "app.kubernetes.io/managed-by": "clustersim" } }, data: { segments: String(count), sequence, [me]: stamp } }, scope)
    )
    if (created._tag === "Left") {
      if (!hasStatusCode(created.left, 409)) return yield* Effect.fail(clientFailure(plan, "cannot create it")(created.left))
      const existing = yield* Effect.mapError(api.get(ConfigMaps, name, scope), clientFailure(plan, "cannot read it"))
      const data = dataOf(existing)
      if (data.refused !== undefined) return yield* Effect.fail(new RendezvousFailed({ message: data.refused }))
      if (data.segments !== String(count)) return yield* refuse(`it is for ${data.segments ?? "an unknown number of"} segments, this one is ${segmentText(plan.segment)}`)
      if (data.sequence !== undefined && data.sequence !== sequence) {
        return yield* refuse(`segment ${segmentText(plan.segment)} is a part of the sequence ${sequence}, but the segments there are parts of ${data.sequence}: give every segment of the run the same --segment-sequence`)
      }
      if (data[me] !== undefined || data.startAt !== undefined) {
        return yield* Effect.fail(failed(plan, `segment ${segmentText(plan.segment)} is registered there already: left by an earlier run? Delete it or choose another rendezvous id`))
      }
      yield* Effect.mapError(api.patch(ConfigMaps, name, "merge", { data: { [me]: stamp } }, scope), clientFailure(plan, "cannot register"))
    }

    const deadline = (yield* Clock.currentTimeMillis) + plan.timeoutMs
    for (;;) {
      const current = yield* Effect.mapError(api.get(ConfigMaps, name, scope), clientFailure(plan, "cannot read it"))
      const data = dataOf(current)
      if (data.refused !== undefined) return yield* Effect.fail(new RendezvousFailed({ message: data.refused }))
      if (data.startAt !== undefined) {
        const start = Date.parse(data.startAt)
        if (Number.isNaN(start)) return yield* Effect.fail(failed(plan, `startAt ${JSON.stringify(data.startAt)} is not a time`))
        return { startAtMs: start, localStartAtMs: start + plan.skewMs }
      }
      const present = registered(data, count)
      if (present.length === count) {
        const startAt = new Date((yield* targetNow) + plan.marginMs).toISOString()
        // guarded by the version read: of several segments seeing all n at once, one writes, the rest read its instant
        const updated = yield* Effect.either(api.update(ConfigMaps, { ...current, data: { ...data, startAt } } as never, scope))
        if (updated._tag === "Left" && !hasStatusCode(updated.left, 409)) return yield* Effect.fail(clientFailure(plan, "cannot write the start")(updated.left))
        continue
      }
      if ((yield* Clock.currentTimeMillis) >= deadline) {
        const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !present.includes(i))
        const named = missing.map((index) => segmentText({ ...plan.segment, index })).join(", ")
        return yield* Effect.fail(
          failed(plan, `segment${missing.length > 1 ? "s" : ""} ${named} did not register within ${Duration.format(Duration.millis(plan.timeoutMs))} (registered: ${present.map((index) => segmentText({ ...plan.segment, index })).join(", ") || "none"})`)
        )
      }
      yield* Effect.sleep(Duration.millis(plan.pollMs ?? 250))
    }
  })

/**
 * The rendezvous ConfigMap removed once the run is over (`run --segments n`, whose processes are all this one's
 * children, knows when that is): a finished run leaves nothing behind in the target. Already gone is fine.
 */
export const removeRendezvous = (id: string, namespace: string): Effect.Effect<void, ClientError, ApiClient> =>
  Effect.flatMap(ApiClient, (api) =>
    api.delete(ConfigMaps, rendezvousName(id), { namespace }).pipe(
      Effect.asVoid,
      Effect.catchIf((e) => hasStatusCode(e, 404), () => Effect.void)
    )
  )
