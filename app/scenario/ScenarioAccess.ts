/**
 * What a scenario's load does to a server, as RBAC rules: the least a ServiceAccount running it needs
 * (`clustersim job`, docs/distributed.md "On Kubernetes"). Read from the setup (namespaces and objects created) and
 * the actions (each request's verb; watches; informers list and watch); group names as a real cluster spells them
 * (`coordination.platform` → `coordination.k8s.io`, docs/upstream-names.md). Pure.
 */
import { resolveResource } from "../../src/api/Resources.js"
import { resolveRequest } from "./Operations.js"
import type { Scenario, Verb } from "./Scenario.js"

export interface AccessRule {
  readonly apiGroup: string
  readonly resource: string
  readonly verbs: ReadonlyArray<string>
}

/** The spec's `.platform` groups are upstream's `.k8s.io` ones. */
export const upstreamGroup = (group: string): string => group.replace(/\.platform$/, ".k8s.io")

const requestVerbs: Record<Verb, ReadonlyArray<string>> = {
  get: ["get"],
  list: ["list"],
  create: ["create"],
  update: ["update"],
  patch: ["patch"],
  delete: ["delete"],
  churn: ["create", "delete"]
}

/**
 * What a real-time simulated cluster sends (docs/cluster.md "Real time"): node agents register their Nodes, renew
 * their Leases, write node and pod status, start and delete their pods and record Events; the node lifecycle
 * controller lists and watches nodes, leases and pods, taints nodes and deletes pods; `--cleanup` deletes what the
 * run made. Read off `clustersim serve`'s audit log of such runs, plus the status writes a longer run makes.
 */
const clusterRequests: ReadonlyArray<AccessRule> = [
  { apiGroup: "", resource: "nodes", verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
  { apiGroup: "", resource: "nodes/status", verbs: ["patch", "update"] },
  { apiGroup: "", resource: "pods", verbs: ["create", "delete", "get", "list", "patch", "watch"] },
  { apiGroup: "", resource: "pods/status", verbs: ["patch", "update"] },
  { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["create", "delete", "get", "list", "update", "watch"] },
  { apiGroup: "events.k8s.io", resource: "events", verbs: ["create", "list", "patch"] }
]

/** The scheduler's own beyond the cluster's: binding the pods it places (its leader election is a Lease). */
const schedulerRequests: ReadonlyArray<AccessRule> = [{ apiGroup: "", resource: "pods/binding", verbs: ["create"] }]

/** Rules sorted by group and resource, verbs sorted; one rule per resource. */
export const scenarioAccess = (s: Scenario): ReadonlyArray<AccessRule> => {
  const wanted = new Map<string, { apiGroup: string; resource: string; verbs: Set<string> }>()
  const addRule = (rule: AccessRule) => {
    const key = `${rule.apiGroup}/${rule.resource}`
    const entry = wanted.get(key) ?? { apiGroup: rule.apiGroup, resource: rule.resource, verbs: new Set<string>() }
    for (const v of rule.verbs) entry.verbs.add(v)
    wanted.set(key, entry)
  }
  const add = (resourceName: string | undefined, verbs: ReadonlyArray<string>) => {
    const r = resourceName === undefined ? undefined : resolveResource(resourceName)
    if (r !== undefined) addRule({ apiGroup: upstreamGroup(r.group), resource: r.plural, verbs })
  }
  if (s.cluster !== undefined) clusterRequests.forEach(addRule)
  if (s.scheduler !== undefined) schedulerRequests.forEach(addRule)
  // setup: namespaces made when missing (a create answered 409 is fine), objects created
  if ((s.setup?.namespaces ?? []).length > 0) add("namespaces", ["create"])
  for (const o of s.setup?.objects ?? []) add(o.resource, ["create"])
  for (const phase of s.phases) {
    for (const a of phase.actions) {
      switch (a.type) {
        case "constant-arrival-rate":
        case "ramping-arrival-rate":
        case "closed": {
          const r = resolveRequest(s, a.request)
          add(r.resource.plural, requestVerbs[a.request.verb])
          break
        }
        case "watch":
          add(a.resource, ["watch"])
          break
        case "informers":
          add(a.resource, ["list", "watch"])
          break
        case "expire-continue-token":
          add(a.resource, ["list"])
          break
        default:
          // failure steps act on the simulated server's admin hooks, not through RBAC
          break
      }
    }
  }
  return [...wanted.values()]
    .map((e) => ({ apiGroup: e.apiGroup, resource: e.resource, verbs: [...e.verbs].sort() }))
    .sort((a, b) => a.apiGroup.localeCompare(b.apiGroup) || a.resource.localeCompare(b.resource))
}
