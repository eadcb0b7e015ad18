/**
 * The API Priority and Fairness attributes of the requests the service-time layer books for the simulation's own
 * clients (`ServiceTime.layerClient`): made once per verb, resource (with subresource) and namespace, and classified
 * once (`apf/Bootstrap.ts` `classification`) — the identity is fixed and the bootstrap FlowSchemas never change
 * during a run. Made per request, the attribute object and the walk over the FlowSchemas (twice per booking) were
 * ~2 % of the CPU of a capacity run with 100 GETs a second (docs/benchmarks.md "With clients").
 */
import type { ResourceType } from "../../src/api/Resources.js"
import { classification } from "./apf/Bootstrap.js"
import type { ModelRequest } from "./ServiceTime.js"

/** The identity of the simulation's own clients (load actions, controllers) unless one is given. */
const defaultIdentity = { user: "clustersim", groups: ["system:authenticated"] } as const

/** resource → `verb` or `verb/subresource` → namespace (undefined for all or cluster-scoped) → the request. */
const made = new WeakMap<ResourceType, Map<string, Map<string | undefined, ModelRequest>>>()

/** The attributes of `verb` on `resource` (its `subresource`) in `namespace` by the default identity, classified. */
export const modelRequestOf = (verb: string, resource: ResourceType, namespace: string | undefined, subresource?: string): ModelRequest => {
  let byVerb = made.get(resource)
  if (byVerb === undefined) made.set(resource, (byVerb = new Map()))
  const verbKey = subresource ? `${verb}/${subresource}` : verb
  let byNamespace = byVerb.get(verbKey)
  if (byNamespace === undefined) byVerb.set(verbKey, (byNamespace = new Map()))
  const scoped = resource.namespaced ? namespace : undefined
  let request = byNamespace.get(scoped)
  if (request === undefined) {
    const attributes = {
      ...defaultIdentity,
      verb,
      resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
      namespace: scoped
    }
    request = { ...attributes, classification: classification(attributes) }
    byNamespace.set(scoped, request)
  }
  return request
}
