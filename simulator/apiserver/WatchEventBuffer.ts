/**
 * The events of one in-process watch waiting for their reader, and the pull (`src/client/WatchPull.ts`) and `Stream`
 * that read them: an array and at most one parked reader, woken once per batch. An Effect `Queue` read through `Stream.fromQueue` + `Stream.takeWhile`
 * made a `Deferred` per wait and sent each chunk through two channel stages; the 5,000 per-node reflectors of the
 * hour with clients read every pod change this way (docs/benchmarks.md "With clients"). Not shared: one writer (the
 * hub, synchronously), one reader (the watch's stream).
 */
import { Chunk, Effect, FiberRef, Option, Stream } from "effect"
import type { WatchEvent } from "../../src/api/Object.js"
import { offersTaking, type TakeBatch, type WatchPull } from "../../src/client/WatchPull.js"
import { VirtualScheduler } from "../kernel/VirtualScheduler.js"

/** A reader parked with a `TakeBatch` (see `pullTaking`). */
interface TakingReader {
  readonly take: TakeBatch
  readonly scheduler: VirtualScheduler
  readonly priority: number
  /** Wakes the parked fiber. */
  readonly resume: () => void
  /** Wakes the parked fiber with a defect `take` threw, as its own step would have died of it. */
  readonly die: (defect: unknown) => void
  /** The run-queue task that stands in for the fiber's step. */
  readonly task: () => void
}

export class WatchEventBuffer {
  private events: Array<WatchEvent> = []
  private ended = false
  private wake: (() => void) | undefined = undefined

  /** Events waiting for the reader. */
  get size(): number {
    return this.events.length
  }

  push(event: WatchEvent): void {
    if (this.ended) return
    this.events.push(event)
    this.wakeReader()
  }

  /** The stream ends after the events already pushed. */
  end(): void {
    if (this.ended) return
    this.ended = true
    this.wakeReader()
  }

  /** Every waiting event in one chunk, the reader parked while there are none; fails with `None` after `end()`. */
  readonly pull: Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<never>> = Effect.suspend(() =>
    this.events.length > 0 || this.ended ? this.takeAll() : Effect.zipRight(this.waitForMore(), Effect.suspend(() => this.takeAll()))
  )

  /** `pull` as a stream. */
  readonly stream: Stream.Stream<WatchEvent> = Stream.repeatEffectChunkOption(this.pull)

  constructor() {
    offersTaking(this.pull, (take) => this.pullTaking(take))
  }

  /**
   * `pull`, but while the reader is parked on a virtual scheduler, the batch it would have been woken for is offered
   * to `take` in a plain run-queue task, queued where the fiber's wake would have been: taken, the fiber sleeps on (a
   * per-node reflector's bookmarks and pod events, docs/benchmarks.md "With clients"); refused, or at the end, the
   * fiber runs there and then, within that task (`VirtualScheduler.runInline`), and reads as `pull` reads. Each event
   * is handled at the same instant and in the same order of the run queue as through `pull`.
   */
  pullTaking(take: TakeBatch): WatchPull {
    return Effect.suspend(() =>
      this.events.length > 0 || this.ended ? this.takeAll() : Effect.zipRight(this.waitTaking(take), Effect.suspend(() => this.takeAll()))
    )
  }

  private takeAll(): Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<never>> {
    if (this.events.length === 0) return Effect.fail(Option.none())
    const taken = this.events
    this.events = []
    return Effect.succeed(Chunk.unsafeFromArray(taken))
  }

  private waitForMore(): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      this.wake = () => resume(Effect.void)
      return Effect.sync(() => void (this.wake = undefined))
    })
  }

  private waitTaking(take: TakeBatch): Effect.Effect<void> {
    return Effect.withFiberRuntime((fiber) => {
      const scheduler = fiber.currentScheduler
      if (!(scheduler instanceof VirtualScheduler)) return this.waitForMore()
      const priority = fiber.getFiberRef(FiberRef.currentSchedulingPriority)
      return Effect.async<void>((resume) => {
        const reader: TakingReader = {
          take,
          scheduler,
          priority,
          resume: () => resume(Effect.void),
          die: (defect) => resume(Effect.die(defect)),
          task: () => this.runTaking(reader)
        }
        this.taking = reader
        this.wake = () => scheduler.scheduleTask(reader.task, priority)
        return Effect.sync(() => {
          if (this.taking !== reader) return
          this.taking = undefined
          this.wake = undefined
        })
      })
    })
  }

  /** The reader parked in `waitTaking`, while it is. */
  private taking: TakingReader | undefined = undefined

  /** The task queued instead of the parked fiber's wake (`pullTaking`). */
  private runTaking(reader: TakingReader): void {
    if (this.taking !== reader) return // the fiber stopped waiting (interrupted)
    while (this.events.length > 0 && !this.ended) {
      const taken = this.events
      this.events = []
      let handled: boolean
      try {
        handled = reader.take(Chunk.unsafeFromArray(taken))
      } catch (defect) {
        this.taking = undefined
        this.wake = undefined
        return reader.scheduler.runInline(() => reader.die(defect))
      }
      if (!handled) {
        // refused untouched: the batch is the fiber's, as it would have been
        this.events = taken
        break
      }
    }
    if (this.events.length === 0 && !this.ended) {
      this.wake = () => reader.scheduler.scheduleTask(reader.task, reader.priority)
      return
    }
    this.taking = undefined
    this.wake = undefined
    reader.scheduler.runInline(reader.resume)
  }

  private wakeReader(): void {
    const wake = this.wake
    if (wake === undefined) return
    this.wake = undefined
    wake()
  }
}
