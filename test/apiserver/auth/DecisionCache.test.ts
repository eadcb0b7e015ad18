/**
 * The RBAC decision cache is a speed device: every verdict it gives is the one the uncached rule walk
 * (`authorize`, which never reads the cache) gives for the same policy — also after roles and bindings change.
 */
import { describe, expect, it } from "@effect/vitest"
import { ClusterRoleBindings, ClusterRoles, RoleBindings, Roles } from "../../../src/api/Resources.js"
import type { KObject } from "../../../src/api/Object.js"
import type { ResourceType } from "../../../src/api/Resources.js"
import { RbacAuthorizer, type Permissions } from "../../../simulator/apiserver/auth/RbacAuthorizer.js"
import { callAttributes, type RequestAttributes } from "../../../simulator/apiserver/auth/RequestAttributes.js"
import { nodeUser, type UserInfo } from "../../../simulator/apiserver/auth/UserInfo.js"
import { objectKey, Store } from "../../../simulator/apiserver/Store.js"

const rbac = "rbac.authorization.platform"

const put = (store: Store, resource: ResourceType, obj: KObject) =>
  store.put(resource, objectKey(obj.metadata.namespace, obj.metadata.name ?? ""), obj, 0)
const remove = (store: Store, resource: ResourceType, namespace: string | undefined, name: string) => store.remove(resource, objectKey(namespace, name), 0)

const clusterRole = (name: string, rules: ReadonlyArray<object>) => ({ metadata: { name }, rules }) as unknown as KObject
const role = (namespace: string, name: string, rules: ReadonlyArray<object>) => ({ metadata: { namespace, name }, rules }) as unknown as KObject
const binding = (name: string, roleKind: string, roleName: string, subjects: ReadonlyArray<object>, namespace?: string) =>
  ({ metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: rbac, kind: roleKind, name: roleName }, subjects }) as unknown as KObject

const leases = { group: "coordination.platform", version: "v1", plural: "leases", namespaced: true }
const pods = { group: "", version: "v1", plural: "pods", namespaced: true }
const nodes = { group: "", version: "v1", plural: "nodes", namespaced: false }

const requests: ReadonlyArray<RequestAttributes> = [
  ...(["get", "update", "create", "delete", "list"] as const).flatMap((verb) =>
    ["a", "b", ""].flatMap((name) => [
      callAttributes(verb, leases, "kube-node-lease", name || undefined),
      callAttributes(verb, leases, "team", name || undefined),
      callAttributes(verb, { ...leases, group: "coordination.k8s.io" }, "team", name || undefined),
      callAttributes(verb, pods, "team", name || undefined, "status"),
      callAttributes(verb, pods, "other", name || undefined),
      callAttributes(verb, nodes, undefined, name || undefined)
    ])
  ),
  { resourceRequest: false, verb: "get", path: "/healthz" },
  { resourceRequest: false, verb: "get", path: "/metrics" }
]

const users: ReadonlyArray<UserInfo> = [
  nodeUser("n1"),
  nodeUser("n2"),
  { name: "alice", uid: "", groups: ["system:authenticated"] },
  { name: "bob", uid: "", groups: ["devs", "system:authenticated"] },
  { name: "system:serviceaccount:team:builder", uid: "", groups: ["system:serviceaccounts", "system:authenticated"] }
]

/**
 * Every request of every user: the cached verdicts (per request, per identity held since the start, and per identity
 * found now) beside the uncached walk.
 */
const verdicts = (authorizer: RbacAuthorizer, held: ReadonlyArray<Permissions>) => {
  const fresh = users.map((u) => authorizer.permissionsOf(u))
  // asked twice: the second round is answered from the cache
  const rounds = [0, 1].map(() =>
    users.flatMap((user, u) =>
      requests.map((attrs) => {
        const walked = authorizer.authorize(user, attrs).allowed
        const cached = [authorizer.allows(user, attrs), held[u]!.allows(attrs), fresh[u]!.allows(attrs)]
        expect(cached, `${user.name} ${JSON.stringify(attrs)}`).toEqual([walked, walked, walked])
        return walked
      })
    )
  )
  expect(rounds[1]).toEqual(rounds[0])
  return rounds[0]!
}

describe("RBAC decision cache", () => {
  it("gives the rule walk's verdicts, as roles and bindings are added, changed and removed", () => {
    const store = new Store()
    const authorizer = new RbacAuthorizer(store)
    const held = users.map((u) => authorizer.permissionsOf(u))
    const permissions = authorizer.permissionsOf(users[0]!)
    const leaseUpdate = callAttributes("update", leases, "kube-node-lease", "a")
    expect(permissions.allows(leaseUpdate)).toBe(false)
    const history: Array<ReadonlyArray<boolean>> = [verdicts(authorizer, held)]
    const steps: ReadonlyArray<() => unknown> = [
      () => put(store, ClusterRoles, clusterRole("node", [{ verbs: ["get", "update"], apiGroups: ["coordination.platform"], resources: ["leases"] }, { verbs: ["get"], nonResourceURLs: ["/healthz"] }])),
      () => put(store, ClusterRoleBindings, binding("node", "ClusterRole", "node", [{ kind: "Group", apiGroup: rbac, name: "system:nodes" }])),
      // a rule with resourceNames: the verdict depends on the name
      () => put(store, ClusterRoles, clusterRole("lease-a", [{ verbs: ["get", "update", "delete"], apiGroups: ["coordination.platform"], resources: ["leases"], resourceNames: ["a"] }])),
      () => put(store, ClusterRoleBindings, binding("alice-a", "ClusterRole", "lease-a", [{ kind: "User", apiGroup: rbac, name: "alice" }])),
      // one node bound under its own name besides its group
      () => put(store, ClusterRoleBindings, binding("n1-a", "ClusterRole", "lease-a", [{ kind: "User", apiGroup: rbac, name: "system:node:n1" }])),
      () => put(store, Roles, role("team", "edit", [{ verbs: ["*"], apiGroups: ["", "coordination.platform"], resources: ["leases", "pods/status"] }])),
      () => put(store, RoleBindings, binding("devs", "Role", "edit", [{ kind: "Group", apiGroup: rbac, name: "devs" }, { kind: "ServiceAccount", name: "builder" }], "team")),
      // the role's rules changed in place: cached verdicts of the old rules are void
      () => put(store, Roles, role("team", "edit", [{ verbs: ["get"], apiGroups: [""], resources: ["pods/status"] }])),
      () => remove(store, ClusterRoleBindings, undefined, "node"),
      () => remove(store, RoleBindings, "team", "devs"),
      () => remove(store, ClusterRoles, undefined, "lease-a")
    ]
    const leaseUpdates: Array<boolean> = []
    for (const step of steps) {
      step()
      history.push(verdicts(authorizer, held))
      leaseUpdates.push(permissions.allows(leaseUpdate))
    }
    // the policy changes changed verdicts (so the comparison above was not of all-denied grids)
    expect(new Set(history.map((h) => h.filter(Boolean).length)).size).toBeGreaterThan(4)
    // a permission held from before the changes follows them: allowed once the group is bound, still allowed after
    // the group binding is gone while n1 is bound to lease "a" under its own name, refused once that role is gone
    expect(leaseUpdates).toEqual([false, true, true, true, true, true, true, true, true, true, false])
  })

  it("a name-scoped verdict is not reused for another name", () => {
    const store = new Store()
    const authorizer = new RbacAuthorizer(store)
    put(store, ClusterRoles, clusterRole("lease-a", [{ verbs: ["get"], apiGroups: ["coordination.platform"], resources: ["leases"], resourceNames: ["a"] }]))
    put(store, ClusterRoleBindings, binding("nodes-a", "ClusterRole", "lease-a", [{ kind: "Group", apiGroup: rbac, name: "system:nodes" }]))
    const node = authorizer.permissionsOf(nodeUser("n1"))
    expect(node.allows(callAttributes("get", leases, "kube-node-lease", "a"))).toBe(true)
    expect(node.allows(callAttributes("get", leases, "kube-node-lease", "b"))).toBe(false)
    expect(node.allows(callAttributes("get", leases, "kube-node-lease", "a"))).toBe(true)
    // node agents share their group's verdicts; one bound under its own name keeps its own
    put(store, ClusterRoles, clusterRole("lease-b", [{ verbs: ["get"], apiGroups: ["coordination.platform"], resources: ["leases"], resourceNames: ["b"] }]))
    put(store, ClusterRoleBindings, binding("n2-b", "ClusterRole", "lease-b", [{ kind: "User", apiGroup: rbac, name: "system:node:n2" }]))
    const n2 = authorizer.permissionsOf(nodeUser("n2"))
    expect(n2.allows(callAttributes("get", leases, "kube-node-lease", "b"))).toBe(true)
    expect(node.allows(callAttributes("get", leases, "kube-node-lease", "b"))).toBe(false)
  })
})
