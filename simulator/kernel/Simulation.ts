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
import * as FiberLabel from "./FiberLabel.js"
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
  /**
   * Where the `progressEvery` boundaries fall: on `progressOrigin + k × progressEvery` (clock readings). Default: the
   * run's start. A caller that may stop a run between two boundaries keeps its boundaries on one grid with it.
   */
  readonly progressOrigin?: number
  /**
   * Called every `busyEvery` steps (timers fired plus tasks run) at one instant, between two tasks: a caller can show
   * progress, or `stop()` the run, while many events run without virtual time moving. A run stopped there continues
   * with the rest of the instant, in the same order, when it is run again.
   */
  readonly onBusy?: (progress: Busy) => void
  /** Steps at one instant between two `onBusy` calls. Default 10,000. */
  readonly busyEvery?: number
}

/** `onBusy`'s snapshot: the instant and how much ran at it so far. */
export interface Busy {
  /** Virtual clock reading (ms). */
  readonly now: number
  /** Timers fired plus tasks run at this instant. */
  readonly stepsAtInstant: number
}

/**
 * A run that stopped making progress: too much ran at one virtual instant (`maxStepsPerInstant`,
 * `maxBudgetYieldsPerInstant`). `culprit` names the busiest fiber (its `FiberLabel`) when there is one.
 */
export class Livelock extends Error {
  constructor(
    readonly at: number,
    readonly culprit: string | undefined,
    detail: string
  ) {
    super(`Simulation: livelock at virtual time ${at} ms: ${detail}`)
    this.name = "Livelock"
  }
}

export interface Options extends RunOptions {
  /** Root seed of `SeededRandom` and of Effect's `Random`. Default 0. */
  readonly seed?: number
  /** Clock reading at the start (epoch ms). Default 0. */
  readonly startMillis?: number
  /**
   * Timers fired plus tasks run without time moving before the driver gives up with a livelock defect (a fiber
   * that yields or sleeps 0 forever would otherwise hang the process). Default 500,000 (seconds of CPU; the shipped
   * scenarios' busiest instant takes some 21,000).
   */
  readonly maxStepsPerInstant?: number
  /**
   * Times a fiber used up Effect's operation budget (2048 operations without suspending) at one instant, over all
   * fibers, before the driver gives up with a `Livelock`: a loop that never sleeps (a period of 0) does nothing else,
   * and would take hours to reach `maxStepsPerInstant`. Default 5,000 (some 10 million operations, a few seconds of
   * CPU; the shipped scenarios' busiest instants use 12).
   */
  readonly maxBudgetYieldsPerInstant?: number
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
  /**
   * Interrupts every fiber started with `fork` that is still running, and drains the run queue. Daemons they forked
   * are not interrupted; one that still spins is left in the queue once the instant's budgets are spent (the
   * simulation is over, nothing runs it again).
   */
  interruptAll(): void
}

class SimulationImpl implements Simulation {
  readonly clock: VirtualClock.VirtualClock
  readonly scheduler = VirtualScheduler.make()
  readonly random: SeededRandom.SeededRandomService
  readonly runtime: Runtime.Runtime<SeededRandom.SeededRandom>
  private readonly fibers = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
  private readonly maxStepsPerInstant: number
  private readonly maxBudgetYieldsPerInstant: number
  /** `onBusy` of the run in progress, its period, and the step count at which it is called next. */
  private onBusy: ((progress: Busy) => void) | undefined = undefined
  private busyEvery = DefaultBusyEvery
  private nextBusy = DefaultBusyEvery
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
    this.maxStepsPerInstant = options.maxStepsPerInstant ?? 500_000
    this.maxBudgetYieldsPerInstant = options.maxBudgetYieldsPerInstant ?? 5_000
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
    const origin = options.progressOrigin ?? this.defaults.progressOrigin ?? from
    let nextReport = every === Infinity ? Infinity : origin + (Math.floor((from - origin) / every) + 1) * every
    this.onBusy = options.onBusy ?? this.defaults.onBusy
    const busyEvery = options.busyEvery ?? this.defaults.busyEvery ?? DefaultBusyEvery
    if (!(busyEvery > 0)) throw new Error("Simulation: busyEvery must be positive")
    if (busyEvery !== this.busyEvery) {
      this.busyEvery = busyEvery
      this.nextBusy = (Math.floor(this.stepsAtInstant / busyEvery) + 1) * busyEvery
    }
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
          this.newInstant()
        }
        this.timersFired++
        this.stepsAtInstant++
        top!.task()
        this.settle()
      }
      if (!this.stopRequested && Number.isFinite(target)) {
        if (target > clock.unsafeCurrentTimeMillis()) this.newInstant()
        clock.unsafeAdvanceTo(target)
        if (onProgress && lastReported !== target && every !== Infinity) report(clock.unsafeCurrentTimeMillis())
      }
    } finally {
      this.running = false
      this.onBusy = undefined
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
    // the interruptions get the instant's whole budgets (a run may have ended because it spent them)
    this.newInstant()
    this.settle(false)
  }

  /** The clock moved: the per-instant counts start again. */
  private newInstant(): void {
    this.stepsAtInstant = 0
    this.nextBusy = this.busyEvery
    this.scheduler.resetBudgetYields()
  }

  /**
   * Drains the run queue: every fiber woken at this instant runs until it suspends again. In chunks of at most
   * `busyEvery` steps, so that `onBusy` sees a busy instant, may stop the run within it (the rest of the queue then
   * runs first thing in the next run), and the budgets are checked while the instant lasts.
   */
  private settle(throwOnLivelock = true): void {
    const scheduler = this.scheduler
    for (;;) {
      // a task that ran out of its operation budget did the work of many: it counts as `BudgetYieldWeight` steps here
      const work = this.stepsAtInstant + scheduler.budgetYields * BudgetYieldWeight
      if (work >= this.nextBusy) {
        this.nextBusy = (Math.floor(work / this.busyEvery) + 1) * this.busyEvery
        this.onBusy?.({ now: this.now(), stepsAtInstant: this.stepsAtInstant })
        if (this.stopRequested) return
      }
      if (scheduler.size === 0) return
      if (this.stepsAtInstant >= this.maxStepsPerInstant) {
        if (!throwOnLivelock) return
        throw this.livelock(`more than ${this.maxStepsPerInstant} steps (timers fired and tasks run) without the clock moving (a fiber yielding or sleeping 0 forever?)`)
      }
      const chunk = Math.min(SettleChunk, this.maxStepsPerInstant - this.stepsAtInstant)
      const ran = scheduler.drain(chunk)
      this.tasksRun += ran
      this.stepsAtInstant += ran
      if (scheduler.budgetYields > this.maxBudgetYieldsPerInstant) {
        if (!throwOnLivelock) return
        throw this.livelock(
          `fibers ran out of their operation budget more than ${this.maxBudgetYieldsPerInstant} times (some ${this.maxBudgetYieldsPerInstant * 2048} operations) without the clock moving (a loop that never sleeps: a period of 0?)`
        )
      }
    }
  }

  private livelock(detail: string): Livelock {
    const busiest = this.scheduler.busiestFiber()
    const culprit = busiest === undefined ? undefined : (FiberLabel.labelOf(busiest[0]) ?? `fiber ${FiberId.threadName(busiest[0].id())}`)
    return new Livelock(this.now(), culprit, culprit === undefined ? detail : `${culprit} kept running; ${detail}`)
  }
}

/** Steps at one instant between two `onBusy` calls, by default. */
const DefaultBusyEvery = 10_000

/** A task that used up Effect's operation budget (2048 operations), in steps of `busyEvery`: ~20 ordinary tasks' work. */
const BudgetYieldWeight = 100

/** Tasks run between two looks at the budgets and the `onBusy` cadence. */
const SettleChunk = 256

export const make = (options: Options = {}): Simulation => new SimulationImpl(options)
