/**
 * Upstream names served beside the spec's own (docs/upstream-names.md): stock clients (kubectl, the official
 * Python and Node clients) call `coordination.k8s.io/v1`, `events.k8s.io/v1` and the core `v1` events by
 * fixed paths. Each is a *view* of a stored type: the same objects under another apiVersion (and, for the
 * `.k8s.io` groups, upstream's system namespace names), never a second copy.
 *
 * Discovery lists the spec's groups and core `v1` events (upstream lists those too). Of the `.k8s.io` aliases only
 * `rbac.authorization.k8s.io` is listed too: kubectl maps a manifest's kind to a path by discovery, and RBAC manifests
 * (a real cluster's, `clustersim job`'s) name that group. The others are served by path only, so
 * `kubectl api-resources` shows leases and events once per API.
 */
import { Either } from "effect"
import { coreEventFieldLabel, toCoreEvent } from "./kinds/CoreEvent.js"
import { isRecord, type KList, type KObject, type WatchEvent } from "./Object.js"
import { extendable } from "./internal/V8Shapes.js"
import {
  ClusterRoleBindings,
  ClusterRoles,
  Events,
  Leases,
  RoleBindings,
  Roles,
  SelfSubjectAccessReviews,
  SelfSubjectReviews,
  SelfSubjectRulesReviews,
  SubjectAccessReviews,
  type ResourceType
} from "./Resources.js"
import { badRequest, type ApiError } from "./Status.js"
import { nodeLeaseNamespace, publicNamespace, systemNamespace } from "./WellKnown.js"

export interface ResourceView {
  /** The stored type the view shows. */
  readonly resource: ResourceType
  /** The apiVersion objects carry in this view. */
  readonly apiVersion: string
  /** Only reads and deletes are served (core v1 events: writes would need core v1's own validation). */
  readonly readOnly: boolean
  /** A stored object as the view shows it. */
  readonly toWire: (obj: KObject) => KObject
  /** A namespace in the path or a body → the stored namespace, and back. */
  readonly namespaceToStore: (ns: string) => string
  readonly namespaceToWire: (ns: string) => string
  /** A field selector label in the view's spelling → the stored type's spelling. */
  readonly fieldLabel: (label: string) => string
}

/** Upstream's system namespaces and the spec's renamed ones (spec README "Naming"). */
const upstreamNamespaces: ReadonlyMap<string, string> = new Map([
  ["kube-system", systemNamespace],
  ["kube-public", publicNamespace],
  ["kube-node-lease", nodeLeaseNamespace]
])
const specNamespaces: ReadonlyMap<string, string> = new Map([...upstreamNamespaces].map(([k, v]) => [v, k]))

const same = (s: string) => s

const renamedNamespace = (obj: KObject, to: (ns: string) => string): KObject => {
  const ns = obj.metadata?.namespace
  const renamed = ns === undefined ? ns : to(ns)
  return renamed === ns ? obj : { ...extendable, ...obj, metadata: { ...extendable, ...obj.metadata, namespace: renamed } }
}

/** The `.k8s.io` name of a `.platform` group: same objects, upstream's apiVersion and system namespace names. */
const upstreamGroup = (resource: ResourceType, version = resource.version): ResourceView => {
  const apiVersion = `${resource.group.replace(/\.platform$/, ".k8s.io")}/${version}`
  const namespaceToWire = (ns: string) => specNamespaces.get(ns) ?? ns
  return {
    resource,
    apiVersion,
    readOnly: false,
    // List items are stored and served without kind/apiVersion: only a typed object gets the view's apiVersion.
    toWire: (obj) => {
      const renamed = renamedNamespace(obj, namespaceToWire)
      return obj.apiVersion === undefined ? renamed : { ...extendable, ...renamed, apiVersion }
    },
    namespaceToStore: (ns) => upstreamNamespaces.get(ns) ?? ns,
    namespaceToWire,
    fieldLabel: same
  }
}

const coreEvents: ResourceView = {
  resource: Events,
  apiVersion: "v1",
  readOnly: true,
  toWire: toCoreEvent,
  namespaceToStore: same,
  namespaceToWire: same,
  fieldLabel: coreEventFieldLabel
}

const upstreamPath = (resource: ResourceType, version = resource.version): [string, ResourceView] => {
  const view = upstreamGroup(resource, version)
  return [`${view.apiVersion}/${resource.plural}`, view]
}

const views: ReadonlyMap<string, ResourceView> = new Map([
  upstreamPath(Leases),
  upstreamPath(Events),
  ["v1/events", coreEvents],
  // kubectl's typed clients (create role/rolebinding, auth can-i) call these groups by fixed paths.
  ...[Roles, ClusterRoles, RoleBindings, ClusterRoleBindings, SubjectAccessReviews, SelfSubjectAccessReviews, SelfSubjectRulesReviews].map((r) => upstreamPath(r)),
  // `kubectl auth whoami` asks v1 (1.28+), then v1beta1 (what 1.27 asks first), then v1alpha1.
  ...["v1", "v1beta1", "v1alpha1"].map((version) => upstreamPath(SelfSubjectReviews, version))
])

/** The view served at a group, version and plural, if that path is one. */
export const findView = (group: string, version: string, plural: string): ResourceView | undefined =>
  views.get(`${group ? `${group}/` : ""}${version}/${plural}`)

/** The stored namespace a path's namespace names for a group, version and plural (a view may rename it). */
export const storedNamespace = (group: string, version: string, plural: string, namespace: string): string => {
  if (!upstreamNamespaces.has(namespace)) return namespace
  return findView(group, version, plural)?.namespaceToStore(namespace) ?? namespace
}

/** `.k8s.io` view groups that discovery lists beside the spec's groups (the rest are served by path only). */
export const listedViewGroups: ReadonlyArray<string> = ["rbac.authorization.k8s.io"]

/** Group/versions served only as views (they answer resource paths, and their own discovery document). */
export const viewGroupVersions: ReadonlyArray<string> = [...new Set([...views.keys()].map((k) => k.slice(0, k.lastIndexOf("/"))))]

/** A list answer in the view: its apiVersion and every item. */
export const listToWire = (view: ResourceView, list: KList): KList => ({
  ...extendable,
  ...list,
  apiVersion: view.apiVersion,
  items: list.items.map(view.toWire)
})

/** An answer body in the view: objects and lists converted, a `Status` as it is. */
export const bodyToWire = (view: ResourceView, body: object): object => {
  const b = body as KObject
  if (b.kind === "Status") return body
  if (Array.isArray((b as unknown as KList).items)) return listToWire(view, b as unknown as KList)
  return view.toWire(b)
}

/** A watch event in the view (bookmarks and errors carry no object of the type). */
export const eventToWire = (view: ResourceView, event: WatchEvent): WatchEvent =>
  event.type === "ERROR"
    ? event
    : { type: event.type, object: event.type === "BOOKMARK" ? { ...extendable, ...event.object, apiVersion: view.apiVersion } : view.toWire(event.object) }

/**
 * A server-side apply configuration naming another apiVersion than the request's group/version (upstream's
 * `applyPatcher` in `handlers/patch.go`, which compares with the URL's, so `rbac.authorization.k8s.io/v1` at a
 * view's path and the stored type's apiVersion at its own).
 */
export const incorrectApplyVersion = (specified: unknown, expected: string): ApiError =>
  badRequest(`Incorrect version specified in apply patch. Specified patch version: ${typeof specified === "string" ? specified : ""}, expected: ${expected}`)

/**
 * A request body from the view's names to the stored type's: apiVersion and namespace. A body naming another
 * apiVersion is upstream's 400, with the view's apiVersion as the expected one; an apply configuration must name
 * the view's apiVersion (an empty one too is refused).
 */
export const bodyToStore = (view: ResourceView, body: unknown, apply = false): Either.Either<unknown, ApiError> => {
  if (!isRecord(body)) return Either.right(body)
  const out: Record<string, unknown> = { ...extendable, ...body }
  if (body.apiVersion === view.apiVersion) out.apiVersion = view.resource.apiVersion
  else if (apply) return Either.left(incorrectApplyVersion(body.apiVersion, view.apiVersion))
  else if (typeof body.apiVersion === "string" && body.apiVersion !== "")
    return Either.left(badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${view.apiVersion})`))
  if (isRecord(body.metadata) && typeof body.metadata.namespace === "string")
    out.metadata = { ...extendable, ...body.metadata, namespace: view.namespaceToStore(body.metadata.namespace) }
  return Either.right(out)
}

/** Each term's label of a field selector (`a=b,c!=d`, `\`-escaped values) through `rename`. */
export const renameFieldLabels = (selector: string, rename: (label: string) => string): string =>
  selector
    .split(/(?<!\\),/)
    .map((term) => {
      const m = /^(\s*[^=!]*?)(\s*(?:!=|==|=).*)$/s.exec(term)
      return m ? `${rename(m[1]!.trim())}${m[2]}` : term
    })
    .join(",")
