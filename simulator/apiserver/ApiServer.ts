/**
 * The simulated API server: the Tag, and a thin facade over its mechanisms. Transport-free — `HttpServer` serves
 * it on a socket, `InProcessClient` calls it directly; both let every request in through `Admission`.
 *
 * - `ServerState` — store, watch fan-out, seeded random, configuration
 * - `Admission`   — the one request entry: pause, compaction, arrival time
 * - `Read`        — get and list: resource-version plans, waits, selectors, paging
 * - `Watch`       — watches: start state or replay, live events, bookmarks, deadlines
 * - `Decode`      — body decoding, field validation, option checks (pure)
 * - `Write`       — create, update, patch, pods/binding
 * - `Delete`      — delete, finalizers, garbage collection, namespace contents, deletecollection
 * - `Eviction`    — pods/eviction: a delete asked for with an Eviction body
 * - `auth/`       — authentication, authorization (RBAC), service-account tokens, access reviews
 *
 * Time comes from the Effect `Clock`, randomness from a seeded generator.
 */
import { Clock, Context, Effect, Either, Layer, Scope, Stream } from "effect"
import type { KList, KObject, WatchEvent } from "../../src/api/Object.js"
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
import { Pods, SelfSubjectReviews, ServiceAccounts, type ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ClientError } from "../../src/client/TransportError.js"
import type { TakeBatch, WatchAgain, WatchPull } from "../../src/client/WatchPull.js"
import { Admission } from "./Admission.js"
import { AccessControl } from "./auth/AccessControl.js"
import { bootstrapPolicy } from "./auth/BootstrapPolicy.js"
import { boundPod, ServiceAccountTokens } from "./auth/ServiceAccountTokens.js"
import { tokenRequestAt } from "./auth/TokenRequest.js"
import { review } from "./auth/AccessReviews.js"
import { selfSubjectReview } from "./auth/SelfSubjectReview.js"
import { RoleEscalation } from "./auth/RoleEscalation.js"
import type { UserInfo } from "./auth/UserInfo.js"
import type { Body } from "./Decode.js"
import { Delete } from "./Delete.js"
import { evictAt } from "./Eviction.js"
import { Read, type WaitFor } from "./Read.js"
import { defaultConfig, ServerState, type ApiServerConfig } from "./ServerState.js"
import type { Store } from "./Store.js"
import { Watch } from "./Watch.js"
import { openWatchChain, type WatchBooking } from "./WatchChain.js"
import type { WatchHub, WatchSink } from "./WatchHub.js"
import { Write, type ServerWriteOptions } from "./Write.js"

export type { Body } from "./Decode.js"
export { WaitFor } from "./Read.js"
export { defaultConfig, type ApiServerConfig } from "./ServerState.js"

export class ApiServer extends Context.Tag("clustersim/ApiServer")<ApiServer, ApiServerImpl>() {
  static readonly layer = (config: Partial<ApiServerConfig> = {}) =>
    Layer.effect(ApiServer, makeApiServer({ ...defaultConfig, ...config }))
}

export const makeApiServer = (config: ApiServerConfig) =>
  Effect.map(Clock.currentTimeMillis, (now) => new ApiServerImpl(config, now))

/**
 * Every verb, effectful (they let the request in through `Admission`), and the immediate forms a transport that
 * answers on the spot uses after `admission.enterNow(now)`: `getNow`/`listNow` (or the revision to wait for) and
 * `createAt`/`updateAt`/`patchAt`/`deleteAt`.
 */
export class ApiServerImpl {
  readonly state: ServerState
  readonly admission: Admission
  /** Authentication and authorization; transports ask it about every request. */
  readonly access: AccessControl
  readonly serviceAccountTokens = new ServiceAccountTokens()
  private readonly reads: Read
  private readonly watches: Watch
  private readonly writes: Write
  private readonly deletes: Delete

  constructor(config: ApiServerConfig, startTime: number) {
    this.state = new ServerState(config, startTime)
    this.admission = new Admission(this.state)
    this.reads = new Read(this.state, this.admission)
    this.watches = new Watch(this.state, this.admission)
    const accountUid = (namespace: string, name: string) => this.state.find(ServiceAccounts, namespace, name)?.obj.metadata.uid
    this.access = new AccessControl(config.authentication, config.authorizationMode, this.state.store, this.serviceAccountTokens, accountUid, (kind, namespace, name) =>
      kind === "Pod" ? boundPod(this.state.find(Pods, namespace, name)?.obj) : undefined
    )
    const rbac = this.access.authorizer.rbac
    this.writes = new Write(this.state, this.admission, rbac ? new RoleEscalation(this.access.authorizer, rbac) : undefined)
    this.deletes = new Delete(this.state, this.admission)
    // Upstream reconciles its bootstrap policy at start; only an RBAC server has (and needs) one.
    if (config.authorizationMode === "RBAC")
      for (const { resource, object } of bootstrapPolicy()) {
        const created = this.writes.createAt(resource, { value: object }, {}, startTime)
        if (created._tag === "Left") throw new Error(`bootstrap policy ${object.metadata.name}: ${created.left.message}`)
      }
  }

  get config(): ApiServerConfig {
    return this.state.config
  }

  get store(): Store {
    return this.state.store
  }

  get hub(): WatchHub {
    return this.state.hub
  }

  // ---- admin hooks ----------------------------------------------------------------------------------------

  /** True while an admin pause holds requests. */
  get paused(): boolean {
    return this.admission.paused
  }

  /** Stop answering for `ms` (requests wait), as an overloaded or restarting server would. */
  pause(ms: number): Effect.Effect<void> {
    return this.admission.pause(ms)
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

  /**
   * Expire every service-account token issued so far (the `expire-tokens` step, side server), and with
   * `dropWatches` close every watch in the same step, as a restart with a new signing key would; how many of each.
   */
  expireTokens(dropWatches = false): Effect.Effect<{ readonly expired: number; readonly dropped: number }> {
    return Effect.sync(() => ({ expired: this.serviceAccountTokens.expireIssued(), dropped: dropWatches ? this.hub.closeAll() : 0 }))
  }

  // ---- verbs ----------------------------------------------------------------------------------------------

  get(resource: ResourceType, name: string, opts?: GetOptions): Effect.Effect<KObject, ApiError> {
    return this.reads.get(resource, name, opts)
  }

  getNow(resource: ResourceType, name: string, opts?: GetOptions): Either.Either<KObject, ApiError> | WaitFor {
    return this.reads.getNow(resource, name, opts)
  }

  /** The latest stored object itself, or its 404 (`Read.storedNow`, `StoredRead.ts`). */
  storedNow(resource: ResourceType, namespace: string | undefined, name: string): Either.Either<KObject, ApiError> {
    return this.reads.storedNow(resource, namespace, name)
  }

  list(resource: ResourceType, opts?: ListOptions): Effect.Effect<KList, ApiError> {
    return this.reads.list(resource, opts)
  }

  listNow(resource: ResourceType, opts?: ListOptions): Either.Either<KList, ApiError> | WaitFor {
    return this.reads.listNow(resource, opts)
  }

  watch(resource: ResourceType, opts?: WatchOptions, name?: string): Effect.Effect<Stream.Stream<WatchEvent>, ApiError, Scope.Scope> {
    return this.watches.watch(resource, opts, name)
  }

  /** `watch` as pulls of event batches (the in-process client's `pullWatch`). */
  pullWatch(resource: ResourceType, opts?: WatchOptions, name?: string): Effect.Effect<WatchPull, ApiError, Scope.Scope> {
    return this.watches.pullWatch(resource, opts, name)
  }

  /** `pullWatch` read as a chain of watches, each booked by `booking` (`WatchChain.ts`). */
  openWatchChain(resource: ResourceType, opts: WatchOptions, take: TakeBatch, again: WatchAgain, booking: WatchBooking): Effect.Effect<WatchPull, ClientError, Scope.Scope> {
    return openWatchChain(this.watches, resource, opts, take, again, booking)
  }

  watchInto(resource: ResourceType, opts: WatchOptions, name: string | undefined, sink: WatchSink): Effect.Effect<void, ApiError, Scope.Scope> {
    return this.watches.watchInto(resource, opts, name, sink)
  }

  create(resource: ResourceType, body: Body, opts?: ServerWriteOptions): Effect.Effect<WriteResult, ApiError> {
    if (opts?.subresource === "eviction") return this.admission.admitted((now) => evictAt(this.deletes, body, opts, now))
    if (opts?.subresource === "token" && resource === ServiceAccounts) return this.admission.admitted((now) => this.tokenRequestAt(body, opts, now))
    return this.writes.create(resource, body, opts)
  }

  createAt(resource: ResourceType, body: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    if (opts.subresource === "eviction") return evictAt(this.deletes, body, opts, now)
    if (opts.subresource === "token" && resource === ServiceAccounts) return this.tokenRequestAt(body, opts, now)
    return this.writes.createAt(resource, body, opts, now)
  }

  /** An access review (a virtual type's create) asked by `caller`. */
  review(resource: ResourceType, body: unknown, caller: UserInfo): Effect.Effect<WriteResult, ApiError> {
    if (resource === SelfSubjectReviews) return this.admission.admitted((now) => Either.right(selfSubjectReview(caller, now)))
    return this.admission.admitted(() => review(this.access.authorizer, resource, body, caller))
  }

  /** A service account token (TokenRequest); the account's name is the body's `metadata.name` as the route set it. */
  private tokenRequestAt(body: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    const value = body.value as { metadata?: { name?: string } } | undefined
    const name = value?.metadata?.name ?? ""
    const namespace = opts.namespace ?? ""
    return tokenRequestAt(this.serviceAccountTokens, this.state.find(ServiceAccounts, namespace, name)?.obj, name, namespace, body.value, now, (pod) =>
      this.state.find(Pods, namespace, pod)?.obj
    )
  }

  update(resource: ResourceType, name: string, body: Body, opts?: ServerWriteOptions): Effect.Effect<WriteResult, ApiError> {
    return this.writes.update(resource, name, body, opts)
  }

  updateAt(resource: ResourceType, name: string, body: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    return this.writes.updateAt(resource, name, body, opts, now)
  }

  patch(resource: ResourceType, name: string, patchType: PatchType, patch: Body, opts?: ServerWriteOptions): Effect.Effect<WriteResult, ApiError> {
    return this.writes.patch(resource, name, patchType, patch, opts)
  }

  patchAt(resource: ResourceType, name: string, patchType: PatchType, patch: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    return this.writes.patchAt(resource, name, patchType, patch, opts, now)
  }

  delete(resource: ResourceType, name: string, opts?: DeleteOptions): Effect.Effect<DeleteResult, ApiError> {
    return this.deletes.delete(resource, name, opts)
  }

  deleteAt(resource: ResourceType, name: string, opts: DeleteOptions, now: number): Either.Either<DeleteResult, ApiError> {
    return this.deletes.deleteAt(resource, name, opts, now)
  }

  deleteCollection(resource: ResourceType, opts?: ListOptions & DeleteOptions): Effect.Effect<KList, ApiError> {
    return this.deletes.deleteCollection(resource, opts)
  }
}
