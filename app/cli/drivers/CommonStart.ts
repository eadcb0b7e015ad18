/**
 * The common start of a segment's measured part (docs/distributed.md "One start"), for every driver that runs
 * segments: `--start-at` given, or agreed with the other segments through the target (`--rendezvous`,
 * src/loadgen/Rendezvous.ts) after this machine's clock skew to the target is estimated from its `Date` headers
 * (src/loadgen/ClockSkew.ts). A segment that fails to agree still has a place, so that its artifact names it in a merge.
 */
import { Duration, Effect, Either } from "effect"
import type { ApiClient } from "../../../src/client/ApiClient.js"
import { dateSamples } from "../../../src/client/Probe.js"
import type { SegmentPlace } from "../../../src/loadgen/Artifact.js"
import { correctionOf, estimateSkew } from "../../../src/loadgen/ClockSkew.js"
import { type ExecutionSegment, placeOf } from "../../../src/loadgen/ExecutionSegment.js"
import { nowMillis } from "../../../src/loadgen/LatencyRecorder.js"
import { rendezvous, type RendezvousFailed } from "../../../src/loadgen/Rendezvous.js"
import type { DriverInput } from "./Driver.js"

export interface AgreedStart {
  /** The instant on the target's clock every segment agreed on (epoch ms); `--start-at`'s when given. */
  readonly agreedStartMs: number | undefined
  /** The same instant on this machine's clock: what it waits for. */
  readonly localStartAtMs: number | undefined
  readonly clockSkewMs?: number
}

/** The start agreed with the other segments (or given); `Left` with the place of a segment that failed to agree. */
export const agreeOnStart = (
  i: DriverInput,
  own: ExecutionSegment
): Effect.Effect<Either.Either<AgreedStart, { readonly error: RendezvousFailed; readonly place: SegmentPlace }>, never, ApiClient> =>
  Effect.gen(function* () {
    if (i.rendezvous === undefined) return Either.right({ agreedStartMs: undefined, localStartAtMs: i.startAtMs })
    const probeTarget = i.target._tag === "url" ? i.target.options : undefined
    const skew = probeTarget ? estimateSkew(yield* dateSamples(probeTarget)) : undefined
    const clockSkewMs = skew?.skewMs
    const skewed = clockSkewMs !== undefined ? { clockSkewMs } : {}
    const agreed = yield* Effect.either(rendezvous({ ...i.rendezvous, segment: own, skewMs: correctionOf(skew) }))
    if (Either.isLeft(agreed)) return Either.left({ error: agreed.left, place: { ...placeOf(own), startAtMs: 0, startLagMs: 0, ...skewed } })
    // the instant every segment agreed on is the target's; this machine waits for it on its own clock
    return Either.right({ agreedStartMs: agreed.right.startAtMs, localStartAtMs: agreed.right.localStartAtMs, ...skewed })
  })

/** Sleeps until an epoch instant on the run's clock (at once when it has passed). */
export const untilInstant = (atMs: number) => Effect.flatMap(nowMillis, (now) => Effect.sleep(Duration.millis(Math.max(0, atMs - now))))
