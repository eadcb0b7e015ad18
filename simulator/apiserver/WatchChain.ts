/**
 * A reader's watches one after the other without waking its fiber: when a watch ends cleanly while its reader waits
 * (`WatchEventBuffer.pullTaking`), the reader says what it would watch next (`WatchAgain`: client-go's reflector
 * watches again from its last resource version), and the chain books that watch, opens it at its booked time and
 * moves the waiting reader into it — as the reader's fiber would have done, at the same instants and run-queue
 * positions: the old watch closed where the fiber's scope would have closed it, the booking made there, the opening
 * queued where the fiber's wake after its booking's sleep would have been. A re-watch through the fiber was ~260 µs of
 * Effect steps (its scope's close, the reflector's loop, the watch's booking and open) and a quarter of the hour with
 * clients (docs/benchmarks.md "With clients"). Where the opening needs an effect (a booking that waits in its queue
 * or is refused, an admin pause) the fiber is woken to run it, and reads on through the chain.
 */
import { Effect, Option, Scope } from "effect"
import type { WatchOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ClientError } from "../../src/client/TransportError.js"
import type { TakeBatch, WatchAgain, WatchPull } from "../../src/client/WatchPull.js"
import { timers, type Timers } from "../kernel/Timers.js"
import { untilMicros } from "./ModelledAnswers.js"
import type { OpenedWatch, Watch } from "./Watch.js"
import type { TakingReader } from "./WatchEventBuffer.js"

/** How a chain's watches are booked (`ApfTimedClient.ts`). */
export interface WatchBooking {
  /** The first watch's booking, on the reader's fiber (the booking a watch opened through the client makes). */
  readonly first: (opts: WatchOptions) => Effect.Effect<void, ClientError>
  /**
   * A next watch's booking, made at `now`: when it opens (ms) — it was booked at once — or the effect of the rest of
   * it (a wait in its queue, 429s and their retries), for the reader's fiber to run.
   */
  readonly at: (opts: WatchOptions, now: number) => number | Effect.Effect<void, ClientError>
}

/**
 * `resource`'s watch with `opts`, booked and read as pulls of a chain: each clean end while the reader waits goes on
 * to the watch `again` gives, booked by `booking`. Closed with the scope (the watch open then).
 */
export const openWatchChain = (
  watches: Watch,
  resource: ResourceType,
  opts: WatchOptions,
  take: TakeBatch,
  again: WatchAgain,
  booking: WatchBooking
): Effect.Effect<WatchPull, ClientError, Scope.Scope> =>
  Effect.zipRight(
    booking.first(opts),
    Effect.flatMap(Effect.all([watches.opened(resource, opts, undefined), timers, Effect.scope]), ([first, clock, scope]) => {
      const chain = new WatchChain(watches, resource, take, again, booking, clock, first)
      return Effect.as(Scope.addFinalizer(scope, Effect.sync(() => chain.close())), chain.pull)
    })
  )

class WatchChain {
  /** The watch read now (the one that ended, between two). */
  private current: OpenedWatch

  constructor(
    private readonly watches: Watch,
    private readonly resource: ResourceType,
    private readonly take: TakeBatch,
    private readonly again: WatchAgain,
    private readonly booking: WatchBooking,
    private readonly clock: Timers,
    first: OpenedWatch
  ) {
    this.current = first
  }

  /** The current watch's next batch; at a clean end while waiting, `next` is asked first. */
  readonly pull: WatchPull = Effect.suspend(() => this.current.buffer.pullTaking(this.take, this.ended))

  private readonly ended = (reader: TakingReader): boolean => this.next(reader)

  /** Closes the current watch (the scope's finalizer). */
  close(): void {
    this.current.close()
  }

  /** The current watch ended cleanly while `reader` waited: true when the next one is on its way without the fiber. */
  private next(reader: TakingReader): boolean {
    const opts = this.again()
    if (opts === undefined) return false
    // where the reader's scope would have closed it
    this.current.close()
    const now = this.clock.now()
    const booked = this.booking.at(opts, now)
    if (typeof booked !== "number") {
      // the rest of the booking, then the opening, on the fiber
      this.wake(reader, Effect.zipRight(Effect.mapError(booked, Option.some), this.openOnFiber(opts)))
      return true
    }
    const ms = untilMicros(now, booked)
    if (!(ms > 0)) {
      this.open(reader, opts)
      return true
    }
    // the fiber's sleep until the booked end, and its wake queued with its priority
    let waiting = true
    const cancel = this.clock.after(ms, () =>
      reader.scheduler.scheduleTask(() => {
        if (!waiting) return
        reader.pending = undefined
        this.open(reader, opts)
      }, reader.priority)
    )
    reader.pending = () => {
      waiting = false
      cancel()
    }
    return true
  }

  /** Opens the next watch at once and moves `reader` into it; on the fiber where that needs an effect. */
  private open(reader: TakingReader, opts: WatchOptions): void {
    const { buffer, sink, markClosed } = this.watches.bufferedSink()
    const opened = this.watches.openedIntoNow(this.resource, opts, undefined, sink, this.clock.now(), this.clock)
    if (opened === undefined) return this.wake(reader, this.openOnFiber(opts))
    if (opened._tag === "Left") return this.wake(reader, Effect.fail(Option.some<ClientError>(opened.left)))
    const unregister = opened.right
    this.current = { buffer, close: () => (markClosed(), unregister()) }
    buffer.adopt(reader)
  }

  /** The next watch opened on the fiber (`Watch.opened`'s effect, closed by the chain), then read. */
  private openOnFiber(opts: WatchOptions): WatchPull {
    return Effect.flatMap(
      Effect.mapError(this.watches.opened(this.resource, opts, undefined), Option.some),
      (opened) => {
        this.current = opened
        return this.pull
      }
    )
  }

  /** Wakes the fiber, here and now, to go on with `next`. */
  private wake(reader: TakingReader, next: WatchPull): void {
    reader.scheduler.runInline(() => reader.resume(next))
  }
}
