/**
 * The API Priority and Fairness attributes of the requests the service-time model books (`ServiceTime.ts`: the
 * simulation's modelled clients; the node agents' booked calls, `BookedClient.ts`): made once per identity, verb,
 * resource (with subresource) and namespace, and classified once (`apf/Bootstrap.ts` `classification`) — an identity is fixed and the bootstrap FlowSchemas never
 * change during a run. Made per request, the attribute object and the walk over the FlowSchemas (twice per booking)
 * were ~2 % of the CPU of a capacity run with 100 GETs a second (docs/benchmarks.md "With clients").
 */
import type { ResourceType } from "../../src/api/Resources.js"
import { classification, type Classification, type RequestAttributes } from "./apf/Bootstrap.js"

/** Who asks for what, and how many seats it takes (`apf/WorkEstimate.ts`); default one seat. */
export interface ModelRequest extends RequestAttributes {
  readonly seats?: number
  /** Its APF classification, for a request made once and sent many times (`apf/Bootstrap.ts` `classification`). */
  readonly classification?: Classification
  /**
   * Its classification's priority level and flow, kept in the request itself: a booking reads them without a second
   * object (`PriorityAndFairness.place`) — a node agent's records are touched once per 10 s each, and every object
   * more on the way was a cache miss in the 5,000-node hour (docs/benchmarks.md).
   */
  readonly level?: number
  readonly flow?: string
}

/** Who a modelled request is from, as API Priority and Fairness sees it (one user is always in the same groups). */
export interface ModelIdentity {
  readonly user: string
  readonly groups: ReadonlyArray<string>
}

/** The identity of the simulation's own clients (load actions, controllers) unless one is given. */
export const defaultIdentity: ModelIdentity = { user: "clustersim", groups: ["system:authenticated"] }

/**
 * The requests made so far, per identity → resource → `verb` or `verb/subresource` → namespace (undefined for all or
 * cluster-scoped). One per service-time model (`ServiceTimeModel.requests`), so nothing outlives a run.
 */
export class ModelRequests {
  private readonly made = new WeakMap<ModelIdentity, WeakMap<ResourceType, Map<string, Map<string | undefined, ModelRequest>>>>()

  /** The attributes of `verb` on `resource` (its `subresource`) in `namespace` by `identity`, classified; made once. */
  of(verb: string, resource: ResourceType, namespace: string | undefined, subresource?: string, identity: ModelIdentity = defaultIdentity): ModelRequest {
    let byResource = this.made.get(identity)
    if (byResource === undefined) this.made.set(identity, (byResource = new WeakMap()))
    let byVerb = byResource.get(resource)
    if (byVerb === undefined) byResource.set(resource, (byVerb = new Map()))
    const verbKey = subresource ? `${verb}/${subresource}` : verb
    let byNamespace = byVerb.get(verbKey)
    if (byNamespace === undefined) byVerb.set(verbKey, (byNamespace = new Map()))
    const scoped = resource.namespaced ? namespace : undefined
    let request = byNamespace.get(scoped)
    if (request === undefined) byNamespace.set(scoped, (request = modelRequest(verb, resource, namespace, subresource, identity)))
    return request
  }
}

/**
 * The attributes of `verb` on `resource` (its `subresource`) in `namespace` by `identity`, classified — made anew: for
 * a caller that keeps what it made (`BookedClient.ts`, one record per node agent and kind of request), where a table
 * of thousands of identities in the model would only repeat what the callers keep.
 */
export const modelRequest = (verb: string, resource: ResourceType, namespace: string | undefined, subresource: string | undefined, identity: ModelIdentity): ModelRequest => {
  const attributes = {
    user: identity.user,
    groups: identity.groups,
    verb,
    resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
    namespace: resource.namespaced ? namespace : undefined
  }
  // A literal, not `{ ...attributes, classification }`: a spread copy of a literal gets a hidden class of its own
  // (docs/benchmarks.md, the V8 spread trap), and with one request per node agent and kind the model's reads of
  // them (`ServiceTimeModel.complete`, APF's `place`) went megamorphic — ~10 % of the 5,000-node hour.
  const classified = classification(attributes)
  return {
    user: attributes.user,
    groups: attributes.groups,
    verb,
    resource: attributes.resource,
    namespace: attributes.namespace,
    classification: classified,
    level: classified.level,
    flow: classified.flow
  }
}
