/**
 * The simulated API server: every verb of spec 000 over the `Store`, with the exact Status errors of
 * reference api-server.md. Transport-free — `HttpServer` serves it on a socket, `ApiClient.layerInProcess`
 * calls it directly. Time comes from the Effect `Clock`, randomness from a seeded generator.
 */
import { Clock, Context, Deferred, Duration, Effect, Either, Layer, Option, Queue, Schedule, Scope, Stream } from "effect"
import { PCGRandom } from "effect/Utils"
import { decodeContinue, encodeContinue } from "../../src/api/ContinueToken.js"
import { forbidden, GoUint, invalid as invalidField, notSupported, type FieldError } from "../../src/api/FieldError.js"
import { duplicateFields, strictDecodingErrors } from "../../src/api/kinds/DuplicateFields.js"
import { decodesCleanly, splitUnknownFields, typeError } from "../../src/api/kinds/FieldSchema.js"
import { validateObjectMetaCreate } from "../../src/api/kinds/Names.js"
import { extendable, isRecord, type KList, type KObject, type ObjectMeta, type WatchEvent } from "../../src/api/Object.js"
import { applyPatch } from "../../src/api/Patch.js"
import type {
  DeleteOptions,
  DeleteResult,
  GetOptions,
  ListOptions,
  PatchType,
  WatchOptions,
  WriteOptions,
  WriteResult
} from "../../src/api/Requests.js"
import { apiVersionOf, initialNamespaces, invalidKindOf, Namespaces, resourceTypes, type ResourceType } from "../../src/api/Resources.js"
import { fieldSelectorName, matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from "../../src/api/Selector.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import { planGet, planList, validateListOptions, type ReadPlan } from "./ResourceVersion.js"
import { keyPrefix, objectKey, Store, type Change, type Entry } from "./Store.js"
import { sameObject } from "./SameObject.js"
import { generatedName, rfc3339, uuidV4 } from "./SystemMeta.js"
import { eventOf, WatchHub, withTypeMeta, type Watcher, type WatchSink } from "./WatchHub.js"

export interface ApiServerConfig {
  readonly seed: number
  /** How long change history is kept (continue tokens and watch starts older than this get 410). */
  readonly historyWindowMs: number
  /** How long a read waits for a resource version newer than the server's before 504. */
  readonly tooLargeWaitMs: number
  /** Events buffered per watcher before a slow watcher is closed. */
  readonly watchBufferSize: number
  /** Bookmark period per watcher (with allowWatchBookmarks). */
  readonly bookmarkIntervalMs: number
  /** Default watch timeout is minRequestTimeout × (1 + rand[0,1)). */
  readonly minRequestTimeoutMs: number
}

export const defaultConfig: ApiServerConfig = {
  seed: 1,
  historyWindowMs: 5 * 60_000,
  tooLargeWaitMs: 3_000,
  watchBufferSize: 1_000,
  bookmarkIntervalMs: 60_000,
  minRequestTimeoutMs: 1_800_000
}

/** A body as it arrived: the parsed value and, when it came as text, the text (for duplicate-field checks). */
export interface Body {
  readonly value: unknown
  readonly raw?: string | undefined
}

/**
 * Stored objects carry no kind/apiVersion (list items must not); a GET adds them once per stored version, so hot
 * objects are not copied per read. Write results are copied plainly (each is returned once).
 */
const typedObjects = new WeakMap<KObject, KObject>()
const typeMeta = (obj: KObject, resource: ResourceType): KObject => {
  let typed = typedObjects.get(obj)
  if (typed === undefined) {
    typed = withTypeMeta(obj, resource)
    typedObjects.set(obj, typed)
  }
  return typed
}

const listOf = (resource: ResourceType, items: ReadonlyArray<KObject>, metadata: KList["metadata"]): KList => ({
  kind: `${resource.kind}List`,
  apiVersion: apiVersionOf(resource),
  metadata,
  items
})

/** List items of built-in types carry no kind/apiVersion (reference §2.4). */
const stripTypeMeta = (obj: KObject): KObject => {
  if (obj.kind === undefined && obj.apiVersion === undefined) return obj
  const { kind: _k, apiVersion: _a, ...rest } = obj
  return rest as KObject
}

const isDryRun = (dryRun: ReadonlyArray<string> | undefined): boolean => dryRun !== undefined && dryRun.length > 0

/** `All`, or the bare parameter (spec 000 "Dry-run"); anything else is unsupported. */
const dryRunErrors = (dryRun: ReadonlyArray<string> | undefined): FieldError[] =>
  dryRun && dryRun.some((v) => v !== "All" && v !== "") ? [notSupported("dryRun", dryRun, ["All"])] : []

const fieldValidationLevels = ["", "Ignore", "Strict", "Warn"]

const checkWriteOptions = (optionsKind: string, opts: WriteOptions): ApiError | undefined => {
  if (opts.dryRun === undefined && opts.fieldValidation === undefined && opts.fieldManager === undefined) return undefined
  const errors = dryRunErrors(opts.dryRun)
  if (opts.fieldValidation !== undefined && !fieldValidationLevels.includes(opts.fieldValidation))
    errors.push(notSupported("fieldValidation", opts.fieldValidation, fieldValidationLevels))
  if (opts.fieldManager !== undefined && Buffer.byteLength(opts.fieldManager) > 128)
    errors.push({ type: "TooLong", field: "fieldManager", detail: "must have at most 128 bytes" })
  return errors.length > 0 ? Status.invalidOptions(optionsKind, errors) : undefined
}

/** The server state and every verb. Methods are effects only where they need the clock or may wait. */
export class ApiServer extends Context.Tag("clustersim/ApiServer")<ApiServer, ApiServerImpl>() {
  static readonly layer = (config: Partial<ApiServerConfig> = {}) =>
    Layer.effect(ApiServer, makeApiServer({ ...defaultConfig, ...config }))
}

export const makeApiServer = (config: ApiServerConfig) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const server = new ApiServerImpl(config, now)
    return server
  })

export class ApiServerImpl {
  readonly store = new Store()
  readonly hub = new WatchHub()
  private readonly random: () => number
  /** Open while the server answers; admin "pause" swaps in an unresolved one. */
  private pauseGate: Deferred.Deferred<void> | undefined

  constructor(
    readonly config: ApiServerConfig,
    startTime: number
  ) {
    const rng = new PCGRandom(config.seed)
    this.random = () => rng.number()
    this.store.subscribe((change: Change) => this.hub.publish(change))
    for (const name of initialNamespaces) this.store.put(Namespaces, name, this.newNamespace(name, startTime), startTime)
  }

  private newNamespace(name: string, time: number): KObject {
    return {
      metadata: {
        name,
        uid: uuidV4(this.random),
        creationTimestamp: rfc3339(time),
        labels: { "platform.io/metadata.name": name }
      },
      spec: { finalizers: ["platform"] },
      status: { phase: "Active" }
    }
  }

  // ---- request gate -------------------------------------------------------------------------------------

  /**
   * Every request passes here: waits while paused, compacts history that left the window, then runs `request` at
   * the arrival time — synchronously, in one effect step, when the server is not paused (in-process clients such as
   * thousands of simulated agents make most requests).
   */
  private admitted<A, E>(request: (now: number) => Either.Either<A, E> | Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.clockWith((clock) => {
      const gate = this.pauseGate
      return gate ? Effect.zipRight(Deferred.await(gate), Effect.suspend(() => this.arrive(clock, request))) : this.arrive(clock, request)
    })
  }

  private arrive<A, E>(clock: Clock.Clock, request: (now: number) => Either.Either<A, E> | Effect.Effect<A, E>) {
    const now = clock.unsafeCurrentTimeMillis()
    this.compactUpTo(now)
    return request(now)
  }

  private readonly admit: Effect.Effect<number> = this.admitted((now) => Either.right(now))

  /** Stop answering for `ms` (requests wait), as an overloaded or restarting server would. */
  pause(ms: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const gate = yield* Deferred.make<void>()
      this.pauseGate = gate
      yield* Effect.forkDaemon(
        Effect.sleep(Duration.millis(ms)).pipe(
          Effect.zipRight(Effect.sync(() => {
            if (this.pauseGate === gate) this.pauseGate = undefined
          })),
          Effect.zipRight(Deferred.succeed(gate, undefined))
        )
      )
    })
  }

  /** Compact now: every older revision becomes unreadable. */
  compact(): Effect.Effect<number> {
    return Effect.sync(() => {
      this.store.compactAll()
      return this.store.compactedRevision
    })
  }

  /** Close every watch, as a server restart would. */
  dropWatches(): Effect.Effect<number> {
    return Effect.sync(() => this.hub.closeAll())
  }

  // ---- helpers ------------------------------------------------------------------------------------------

  private key(resource: ResourceType, namespace: string | undefined, name: string): string {
    return objectKey(resource.namespaced ? namespace : undefined, name)
  }

  /** The stored entry a request names (its key is the stored one: nothing to build or hash again). */
  private find(resource: ResourceType, namespace: string | undefined, name: string): Entry | undefined {
    return this.store.lookup(resource, resource.namespaced ? namespace : undefined, name)
  }

  private requireNamespace(resource: ResourceType, namespace: string | undefined): ApiError | undefined {
    if (!resource.namespaced || !namespace) return undefined
    return this.store.get(Namespaces, namespace) ? undefined : Status.notFound(Namespaces, namespace)
  }

  /** Waits (up to tooLargeWaitMs on the Clock) for the store to reach `revision`; 504 with Retry-After otherwise. */
  private awaitRevision(revision: number): Effect.Effect<void, ApiError> {
    if (revision <= this.store.revision) return Effect.void
    const poll = Effect.suspend(() => (this.store.revision >= revision ? Effect.void : Effect.fail(undefined)))
    return poll.pipe(
      Effect.retry({ schedule: Schedule.spaced(revisionPollInterval), times: Math.ceil(this.config.tooLargeWaitMs / 100) }),
      Effect.catchAll(() => Effect.fail(Status.tooLargeResourceVersion(revision, this.store.revision, 1)))
    )
  }

  /** What a read plan needs before reading now: nothing, a failure, or a revision to wait for. */
  private precondition(plan: ReadPlan): ApiError | WaitFor | undefined {
    switch (plan._tag) {
      case "NotOlderThanCached":
        return plan.revision > this.store.revision ? new WaitFor(plan.revision) : undefined
      case "NotOlderThanStorage":
      case "Exact":
        return plan.revision > this.store.revision ? Status.tooLargeResourceVersion(plan.revision, this.store.revision, 0) : undefined
      default:
        return undefined
    }
  }

  /** Runs a read; one that must wait for a newer revision waits on the Clock, then reads again. */
  private read<A>(attempt: () => Either.Either<A, ApiError> | WaitFor): Effect.Effect<A, ApiError> {
    return Effect.flatMap(this.admit, () => {
      const first = attempt()
      if (!(first instanceof WaitFor)) return first
      return Effect.flatMap(this.awaitRevision(first.revision), () => {
        const again = attempt()
        return again instanceof WaitFor ? Effect.fail(Status.tooLargeResourceVersion(again.revision, this.store.revision, 1)) : again
      })
    })
  }

  /** True while an admin pause holds requests. */
  get paused(): boolean {
    return this.pauseGate !== undefined
  }

  private compactedAt = Number.NEGATIVE_INFINITY

  /** Drops history that left the window (every request does this on arrival; once per instant is enough). */
  compactUpTo(now: number): void {
    if (now === this.compactedAt) return
    this.compactedAt = now
    this.store.compactBefore(now - this.config.historyWindowMs)
  }

  // ---- get / list -----------------------------------------------------------------------------------------

  get(resource: ResourceType, name: string, opts: GetOptions = {}): Effect.Effect<KObject, ApiError> {
    return this.read(() => this.getNow(resource, name, opts))
  }

  /** `get` without waiting: the answer, or the revision it would have to wait for. */
  getNow(resource: ResourceType, name: string, opts: GetOptions = {}): Either.Either<KObject, ApiError> | WaitFor {
    const plan = planGet(opts.resourceVersion, resource.watchCached)
    if (Either.isLeft(plan)) return Either.left(plan.left)
    const pre = this.precondition(plan.right)
    if (pre instanceof WaitFor) return pre
    if (pre) return Either.left(pre)
    const obj = this.find(resource, opts.namespace, name)?.obj
    return obj ? Either.right(typeMeta(obj, resource)) : Either.left(Status.notFound(resource, name))
  }

  private selectors(resource: ResourceType, opts: { labelSelector?: string | undefined; fieldSelector?: string | undefined }) {
    return Either.gen(function* () {
      const labels = opts.labelSelector ? yield* parseLabelSelector(opts.labelSelector) : undefined
      const fields = opts.fieldSelector ? yield* parseFieldSelector(opts.fieldSelector, resource) : undefined
      const matches = (obj: KObject): boolean =>
        (labels === undefined || matchesLabels(labels, obj.metadata.labels)) && (fields === undefined || matchesFields(fields, obj))
      return { matches, filtered: labels !== undefined || fields !== undefined, fields }
    })
  }

  list(resource: ResourceType, opts: ListOptions = {}): Effect.Effect<KList, ApiError> {
    return this.read(() => this.listNow(resource, opts))
  }

  /** `list` without waiting: the answer, or the revision it would have to wait for. */
  listNow(resource: ResourceType, opts: ListOptions = {}): Either.Either<KList, ApiError> | WaitFor {
    const plan = planList(opts, resource.watchCached)
    if (Either.isLeft(plan)) return Either.left(plan.left)
    const pre = this.precondition(plan.right)
    if (pre instanceof WaitFor) return pre
    if (pre) return Either.left(pre)
    return this.listAt(resource, opts, plan.right)
  }

  private listAt(resource: ResourceType, opts: ListOptions, plan: ReadPlan): Either.Either<KList, ApiError> {
    return Either.gen(this, function* () {
      const { matches, filtered } = yield* this.selectors(resource, opts)
      const prefix = keyPrefix(resource.namespaced ? opts.namespace : undefined)
      const store = this.store
      let revision = store.revision
      let start = prefix
      let paged = opts.limit !== undefined && opts.limit > 0
      switch (plan._tag) {
        case "Any":
        case "NotOlderThanCached":
          paged = false
          break
        case "Exact":
          if (plan.revision < store.compactedRevision)
            return yield* Either.left(Status.expired("The resourceVersion for the provided list is too old."))
          revision = plan.revision
          break
        case "Continue": {
          const token = yield* decodeContinue(plan.token)
          if (token.rv !== -1 && token.rv < store.compactedRevision) {
            const fresh = encodeContinue({ rv: -1, start: token.start })
            return yield* Either.left(Status.expired(expiredContinueMessage, { continue: fresh }))
          }
          if (token.rv !== -1) revision = token.rv
          start = prefix + token.start
          paged = opts.limit !== undefined && opts.limit > 0
          break
        }
      }
      const page = store.page({
        resource,
        revision,
        prefix,
        start,
        limit: paged ? opts.limit : undefined,
        matches,
        countRemaining: !filtered
      })
      const items = page.items.map(stripTypeMeta)
      const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: String(revision) }
      if (page.lastKey !== undefined) {
        metadata.continue = encodeContinue({ rv: revision, start: page.lastKey.slice(prefix.length) + "\u0000" })
        if (!filtered) metadata.remainingItemCount = page.remaining
      }
      return listOf(resource, items, metadata)
    })
  }

  // ---- watch ----------------------------------------------------------------------------------------------

  /**
   * Opens a watch: validation errors fail the effect (an HTTP error status); a too-old start is one in-stream
   * ERROR event. The stream ends when the watch times out, is dropped, or falls behind its buffer.
   */
  watch(resource: ResourceType, opts: WatchOptions = {}, name?: string): Effect.Effect<Stream.Stream<WatchEvent>, ApiError, Scope.Scope> {
    return Effect.gen(this, function* () {
      const End = endMarker
      const queue = yield* Queue.unbounded<WatchEvent | typeof End>()
      const capacity = this.config.watchBufferSize
      let closed = false
      const sink: WatchSink = {
        offer: (event, initial) => {
          if (closed) return true
          if (!initial && queue.unsafeSize().pipe(Option.getOrElse(() => 0)) >= capacity) return false
          queue.unsafeOffer(event)
          return true
        },
        close: () => {
          if (closed) return
          closed = true
          queue.unsafeOffer(End)
        },
        isClosed: () => closed
      }
      yield* this.watchInto(resource, opts, name, sink)
      yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)))
      return Stream.fromQueue(queue).pipe(Stream.takeWhile((e): e is WatchEvent => e !== End))
    })
  }

  /**
   * Opens a watch that delivers into `sink` (a transport's own buffer): validation errors fail the effect;
   * a too-old start is one in-stream ERROR event, then `close()`. Registered until the scope closes.
   */
  watchInto(resource: ResourceType, opts: WatchOptions, name: string | undefined, sink: WatchSink): Effect.Effect<void, ApiError, Scope.Scope> {
    return Effect.gen(this, function* () {
      yield* this.admit
      const invalid = validateListOptions(opts, true)
      if (invalid) return yield* Effect.fail(invalid)
      const { matches, fields } = yield* this.selectors(resource, opts)
      const pinned = fields ? fieldSelectorName(fields) : undefined
      if (name !== undefined && pinned !== undefined && pinned !== name)
        return yield* Effect.fail(Status.badRequest("fieldSelector metadata.name doesn't match requested name"))
      const filterName = name ?? pinned
      const filter = filterName === undefined ? matches : (obj: KObject) => obj.metadata.name === filterName && matches(obj)
      const rv = opts.resourceVersion ?? ""
      const startRevision = rv === "" || rv === "0" ? undefined : yield* parseRv(rv)
      const prefix = keyPrefix(resource.namespaced ? opts.namespace : undefined)
      const store = this.store
      // Whole milliseconds: a fractional deadline would make the timer loop sleep zero-length steps.
      const timeoutMs = Math.round(
        opts.timeoutSeconds && opts.timeoutSeconds > 0 ? opts.timeoutSeconds * 1000 : this.config.minRequestTimeoutMs * (1 + this.random())
      )
      if (startRevision !== undefined && startRevision < store.compactedRevision) {
        sink.offer(tooOldEvent(resource, startRevision, store.compactedRevision), true)
        sink.close()
        return
      }
      // Everything below runs without yielding, so no change can slip between replay and registration.
      let from = store.revision
      if (startRevision === undefined) {
        const initial = store.page({ resource, revision: from, prefix, start: prefix, limit: undefined, matches: filter, countRemaining: false })
        for (const obj of initial.items) sink.offer(eventOf("ADDED", obj, resource), true)
      } else {
        from = startRevision
      }
      const watcher: Watcher = { resource, prefix, matches: filter, sink, startRevision: from }
      if (startRevision !== undefined) {
        for (const change of store.changesAfter(resource, startRevision)) this.hub.replayTo(watcher, change)
        ;(watcher as { startRevision: number }).startRevision = Math.max(startRevision, store.revision)
      }
      if (sink.isClosed()) return
      this.hub.add(watcher)
      yield* Effect.addFinalizer(() => Effect.sync(() => this.hub.remove(watcher)))
      yield* Effect.forkScoped(this.watchTimers(resource, opts.allowWatchBookmarks === true, timeoutMs, sink))
    })
  }

  /** Bookmarks every bookmarkInterval and ~2 s before the deadline (watch-cached types only); end at the deadline. */
  private watchTimers(
    resource: ResourceType,
    bookmarks: boolean,
    timeoutMs: number,
    sink: WatchSink
  ): Effect.Effect<void> {
    const self = this
    return Effect.gen(function* () {
      const start = yield* Clock.currentTimeMillis
      const deadline = start + timeoutMs
      if (bookmarks && resource.watchCached) {
        let last = start
        for (;;) {
          const next = Math.ceil(Math.min(last + self.config.bookmarkIntervalMs, deadline - 2_000))
          const now = yield* Clock.currentTimeMillis
          if (next <= now) break
          yield* Effect.sleep(Duration.millis(next - now))
          sink.offer(bookmarkEvent(resource, self.store.revision))
          last = next
        }
      }
      const now = yield* Clock.currentTimeMillis
      if (deadline > now) yield* Effect.sleep(Duration.millis(deadline - now))
      sink.close()
    })
  }

  // ---- writes ---------------------------------------------------------------------------------------------

  /**
   * Decodes a write body: type errors → 400, unknown/duplicate fields per fieldValidation. `decoded` is the
   * stored object the write starts from: parts of the body identical to its parts are not walked again.
   */
  private decodeBody(
    resource: ResourceType,
    body: Body,
    fieldValidation: string | undefined,
    patched: boolean,
    decoded?: KObject
  ): Either.Either<{ object: KObject; warnings: ReadonlyArray<string> }, ApiError> {
    const { kind, version } = resource
    const value = body.value
    if (!isRecord(value))
      return Either.left(
        Status.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonTypeName(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
      )
    const schema = resource.rules.schema
    const clean = schema === undefined || decodesCleanly(schema, value, decoded)
    if (schema && !clean) {
      const typeProblem = typeError(schema, value, kind, version, undefined, decoded)
      if (typeProblem) return Either.left(Status.badRequest(typeProblem))
    }
    const metadata = value.metadata
    if (metadata !== undefined && !isRecord(metadata))
      return Either.left(Status.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonTypeName(metadata)} into Go struct field ${kind}.metadata of type v1.ObjectMeta`))
    const level = fieldValidation || "Warn"
    // The common case: a clean body given as a value (no text to look for duplicate fields in).
    if (clean && body.raw === undefined) {
      const object = (isRecord(metadata) ? value : { ...value, metadata: {} }) as KObject
      return Either.right({ object, warnings: noWarnings })
    }
    const problems: string[] = []
    // Unknown fields are dropped at every level; Ignore only stops reporting them.
    const split = schema && !clean ? splitUnknownFields(schema, value, decoded) : { known: value, unknown: noWarnings }
    if (level !== "Ignore") {
      // With the text at hand the decoder's findings come in document order; without it only unknown fields exist.
      if (body.raw !== undefined && schema) problems.push(...strictDecodingErrors(body.raw, schema))
      else if (body.raw !== undefined) problems.push(...duplicateFields(body.raw).map((f) => `duplicate field ${JSON.stringify(f)}`))
      else problems.push(...split.unknown.map((f) => `unknown field ${JSON.stringify(f)}`))
    }
    const known = split.known as Record<string, unknown>
    const object = (isRecord(known.metadata) ? known : { ...known, metadata: known.metadata ?? {} }) as KObject
    if (level === "Strict" && problems.length > 0) {
      if (patched)
        return Either.left(
          Status.invalid("", "", [invalidField("patch", JSON.stringify(value), `strict decoding error: ${problems.join(", ")}`)], { kind: "", group: "" })
        )
      return Either.left(Status.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(", ")}`))
    }
    return Either.right({ object, warnings: problems.length === 0 ? noWarnings : [...new Set(problems)] })
  }

  private checkTypeMeta(resource: ResourceType, obj: KObject): ApiError | undefined {
    const expected = apiVersionOf(resource)
    if (obj.apiVersion !== undefined && obj.apiVersion !== "" && obj.apiVersion !== expected)
      return Status.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`)
    if (obj.kind !== undefined && obj.kind !== "" && obj.kind !== resource.kind)
      return Status.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${resource.kind})`)
    return undefined
  }

  private invalid(resource: ResourceType, name: string, errors: ReadonlyArray<FieldError>): ApiError {
    const { qualifiedKind, group } = invalidKindOf(resource)
    return Status.invalid(qualifiedKind, name, errors, { kind: resource.kind, group })
  }

  create(resource: ResourceType, body: Body, opts: WriteOptions = {}): Effect.Effect<WriteResult, ApiError> {
    return this.admitted((now) => this.createAt(resource, body, opts, now))
  }

  /** `create` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  createAt(resource: ResourceType, body: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    if (opts.subresource === "binding") return this.bind(body, opts, now)
    if (opts.subresource) return Either.left(Status.methodNotAllowed())
    const bad = checkWriteOptions("CreateOptions", opts)
    if (bad) return Either.left(bad)
    const decoded = this.decodeBody(resource, body, opts.fieldValidation, false)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { object, warnings } = decoded.right
    return Either.map(this.createObject(resource, object, opts, now), (created) => ({ code: 201, object: created, warnings }))
  }

  private createObject(resource: ResourceType, input: KObject, opts: WriteOptions, now: number): Either.Either<KObject, ApiError> {
    const typeProblem = this.checkTypeMeta(resource, input)
    if (typeProblem) return Either.left(typeProblem)
    const meta = input.metadata
    if (meta.resourceVersion) return Either.left(Status.internal("resourceVersion should not be set on objects to be created"))
    let namespace: string | undefined
    if (resource.namespaced) {
      if (meta.namespace && opts.namespace && meta.namespace !== opts.namespace)
        return Either.left(Status.badRequest("the namespace of the provided object does not match the namespace sent on the request"))
      namespace = opts.namespace || meta.namespace || undefined
    }
    const generated = !meta.name && meta.generateName ? generatedName(meta.generateName, this.random) : undefined
    const name = meta.name || generated || ""
    const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, selfLink: _s, uid: _u, creationTimestamp: _c, ...kept } = meta
    const metadata: ObjectMeta = {
      ...extendable,
      ...kept,
      name,
      ...(namespace ? { namespace } : {}),
      uid: uuidV4(this.random),
      creationTimestamp: rfc3339(now)
    }
    if (!resource.namespaced) delete (metadata as { namespace?: string }).namespace
    const object: KObject = this.defaulted(resource, { ...extendable, ...input, apiVersion: apiVersionOf(resource), kind: resource.kind, metadata })
    const errors = [...validateObjectMetaCreate(object, resource.namespaced), ...(resource.rules.validateCreate?.(object) ?? [])]
    if (errors.length > 0) return Either.left(this.invalid(resource, name, errors))
    const missingNs = this.requireNamespace(resource, namespace)
    if (missingNs) return Either.left(missingNs)
    const existing = this.find(resource, namespace, name)?.obj
    if (existing) {
      return Either.left(
        generated ? Status.generateNameConflict(resource, name) : Status.alreadyExists(resource, name, existing.metadata.deletionTimestamp !== undefined)
      )
    }
    if (isDryRun(opts.dryRun)) return Either.right(object)
    // `object` and its metadata were built here for this write: the store may keep them as they are.
    return Either.right(withTypeMeta(this.store.putFresh(resource, this.key(resource, namespace, name), stripTypeMeta(object), now), resource))
  }

  /** Server-side defaults the simulator needs: namespace phase, deployment generation. */
  private defaulted(resource: ResourceType, obj: KObject): KObject {
    if (resource === Namespaces) {
      return { ...obj, spec: { finalizers: ["platform"], ...(obj.spec as object) }, status: { phase: "Active" } }
    }
    if (resource.kind === "Deployment") return { ...obj, metadata: { ...extendable, ...obj.metadata, generation: 1 } }
    return obj
  }

  update(resource: ResourceType, name: string, body: Body, opts: WriteOptions = {}): Effect.Effect<WriteResult, ApiError> {
    return this.admitted((now) => this.updateAt(resource, name, body, opts, now))
  }

  /** `update` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  updateAt(resource: ResourceType, name: string, body: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    const bad = checkWriteOptions("UpdateOptions", opts)
    if (bad) return Either.left(bad)
    if (opts.subresource && !resource.subresources.includes(opts.subresource)) return Either.left(Status.methodNotAllowed())
    // Parts sent back as they were read from the stored object need no decoding.
    const entry = this.find(resource, opts.namespace, name)
    const decoded = this.decodeBody(resource, body, opts.fieldValidation, false, entry?.obj)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    return this.updateObject(resource, name, decoded.right.object, opts, now, decoded.right.warnings, { namespace: opts.namespace, entry })
  }

  private updateObject(
    resource: ResourceType,
    name: string,
    input: KObject,
    opts: WriteOptions,
    now: number,
    warnings: ReadonlyArray<string>,
    /** The caller's own lookup, reused when the body names the same namespace (one lookup per request). */
    lookedUp?: { readonly namespace: string | undefined; readonly entry: Entry | undefined }
  ): Either.Either<WriteResult, ApiError> {
    const typeProblem = this.checkTypeMeta(resource, input)
    if (typeProblem) return Either.left(typeProblem)
    const meta = input.metadata
    if (meta.name !== undefined && meta.name !== "" && meta.name !== name)
      return Either.left(Status.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`))
    if (resource.namespaced && meta.namespace && opts.namespace && meta.namespace !== opts.namespace)
      return Either.left(Status.badRequest("the namespace of the provided object does not match the namespace sent on the request"))
    const namespace = resource.namespaced ? opts.namespace || meta.namespace || undefined : undefined
    const entry = lookedUp !== undefined && (!resource.namespaced || lookedUp.namespace === namespace) ? lookedUp.entry : this.find(resource, namespace, name)
    const stored = entry?.obj
    if (!stored) {
      if (!resource.allowCreateOnUpdate || opts.subresource) return Either.left(Status.notFound(resource, name))
      const { resourceVersion: _rv, ...rest } = meta
      return Either.map(this.createObject(resource, { ...input, metadata: { ...rest, name } }, opts, now), (created) => ({ code: 201, object: created, warnings }))
    }
    if (!meta.resourceVersion) {
      if (!resource.allowUnconditionalUpdate)
        return Either.left(
          Status.invalid(Status.qualifiedResource(resource), name, [invalidField("metadata.resourceVersion", new GoUint(0), "must be specified for an update")], {
            kind: resource.plural,
            group: resource.group
          })
        )
    } else if (meta.resourceVersion !== stored.metadata.resourceVersion) {
      return Either.left(Status.modifiedConflict(resource, name))
    }
    const merged = this.mergeForUpdate(resource, stored, input, opts.subresource)
    // The candidate as stored (no kind/apiVersion, the stored resourceVersion), for validation and the no-op check.
    const candidate = storedForm(merged, serverOwnedMeta(merged.metadata, stored.metadata, name, namespace))
    const errors: FieldError[] = []
    if (stored.metadata.deletionTimestamp !== undefined) {
      const before = new Set(stored.metadata.finalizers ?? [])
      const added = (candidate.metadata.finalizers ?? []).filter((f) => !before.has(f))
      if (added.length > 0)
        errors.push(forbidden("metadata.finalizers", `no new finalizers can be added if the object is being deleted, found new finalizers ${formatStringSlice(added)}`))
    }
    const invalid = resource.rules.validateUpdate?.(candidate, stored)
    if (invalid !== undefined && invalid.length > 0) errors.push(...invalid)
    if (errors.length > 0) return Either.left(this.invalid(resource, name, errors))
    if (resource.kind === "Deployment" && !sameObject(candidate.spec, stored.spec))
      (candidate.metadata as { generation?: number }).generation = (stored.metadata.generation ?? 0) + 1
    if (sameObject(candidate, stored)) return Either.right({ code: 200, object: withTypeMeta(stored, resource), warnings })
    if (isDryRun(opts.dryRun)) return Either.right({ code: 200, object: withTypeMeta(candidate, resource), warnings })
    if (stored.metadata.deletionTimestamp !== undefined && (candidate.metadata.finalizers ?? []).length === 0) {
      this.store.remove(resource, entry!.key, now)
      return Either.right({ code: 200, object: withTypeMeta(candidate, resource), warnings })
    }
    return Either.right({ code: 200, object: withTypeMeta(this.store.replace(resource, entry!, candidate, now), resource), warnings })
  }

  /** The main resource keeps the stored status; the status subresource changes only status. */
  private mergeForUpdate(resource: ResourceType, stored: KObject, input: KObject, subresource: string | undefined): KObject {
    if (subresource === "status") return { ...extendable, ...stored, metadata: statusWriteMeta(stored.metadata, input.metadata), status: input.status }
    if (resource.subresources.includes("status") && resource !== Namespaces) {
      const { status: _s, ...rest } = input
      return stored.status === undefined ? rest as KObject : { ...extendable, ...rest, status: stored.status } as KObject
    }
    return input
  }

  patch(resource: ResourceType, name: string, patchType: PatchType, patch: Body, opts: WriteOptions = {}): Effect.Effect<WriteResult, ApiError> {
    return this.admitted((now) => this.patchAt(resource, name, patchType, patch, opts, now))
  }

  /** `patch` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  patchAt(resource: ResourceType, name: string, patchType: PatchType, patch: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    const bad = checkWriteOptions("PatchOptions", opts)
    if (bad) return Either.left(bad)
    if (opts.subresource && !resource.subresources.includes(opts.subresource)) return Either.left(Status.methodNotAllowed())
    const entry = this.find(resource, opts.namespace, name)
    const stored = entry?.obj
    if (!stored) return Either.left(Status.notFound(resource, name))
    // A merge patch that does not touch kind/apiVersion is applied to the stored form (one copy of the object less).
    const value = patch.value
    const bare = patchType !== "json" && isRecord(value) && !("kind" in value) && !("apiVersion" in value)
    const patched = applyPatch(bare ? stored : withTypeMeta(stored, resource), patchType, value)
    if (Either.isLeft(patched)) return Either.left(patched.left)
    const decoded = this.decodeBody(resource, { value: patched.right }, opts.fieldValidation, true, stored)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { object, warnings } = decoded.right
    // A patch is based on the stored object: unconditional unless the patch itself sets a resourceVersion.
    const rv = object.metadata.resourceVersion || stored.metadata.resourceVersion
    const input = rv === object.metadata.resourceVersion ? object : { ...extendable, ...object, metadata: { ...extendable, ...object.metadata, resourceVersion: rv } }
    return this.updateObject(resource, name, input, opts, now, warnings, { namespace: opts.namespace, entry })
  }

  /** POST pods/<name>/binding: sets spec.nodeName once. */
  private bind(body: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    return Either.gen(this, function* () {
      const Pods = resourceTypes.find((r) => r.plural === "pods")!
      const binding = body.value
      if (!isRecord(binding) || !isRecord(binding.metadata) || !isRecord(binding.target))
        return yield* Either.left(Status.badRequest("Binding in version \"v1\" cannot be handled as a Binding: invalid binding"))
      const name = String(binding.metadata.name ?? "")
      const node = String(binding.target.name ?? "")
      const entry = this.find(Pods, opts.namespace, name)
      if (!entry) return yield* Either.left(Status.notFound(Pods, name))
      const pod = entry.obj
      const spec = (pod.spec ?? {}) as Record<string, unknown>
      if (spec.nodeName)
        return yield* Either.left(Status.conflict({ group: "", plural: "pods/binding" }, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`))
      const status = (pod.status ?? {}) as Record<string, unknown>
      const conditions = ((status.conditions ?? []) as Array<Record<string, unknown>>).filter((c) => c.type !== "PodScheduled")
      conditions.push({ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: rfc3339(now) })
      const next = { ...pod, spec: { ...extendable, ...spec, nodeName: node }, status: { ...extendable, ...status, conditions } }
      if (!isDryRun(opts.dryRun)) this.store.replace(Pods, entry, next, now)
      return { code: 201, object: Status.makeStatus({ status: "Success", code: 201 }) as unknown as KObject, warnings: [] }
    })
  }

  // ---- delete ---------------------------------------------------------------------------------------------

  delete(resource: ResourceType, name: string, opts: DeleteOptions = {}): Effect.Effect<DeleteResult, ApiError> {
    return this.admitted((now) => this.deleteAt(resource, name, opts, now))
  }

  /** `delete` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  deleteAt(resource: ResourceType, name: string, opts: DeleteOptions, now: number): Either.Either<DeleteResult, ApiError> {
    return Either.gen(this, function* () {
      const bad = checkDeleteOptions(opts)
      if (bad) return yield* Either.left(bad)
      const entry = this.find(resource, opts.namespace, name)
      if (!entry) return yield* Either.left(Status.notFound(resource, name))
      const stored = entry.obj
      const pre = opts.preconditions
      if (pre?.uid && pre.uid !== stored.metadata.uid)
        return yield* Either.left(preconditionConflict(resource, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${stored.metadata.uid}). The object might have been deleted and then recreated`))
      if (pre?.resourceVersion && pre.resourceVersion !== stored.metadata.resourceVersion)
        return yield* Either.left(preconditionConflict(resource, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${stored.metadata.resourceVersion}). The object might have been modified`))
      if (resource === Namespaces && initialNamespaces.includes(name) && name !== "platform-public" && name !== "platform-node-lease")
        return yield* Either.left(forbiddenNamespaceDelete(name))
      return this.deleteObject(resource, entry.key, stored, opts, now)
    })
  }

  private deleteObject(resource: ResourceType, key: string, stored: KObject, opts: DeleteOptions, now: number): DeleteResult {
    const dryRun = isDryRun(opts.dryRun)
    const terminating = stored.metadata.deletionTimestamp !== undefined
    if (terminating) return { code: 200, object: withTypeMeta(stored, resource) }
    const finalizers = [...(stored.metadata.finalizers ?? [])]
    if (resource.garbageCollected) {
      const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? "Orphan" : undefined)
      if (policy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan")
      if (policy === "Foreground" && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion")
    }
    if (finalizers.length === 0) {
      if (!dryRun) {
        if (resource === Namespaces) this.removeNamespaceContents(stored.metadata.name!, now)
        this.store.remove(resource, key, now)
      }
      return { code: 200, status: Status.deleteSuccess(resource, stored.metadata.name!, stored.metadata.uid ?? "") }
    }
    const generation = stored.metadata.generation
    const marked: KObject = {
      ...stored,
      metadata: {
        ...stored.metadata,
        ...(generation !== undefined && generation > 0 ? { generation: generation + 1 } : {}),
        deletionTimestamp: rfc3339(now),
        deletionGracePeriodSeconds: 0,
        finalizers
      }
    }
    if (dryRun) return { code: 200, object: withTypeMeta(marked, resource) }
    const saved = this.store.put(resource, key, marked, now)
    const code = opts.orphanDependents === false ? 202 : 200
    const result = { code, object: withTypeMeta(saved, resource) }
    this.collectGarbage(resource, key, now)
    return result
  }

  /**
   * The minimal garbage-collection step: removes `orphan` (after orphaning dependents) and
   * `foregroundDeletion` (after deleting dependents) so nothing is stuck terminating.
   */
  private collectGarbage(resource: ResourceType, key: string, now: number): void {
    const obj = this.store.get(resource, key)
    if (!obj) return
    const finalizers = obj.metadata.finalizers ?? []
    const gcFinalizers = finalizers.filter((f) => f === "orphan" || f === "foregroundDeletion")
    if (gcFinalizers.length === 0) return
    const uid = obj.metadata.uid
    for (const type of resourceTypes) {
      const dependents = this.store.page({ resource: type, revision: this.store.revision, prefix: "", start: "", limit: undefined, countRemaining: false, matches: (o) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid) })
      for (const dep of dependents.items) {
        const depKey = this.key(type, dep.metadata.namespace, dep.metadata.name!)
        if (finalizers.includes("orphan")) {
          const ownerReferences = (dep.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid)
          this.store.put(type, depKey, { ...dep, metadata: { ...extendable, ...dep.metadata, ownerReferences } }, now)
        } else {
          this.deleteObject(type, depKey, dep, {}, now)
        }
      }
    }
    const remaining = finalizers.filter((f) => f !== "orphan" && f !== "foregroundDeletion")
    if (remaining.length === 0) this.store.remove(resource, key, now)
    else this.store.put(resource, key, { ...obj, metadata: { ...obj.metadata, finalizers: remaining } }, now)
  }

  /** "A namespaced resource type is deleted when its namespace is deleted" (spec 000). */
  private removeNamespaceContents(namespace: string, now: number): void {
    for (const type of resourceTypes) {
      if (!type.namespaced) continue
      const prefix = keyPrefix(namespace)
      const page = this.store.page({ resource: type, revision: this.store.revision, prefix, start: prefix, limit: undefined, matches: () => true, countRemaining: false })
      for (const obj of page.items) this.store.remove(type, objectKey(namespace, obj.metadata.name!), now)
    }
  }

  deleteCollection(resource: ResourceType, opts: ListOptions & DeleteOptions = {}): Effect.Effect<KList, ApiError> {
    return Effect.gen(this, function* () {
      const now = yield* this.admit
      if (resource === Namespaces) return yield* Effect.fail(Status.methodNotAllowed())
      const bad = checkDeleteOptions(opts)
      if (bad) return yield* Effect.fail(bad)
      const { matches } = yield* this.selectors(resource, opts)
      const prefix = keyPrefix(resource.namespaced ? opts.namespace : undefined)
      const revision = this.store.revision
      const page = this.store.page({ resource, revision, prefix, start: prefix, limit: undefined, matches, countRemaining: false })
      for (const obj of page.items) {
        const key = this.key(resource, obj.metadata.namespace, obj.metadata.name!)
        const current = this.store.get(resource, key)
        if (current) this.deleteObject(resource, key, current, opts, now)
      }
      return listOf(resource, page.items.map(stripTypeMeta), { resourceVersion: String(revision) })
    })
  }
}

/** A read that must first wait for the server to reach `revision` (the watch cache's 3 s wait). */
export class WaitFor {
  constructor(readonly revision: number) {}
}

const endMarker: unique symbol = Symbol("end of watch")

/** Polling period while waiting for a too-large resource version (virtual or real time). */
const revisionPollInterval = Duration.millis(100)

const expiredContinueMessage =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

const parseRv = (rv: string): Effect.Effect<number, ApiError> =>
  /^\d+$/.test(rv)
    ? Effect.succeed(Number(rv))
    : Effect.fail(Status.internal(`resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`))

const tooOldEvent = (resource: ResourceType, asked: number, oldest: number): WatchEvent => ({
  type: "ERROR",
  object: Status.makeStatus({
    message: resource.watchCached ? `too old resource version: ${asked} (${oldest})` : "The resourceVersion for the provided watch is too old.",
    reason: "Expired",
    code: 410
  }) as unknown as KObject
})

const bookmarkEvent = (resource: ResourceType, revision: number): WatchEvent => ({
  type: "BOOKMARK",
  object: {
    kind: resource.kind,
    apiVersion: apiVersionOf(resource),
    metadata: { resourceVersion: String(revision), creationTimestamp: null },
    ...(resource.kind === "Lease" || resource.kind === "Pod" || resource.kind === "Node" || resource.kind === "Service" || resource.kind === "Deployment" || resource.kind === "Namespace" ? { spec: {} } : {}),
    ...(resource.kind === "Pod" || resource.kind === "Node" || resource.kind === "Service" || resource.kind === "Deployment" || resource.kind === "Namespace" ? { status: {} } : {})
  }
})

/** A status write changes only labels, annotations and the resourceVersion precondition of the stored metadata. */
const statusWriteMeta = (stored: ObjectMeta, sent: ObjectMeta): ObjectMeta => {
  const labels = sent.labels ?? stored.labels
  const annotations = sent.annotations ?? stored.annotations
  if (labels === stored.labels && annotations === stored.annotations && sent.resourceVersion === stored.resourceVersion) return stored
  return {
    ...extendable,
    ...stored,
    ...(labels !== undefined ? { labels } : {}),
    ...(annotations !== undefined ? { annotations } : {}),
    resourceVersion: sent.resourceVersion
  }
}

/**
 * The metadata of an update as the server keeps it: name, namespace, uid, creationTimestamp, generation and the
 * deletion fields from the stored object, and the stored resourceVersion. The client's own metadata when it
 * already says exactly that (a client sending back what it read), else a copy.
 */
const serverOwnedMeta = (meta: ObjectMeta, stored: ObjectMeta, name: string, namespace: string | undefined): ObjectMeta => {
  if (
    meta.name === name &&
    meta.namespace === namespace &&
    meta.uid === stored.uid &&
    meta.creationTimestamp === stored.creationTimestamp &&
    meta.generation === stored.generation &&
    meta.deletionTimestamp === stored.deletionTimestamp &&
    meta.deletionGracePeriodSeconds === stored.deletionGracePeriodSeconds &&
    meta.resourceVersion === stored.resourceVersion
  )
    return meta
  const out: Record<string, unknown> = { ...extendable, ...meta, name, ...(namespace ? { namespace } : {}), uid: stored.uid, creationTimestamp: stored.creationTimestamp }
  if (stored.generation !== undefined) out.generation = stored.generation
  if (stored.deletionTimestamp !== undefined) {
    out.deletionTimestamp = stored.deletionTimestamp
    out.deletionGracePeriodSeconds = stored.deletionGracePeriodSeconds
  } else {
    delete out.deletionTimestamp
    delete out.deletionGracePeriodSeconds
  }
  out.resourceVersion = stored.resourceVersion
  return out as ObjectMeta
}

/** `obj` as the store keeps it: without kind/apiVersion, with `metadata` (`obj` itself when it already is). */
const storedForm = (obj: KObject, metadata: ObjectMeta): KObject => {
  if (obj.metadata === metadata && !("kind" in obj) && !("apiVersion" in obj)) return obj
  const out: Record<string, unknown> = {}
  for (const key in obj) if (key !== "kind" && key !== "apiVersion") out[key] = obj[key]
  out.metadata = metadata
  return out as KObject
}

const noWarnings: ReadonlyArray<string> = Object.freeze([])

const formatStringSlice = (items: ReadonlyArray<string>): string => `[]string{${items.map((s) => JSON.stringify(s)).join(", ")}}`

const jsonTypeName = (v: unknown): string => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v)

const propagationPolicies = ["Foreground", "Background", "Orphan"]

const checkDeleteOptions = (opts: DeleteOptions): ApiError | undefined => {
  const dry = dryRunErrors(opts.dryRun)
  if (dry.length > 0) return Status.invalidOptions("DeleteOptions", dry)
  const errors: FieldError[] = []
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined)
    errors.push(invalidField("propagationPolicy", opts.propagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
  if (opts.propagationPolicy !== undefined && !propagationPolicies.includes(opts.propagationPolicy))
    errors.push(notSupported("propagationPolicy", opts.propagationPolicy, [...propagationPolicies, "nil"]))
  return errors.length > 0 ? Status.invalidOptions("DeleteOptions", errors) : undefined
}

const preconditionConflict = (resource: ResourceType, name: string, detail: string) =>
  Status.conflict({ group: resource.group, plural: resource.kind }, name, detail)

const forbiddenNamespaceDelete = (name: string) =>
  new Status.ApiError({
    status: Status.makeStatus({
      code: 403,
      reason: "Forbidden",
      message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      details: { name, kind: "namespaces" }
    })
  })
