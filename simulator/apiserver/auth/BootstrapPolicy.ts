/**
 * The roles and bindings an RBAC server starts with, after upstream's bootstrap policy
 * (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`, `controller_policy.go`), trimmed to the resources
 * clustersim serves and renamed (`kube` → `platform`). `cluster-admin` for `system:masters`, discovery and
 * health for everyone, self reviews for every authenticated user, `admin`/`edit`/`view` for users to bind, and
 * least-privilege roles for the identities the simulated components run under (docs/auth.md):
 *
 * | identity | ClusterRole |
 * |---|---|
 * | `system:node:<name>` in `system:nodes` | `system:node` (bound to the group: no per-node Node authorizer here) |
 * | `system:platform-scheduler` | `system:platform-scheduler` |
 * | `system:serviceaccount:platform-system:node-controller` | `system:controller:node-controller` |
 */
import { rbacGroup, type PolicyRule, type Subject } from "../../../src/api/kinds/Rbac.js"
import type { KObject } from "../../../src/api/Object.js"
import { ClusterRoleBindings, ClusterRoles, type ResourceType } from "../../../src/api/Resources.js"
import { systemNamespace } from "../../../src/api/WellKnown.js"
import { authenticatedGroup, privilegedGroup, serviceAccountUserName, unauthenticatedGroup } from "./UserInfo.js"

export const schedulerUserName = "system:platform-scheduler"
export const nodeControllerAccount = { namespace: systemNamespace, name: "node-controller" }
export const nodeControllerUserName = serviceAccountUserName(nodeControllerAccount.namespace, nodeControllerAccount.name)
export const nodesGroup = "system:nodes"

const read = ["get", "list", "watch"]
const write = ["create", "delete", "deletecollection", "patch", "update"]
const rule = (verbs: ReadonlyArray<string>, apiGroups: ReadonlyArray<string>, resources: ReadonlyArray<string>, resourceNames?: ReadonlyArray<string>): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {})
})
const urls = (verbs: ReadonlyArray<string>, nonResourceURLs: ReadonlyArray<string>): PolicyRule => ({ verbs, nonResourceURLs })

const eventGroups = ["", "events.platform"]
/** metrics-server's `system:aggregated-metrics-reader`, aggregated into view, edit and admin (`kubectl top` for them). */
const metricsReaderRule = rule(read, ["metrics.k8s.io"], ["pods", "nodes"])
const viewRules: ReadonlyArray<PolicyRule> = [
  metricsReaderRule,
  rule(read, [""], ["configmaps", "events", "pods", "pods/log", "pods/status", "services", "services/status", "serviceaccounts", "namespaces", "namespaces/status"]),
  rule(read, ["apps"], ["deployments", "deployments/status", "deployments/scale"]),
  rule(read, ["events.platform"], ["events"])
]
const editRules: ReadonlyArray<PolicyRule> = [
  ...viewRules,
  rule([...write], [""], ["configmaps", "events", "pods", "services", "serviceaccounts"]),
  // exec, attach and port-forward: `edit` reads and writes them (upstream's `pods/attach`, `pods/exec`, `pods/portforward` rules).
  rule([...read, ...write], [""], ["pods/attach", "pods/exec", "pods/portforward"]),
  rule(["create"], [""], ["pods/eviction", "serviceaccounts/token"]),
  rule([...write], ["apps"], ["deployments", "deployments/scale"]),
  rule([...write], ["events.platform"], ["events"]),
  rule([...read, ...write], ["coordination.platform"], ["leases"])
]

const clusterRoles: ReadonlyArray<readonly [string, ReadonlyArray<PolicyRule>]> = [
  ["cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]],
  ["system:discovery", [urls(["get"], ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"])]],
  ["system:public-info-viewer", [urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])]],
  // Prometheus' scrape user (upstream `system:monitoring`, bound to the group of that name).
  ["system:monitoring", [urls(["get"], ["/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*"])]],
  [
    "system:basic-user",
    [rule(["create"], ["authorization.platform"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]), rule(["create"], ["authentication.platform"], ["selfsubjectreviews"])]
  ],
  ["system:aggregated-metrics-reader", [metricsReaderRule]],
  ["view", viewRules],
  ["edit", editRules],
  ["admin", [...editRules, rule([...read, ...write], [rbacGroup], ["roles", "rolebindings"]), rule(["create"], ["authorization.platform"], ["localsubjectaccessreviews"])]],
  [
    "system:node",
    [
      rule(["create"], ["authorization.platform"], ["subjectaccessreviews"]),
      rule(read, [""], ["services"]),
      rule(["create", "get", "list", "watch"], [""], ["nodes"]),
      rule(["update", "patch"], [""], ["nodes/status"]),
      rule(["update", "patch"], [""], ["nodes"]),
      rule(["create", "update", "patch"], eventGroups, ["events"]),
      rule(read, [""], ["pods"]),
      rule(["create", "delete"], [""], ["pods"]),
      rule(["update", "patch"], [""], ["pods/status"]),
      rule(["create"], [""], ["pods/eviction"]),
      rule(read, [""], ["configmaps"]),
      rule(["get", "create", "update", "patch", "delete"], ["coordination.platform"], ["leases"]),
      rule(["create"], [""], ["serviceaccounts/token"])
    ]
  ],
  [
    schedulerUserName,
    [
      rule(["create"], ["coordination.platform"], ["leases"]),
      rule(["get", "update"], ["coordination.platform"], ["leases"], ["platform-scheduler"]),
      rule(["create", "patch", "update"], eventGroups, ["events"]),
      rule(read, [""], ["nodes", "namespaces", "services"]),
      rule([...read, "delete"], [""], ["pods"]),
      rule(["create"], [""], ["bindings", "pods/binding"]),
      rule(["patch", "update"], [""], ["pods/status"]),
      rule(read, ["apps"], ["deployments"]),
      rule(["create"], ["authorization.platform"], ["subjectaccessreviews"])
    ]
  ],
  [
    "system:controller:node-controller",
    [
      rule(["get", "list", "update", "delete", "patch", "watch"], [""], ["nodes"]),
      rule(["patch", "update"], [""], ["nodes/status"]),
      rule(["patch", "update"], [""], ["pods/status"]),
      rule(["list", "watch", "delete"], [""], ["pods"]),
      rule(["get", "list", "watch"], ["coordination.platform"], ["leases"]),
      rule(["create", "patch", "update"], eventGroups, ["events"])
    ]
  ]
]

const group = (name: string): Subject => ({ kind: "Group", apiGroup: rbacGroup, name })
const user = (name: string): Subject => ({ kind: "User", apiGroup: rbacGroup, name })

const clusterRoleBindings: ReadonlyArray<readonly [string, ReadonlyArray<Subject>]> = [
  ["cluster-admin", [group(privilegedGroup)]],
  ["system:discovery", [group(authenticatedGroup)]],
  ["system:public-info-viewer", [group(authenticatedGroup), group(unauthenticatedGroup)]],
  ["system:basic-user", [group(authenticatedGroup)]],
  ["system:monitoring", [group("system:monitoring")]],
  ["system:node", [group(nodesGroup)]],
  [schedulerUserName, [user(schedulerUserName)]],
  ["system:controller:node-controller", [{ kind: "ServiceAccount", name: nodeControllerAccount.name, namespace: nodeControllerAccount.namespace }]]
]

const bootstrapLabels = { "platform.io/bootstrapping": "rbac-defaults" }

/** The objects to create, in order, when RBAC authorization starts. */
export const bootstrapPolicy = (): ReadonlyArray<{ readonly resource: ResourceType; readonly object: KObject }> => [
  ...clusterRoles.map(([name, rules]) => ({ resource: ClusterRoles, object: { metadata: { name, labels: bootstrapLabels }, rules } as KObject })),
  ...clusterRoleBindings.map(([name, subjects]) => ({
    resource: ClusterRoleBindings,
    object: { metadata: { name, labels: bootstrapLabels }, roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name }, subjects } as KObject
  }))
]
