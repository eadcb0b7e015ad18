/**
 * Requests of callers that keep their own clock (the node-agent shards, thousands of agents on one fiber): each call is
 * classified and booked on the service-time model at the caller's instant — read or mutating by its verb, its objects
 * and bytes, its API Priority and Fairness request as the caller's identity — then answered by the client the caller
 * set (the server's immediate view in a simulation). The call's end is in `completion`; one given up after client-go's
 * 429 retries is never sent. The callers only make requests: what they cost is decided here, with
 * `ServiceTimeModel.complete` (docs/apf.md).
 *
 * Nothing is allocated per call: a shard has one `BookedClient`, the kinds of request its agents make are a short
 * table shared by all of them, and each agent's classified requests are a record it keeps (`CallerRequests`), made at
 * its first request of each kind. A record per call, or a per-agent table searched per call, cost the 5,000-node hour
 * ~15–30 % more CPU (docs/benchmarks.md). The agents of a shard are classified alike (their node identities): a call
 * of theirs that starts at once — nearly all — is booked by its kind's priority level alone, without touching the
 * agent's record (`BookedClient.alike`).
 */
import type { Effect } from "effect"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import type { KList, KObject } from "../../src/api/Object.js"
import type { DeleteOptions, DeleteResult, GetOptions, ListOptions, PatchType, WriteOptions, WriteResult } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { modelRequest, type ModelIdentity, type ModelRequest } from "./ModelRequests.js"
import { listEstimate } from "./ApfTimedClient.js"
import { approximateBytes, Completion, type RequestClass, type ServiceTimeModel } from "./ServiceTimeModel.js"
import { classifiedByGroups } from "./apf/Bootstrap.js"

/**
 * The body sizes the model books for a node agent's requests (a GET's answer, a write's body), by resource and
 * subresource: the model does not measure them — a JSON walk per request would cost the 5,000-node hour more than the
 * booking itself. Other resources: a write's body is measured, a read's answer counts no bytes.
 */
const typicalBytes: Readonly<Record<string, number>> = {
  leases: 420,
  nodes: 1_600,
  "nodes/status": 1_600,
  "pods/status": 900
}

/** One kind of request (verb, resource, subresource, namespace), whoever makes it, as the model books it. */
interface Kind {
  readonly verb: string
  readonly resource: ResourceType
  readonly namespace: string | undefined
  readonly subresource: string | undefined
  readonly cls: RequestClass
  /** The bytes booked; undefined: a write's body, measured per call. */
  readonly bytes: number | undefined
  /** Its place in each caller's record (`CallerRequests.made`). */
  readonly slot: number
}

/**
 * One caller's requests as the model classified them (its identity's APF attributes), one per kind, made at its first
 * request of that kind and kept with the caller (a node agent's `AgentState.requests`). Used with one `BookedClient`
 * (the kinds' places are its own). A caller made by `BookedClient.callerOf` makes its request of a kind only when a
 * booking needs it (`BookedClient`'s callers alike).
 */
export class CallerRequests {
  readonly made: Array<ModelRequest | undefined> = []
  constructor(readonly identity: ModelIdentity) {}
}

/** The same groups in the same order (a shard's node identities all have `nodeUser`'s). */
const sameGroups = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => a.length === b.length && a.every((g, i) => g === b[i])

/**
 * Booked calls of the callers of one shard. Before a call set `t` (the caller's instant), `caller` (its record) and
 * `client` (who answers); a verb books the call and returns the client's answer, or `undefined` for a call given up
 * after 429s (never sent). Either way `completion.end` is when it ended.
 */
export class BookedClient {
  /** The instant the next call is made at (ms). */
  t = 0
  /** Who makes the next call: a record `callerOf` made, when any caller's was (callers alike are not looked at). */
  caller: CallerRequests | undefined = undefined
  /** Who answers the next call (an immediate view answers with an `Either`, itself an effect). */
  client: ApiClientService | undefined = undefined
  /** The last call's end (given up: when its last 429 was answered), and whether it was given up. */
  readonly completion = new Completion()
  private readonly kinds: Array<Kind> = []
  /**
   * The callers alike: set while every caller is made by `callerOf` and classified as the first (`classifiedByGroups`:
   * no FlowSchema names its user, and its groups are the first's) — a shard's node agents. A call of theirs that
   * starts at once is then booked by the kind's priority level (`alikeLevels`), without a look at the caller's own
   * record: with thousands of callers each touched once per 10 s, the hops to it (record, array, request) were cache
   * misses, most of the 5,000-node hour's booking (docs/benchmarks.md). Any other caller ends it for good: the
   * general path is right for every caller.
   */
  private alike: ModelIdentity | undefined = undefined
  /** Whether `callerOf` made a record yet (its first caller decides `alike`). */
  private callersMade = false
  /** Per kind (by slot), the priority level of the callers alike's requests of it; undefined until the first. */
  private readonly alikeLevels: Array<number | undefined> = []

  constructor(
    /** Absent: nothing is booked; a call ends when it is made (real time: the clock says when its answer came). */
    private readonly model: ServiceTimeModel | undefined
  ) {}

  get(resource: ResourceType, name: string, opts?: GetOptions): Effect.Effect<KObject, ClientError> | undefined {
    return this.book(this.kindOf("get", resource, opts?.namespace, undefined), 1, undefined) ? undefined : this.client!.get(resource, name, opts)
  }

  list(resource: ResourceType, opts?: ListOptions): Effect.Effect<KList, ClientError> | undefined {
    const objects = this.model === undefined ? 0 : listEstimate(this.model, resource, opts).objects
    return this.book(this.kindOf("list", resource, opts?.namespace, undefined), objects, undefined) ? undefined : this.client!.list(resource, opts)
  }

  create(resource: ResourceType, obj: unknown, opts?: WriteOptions): Effect.Effect<WriteResult, ClientError> | undefined {
    return this.book(this.kindOf("create", resource, opts?.namespace, opts?.subresource), 0, obj) ? undefined : this.client!.create(resource, obj, opts)
  }

  update(resource: ResourceType, obj: KObject, opts?: WriteOptions): Effect.Effect<WriteResult, ClientError> | undefined {
    const kind = this.kindOf("update", resource, opts?.namespace ?? obj.metadata.namespace, opts?.subresource)
    return this.book(kind, 0, obj) ? undefined : this.client!.update(resource, obj, opts)
  }

  patch(resource: ResourceType, name: string, patchType: PatchType, patch: unknown, opts?: WriteOptions): Effect.Effect<WriteResult, ClientError> | undefined {
    const kind = this.kindOf("patch", resource, opts?.namespace, opts?.subresource)
    return this.book(kind, 0, patch) ? undefined : this.client!.patch(resource, name, patchType, patch, opts)
  }

  delete(resource: ResourceType, name: string, opts?: DeleteOptions): Effect.Effect<DeleteResult, ClientError> | undefined {
    return this.book(this.kindOf("delete", resource, opts?.namespace, undefined), 0, undefined) ? undefined : this.client!.delete(resource, name, opts)
  }

  deleteCollection(resource: ResourceType, opts?: ListOptions & DeleteOptions): Effect.Effect<KList, ClientError> | undefined {
    return this.book(this.kindOf("deletecollection", resource, opts?.namespace, undefined), 0, undefined) ? undefined : this.client!.deleteCollection(resource, opts)
  }

  /**
   * A caller's record, for a `BookedClient` whose callers are all made here (a shard's node agents): callers alike
   * (`alike`) are booked without a look at their records while their calls start at once.
   */
  callerOf(identity: ModelIdentity): CallerRequests {
    if (!this.callersMade) {
      this.callersMade = true
      if (classifiedByGroups(identity.user)) this.alike = identity
    } else if (this.alike !== undefined && !(classifiedByGroups(identity.user) && sameGroups(identity.groups, this.alike.groups))) this.alike = undefined
    return new CallerRequests(identity)
  }

  /** Books a call of `kind` at `t` as the caller's; true when it was given up. */
  private book(kind: Kind, objects: number, body: unknown): boolean {
    const model = this.model
    const completion = this.completion
    if (model === undefined) {
      completion.end = this.t
      completion.givenUp = false
      return false
    }
    const bytes = kind.bytes ?? (body === undefined ? 0 : approximateBytes(body))
    const cls = kind.cls
    const serviceMs = model.serviceMs(cls, objects, bytes) * model.factor(cls)
    // most calls of callers alike start at once: booked by their kind's level, the caller's record left alone
    if (this.alike !== undefined && model.completeAtOnce(this.t, cls, this.alikeLevel(kind), serviceMs, completion)) return false
    return model.completeFor(this.t, cls, serviceMs, this.request(kind), completion).givenUp
  }

  /** The caller's request of `kind`, made at its first that needs it. */
  private request(kind: Kind): ModelRequest {
    const caller = this.caller!
    return caller.made[kind.slot] ?? (caller.made[kind.slot] = modelRequest(kind.verb, kind.resource, kind.namespace, kind.subresource, caller.identity))
  }

  /** The priority level of the callers alike's requests of `kind`: the first caller's (any of theirs is the same). */
  private alikeLevel(kind: Kind): number {
    return this.alikeLevels[kind.slot] ?? (this.alikeLevels[kind.slot] = modelRequest(kind.verb, kind.resource, kind.namespace, kind.subresource, this.alike!).level!)
  }

  /** The kind of a call: a handful per shard, shared by its agents, so the search stays in the CPU's cache. */
  private kindOf(verb: string, resource: ResourceType, namespace: string | undefined, subresource: string | undefined): Kind {
    const kinds = this.kinds
    for (let i = 0; i < kinds.length; i++) {
      const k = kinds[i]!
      if (k.resource === resource && k.verb === verb && k.namespace === namespace && k.subresource === subresource) return k
    }
    const cls: RequestClass = verb === "get" || verb === "list" ? "read" : "mutating"
    // a GET's answer and a write's body have a size; a LIST (its objects count), a delete, nothing booked in bytes
    const sized = verb === "get" || verb === "create" || verb === "update" || verb === "patch"
    const typical = sized ? typicalBytes[subresource ? `${resource.plural}/${subresource}` : resource.plural] : 0
    const kind: Kind = { verb, resource, namespace, subresource, cls, bytes: typical ?? (cls === "read" ? 0 : undefined), slot: kinds.length }
    kinds.push(kind)
    return kind
  }
}
