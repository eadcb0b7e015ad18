/**
 * The events of one in-process watch waiting for their reader, and the pull (`src/client/WatchPull.ts`) and `Stream`
 * that read them: an array and at most one parked reader, woken once per batch. An Effect `Queue` read through `Stream.fromQueue` + `Stream.takeWhile`
 * made a `Deferred` per wait and sent each chunk through two channel stages; the 5,000 per-node reflectors of the
 * hour with clients read every pod change this way (docs/benchmarks.md "With clients"). Not shared: one writer (the
 * hub, synchronously), one reader (the watch's stream).
 */
import { Chunk, Effect, Option, Stream } from "effect"
import type { WatchEvent } from "../../src/api/Object.js"

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

  private wakeReader(): void {
    const wake = this.wake
    if (wake === undefined) return
    this.wake = undefined
    wake()
  }
}
