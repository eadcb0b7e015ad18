/**
 * The registry of served resource types: group, version, kind, plural, scope, subresources and the
 * per-type storage strategy upstream's registries set (watch cache, create-on-update, unconditional update,
 * garbage-collection support).
 */
import { deploymentRules, replicaSetRules } from "./kinds/Apps.js"
import { namespaceSchema, nodeSchema } from "./kinds/BuiltinSchemas.js"
import { serviceRules } from "./kinds/Service.js"
import type { KindRules } from "./kinds/KindRules.js"
import { configMapRules } from "./kinds/ConfigMap.js"
import { eventRules } from "./kinds/Event.js"
import { leaseRules } from "./kinds/Lease.js"
import { podRules } from "./kinds/Pod.js"
import { nameIsDNSLabel } from "./kinds/Names.js"
import { clusterRoleBindingRules, clusterRoleRules, rbacGroup, roleBindingRules, roleRules } from "./kinds/Rbac.js"
import type { GroupResource } from "./Status.js"

export interface ResourceType extends GroupResource {
  readonly group: string
  readonly version: string
  readonly kind: string
  /** `group/version`, or the version of the core group. */
  readonly apiVersion: string
  readonly plural: string
  readonly singular: string
  readonly namespaced: boolean
  readonly shortNames: ReadonlyArray<string>
  /** Discovery's `categories` (upstream's `CategoriesProvider`): `all` is what `kubectl get all` expands. */
  readonly categories?: ReadonlyArray<string>
  readonly subresources: ReadonlyArray<string>
  /** Served from a watch cache (bookmarks, rv=0 lists unpaged); Events are not (`registry/core/event/storage`). */
  readonly watchCached: boolean
  /** PUT to a missing object creates it (201). */
  readonly allowCreateOnUpdate: boolean
  /** PUT without metadata.resourceVersion is allowed. */
  readonly allowUnconditionalUpdate: boolean
  /** propagationPolicy is honoured (orphan / foregroundDeletion finalizers); Events ignore it. */
  readonly garbageCollected: boolean
  readonly rules: KindRules
  /**
   * A virtual resource type (spec 000 "Terms"): an operation, not a stored object — only `create`, answered by
   * the server without storing anything (the access reviews).
   */
  readonly virtual?: boolean
}

export const apiVersionOf = (r: { readonly group: string; readonly version: string; readonly apiVersion?: string }): string =>
  r.apiVersion ?? (r.group ? `${r.group}/${r.version}` : r.version)

/**
 * The kind as 422 Invalid messages print it (`Lease.coordination.platform`) and the group of its details;
 * Events print a bare `Event` with an empty group (upstream `pkg/registry/core/event/strategy.go`).
 */
export const invalidKindOf = (r: ResourceType): { readonly qualifiedKind: string; readonly group: string } =>
  r.group && r.kind !== "Event" ? { qualifiedKind: `${r.kind}.${r.group}`, group: r.group } : { qualifiedKind: r.kind, group: "" }

/** Verbs of a type as discovery lists them; namespaces have no deletecollection, virtual types only create. */
export const resourceVerbs = (r: ResourceType): ReadonlyArray<string> => r.virtual ? ["create"] : [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch"
].filter((v) => r.kind !== "Namespace" || v !== "deletecollection")

const core = (fields: Partial<Omit<ResourceType, "apiVersion">> & Pick<ResourceType, "kind" | "plural" | "namespaced">): ResourceType => {
  const group = fields.group ?? ""
  const version = fields.version ?? "v1"
  return {
    group,
    version,
    apiVersion: group ? `${group}/${version}` : version,
    singular: fields.kind.toLowerCase(),
    shortNames: [],
    subresources: [],
    watchCached: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    garbageCollected: true,
    rules: {},
    ...fields
  }
}

/**
 * The `all` category, of the served kinds upstream puts in it (their registries' `Categories()`: pods, services,
 * deployments, replicasets; also replicationcontrollers, daemonsets, statefulsets, jobs, cronjobs and
 * horizontalpodautoscalers, which are not served).
 */
const allCategory: ReadonlyArray<string> = ["all"]

export const Namespaces = core({
  kind: "Namespace",
  plural: "namespaces",
  namespaced: false,
  shortNames: ["ns"],
  subresources: ["status", "finalize"],
  rules: { nameRule: nameIsDNSLabel, schema: namespaceSchema }
})
export const Nodes = core({ kind: "Node", plural: "nodes", namespaced: false, shortNames: ["no"], subresources: ["status"], rules: { schema: nodeSchema } })
export const Pods = core({
  kind: "Pod",
  plural: "pods",
  namespaced: true,
  shortNames: ["po"],
  categories: allCategory,
  // Sorted, as upstream's discovery lists them.
  subresources: ["attach", "binding", "eviction", "exec", "log", "portforward", "status"],
  rules: podRules
})
export const ConfigMaps = core({ kind: "ConfigMap", plural: "configmaps", namespaced: true, shortNames: ["cm"], rules: configMapRules })
export const Services = core({
  kind: "Service",
  plural: "services",
  namespaced: true,
  shortNames: ["svc"],
  categories: allCategory,
  subresources: ["status"],
  rules: serviceRules
})
export const Deployments = core({
  group: "apps",
  kind: "Deployment",
  plural: "deployments",
  namespaced: true,
  shortNames: ["deploy"],
  categories: allCategory,
  subresources: ["status", "scale"],
  rules: deploymentRules
})
export const ReplicaSets = core({
  group: "apps",
  kind: "ReplicaSet",
  plural: "replicasets",
  namespaced: true,
  shortNames: ["rs"],
  categories: allCategory,
  subresources: ["scale", "status"],
  rules: replicaSetRules
})
export const Leases = core({
  group: "coordination.platform",
  kind: "Lease",
  plural: "leases",
  namespaced: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  rules: leaseRules
})
export const Events = core({
  group: "events.platform",
  kind: "Event",
  plural: "events",
  namespaced: true,
  shortNames: ["ev"],
  watchCached: false,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  garbageCollected: false,
  rules: eventRules
})

export const ServiceAccounts = core({ kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true, shortNames: ["sa"], subresources: ["token"] })

const rbac = (kind: string, plural: string, namespaced: boolean, rules: KindRules) => core({ group: rbacGroup, kind, plural, namespaced, rules })
export const Roles = rbac("Role", "roles", true, roleRules)
export const ClusterRoles = rbac("ClusterRole", "clusterroles", false, clusterRoleRules)
export const RoleBindings = rbac("RoleBinding", "rolebindings", true, roleBindingRules)
export const ClusterRoleBindings = rbac("ClusterRoleBinding", "clusterrolebindings", false, clusterRoleBindingRules)

/** The access reviews (`authorization.platform/v1`): virtual, cluster-scoped, create only. */
export const authorizationGroup = "authorization.platform"
const review = (kind: string, plural: string) => core({ group: authorizationGroup, kind, plural, namespaced: false, virtual: true, watchCached: false })
export const SubjectAccessReviews = review("SubjectAccessReview", "subjectaccessreviews")
export const SelfSubjectAccessReviews = review("SelfSubjectAccessReview", "selfsubjectaccessreviews")
export const SelfSubjectRulesReviews = review("SelfSubjectRulesReview", "selfsubjectrulesreviews")

/** Who am I (`authentication.platform/v1` SelfSubjectReview, `kubectl auth whoami`): virtual, create only. */
export const authenticationGroup = "authentication.platform"
export const SelfSubjectReviews = core({
  group: authenticationGroup,
  kind: "SelfSubjectReview",
  plural: "selfsubjectreviews",
  namespaced: false,
  virtual: true,
  watchCached: false
})

export const resourceTypes: ReadonlyArray<ResourceType> = [
  Namespaces,
  Nodes,
  Pods,
  ConfigMaps,
  Services,
  ServiceAccounts,
  Deployments,
  ReplicaSets,
  Leases,
  Events,
  Roles,
  ClusterRoles,
  RoleBindings,
  ClusterRoleBindings,
  SubjectAccessReviews,
  SelfSubjectAccessReviews,
  SelfSubjectRulesReviews,
  SelfSubjectReviews
]

/** Group/version pairs served, in discovery order. */
export const groupVersions = (): ReadonlyArray<{ group: string; version: string }> => {
  const seen = new Map<string, { group: string; version: string }>()
  for (const r of resourceTypes) seen.set(apiVersionOf(r), { group: r.group, version: r.version })
  return [...seen.values()]
}

const byPath = new Map(resourceTypes.map((r) => [`${apiVersionOf(r)}/${r.plural}`, r]))

/** Looks a type up by group, version and plural, as the URL names it. */
export const findResource = (group: string, version: string, plural: string): ResourceType | undefined =>
  byPath.get(`${group ? `${group}/` : ""}${version}/${plural}`)

/** Looks a type up by a user's name for it: plural, singular, short name, kind or `plural.group`. */
export const resolveResource = (name: string): ResourceType | undefined => {
  const lower = name.toLowerCase()
  return resourceTypes.find(
    (r) =>
      r.plural === lower ||
      r.singular === lower ||
      r.kind.toLowerCase() === lower ||
      r.shortNames.includes(lower) ||
      (r.group !== "" && `${r.plural}.${r.group}` === lower)
  )
}

export const initialNamespaces: ReadonlyArray<string> = ["default", "platform-system", "platform-public", "platform-node-lease"]
