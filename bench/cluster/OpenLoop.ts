/**
 * An open-model arrival loop: `request` forked every `intervalMs`, whatever the previous one's latency, each as a
 * child of the loop's fiber (interrupted with it). One fiber sleeps from tick to tick and forks: no scope finalizer,
 * `Schedule` step or yield per tick, which made the loop alone cost more than the modelled GET it started
 * (`bench/getPath.ts`, docs/benchmarks.md "With clients").
 *
 * Nothing a tick does reaches the next tick's fibers. `Effect.repeat` would hand each repetition's output to the next
 * as `Schedule.CurrentIterationMetadata.input`, which every fiber forked in that repetition inherits in its context:
 * had a tick returned its fiber, each request's fiber would hold the one before it, and none of 100 GETs a second
 * would ever be collected (the live heap grew 12 MiB per virtual minute).
 */
import { Effect } from "effect"

export const forkEvery = <E, R>(intervalMs: number, request: Effect.Effect<void, E, R>): Effect.Effect<never, never, R> => {
  const tick = Effect.zipRight(Effect.fork(request), Effect.sleep(intervalMs))
  const loop: Effect.Effect<never, never, R> = Effect.flatMap(tick, () => loop)
  return loop
}
