/**
 * RBAC over both transports: rule matching (verbs, groups, subresources, resourceNames, namespace scope), the 403
 * texts with their reasons, dry-run authorized as the real request, live index updates, RBAC object validation
 * and the access reviews.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  ClusterRoleBindings,
  ClusterRoles,
  ConfigMaps,
  Nodes,
  Pods,
  RoleBindings,
  Roles,
  SelfSubjectAccessReviews,
  SelfSubjectRulesReviews,
  SubjectAccessReviews
} from "../../src/api/Resources.js"
import { authServer, identityTransports, type Identity } from "../support/identities.js"
import { serverAnswer } from "../support/serverAnswer.js"

const admin: Identity = { user: "admin", groups: ["system:masters"] }
const bob: Identity = { user: "bob", groups: [] }

const role = (name: string, rules: ReadonlyArray<object>) => ({ metadata: { name }, rules })
const binding = (name: string, kind: "Role" | "ClusterRole", roleName: string, user = "bob") => ({
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.platform", kind, name: roleName },
  subjects: [{ kind: "User", name: user }]
})
const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: "c", image: "nginx" }] } })

describe.each(identityTransports)("RBAC over %s", (transport) => {
  const setup = Effect.gen(function* () {
    const s = yield* authServer(transport, { authorizationMode: "RBAC", authentication: { anonymous: true, tokens: new Map() } })
    return { s, root: yield* s.clientAs(admin), bob: yield* s.clientAs(bob) }
  })

  it.scoped("a Role bound in a namespace allows there only; other verbs, namespaces and the cluster scope are 403", () =>
    Effect.gen(function* () {
      const { root, bob: b } = yield* setup
      yield* root.create(Roles, role("pod-reader", [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }]), { namespace: "default" })
      yield* root.create(RoleBindings, binding("read-pods", "Role", "pod-reader"), { namespace: "default" })
      yield* root.create(Pods, pod("p1"), { namespace: "default" })
      expect((yield* b.get(Pods, "p1", { namespace: "default" })).metadata.name).toBe("p1")
      const del = yield* serverAnswer(b.delete(Pods, "p1", { namespace: "default" }))
      expect(del.status).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'pods "p1" is forbidden: User "bob" cannot delete resource "pods" in API group "" in the namespace "default"',
        reason: "Forbidden",
        details: { name: "p1", kind: "pods" },
        code: 403
      })
      expect((yield* serverAnswer(b.list(Pods, { namespace: "platform-system" }))).status.message).toBe(
        'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "platform-system"'
      )
      // All namespaces is the cluster scope.
      expect((yield* serverAnswer(b.list(Pods))).status.message).toBe('pods is forbidden: User "bob" cannot list resource "pods" in API group "" at the cluster scope')
      // The binding gone, the permission is gone.
      yield* root.delete(RoleBindings, "read-pods", { namespace: "default" })
      expect((yield* serverAnswer(b.get(Pods, "p1", { namespace: "default" }))).status.code).toBe(403)
    }))

  it.scoped("subresources are authorized separately; resourceNames restrict to named objects", () =>
    Effect.gen(function* () {
      const { root, bob: b } = yield* setup
      yield* root.create(ClusterRoles, role("status-writer", [
        { verbs: ["get", "update"], apiGroups: [""], resources: ["pods/status"] },
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["allowed"] }
      ]))
      yield* root.create(RoleBindings, binding("b", "ClusterRole", "status-writer"), { namespace: "default" })
      const created = yield* root.create(Pods, pod("p1"), { namespace: "default" })
      yield* root.create(ConfigMaps, { metadata: { name: "allowed" } }, { namespace: "default" })
      yield* root.create(ConfigMaps, { metadata: { name: "other" } }, { namespace: "default" })
      const status = yield* b.update(Pods, { ...created.object, status: { phase: "Running" } }, { namespace: "default", subresource: "status" })
      expect(status.object.status).toMatchObject({ phase: "Running" })
      expect((yield* serverAnswer(b.update(Pods, created.object, { namespace: "default" }))).status.message).toBe(
        'pods "p1" is forbidden: User "bob" cannot update resource "pods" in API group "" in the namespace "default"'
      )
      expect((yield* serverAnswer(b.patch(Pods, "p1", "merge", { metadata: { labels: { a: "b" } } }, { namespace: "default", subresource: "status" }))).status.message).toBe(
        'pods "p1" is forbidden: User "bob" cannot patch resource "pods/status" in API group "" in the namespace "default"'
      )
      expect((yield* b.get(ConfigMaps, "allowed", { namespace: "default" })).metadata.name).toBe("allowed")
      expect((yield* serverAnswer(b.get(ConfigMaps, "other", { namespace: "default" }))).status.code).toBe(403)
      expect((yield* serverAnswer(b.list(ConfigMaps, { namespace: "default" }))).status.code).toBe(403)
    }))

  it.scoped("dry-run is authorized as the real request", () =>
    Effect.gen(function* () {
      const { root, bob: b } = yield* setup
      yield* root.create(Roles, role("cm-reader", [{ verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"] }]), { namespace: "default" })
      yield* root.create(RoleBindings, binding("b", "Role", "cm-reader"), { namespace: "default" })
      const dry = yield* serverAnswer(b.create(ConfigMaps, { metadata: { name: "x" } }, { namespace: "default", dryRun: ["All"] }))
      expect(dry.status.message).toBe('configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "default"')
      yield* root.create(Roles, role("cm-writer", [{ verbs: ["create"], apiGroups: [""], resources: ["configmaps"] }]), { namespace: "default" })
      yield* root.create(RoleBindings, binding("w", "Role", "cm-writer"), { namespace: "default" })
      expect((yield* b.create(ConfigMaps, { metadata: { name: "x" } }, { namespace: "default", dryRun: ["All"] })).code).toBe(201)
      expect((yield* b.list(ConfigMaps, { namespace: "default" })).items).toEqual([])
    }))

  it.scoped("a binding to a missing role denies with the RBAC reason appended", () =>
    Effect.gen(function* () {
      const { root, bob: b } = yield* setup
      yield* root.create(RoleBindings, binding("dangling", "Role", "ghost"), { namespace: "default" })
      yield* root.create(ClusterRoleBindings, binding("dangling-cluster", "ClusterRole", "phantom"))
      expect((yield* serverAnswer(b.get(Pods, "p", { namespace: "default" }))).status.message).toBe(
        'pods "p" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "default": RBAC: [clusterrole.rbac.authorization.platform "phantom" not found, role.rbac.authorization.platform "ghost" not found]'
      )
      expect((yield* serverAnswer(b.get(Nodes, "n"))).status.message).toBe(
        'nodes "n" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope: RBAC: clusterrole.rbac.authorization.platform "phantom" not found'
      )
    }))

  it.scoped("RBAC objects are validated; roleRef is immutable", () =>
    Effect.gen(function* () {
      const { root } = yield* setup
      const badRole = yield* serverAnswer(root.create(Roles, role("r", [{ verbs: [], nonResourceURLs: ["/x"] }]), { namespace: "default" }))
      expect(badRole.status.message).toBe(
        'Role.rbac.authorization.platform "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs]'
      )
      const badBinding = yield* serverAnswer(root.create(ClusterRoleBindings, { metadata: { name: "b" }, roleRef: { kind: "Role", name: "x" }, subjects: [{ kind: "Robot", name: "r" }] }))
      expect(badBinding.status.message).toBe(
        'ClusterRoleBinding.rbac.authorization.platform "b" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]'
      )
      const created = yield* root.create(RoleBindings, binding("b", "ClusterRole", "view"), { namespace: "default" })
      expect(created.object.subjects).toEqual([{ kind: "User", apiGroup: "rbac.authorization.platform", name: "bob" }])
      const changed = yield* serverAnswer(root.update(RoleBindings, { ...created.object, roleRef: { apiGroup: "rbac.authorization.platform", kind: "ClusterRole", name: "edit" } }, { namespace: "default" }))
      expect(changed.status.message).toBe(
        'RoleBinding.rbac.authorization.platform "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.platform", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef'
      )
    }))

  it.scoped("access reviews: SubjectAccessReview for anyone, SelfSubjectAccessReview and SelfSubjectRulesReview for the caller", () =>
    Effect.gen(function* () {
      const { root, bob: b } = yield* setup
      yield* root.create(Roles, role("pod-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]), { namespace: "default" })
      yield* root.create(RoleBindings, binding("read-pods", "Role", "pod-reader"), { namespace: "default" })
      const sar = (spec: object) => root.create(SubjectAccessReviews, { apiVersion: "authorization.platform/v1", kind: "SubjectAccessReview", spec })
      const yes = yield* sar({ user: "bob", resourceAttributes: { verb: "get", resource: "pods", namespace: "default" } })
      expect(yes.code).toBe(201)
      expect(yes.object.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/default" of Role "pod-reader" to User "bob"' })
      expect((yield* sar({ user: "bob", resourceAttributes: { verb: "delete", resource: "pods", namespace: "default" } })).object.status).toEqual({ allowed: false })
      expect((yield* sar({ groups: ["system:masters"], nonResourceAttributes: { verb: "get", path: "/metrics" } })).object.status).toEqual({ allowed: true })
      const invalid = yield* serverAnswer(sar({ resourceAttributes: { verb: "get", resource: "pods" } }))
      expect(invalid.status.message).toBe('SubjectAccessReview.authorization.platform "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified')
      const neither = yield* serverAnswer(b.create(SelfSubjectAccessReviews, { spec: {} }))
      expect(neither.status.message).toBe(
        'SelfSubjectAccessReview.authorization.platform "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified'
      )
      const self = yield* b.create(SelfSubjectAccessReviews, { spec: { resourceAttributes: { verb: "get", resource: "pods", namespace: "platform-system" } } })
      expect(self.object.status).toEqual({ allowed: false })
      // bob may not ask about others: subjectaccessreviews are not his.
      expect((yield* serverAnswer(b.create(SubjectAccessReviews, { spec: { user: "x", resourceAttributes: { verb: "get" } } }))).status.message).toBe(
        'subjectaccessreviews.authorization.platform is forbidden: User "bob" cannot create resource "subjectaccessreviews" in API group "authorization.platform" at the cluster scope'
      )
      const rules = yield* b.create(SelfSubjectRulesReviews, { spec: { namespace: "default" } })
      const status = rules.object.status as { resourceRules: ReadonlyArray<object>; nonResourceRules: ReadonlyArray<object>; incomplete: boolean }
      expect(status.resourceRules).toContainEqual({ verbs: ["get"], apiGroups: [""], resources: ["pods"] })
      expect(status.resourceRules).toContainEqual({ verbs: ["create"], apiGroups: ["authorization.platform"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] })
      expect(status.nonResourceRules).toContainEqual({ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] })
      expect(status.incomplete).toBe(false)
    }))
})
