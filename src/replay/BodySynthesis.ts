/**
 * Bodies for a Metadata-level log, which records who did what to which object but not the object: the smallest
 * object of the kind that its schema accepts (the fields upstream's validation requires, nothing else), named as
 * the `objectRef` names it. Every synthesized body is flagged in the report (docs/replay.md "Synthesized bodies").
 */
import type { ObjectReference } from "../api/audit/Event.js"
import { findResource, type ResourceType } from "../api/Resources.js"
import { findView } from "../api/ServedNames.js"

/** The served type a recorded group, version and resource names, by the spec's names or upstream's (ServedNames.ts). */
export const recordedResource = (group: string, version: string, resource: string): ResourceType | undefined =>
  findResource(group, version, resource) ?? findView(group, version, resource)?.resource

/** `pods` → `Pod` for a resource the target's kinds do not include: what upstream's RESTMapper guesses too. */
const guessKind = (plural: string): string => {
  const singular = plural.endsWith("ies") ? `${plural.slice(0, -3)}y` : plural.endsWith("ses") ? plural.slice(0, -2) : plural.replace(/s$/, "")
  return singular.charAt(0).toUpperCase() + singular.slice(1)
}

const pause = "registry.k8s.io/pause:3.9"

/** What each kind's validation requires beyond metadata (upstream pkg/apis/core/validation and its siblings). */
const requiredFields = (kind: string, name: string, namespace: string | undefined, group: string): Record<string, unknown> => {
  const podSpec = { containers: [{ name: "replayed", image: pause }] }
  switch (kind) {
    case "Pod":
      return { spec: podSpec }
    case "Service":
      return { spec: { ports: [{ port: 80, protocol: "TCP" }] } }
    case "Deployment":
    case "ReplicaSet":
      return { spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec } } }
    case "ConfigMap":
    case "Secret":
      return { data: {} }
    case "Lease":
      return { spec: {} }
    case "Role":
    case "ClusterRole":
      return { rules: [] }
    case "RoleBinding":
    case "ClusterRoleBinding":
      return { roleRef: { apiGroup: group.startsWith("rbac.") ? group : "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" }, subjects: [] }
    case "Event":
      return {
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "clustersim.io/replay",
        reportingInstance: "replay",
        action: "Replayed",
        reason: "Replayed",
        type: "Normal",
        regarding: { kind: "Namespace", name: namespace ?? "default", apiVersion: "v1" }
      }
    default:
      return {}
  }
}

/**
 * The object `ref` names, at the recorded path's group and version (so a view's apiVersion matches its path), in
 * `namespace` (the replay's, after `--namespace-prefix` and scale copies) and called `name`.
 */
export const synthesizeObject = (ref: ObjectReference, group: string, version: string, name: string | undefined, namespace: string | undefined): Record<string, unknown> => {
  const plural = ref.resource ?? ""
  const kind = recordedResource(group, version, plural)?.kind ?? guessKind(plural)
  // a create whose name the server generated (generateName) has none in a Metadata-level event
  const naming = name === undefined || name === "" ? { generateName: "replayed-" } : { name }
  return {
    apiVersion: group === "" ? version : `${group}/${version}`,
    kind,
    metadata: { ...naming, ...(namespace !== undefined ? { namespace } : {}), annotations: { "clustersim.io/replay": "synthesized" } },
    ...requiredFields(kind, name ?? "replayed", namespace, group)
  }
}

/** A patch that changes the object and nothing its schema checks: an annotation, as a merge patch. */
export const synthesizedPatch = (auditID: string): Record<string, unknown> => ({ metadata: { annotations: { "clustersim.io/replayed": auditID } } })

/** Server-set fields a recorded object carries that a create or an unconditional update must not send. */
export const withoutServerFields = (obj: Record<string, unknown>): Record<string, unknown> => {
  const meta = (typeof obj.metadata === "object" && obj.metadata !== null ? obj.metadata : {}) as Record<string, unknown>
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _c, managedFields: _m, generation: _g, selfLink: _s, deletionTimestamp: _d, deletionGracePeriodSeconds: _dg, ...keep } = meta
  const { status: _status, ...rest } = obj
  return { ...rest, metadata: keep }
}
