/**
 * An open-model arrival loop: `request` started every `intervalMs`, whatever the previous one's latency; the ones
 * still running are interrupted with the loop. The ticks are plain timers (`simulator/kernel/Timers.ts`) and each
 * request a fiber of its own: no loop fiber to wake, fork from and join per tick, which was a third of a modelled
 * GET's cost (`bench/getPath.ts`, docs/benchmarks.md "With clients").
 *
 * Nothing a tick does reaches the next tick's fibers: each starts from the loop's runtime alone. (`Effect.repeat`
 * would hand each repetition's output to the next as `Schedule.CurrentIterationMetadata.input`, which every fiber
 * forked in that repetition inherits: had a tick returned its fiber, each request's fiber would hold the one before
 * it, and none of 100 GETs a second would ever be collected.)
 */
import { Effect, Fiber, Runtime } from "effect"
import type { RuntimeFiber } from "effect/Fiber"
import { timers } from "../../simulator/kernel/Timers.js"

export const forkEvery = <E, R>(intervalMs: number, request: Effect.Effect<void, E, R>): Effect.Effect<never, never, R> =>
  everyTick(intervalMs, () => request)

/** What a tick of `everyTick` is given: the clock's reading, and timers that stop with the loop. */
export interface Tick {
  readonly now: number
  /** Runs `task` after `delayMillis` of the clock's time, unless the loop was interrupted before. */
  readonly later: (delayMillis: number, task: () => void) => void
}

/**
 * `forkEvery` for requests that are mostly done without a fiber: on each tick `request` runs as a forked request's
 * first step would (at once, on the tick), and either finishes the request itself — a request answered at once is
 * taken at its end with `tick.later` (a modelled GET, `ApfTimedClient.getAt`) — and returns undefined, or returns the
 * effect of the rest, forked as `forkEvery` forks. A fiber, its sleep and wake-up per request were most of a modelled
 * GET's cost in the hour with clients (docs/benchmarks.md "With clients").
 */
export const everyTick = <E, R>(intervalMs: number, request: (tick: Tick) => Effect.Effect<void, E, R> | undefined): Effect.Effect<never, never, R> =>
  Effect.flatMap(Effect.zip(timers, Effect.runtime<R>()), ([clock, runtime]) => {
    const start = Runtime.runFork(runtime)
    const running = new Set<RuntimeFiber<void, E>>()
    let stopped = false
    const tickOf: Tick = {
      get now() {
        return clock.now()
      },
      later: (delayMillis, task) =>
        void clock.after(delayMillis, () => {
          if (!stopped) task()
        })
    }
    let cancelTick = (): void => {}
    const tick = (): void => {
      const rest = request(tickOf)
      if (rest !== undefined) {
        const fiber = start(rest)
        running.add(fiber)
        fiber.addObserver(() => running.delete(fiber))
      }
      cancelTick = clock.after(intervalMs, tick)
    }
    return Effect.zipRight(
      Effect.sync(tick),
      Effect.onInterrupt(Effect.never, () =>
        Effect.zipRight(
          Effect.sync(() => {
            stopped = true
            cancelTick()
          }),
          Fiber.interruptAll([...running])
        )
      )
    )
  })
