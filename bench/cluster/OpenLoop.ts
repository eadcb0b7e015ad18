/**
 * An open-model arrival loop: `request` forked every `intervalMs` in the caller's scope, whatever the previous one's
 * latency. A tick yields nothing, on purpose: `Effect.repeat` hands each repetition's output to the next as
 * `Schedule.CurrentIterationMetadata.input`, which every fiber forked in that repetition inherits in its context. Had
 * a tick returned its fiber, each request's fiber would hold the one before it, and none of 100 GETs a second would
 * ever be collected (docs/benchmarks.md "With clients": the live heap grew 12 MiB per virtual minute).
 */
import { Effect, Schedule, type Scope } from "effect"

export const forkEvery = <E, R>(intervalMs: number, request: Effect.Effect<void, E, R>): Effect.Effect<number, never, R | Scope.Scope> =>
  Effect.repeat(Effect.asVoid(Effect.forkScoped(request)), Schedule.spaced(intervalMs))
