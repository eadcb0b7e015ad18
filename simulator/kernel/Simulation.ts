/**
 * The driver of virtual time. It forks effects onto a runtime whose `Clock` is a `VirtualClock` and whose
 * `Scheduler` is a `VirtualScheduler`, then repeats: pop the earliest timer, move the clock to it, fire it, drain
 * the run queue until every woken fiber is suspended again. All of it synchronous: no event-loop hop per event.
 *
 *   const sim = Simulation.make({ seed: 42 })
 *   sim.fork(nodeShard)
 *   sim.runFor("1 hour", { progressEvery: "10 minutes", onProgress: (p) => log(p.now) })
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Random from "effect/Random"
import * as Runtime from "effect/Runtime"
import * as SeededRandom from "./SeededRandom.js"
import * as VirtualClock from "./VirtualClock.js"
import * as VirtualScheduler from "./VirtualScheduler.js"

/** A snapshot handed to `onProgress` at every `progressEvery` boundary of virtual time, and at the target. */
export interface Progress {
  /** Virtual clock reading (ms). */
  readonly now: number
  /** Where this run started and where it goes (ms). */
  readonly from: number
  readonly target: number
  /** Totals since `make`. */
  readonly timersFired: number
  readonly tasksRun: number
  readonly pendingTimers: number
}

export interface RunOptions {
  /** Virtual time between two `onProgress` calls. */
  readonly progressEvery?: Duration.DurationInput
  readonly onProgress?: (progress: Progress) => void
}

export interface Options extends RunOptions {
  /** Root seed of `SeededRandom` and of Effect's `Random`. Default 0. */
  readonly seed?: number
  /** Clock reading at the start (epoch ms). Default 0. */
  readonly startMillis?: number
  /**
   * Timers fired plus tasks run without time moving before the driver gives up with a livelock defect (a fiber
   * that yields or sleeps 0 forever would otherwise hang the process). Default 2,000,000.
   */
  readonly maxStepsPerInstant?: number
}

export interface RunResult {
  readonly now: number
  /** In this run. */
  readonly timersFired: number
  readonly tasksRun: number
  /** True if `stop()` ended the run before the target. */
  readonly stopped: boolean
}

export interface Simulation {
  readonly clock: VirtualClock.VirtualClock
  readonly scheduler: VirtualScheduler.VirtualScheduler
  readonly random: SeededRandom.SeededRandomService
  /** Runtime with the virtual Clock, Scheduler and seeded Random; `SeededRandom` in context. */
  readonly runtime: Runtime.Runtime<SeededRandom.SeededRandom>
  /** Virtual clock reading (ms). */
  now(): number
  pendingTimers(): number
  /** Starts `effect` on the virtual runtime. It runs when the driver next runs (`runUntil`/`runFor`). */
  fork<A, E>(effect: Effect.Effect<A, E, SeededRandom.SeededRandom>): Fiber.RuntimeFiber<A, E>
  /**
   * Advances virtual time to `millis` (clock reading), firing every timer due up to and including it. With no
   * timers left the clock jumps straight to `millis`. Not re-entrant: never call it from a simulated fiber.
   */
  runUntil(millis: number, options?: RunOptions): RunResult
  runFor(duration: Duration.DurationInput, options?: RunOptions): RunResult
  /**
   * Forks `effect` and runs until it exits (or `maxDuration` of virtual time passed, default unbounded while timers
   * remain); returns its exit, or `undefined` if it has not finished.
   */
  run<A, E>(
    effect: Effect.Effect<A, E, SeededRandom.SeededRandom>,
    options?: RunOptions & { readonly maxDuration?: Duration.DurationInput }
  ): Exit.Exit<A, E> | undefined
  /** Ends the current run after the event in progress (callable from a fiber or from `onProgress`). */
  stop(): void
  /** Interrupts every fiber started with `fork` that is still running, and drains the run queue. */
  interruptAll(): void
}

class SimulationImpl implements Simulation {
  readonly clock: VirtualClock.VirtualClock
  readonly scheduler = VirtualScheduler.make()
  readonly random: SeededRandom.SeededRandomService
  readonly runtime: Runtime.Runtime<SeededRandom.SeededRandom>
  private readonly fibers = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
  private readonly maxStepsPerInstant: number
  private readonly defaults: RunOptions
  private timersFired = 0
  private tasksRun = 0
  private stepsAtInstant = 0
  private running = false
  private stopRequested = false

  constructor(options: Options) {
    const seed = options.seed ?? 0
    this.clock = VirtualClock.make({ startMillis: options.startMillis ?? 0 })
    this.random = SeededRandom.make(seed)
    this.maxStepsPerInstant = options.maxStepsPerInstant ?? 2_000_000
    this.defaults = options
    const services = DefaultServices.liveServices.pipe(
      Context.add(Clock.Clock, this.clock),
      Context.add(Random.Random, SeededRandom.effectRandom(seed))
    )
    const owner = FiberId.unsafeMake()
    const fiberRefs = FiberRefs.updateManyAs(FiberRefs.empty(), {
      forkAs: owner,
      entries: [
        [DefaultServices.currentServices, [[owner, services]]],
        [FiberRef.currentScheduler, [[owner, this.scheduler]]]
      ]
    })
    this.runtime = Runtime.make({
      context: Context.make(SeededRandom.SeededRandom, this.random),
      runtimeFlags: Runtime.defaultRuntimeFlags,
      fiberRefs
    })
  }

  now(): number {
    return this.clock.unsafeCurrentTimeMillis()
  }

  pendingTimers(): number {
    return this.clock.timers.size
  }

  fork<A, E>(effect: Effect.Effect<A, E, SeededRandom.SeededRandom>): Fiber.RuntimeFiber<A, E> {
    // immediate: false queues the fiber's first step on the virtual run queue instead of running it here.
    const fiber = Runtime.runFork(this.runtime, effect, { immediate: false, scheduler: this.scheduler })
    this.fibers.add(fiber)
    fiber.addObserver(() => this.fibers.delete(fiber))
    return fiber
  }

  runFor(duration: Duration.DurationInput, options?: RunOptions): RunResult {
    return this.runUntil(this.now() + Duration.toMillis(duration), options)
  }

  runUntil(target: number, options: RunOptions = {}): RunResult {
    if (this.running) throw new Error("Simulation.runUntil is not re-entrant (called from inside the simulation?)")
    this.running = true
    this.stopRequested = false
    const clock = this.clock
    const timers = clock.timers
    const from = clock.unsafeCurrentTimeMillis()
    const firedBefore = this.timersFired
    const ranBefore = this.tasksRun
    const onProgress = options.onProgress ?? this.defaults.onProgress
    const everyInput = options.progressEvery ?? this.defaults.progressEvery
    const every = onProgress && everyInput !== undefined ? Duration.toMillis(everyInput) : Infinity
    if (!(every > 0)) throw new Error("Simulation: progressEvery must be positive")
    let nextReport = from + every
    let lastReported = NaN
    const report = (now: number) => {
      lastReported = now
      onProgress!({
        now,
        from,
        target,
        timersFired: this.timersFired,
        tasksRun: this.tasksRun,
        pendingTimers: timers.size
      })
    }
    try {
      this.settle()
      while (!this.stopRequested) {
        const top = timers.peek()
        const due = top === undefined ? Infinity : top.time
        // Nothing left to fire and no finite target: the run is over (the rest would be an endless wait).
        if (due === Infinity && target === Infinity) break
        if (nextReport <= target && nextReport <= due) {
          // Nothing happens between the last event and the boundary, so the clock may stand on it.
          clock.unsafeAdvanceTo(nextReport)
          report(nextReport)
          nextReport += every
          continue
        }
        if (due > target) break
        timers.pop()
        if (due > clock.unsafeCurrentTimeMillis()) {
          clock.unsafeAdvanceTo(due)
          this.stepsAtInstant = 0
        }
        this.timersFired++
        this.stepsAtInstant++
        top!.task()
        this.settle()
      }
      if (!this.stopRequested && Number.isFinite(target)) {
        if (target > clock.unsafeCurrentTimeMillis()) this.stepsAtInstant = 0
        clock.unsafeAdvanceTo(target)
        if (onProgress && lastReported !== target && every !== Infinity) report(clock.unsafeCurrentTimeMillis())
      }
    } finally {
      this.running = false
    }
    return {
      now: clock.unsafeCurrentTimeMillis(),
      timersFired: this.timersFired - firedBefore,
      tasksRun: this.tasksRun - ranBefore,
      stopped: this.stopRequested
    }
  }

  run<A, E>(
    effect: Effect.Effect<A, E, SeededRandom.SeededRandom>,
    options: RunOptions & { readonly maxDuration?: Duration.DurationInput } = {}
  ): Exit.Exit<A, E> | undefined {
    const fiber = this.fork(effect)
    fiber.addObserver(() => this.stop())
    const limit = options.maxDuration === undefined ? Infinity : this.now() + Duration.toMillis(options.maxDuration)
    this.runUntil(limit, options)
    return fiber.unsafePoll() ?? undefined
  }

  stop(): void {
    this.stopRequested = true
  }

  interruptAll(): void {
    for (const fiber of Array.from(this.fibers)) fiber.unsafeInterruptAsFork(FiberId.none)
    this.settle()
  }

  /** Drains the run queue: every fiber woken at this instant runs until it suspends again. */
  private settle(): void {
    const ran = this.scheduler.drain(Math.max(0, this.maxStepsPerInstant - this.stepsAtInstant))
    this.tasksRun += ran
    this.stepsAtInstant += ran
    if (this.scheduler.size > 0) {
      throw new Error(
        `Simulation: livelock, more than ${this.maxStepsPerInstant} steps at virtual time ${this.now()} ms ` +
          "(a fiber yielding or sleeping 0 forever?)"
      )
    }
  }
}

export const make = (options: Options = {}): Simulation => new SimulationImpl(options)
