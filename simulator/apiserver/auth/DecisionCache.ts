/**
 * One user's RBAC verdicts, remembered: a simulator speed device, not upstream behaviour (upstream's RBAC authorizer
 * walks the rules on every request; docs/auth.md "Decision cache"). Thousands of node agents each send the same few
 * request shapes every few seconds, so the same verdict would be worked out millions of times in a simulated hour.
 *
 * A verdict is kept under the request's verb, API group, resource, subresource and namespace — and its name only
 * when a rule's `resourceNames` took part in it. The cache holds the generation of the policy it was filled under:
 * the authorizer bumps its generation on every change of a Role, ClusterRole or binding, and a cache of an older
 * generation is emptied before use, so a cached verdict is always the one the rules give now. Bounded: a cache that
 * grows past `capacity` entries starts again empty (an HTTP client can make up any number of names and paths).
 */
import type { RequestAttributes } from "./RequestAttributes.js"

/** By name, for a verdict that depends on it; else one verdict for every name. */
type Leaf = boolean | Map<string, boolean>
/** verb → API group → resource → subresource → namespace → leaf. */
type ResourceVerdicts = Map<string, Map<string, Map<string, Map<string, Map<string, Leaf>>>>>

const childOf = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  let child = map.get(key)
  if (child === undefined) map.set(key, (child = make()))
  return child
}

export class DecisionCache {
  private resources: ResourceVerdicts = new Map()
  /** verb → path → verdict, for non-resource requests. */
  private paths = new Map<string, Map<string, boolean>>()
  private size = 0

  constructor(
    /** The policy generation the verdicts were worked out under. */
    public generation: number,
    private readonly capacity = 10_000
  ) {}

  /** The remembered verdict, or undefined. */
  get(attrs: RequestAttributes): boolean | undefined {
    if (!attrs.resourceRequest) return this.paths.get(attrs.verb)?.get(attrs.path)
    const leaf = this.resources.get(attrs.verb)?.get(attrs.apiGroup)?.get(attrs.resource)?.get(attrs.subresource)?.get(attrs.namespace)
    return typeof leaf === "boolean" ? leaf : leaf?.get(attrs.name)
  }

  /** Remembers `allowed` for `attrs` — for every name unless `byName`. */
  set(attrs: RequestAttributes, allowed: boolean, byName: boolean): void {
    if (this.size >= this.capacity) this.clear(this.generation)
    this.size++
    if (!attrs.resourceRequest) {
      childOf(this.paths, attrs.verb, () => new Map<string, boolean>()).set(attrs.path, allowed)
      return
    }
    const namespaces = childOf(
      childOf(childOf(childOf(this.resources, attrs.verb, () => new Map()), attrs.apiGroup, () => new Map()), attrs.resource, () => new Map()),
      attrs.subresource,
      () => new Map<string, Leaf>()
    )
    if (!byName) {
      namespaces.set(attrs.namespace, allowed)
      return
    }
    const leaf = namespaces.get(attrs.namespace)
    if (leaf instanceof Map) leaf.set(attrs.name, allowed)
    else namespaces.set(attrs.namespace, new Map([[attrs.name, allowed]]))
  }

  /** Forgets every verdict; the next ones are of `generation`. */
  clear(generation: number): void {
    this.generation = generation
    this.resources = new Map()
    this.paths = new Map()
    this.size = 0
  }
}
