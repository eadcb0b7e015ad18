/**
 * One HTTP request and its answer over undici's `dispatch`, doing per request only what the client reads: the
 * status, the Content-Type and Warning headers, the byte counts, and the body when the caller keeps it. No
 * `Readable` body, no promise, no parsed header object — `Dispatcher.request` builds all three, and the profile of
 * the load generator found them to be most of its undici time (docs/benchmarks.md, "Load generator").
 *
 * The handler is undici's plain one (`onConnect`/`onHeaders`/`onData`/`onComplete`/`onError`), which undici 7
 * calls directly; a handler with `onRequestStart` would be wrapped in an adapter per request.
 */
import { Effect } from "effect"
import type { Dispatcher } from "undici"

export interface ExchangeRequest {
  readonly origin: string
  readonly path: string
  readonly method: Dispatcher.HttpMethod
  /** Flat `[name, value, …]` or a record, as undici takes them. */
  readonly headers: ReadonlyArray<string> | Readonly<Record<string, string>>
  readonly body?: string | Uint8Array | undefined
}

/** Which answers keep their body: every one, or only those that are not 2xx (a Status to read the error from). */
export type KeepBody = "always" | "errors"

export interface Answer {
  readonly code: number
  readonly contentType: string | undefined
  /** Raw `Warning` header values. */
  readonly warnings: ReadonlyArray<string>
  /** The body when kept, else empty; its chunks are joined when it is first read (see `ReceivedAnswer`). */
  readonly body: Buffer
  /** Body bytes received, kept or not. */
  readonly bytesIn: number
  /** Body bytes sent. */
  readonly bytesOut: number
}

const empty = Buffer.alloc(0)
const noWarnings: ReadonlyArray<string> = []

/**
 * An answer whose body chunks are joined on first read, not when the last one arrives: a relist storm completes
 * many answers of a megabyte in one poll phase of the event loop, and joining them all there (a fresh buffer each,
 * its pages faulted in by the copy) held the loop for tens of milliseconds; read later, in the decode's own turn,
 * one join costs a fraction of one.
 */
class ReceivedAnswer implements Answer {
  private joined: Buffer | undefined = undefined

  constructor(
    readonly code: number,
    readonly contentType: string | undefined,
    readonly warnings: ReadonlyArray<string>,
    private readonly chunks: ReadonlyArray<Buffer> | undefined,
    readonly bytesIn: number,
    readonly bytesOut: number
  ) {}

  get body(): Buffer {
    if (this.joined === undefined) {
      const c = this.chunks
      this.joined = c === undefined ? empty : c.length === 1 ? c[0]! : Buffer.concat(c, this.bytesIn)
    }
    return this.joined
  }
}

/** Header names are compared by length first: only two are read, and most names differ in length from both. */
const isHeader = (raw: Buffer, lowerName: string): boolean => raw.length === lowerName.length && raw.toString("latin1").toLowerCase() === lowerName

class ExchangeHandler implements Dispatcher.DispatchHandler {
  private code = 0
  private contentType: string | undefined = undefined
  private warnings: ReadonlyArray<string> = noWarnings
  private chunks: Array<Buffer> | undefined = undefined
  private bytesIn = 0
  private keeping = false

  constructor(
    private readonly keep: KeepBody,
    private readonly bytesOut: number,
    private readonly done: (error: unknown, answer: Answer | undefined) => void
  ) {}

  onConnect(): void {}

  onHeaders(statusCode: number, rawHeaders: Array<Buffer>): boolean {
    this.code = statusCode
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!
      if (isHeader(name, "content-type")) this.contentType = rawHeaders[i + 1]!.toString("latin1")
      else if (isHeader(name, "warning")) this.warnings = [...this.warnings, rawHeaders[i + 1]!.toString("utf8")]
    }
    this.keeping = this.keep === "always" || statusCode < 200 || statusCode >= 300
    return true
  }

  onData(chunk: Buffer): boolean {
    this.bytesIn += chunk.length
    if (this.keeping) (this.chunks ??= []).push(chunk)
    return true
  }

  onComplete(): void {
    this.done(undefined, new ReceivedAnswer(this.code, this.contentType, this.warnings, this.chunks, this.bytesIn, this.bytesOut))
  }

  onError(error: Error): void {
    this.done(error, undefined)
  }
}

const byteLength = (body: string | Uint8Array | undefined): number =>
  body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.length

/** Send `request`; `done` gets the answer, or the connection error (refused, reset, closed dispatcher). */
export const exchange = (
  dispatcher: Dispatcher,
  request: ExchangeRequest,
  keep: KeepBody,
  done: (error: unknown, answer: Answer | undefined) => void
): void => {
  const handler = new ExchangeHandler(keep, byteLength(request.body), done)
  dispatcher.dispatch(
    { origin: request.origin, path: request.path, method: request.method, headers: request.headers as Dispatcher.DispatchOptions["headers"], body: request.body },
    handler
  )
}

/**
 * `exchange` as an Effect. Not interruptible in flight on purpose: an abort would need an `AbortController` per
 * request (a measurable cost at load-test rates); an interrupted caller stops waiting at once and the request
 * finishes in the background.
 */
export const exchangeEffect = <E>(dispatcher: Dispatcher, request: ExchangeRequest, keep: KeepBody, onConnectionError: (e: unknown) => E): Effect.Effect<Answer, E> =>
  Effect.async<Answer, E>((resume) => {
    exchange(dispatcher, request, keep, (error, answer) => resume(answer === undefined ? Effect.fail(onConnectionError(error)) : Effect.succeed(answer)))
  })
