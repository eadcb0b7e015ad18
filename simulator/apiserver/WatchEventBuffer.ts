/**
 * The events of one in-process watch waiting for their reader, and the pull (`src/client/WatchPull.ts`) and `Stream`
 * that read them: an array and at most one parked reader, woken once per batch. An Effect `Queue` read through `Stream.fromQueue` + `Stream.takeWhile`
 * made a `Deferred` per wait and sent each chunk through two channel stages; the 5,000 per-node reflectors of the
 * hour with clients read every pod change this way (docs/benchmarks.md "With clients"). Not shared: one writer (the
 * hub, synchronously), one reader (the watch's stream).
 */
import { Chunk, Effect, FiberRef, Option, Stream } from "effect"
import type { WatchEvent } from "../../src/api/Object.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { offersTaking, type TakeBatch, type WatchPull } from "../../src/client/WatchPull.js"
import { VirtualScheduler } from "../kernel/VirtualScheduler.js"

/** What a batch of a watch's reader is: the next events, or the end (`None`) or break (`Some`) of its watch. */
type Pull = Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<ClientError>>

/**
 * A reader parked with a `TakeBatch` (see `pullTaking`): in one buffer, or — between the watches of a chain
 * (`WatchChain.ts`) — in none.
 */
export interface TakingReader {
  readonly take: TakeBatch
  readonly scheduler: VirtualScheduler
  readonly priority: number
  /** Wakes the parked fiber, which goes on with `next` (the batch of the buffer that wakes it, a defect, …). */
  readonly resume: (next: Pull) => void
  /** The run-queue task that stands in for the fiber's step. */
  readonly task: () => void
  /** The buffer it waits in; undefined between a chain's watches. */
  holder: WatchEventBuffer | undefined
  /** Cancels what a chain has pending for it between watches, if the fiber stops waiting then. */
  pending: (() => void) | undefined
  /**
   * The reader's watch ended cleanly, with nothing left to read, while it waited: true when a chain goes on
   * without waking it (`WatchChain.ts`); false wakes it to the end.
   */
  readonly ended: ((reader: TakingReader) => boolean) | undefined
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

  /**
   * Every waiting event in one chunk, the reader parked while there are none; fails with `None` after `end()`. Made
   * when first asked for: a chain's watches (`WatchChain.ts`) read their buffers through `pullTaking` alone.
   */
  get pull(): Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<never>> {
    if (this.ownPull === undefined) {
      const pull = Effect.suspend(() =>
        this.events.length > 0 || this.ended ? this.takeAll() : Effect.zipRight(this.waitForMore(), Effect.suspend(() => this.takeAll()))
      )
      offersTaking(pull, (take) => this.pullTaking(take))
      this.ownPull = pull
    }
    return this.ownPull
  }

  private ownPull: Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<never>> | undefined = undefined

  /** `pull` as a stream. */
  get stream(): Stream.Stream<WatchEvent> {
    return Stream.repeatEffectChunkOption(this.pull)
  }

  /**
   * `pull`, but while the reader is parked on a virtual scheduler, the batch it would have been woken for is offered
   * to `take` in a plain run-queue task, queued where the fiber's wake would have been: taken, the fiber sleeps on (a
   * per-node reflector's bookmarks and pod events, docs/benchmarks.md "With clients"); refused, or at the end, the
   * fiber runs there and then, within that task (`VirtualScheduler.runInline`), and reads as `pull` reads. Each event
   * is handled at the same instant and in the same order of the run queue as through `pull`.
   */
  pullTaking(take: TakeBatch, ended?: (reader: TakingReader) => boolean): WatchPull {
    return Effect.suspend(() => (this.events.length > 0 || this.ended ? this.takeAll() : this.waitTaking(take, ended)))
  }

  /** The batch of this buffer, read by a fiber it woke. */
  private readonly takeAllLater: Pull = Effect.suspend(() => this.takeAll())

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

  private waitTaking(take: TakeBatch, ended: ((reader: TakingReader) => boolean) | undefined): Pull {
    return Effect.withFiberRuntime((fiber) => {
      const scheduler = fiber.currentScheduler
      if (!(scheduler instanceof VirtualScheduler)) return Effect.zipRight(this.waitForMore(), this.takeAllLater)
      const priority = fiber.getFiberRef(FiberRef.currentSchedulingPriority)
      return Effect.async<Chunk.Chunk<WatchEvent>, Option.Option<ClientError>>((resume) => {
        const reader: TakingReader = {
          take,
          scheduler,
          priority,
          resume,
          task: () => reader.holder?.runTaking(reader),
          holder: undefined,
          pending: undefined,
          ended
        }
        this.park(reader)
        return Effect.sync(() => {
          reader.pending?.()
          reader.pending = undefined
          reader.holder?.unpark(reader)
        })
      })
    })
  }

  /** `reader` waits here: woken (its task queued) by the next push or the end. */
  private park(reader: TakingReader): void {
    reader.holder = this
    this.taking = reader
    this.wake = () => reader.scheduler.scheduleTask(reader.task, reader.priority)
  }

  /** `reader` no longer waits here (woken, interrupted, or gone on to a chain's next watch). */
  private unpark(reader: TakingReader): void {
    if (this.taking !== reader) return
    reader.holder = undefined
    this.taking = undefined
    this.wake = undefined
  }

  /**
   * A chain's waiting reader moves here, its next watch's buffer, as if its fiber had opened the watch and pulled:
   * what is already here (a replay, a too-old error) is offered to it at once, as the fiber would have read it;
   * else it waits here.
   */
  adopt(reader: TakingReader): void {
    this.park(reader)
    if (this.events.length > 0 || this.ended) this.runTaking(reader)
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
        this.unpark(reader)
        return reader.scheduler.runInline(() => reader.resume(Effect.die(defect)))
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
    this.unpark(reader)
    // the end alone: a chain may go on to its next watch without the fiber
    if (this.events.length === 0 && reader.ended?.(reader) === true) return
    reader.scheduler.runInline(() => reader.resume(this.takeAllLater))
  }

  private wakeReader(): void {
    const wake = this.wake
    if (wake === undefined) return
    this.wake = undefined
    wake()
  }
}
