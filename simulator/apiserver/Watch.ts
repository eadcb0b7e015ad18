/**
 * Watches (upstream "Efficient detection of changes"): the starting state or the history replayed from a resource version, then live
 * changes through the `WatchHub`, with bookmarks and the request deadline. Two ways out: a `Stream` (in-process
 * callers) or a transport's own sink (the HTTP server writes events straight to the socket).
 */
import { Effect, Either, Scope, Stream } from "effect"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import type { WatchOptions } from "../../src/api/Requests.js"
import { apiVersionOf, type ResourceType } from "../../src/api/Resources.js"
import { fieldSelectorName } from "../../src/api/FieldSelector.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { Admission } from "./Admission.js"
import { pinnedIndexValue } from "./FieldIndex.js"
import type { WatchPull } from "../../src/client/WatchPull.js"
import { awaitRevision, selectorsOf } from "./Read.js"
import { parseResourceVersion, validateListOptions } from "./ResourceVersion.js"
import type { ServerState } from "./ServerState.js"
import { keyPrefix } from "./Store.js"
import { WatchEventBuffer } from "./WatchEventBuffer.js"
import { eventOf, type Watcher, type WatchSink } from "./WatchHub.js"
import { timers, type Timers } from "../kernel/Timers.js"

export class Watch {
  constructor(
    private readonly state: ServerState,
    private readonly admission: Admission
  ) {}

  /**
   * Opens a watch: validation errors fail the effect (an HTTP error status); a too-old start is one in-stream
   * ERROR event. The stream ends when the watch times out, is dropped, or falls behind its buffer.
   */
  watch(resource: ResourceType, opts: WatchOptions = {}, name?: string): Effect.Effect<Stream.Stream<WatchEvent>, ApiError, Scope.Scope> {
    return Effect.map(this.buffered(resource, opts, name), (buffer) => buffer.stream)
  }

  /** `watch` as pulls of event batches (`src/client/WatchPull.ts`). */
  pullWatch(resource: ResourceType, opts: WatchOptions = {}, name?: string): Effect.Effect<WatchPull, ApiError, Scope.Scope> {
    return Effect.map(this.buffered(resource, opts, name), (buffer) => buffer.pull)
  }

  private buffered(resource: ResourceType, opts: WatchOptions, name: string | undefined): Effect.Effect<WatchEventBuffer, ApiError, Scope.Scope> {
    return Effect.flatMap(Effect.zip(this.opened(resource, opts, name), Effect.scope), ([watch, scope]) =>
      Effect.as(Scope.addFinalizer(scope, Effect.sync(watch.close)), watch.buffer)
    )
  }

  /**
   * A watch into a buffer of its own, and what closes it: the buffer's sink first, then the timers and the hub's
   * registration, as the finalizers of `buffered` and `watchInto` once closed them, in that order.
   */
  opened(resource: ResourceType, opts: WatchOptions, name: string | undefined): Effect.Effect<OpenedWatch, ApiError> {
    return Effect.suspend(() => {
      const { buffer, sink, markClosed } = this.bufferedSink()
      return Effect.map(this.openedInto(resource, opts, name, sink), (unregister): OpenedWatch => ({ buffer, close: () => (markClosed(), unregister()) }))
    })
  }

  /** A new buffer and the sink that fills it, up to the configured capacity for live events. */
  bufferedSink(): { readonly buffer: WatchEventBuffer; readonly sink: WatchSink; readonly markClosed: () => void } {
    const buffer = new WatchEventBuffer()
    const capacity = this.state.config.watchBufferSize
    let closed = false
    const sink: WatchSink = {
      offer: (event, initial) => {
        if (closed) return true
        if (!initial && buffer.size >= capacity) return false
        buffer.push(event)
        return true
      },
      close: () => {
        if (closed) return
        closed = true
        buffer.end()
      },
      isClosed: () => closed
    }
    return { buffer, sink, markClosed: () => void (closed = true) }
  }

  /**
   * Opens a watch that delivers into `sink` (a transport's own buffer): validation errors fail the effect;
   * a too-old start is one in-stream ERROR event, then `close()`. Registered until the scope closes.
   */
  watchInto(resource: ResourceType, opts: WatchOptions, name: string | undefined, sink: WatchSink): Effect.Effect<void, ApiError, Scope.Scope> {
    return Effect.flatMap(this.openedInto(resource, opts, name, sink), (unregister) =>
      unregister === nothingToClose ? Effect.void : Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, Effect.sync(unregister)))
    )
  }

  /** `watchInto`'s watch, and what unregisters it (`nothingToClose` when it was never registered). */
  private openedInto(resource: ResourceType, opts: WatchOptions, name: string | undefined, sink: WatchSink): Effect.Effect<() => void, ApiError> {
    return Effect.gen(this, function* () {
      yield* this.admission.admit
      const plan = yield* this.plan(resource, opts, name)
      // WatchList (KEP-3157): the state at least as new as `rv`, waited for as a read waits (docs/watchlist.md).
      if (plan.streamsState && plan.asked !== undefined) yield* awaitRevision(this.state, plan.asked)
      return this.register(resource, opts, plan, sink, yield* timers)
    })
  }

  /**
   * `openedInto` without an effect, at `now` on `clock`, where it needs none (a re-watch of `WatchChain.ts`):
   * what unregisters the watch, its opening error, or undefined where the effect is needed (an admin pause, a
   * WatchList's wait for a revision) — then nothing was done.
   */
  openedIntoNow(resource: ResourceType, opts: WatchOptions, name: string | undefined, sink: WatchSink, now: number, clock: Timers): Either.Either<() => void, ApiError> | undefined {
    if (!this.admission.enterNow(now)) return undefined
    const plan = this.plan(resource, opts, name)
    if (Either.isLeft(plan)) return Either.left(plan.left)
    if (plan.right.streamsState && plan.right.asked !== undefined) return undefined
    return Either.right(this.register(resource, opts, plan.right, sink, clock))
  }

  /** What a watch's options ask for, checked: its filter, its start, whether it sends the state first. */
  private plan(resource: ResourceType, opts: WatchOptions, name: string | undefined): Either.Either<WatchPlan, ApiError> {
    const invalid = validateListOptions(opts, true, this.state.config.featureGates.enabled("WatchList"))
    if (invalid) return Either.left(invalid)
    return Either.gen(function* () {
      const { matches, fields } = yield* selectorsOf(resource, opts)
      const pinned = fields ? fieldSelectorName(fields) : undefined
      if (name !== undefined && pinned !== undefined && pinned !== name)
        return yield* Either.left(Status.badRequest("fieldSelector metadata.name doesn't match requested name"))
      const filterName = name ?? pinned
      const indexValue = pinnedIndexValue(resource, fields)
      const filter = filterName === undefined ? matches : (obj: KObject) => obj.metadata.name === filterName && matches(obj)
      const rv = opts.resourceVersion ?? ""
      const asked = rv === "" || rv === "0" ? undefined : yield* parseResourceVersion(rv)
      const streamsState = opts.sendInitialEvents === true
      return { filter, indexValue, asked, streamsState }
    })
  }

  /** Registers a planned watch into `sink` at the server's current state; returns what unregisters it. */
  private register(resource: ResourceType, opts: WatchOptions, plan: WatchPlan, sink: WatchSink, clock: Timers): () => void {
    const { filter, indexValue, asked, streamsState } = plan
    // Where the stream starts: the current state (legacy rv unset or 0, or a WatchList), now (sendInitialEvents
    // false with rv unset or 0), or the history after `rv`.
    const startRevision = streamsState ? undefined : asked
    const sendsState = streamsState || (opts.sendInitialEvents === undefined && asked === undefined)
    const prefix = keyPrefix(resource.namespaced ? opts.namespace : undefined)
    const { store, hub, config } = this.state
    // Whole milliseconds: the deadline, and the bookmarks ~2 s before it, fall on whole milliseconds. Only 0
    // (or unset) means the server's default (handlers/get.go ListResource); a negative timeout's timer fires at once.
    const timeoutMs = Math.round(
      opts.timeoutSeconds ? Math.max(0, opts.timeoutSeconds * 1000) : config.minRequestTimeoutMs * (1 + this.state.random())
    )
    if (startRevision !== undefined && startRevision < store.compactedRevision) {
      sink.offer(tooOldEvent(resource, startRevision, store.compactedRevision), true)
      sink.close()
      return nothingToClose
    }
    // Everything below runs without yielding, so no change can slip between replay and registration.
    let from = store.revision
    if (sendsState) {
      const initial = store.page({ resource, revision: from, prefix, start: prefix, limit: undefined, matches: filter, countRemaining: false, indexValue })
      for (const obj of initial.items) sink.offer(eventOf("ADDED", obj, resource), true)
      if (streamsState && opts.allowWatchBookmarks === true) sink.offer(initialEventsEndEvent(resource, from), true)
    } else if (startRevision !== undefined) {
      from = startRevision
    }
    const watcher: Watcher = { resource, prefix, matches: filter, indexValue, sink, startRevision: from }
    if (startRevision !== undefined) {
      for (const change of store.changesAfter(resource, startRevision, indexValue)) hub.replayTo(watcher, change)
      ;(watcher as { startRevision: number }).startRevision = Math.max(startRevision, store.revision)
    }
    if (sink.isClosed()) return nothingToClose
    hub.add(watcher)
    const cancelTimer = this.startTimers(clock, resource, opts.allowWatchBookmarks === true, timeoutMs, sink)
    // Closed by the scope's own finalizer (`watchInto`, `buffered`): `Effect.addFinalizer` would keep the fiber's refs
    // to restore them for a cleanup that reads none, copying and comparing them at every close (about half of a
    // re-watch, docs/benchmarks.md).
    return () => {
      cancelTimer()
      hub.remove(watcher)
    }
  }

  /**
   * Bookmarks every bookmarkInterval and ~2 s before the deadline (watch-cached types only); the end at the deadline.
   * Plain timers, not a fiber per watch (`Timers.ts`). Returns what cancels the pending one.
   */
  private startTimers(clock: Timers, resource: ResourceType, bookmarks: boolean, timeoutMs: number, sink: WatchSink): () => void {
    const { store, config } = this.state
    const deadline = clock.now() + timeoutMs
    let cancel: () => void
    const end = () => sink.close()
    const scheduleAfter = (last: number): void => {
      const now = clock.now()
      const next = Math.ceil(Math.min(last + config.bookmarkIntervalMs, deadline - 2_000))
      if (next > now)
        cancel = clock.after(next - now, () => {
          sink.offer(bookmarkEvent(resource, store.revision))
          scheduleAfter(next)
        })
      else cancel = clock.after(Math.max(0, deadline - now), end)
    }
    if (bookmarks && resource.watchCached) scheduleAfter(clock.now())
    else cancel = clock.after(timeoutMs, end)
    return () => cancel()
  }
}

/** A watch's options, checked (`Watch.plan`). */
interface WatchPlan {
  readonly filter: (obj: KObject) => boolean
  readonly indexValue: string | undefined
  /** The resource version asked for, unless unset or "0". */
  readonly asked: number | undefined
  /** A WatchList: the state first, then its end bookmark. */
  readonly streamsState: boolean
}

/** A watch open in a buffer of its own (`Watch.opened`). */
export interface OpenedWatch {
  readonly buffer: WatchEventBuffer
  /** Closes the sink, cancels the timers, unregisters the watcher. */
  readonly close: () => void
}

/** What closes a watch that was never registered (too old, or closed while replaying). */
const nothingToClose = (): void => {}

const tooOldEvent = (resource: ResourceType, asked: number, oldest: number): WatchEvent => ({
  type: "ERROR",
  object: Status.makeStatus({
    message: resource.watchCached ? `too old resource version: ${asked} (${oldest})` : "The resourceVersion for the provided watch is too old.",
    reason: "Expired",
    code: 410
  }) as unknown as KObject
})

/** The bookmark that ends a WatchList's initial state (upstream `metav1.InitialEventsAnnotationKey`). */
export const initialEventsEndAnnotation = "k8s.io/initial-events-end"

const initialEventsEndEvent = (resource: ResourceType, revision: number): WatchEvent =>
  bookmarkEvent(resource, revision, { [initialEventsEndAnnotation]: "true" })

const bookmarkEvent = (resource: ResourceType, revision: number, annotations?: Record<string, string>): WatchEvent => ({
  type: "BOOKMARK",
  object: {
    kind: resource.kind,
    apiVersion: apiVersionOf(resource),
    metadata: { resourceVersion: String(revision), creationTimestamp: null, ...(annotations ? { annotations } : {}) },
    ...(resource.kind === "Lease" || resource.kind === "Pod" || resource.kind === "Node" || resource.kind === "Service" || resource.kind === "Deployment" || resource.kind === "ReplicaSet" || resource.kind === "Namespace" ? { spec: {} } : {}),
    ...(resource.kind === "Pod" || resource.kind === "Node" || resource.kind === "Service" || resource.kind === "Deployment" || resource.kind === "ReplicaSet" || resource.kind === "Namespace" ? { status: {} } : {})
  }
})
