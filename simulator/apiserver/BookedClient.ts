/**
 * Requests of a caller that keeps its own clock (the node-agent shards, thousands of agents on one fiber): each call is
 * classified and booked on the service-time model at the caller's instant — read or mutating by its verb, its objects
 * and bytes, its API Priority and Fairness request as the caller's identity — then answered by the client the caller
 * set (the server's immediate view in a simulation). The answer comes with the instant it ends; one given up after
 * client-go's 429 retries is never sent. The callers only make requests: what they cost is decided here, with
 * `ServiceTimeModel.complete` (docs/apf.md).
 */
import type { Effect } from "effect"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import type { KObject } from "../../src/api/Object.js"
import type { DeleteOptions, GetOptions, ListOptions, PatchType, WriteOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ClientError } from "../../src/client/TransportError.js"
import type { ModelIdentity, ModelRequest } from "./ModelRequests.js"
import { approximateBytes, listEstimate, type Completion, type RequestClass, type ServiceTimeModel } from "./ServiceTime.js"

/** A booked call: when its answer arrives (given up: when its last 429 was answered), and the answer (none: given up). */
export interface Booked<A> {
  readonly end: number
  readonly answer: Effect.Effect<A, ClientError> | undefined
}

type Verbs = Pick<ApiClientService, "get" | "list" | "create" | "update" | "patch" | "delete" | "deleteCollection">
type Answer<F> = F extends (...args: ReadonlyArray<never>) => Effect.Effect<infer A, ClientError> ? A : never

/** The verbs of `ApiClientService` (watches are not booked per call), answering with their booking. */
export type BookedCalls = { readonly [K in keyof Verbs]: (...args: Parameters<Verbs[K]>) => Booked<Answer<Verbs[K]>> }

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

const bytesOf = (resource: ResourceType, subresource: string | undefined, body: unknown): number =>
  typicalBytes[subresource ? `${resource.plural}/${subresource}` : resource.plural] ?? (body === undefined ? 0 : approximateBytes(body))

/** A request of one kind made before: an agent repeats a handful, so a short list compared by identity finds it. */
interface Made {
  readonly verb: string
  readonly resource: ResourceType
  readonly namespace: string | undefined
  readonly subresource: string | undefined
  readonly request: ModelRequest
}

/**
 * One caller's booked calls. Set `t` (the caller's instant) and `client` (who answers) before a call; call its verbs
 * as methods.
 */
export class BookedClient implements BookedCalls {
  /** The instant the next call is made at (ms). */
  t = 0
  /** Who answers the next call (an immediate view answers with an `Either`, itself an effect). */
  client: ApiClientService | undefined = undefined
  private readonly made: Array<Made> = []
  private last: Made | undefined = undefined

  constructor(
    /** Absent: nothing is booked; a call ends when it is made (real time: the clock says when its answer came). */
    private readonly model: ServiceTimeModel | undefined,
    private readonly identity: ModelIdentity
  ) {}

  get(resource: ResourceType, name: string, opts?: GetOptions): Booked<KObject> {
    const c = this.book("get", "read", resource, opts?.namespace, undefined, 1, bytesOf(resource, undefined, undefined))
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.get(resource, name, opts) }
  }

  list(resource: ResourceType, opts?: ListOptions) {
    const c = this.book("list", "read", resource, opts?.namespace, undefined, this.model === undefined ? 0 : listEstimate(this.model, resource, opts).objects, 0)
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.list(resource, opts) }
  }

  create(resource: ResourceType, obj: unknown, opts?: WriteOptions) {
    const c = this.book("create", "mutating", resource, opts?.namespace, opts?.subresource, 0, bytesOf(resource, opts?.subresource, obj))
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.create(resource, obj, opts) }
  }

  update(resource: ResourceType, obj: KObject, opts?: WriteOptions) {
    const c = this.book("update", "mutating", resource, opts?.namespace ?? obj.metadata.namespace, opts?.subresource, 0, bytesOf(resource, opts?.subresource, obj))
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.update(resource, obj, opts) }
  }

  patch(resource: ResourceType, name: string, patchType: PatchType, patch: unknown, opts?: WriteOptions) {
    const c = this.book("patch", "mutating", resource, opts?.namespace, opts?.subresource, 0, bytesOf(resource, opts?.subresource, patch))
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.patch(resource, name, patchType, patch, opts) }
  }

  delete(resource: ResourceType, name: string, opts?: DeleteOptions) {
    const c = this.book("delete", "mutating", resource, opts?.namespace, undefined, 0, 0)
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.delete(resource, name, opts) }
  }

  deleteCollection(resource: ResourceType, opts?: ListOptions & DeleteOptions) {
    const c = this.book("deletecollection", "mutating", resource, opts?.namespace, undefined, 0, 0)
    return { end: c.end, answer: c.givenUp ? undefined : this.client!.deleteCollection(resource, opts) }
  }

  private book(verb: string, cls: RequestClass, resource: ResourceType, namespace: string | undefined, subresource: string | undefined, objects: number, bytes: number): Completion {
    if (this.model === undefined) return { end: this.t, givenUp: false }
    return this.model.complete(this.t, cls, objects, bytes, this.requestOf(verb, resource, namespace, subresource))
  }

  private requestOf(verb: string, resource: ResourceType, namespace: string | undefined, subresource: string | undefined): ModelRequest {
    // the last request found: an agent sends the same one again and again (a lease renewal every 10 s)
    const last = this.last
    if (last !== undefined && last.verb === verb && last.resource === resource && last.namespace === namespace && last.subresource === subresource) return last.request
    const made = this.made
    for (let i = 0; i < made.length; i++) {
      const m = made[i]!
      if (m.verb === verb && m.resource === resource && m.namespace === namespace && m.subresource === subresource) return (this.last = m).request
    }
    const m: Made = { verb, resource, namespace, subresource, request: this.model!.requests.of(verb, resource, namespace, subresource, this.identity) }
    made.push(m)
    return (this.last = m).request
  }
}
