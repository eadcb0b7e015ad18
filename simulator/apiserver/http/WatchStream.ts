/**
 * A watch as a chunked HTTP stream, one event per write, fed straight from the server's fan-out (no fiber
 * per event). A client that stops reading is bounded twice (docs/limits.md): by events queued for it
 * (`watchBufferSize`, as upstream's cacher bounds each watcher's channel) and by their bytes. Past either,
 * the watch ends as upstream's cacher ends a watcher it cannot feed: the stream closes, with no ERROR event,
 * and the client re-watches.
 */
import type * as http from "node:http"
import { Either } from "effect"
import type { Representation } from "../../../src/api/MediaType.js"
import type { KObject, WatchEvent } from "../../../src/api/Object.js"
import * as Status from "../../../src/api/Status.js"
import type { WatchSink } from "../WatchHub.js"
import { encodeWatchEvent, watchContentType } from "./Representation.js"

export interface WatchStreamOptions {
  readonly representation: Representation
  /** Events a watcher may have waiting for its client before it is closed. */
  readonly maxQueuedEvents: number
  /** Bytes a watcher may have waiting for its client before it is closed. */
  readonly maxQueuedBytes: number
  /** Called once when the stream has ended. */
  readonly onEnd: () => void
  /** A defect while writing one event: logged by the caller; the stream is ended, nothing else is touched. */
  readonly onDefect: (defect: unknown) => void
  /** The event as this client's representation shows it (a Table, a view's names), before encoding. */
  readonly transform?: ((event: WatchEvent) => WatchEvent) | undefined
  /** Each event written, with its encoded size (`apiserver_watch_events_total` / `_sizes`). */
  readonly onEventSent?: ((bytes: number) => void) | undefined
}

/**
 * Events still in the response's buffers: each write's end offset is remembered, and the bytes the socket
 * has taken (`written - writableLength`, exact at any moment, unlike write callbacks, which come a tick
 * later) tell how many of them are gone.
 */
class QueuedEvents {
  private written = 0
  private readonly ends: number[] = []
  private head = 0

  add(bytes: number): void {
    this.written += bytes
    this.ends.push(this.written)
  }

  count(bufferedBytes: number): number {
    const flushed = this.written - bufferedBytes
    while (this.head < this.ends.length && this.ends[this.head]! <= flushed) this.head++
    if (this.head > 1024 && this.head * 2 > this.ends.length) {
      this.ends.splice(0, this.head)
      this.head = 0
    }
    return this.ends.length - this.head
  }
}

/** The sink a watch writes into; headers go out on the first event or at `start()`. */
export const watchStream = (req: http.IncomingMessage, res: http.ServerResponse, options: WatchStreamOptions): WatchSink & { readonly start: () => void } => {
  const { representation } = options
  const queued = new QueuedEvents()
  let started = false
  let ended = false
  const start = () => {
    if (started) return
    started = true
    res.writeHead(200, {
      "Content-Type": watchContentType(representation, req.headers.accept),
      "Cache-Control": "no-cache, private",
      "Transfer-Encoding": "chunked"
    })
    res.flushHeaders()
  }
  const send = (bytes: Buffer) => {
    queued.add(bytes.length)
    res.write(bytes)
  }
  const close = () => {
    if (ended) return
    ended = true
    try {
      start()
      res.end()
    } catch (defect) {
      options.onDefect(defect)
      res.destroy()
    }
    options.onEnd()
  }
  const offer = (event: WatchEvent, initial?: boolean): boolean => {
    if (ended) return true
    try {
      // The starting state and replayed history are always taken: the client has had no chance to read yet.
      if (!initial && (res.writableLength > options.maxQueuedBytes || queued.count(res.writableLength) >= options.maxQueuedEvents)) return false
      start()
      const bytes = encodeWatchEvent(representation, options.transform ? options.transform(event) : event)
      if (Either.isRight(bytes)) {
        send(bytes.right)
        options.onEventSent?.(bytes.right.length)
        return true
      }
      // An object without a lossless protobuf form: an ERROR event (a Status always has one), then the end.
      const failure: WatchEvent = { type: "ERROR", object: Status.internal(bytes.left.message).status as unknown as KObject }
      send(Either.getOrThrow(encodeWatchEvent(representation, failure)))
      close()
      return true
    } catch (defect) {
      // The fan-out is shared by every watcher: one event that cannot be written ends this stream only.
      options.onDefect(defect)
      close()
      return true
    }
  }
  return { offer, close, isClosed: () => ended, start }
}
