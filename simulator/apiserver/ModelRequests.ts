/**
 * The API Priority and Fairness attributes of the requests the service-time layer books for the simulation's own
 * clients (`ServiceTime.layerClient`): made once per identity, verb, resource (with subresource) and namespace, and
 * classified once (`apf/Bootstrap.ts` `classification`) — an identity is fixed and the bootstrap FlowSchemas never
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
}

/** Who a modelled request is from, as API Priority and Fairness sees it (one user is always in the same groups). */
export interface ModelIdentity {
  readonly user: string
  readonly groups: ReadonlyArray<string>
}

/** The identity of the simulation's own clients (load actions, controllers) unless one is given. */
export const defaultIdentity: ModelIdentity = { user: "clustersim", groups: ["system:authenticated"] }

/** identity → resource → `verb` or `verb/subresource` → namespace (undefined for all or cluster-scoped) → the request. */
const made = new WeakMap<ModelIdentity, WeakMap<ResourceType, Map<string, Map<string | undefined, ModelRequest>>>>()

/** The attributes of `verb` on `resource` (its `subresource`) in `namespace` by `identity`, classified. */
export const modelRequestOf = (
  verb: string,
  resource: ResourceType,
  namespace: string | undefined,
  subresource?: string,
  identity: ModelIdentity = defaultIdentity
): ModelRequest => {
  let byResource = made.get(identity)
  if (byResource === undefined) made.set(identity, (byResource = new WeakMap()))
  let byVerb = byResource.get(resource)
  if (byVerb === undefined) byResource.set(resource, (byVerb = new Map()))
  const verbKey = subresource ? `${verb}/${subresource}` : verb
  let byNamespace = byVerb.get(verbKey)
  if (byNamespace === undefined) byVerb.set(verbKey, (byNamespace = new Map()))
  const scoped = resource.namespaced ? namespace : undefined
  let request = byNamespace.get(scoped)
  if (request === undefined) {
    const attributes = {
      user: identity.user,
      groups: identity.groups,
      verb,
      resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
      namespace: scoped
    }
    request = { ...attributes, classification: classification(attributes) }
    byNamespace.set(scoped, request)
  }
  return request
}
