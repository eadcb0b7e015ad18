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
 * ~15–30 % more CPU (docs/benchmarks.md).
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
 * (the kinds' places are its own).
 */
export class CallerRequests {
  readonly made: Array<ModelRequest | undefined> = []
  /** The kinds (by slot, those below 31) whose request `made` holds: known without reading the array. */
  kept = 0
  /** The callers whose requests are classified as this one's (`IdentityGroup`), found at its first call. */
  group: IdentityGroup | undefined = undefined
  constructor(readonly identity: ModelIdentity) {}
}

/**
 * Callers of one `BookedClient` whose requests are classified alike (`classifiedByGroups`: no FlowSchema names their
 * users, and their groups are the same) — a shard's node agents — and, per kind (by slot), the priority level their
 * requests are in, from the first such request made. A booking that starts at once reads the level here, shared and
 * in the CPU's cache, rather than in the caller's own request: with thousands of callers each touched once per 10 s,
 * the hops to it (record, array, request) were cache misses, most of the 5,000-node hour's booking (docs/benchmarks.md).
 */
class IdentityGroup {
  readonly levels: Array<number> = []
  /** `shared`: false for callers a FlowSchema names, whose own request is always read. */
  constructor(readonly shared: boolean) {}
}

/** The kinds whose slots `CallerRequests.kept` holds. */
const keptSlots = 31

/**
 * Booked calls of the callers of one shard. Before a call set `t` (the caller's instant), `caller` (its record) and
 * `client` (who answers); a verb books the call and returns the client's answer, or `undefined` for a call given up
 * after 429s (never sent). Either way `completion.end` is when it ended.
 */
export class BookedClient {
  /** The instant the next call is made at (ms). */
  t = 0
  /** Who makes the next call. */
  caller: CallerRequests | undefined = undefined
  /** Who answers the next call (an immediate view answers with an `Either`, itself an effect). */
  client: ApiClientService | undefined = undefined
  /** The last call's end (given up: when its last 429 was answered), and whether it was given up. */
  readonly completion = new Completion()
  private readonly kinds: Array<Kind> = []
  /** The callers' groups, by their groups (`IdentityGroup`), and the one of callers classified on their own. */
  private readonly groups = new Map<string, IdentityGroup>()
  private readonly ungrouped = new IdentityGroup(false)

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

  /** Books a call of `kind` at `t` as the caller's; true when it was given up. */
  private book(kind: Kind, objects: number, body: unknown): boolean {
    const model = this.model
    const completion = this.completion
    if (model === undefined) {
      completion.end = this.t
      completion.givenUp = false
      return false
    }
    const caller = this.caller!
    const slot = kind.slot
    if (slot >= keptSlots || (caller.kept & (1 << slot)) === 0) this.keep(caller, kind)
    const bytes = kind.bytes ?? (body === undefined ? 0 : approximateBytes(body))
    const cls = kind.cls
    const serviceMs = model.serviceMs(cls, objects, bytes) * model.factor(cls)
    // most requests start at once, booked by their group's level without reading the caller's own request
    if (model.completeAtOnce(this.t, cls, caller.group!.levels[slot] ?? -1, serviceMs, completion)) return false
    return model.completeFor(this.t, cls, serviceMs, caller.made[slot], completion).givenUp
  }

  /** Makes the caller's request of `kind` at its first such call, and its group's level for the kind at the group's first. */
  private keep(caller: CallerRequests, kind: Kind): void {
    const slot = kind.slot
    const request = caller.made[slot] ?? (caller.made[slot] = modelRequest(kind.verb, kind.resource, kind.namespace, kind.subresource, caller.identity))
    if (slot < keptSlots) caller.kept |= 1 << slot
    const group = caller.group ?? (caller.group = this.groupOf(caller.identity))
    if (group.shared) group.levels[slot] ??= request.level!
  }

  private groupOf(identity: ModelIdentity): IdentityGroup {
    if (!classifiedByGroups(identity.user)) return this.ungrouped
    const key = identity.groups.join("\n")
    let group = this.groups.get(key)
    if (group === undefined) this.groups.set(key, (group = new IdentityGroup(true)))
    return group
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
