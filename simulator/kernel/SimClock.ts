/**
 * Which time the components live in. Component code only uses `Effect.sleep`, `Clock.currentTimeMillis`,
 * `Schedule…`; these layers decide whether that is virtual time (driven by `Simulation`) or the wall clock (`serve`).
 *
 * This file is the one place allowed to touch the wall clock (see test/kernel/no-wall-clock.test.ts); it does so only
 * through Effect's live `Clock` and default `Scheduler`.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Scheduler from "effect/Scheduler"

/** What a virtual-time kernel hands to `layerVirtual`; a `Simulation` is one. */
export interface VirtualKernel {
  readonly clock: Clock.Clock
  readonly scheduler: Scheduler.Scheduler
}

/**
 * Runs the provided effect on the kernel's virtual clock and run queue. Fibers started with `Simulation.fork`
 * already have both; this layer is for wiring an effect started some other way (whose first steps, until the
 * layer is built, still run on the scheduler it was started on).
 */
export const layerVirtual = (kernel: VirtualKernel): Layer.Layer<never> => layerTime(kernel.clock, kernel.scheduler)

/** Wall-clock time and Effect's default event-loop scheduler, for `serve`. */
export const layerReal: Layer.Layer<never> = layerTime(Clock.make(), Scheduler.defaultScheduler)

/**
 * One layer setting both fiber refs. Not `Layer.merge`: that builds its halves on two forked fibers, an async step
 * that would run on whichever scheduler is current, so e.g. `layerReal` inside a simulated fiber would wait on the
 * virtual run queue.
 */
function layerTime(clock: Clock.Clock, scheduler: Scheduler.Scheduler): Layer.Layer<never> {
  return Layer.scopedDiscard(
    Effect.zipRight(
      Effect.locallyScopedWith(DefaultServices.currentServices, Context.add(Clock.Clock, clock)),
      Effect.locallyScoped(FiberRef.currentScheduler, scheduler)
    )
  )
}

/**
 * Runs `onExpiry` after `ms` of real time unless cancelled first (the returned function). For what happens on real
 * sockets — a peer that never closes or never finishes a handshake — which no simulated clock governs.
 */
export const afterRealDelay = (ms: number, onExpiry: () => void): (() => void) => {
  const handle = setTimeout(onExpiry, ms) // wall-clock-ok
  return () => clearTimeout(handle)
}

/** Gives the host event loop a turn (a `setImmediate`): signal handlers and timers of the real process run. */
export const yieldToHost: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void)) // wall-clock-ok
  return Effect.sync(() => clearImmediate(handle)) // wall-clock-ok
})
