/** Discovery documents so stock clients find the served types: /api, /apis, /api/v1, /apis/<g>/<v>, /version. */
import { apiVersionOf, groupVersions, resourceTypes, resourceVerbs, type ResourceType } from "../../src/api/Resources.js"
import { findView, listedViewGroups, viewGroupVersions, type ResourceView } from "../../src/api/ServedNames.js"
import { metricsApiGroup, metricsGroup, metricsResourceList, metricsVersion } from "./metricsapi/ResourceMetrics.js"

const apiResource = (r: ResourceType) => ({
  name: r.plural,
  singularName: r.singular,
  namespaced: r.namespaced,
  kind: r.kind,
  verbs: resourceVerbs(r),
  ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
  ...(r.categories !== undefined && r.categories.length > 0 ? { categories: r.categories } : {})
})

/** Subresources whose kind lives in another group (upstream lists that group and version). */
const foreignSubresources: Readonly<Record<string, { group: string; version: string; kind: string }>> = {
  eviction: { group: "policy", version: "v1", kind: "Eviction" },
  token: { group: "authentication.platform", version: "v1", kind: "TokenRequest" }
}

/** Kind and verbs of the subresources served under the parent's own group (upstream's discovery of each REST). */
const localSubresources: Readonly<Record<string, { kind?: string; verbs: ReadonlyArray<string> }>> = {
  attach: { kind: "PodAttachOptions", verbs: ["create", "get"] },
  binding: { kind: "Binding", verbs: ["create"] },
  exec: { kind: "PodExecOptions", verbs: ["create", "get"] },
  finalize: { verbs: ["update"] },
  log: { verbs: ["get"] },
  portforward: { kind: "PodPortForwardOptions", verbs: ["create", "get"] }
}

const subresource = (r: ResourceType, sub: string) => {
  const foreign = foreignSubresources[sub]
  if (foreign !== undefined) return { name: `${r.plural}/${sub}`, singularName: "", namespaced: r.namespaced, ...foreign, verbs: ["create"] }
  // The scale subresource's Scale is `autoscaling/v1` (upstream lists group and version for it).
  if (sub === "scale") return { name: `${r.plural}/scale`, singularName: "", namespaced: r.namespaced, group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] }
  const local = localSubresources[sub]
  return { name: `${r.plural}/${sub}`, singularName: "", namespaced: r.namespaced, kind: local?.kind ?? r.kind, verbs: local?.verbs ?? ["get", "patch", "update"] }
}

/** A view's entry (docs/upstream-names.md): the stored type's names, the view's verbs. */
const viewResource = (view: ResourceView) => {
  const entry = apiResource(view.resource)
  return view.readOnly ? { ...entry, verbs: entry.verbs.filter((v) => readOnlyVerbs.has(v)) } : entry
}
const readOnlyVerbs = new Set(["get", "list", "watch", "delete", "deletecollection"])

/** The resources of a group version: its stored types, then the views served under it. */
export const apiResourceList = (group: string, version: string) =>
  group === metricsGroup && version === metricsVersion ? metricsResourceList() : storedResourceList(group, version)

const storedResourceList = (group: string, version: string) => ({
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: apiVersionOf({ group, version }),
  resources: [
    ...resourceTypes.filter((r) => r.group === group && r.version === version).flatMap((r) => [apiResource(r), ...r.subresources.map((s) => subresource(r, s))]),
    ...viewsAt(group, version).map(viewResource)
  ]
})

const viewsAt = (group: string, version: string): ReadonlyArray<ResourceView> =>
  resourceTypes.flatMap((r) => {
    const view = findView(group, version, r.plural)
    return view ? [view] : []
  })

export const apiVersions = (serverAddress: string) => ({
  kind: "APIVersions",
  versions: ["v1"],
  serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }]
})

/** The versions of a stored group, or of a listed view group (docs/upstream-names.md). */
const versionsOf = (group: string): ReadonlyArray<string> =>
  listedViewGroups.includes(group)
    ? viewGroupVersions.filter((gv) => gv.startsWith(`${group}/`)).map((gv) => gv.slice(group.length + 1))
    : groupVersions()
        .filter((gv) => gv.group === group)
        .map((gv) => gv.version)

const apiGroup = (group: string) => {
  const versions = versionsOf(group).map((version) => ({ groupVersion: apiVersionOf({ group, version }), version }))
  return { name: group, versions, preferredVersion: versions[0] }
}

/** The stored groups in order, each listed view group right after the spec's group it renames. */
const listedGroups = (): ReadonlyArray<string> =>
  [...new Set(groupVersions().map((gv) => gv.group).filter((g) => g !== ""))].flatMap((g) => [g, ...listedViewGroups.filter((v) => v.replace(/\.k8s\.io$/, ".platform") === g)])

export const apiGroupList = () => ({
  kind: "APIGroupList",
  apiVersion: "v1",
  // metrics.k8s.io last, where the aggregator lists an APIService's group (metrics-server's)
  groups: [...listedGroups().map(apiGroup), metricsApiGroup()]
})

export const apiGroupDocument = (group: string) =>
  group === metricsGroup ? { kind: "APIGroup", apiVersion: "v1", ...metricsApiGroup() } : group !== "" && listedGroups().includes(group) ? { kind: "APIGroup", apiVersion: "v1", ...apiGroup(group) } : undefined

export const versionInfo = {
  major: "1",
  minor: "26",
  gitVersion: "v1.26.15-clustersim",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-01-01T00:00:00Z",
  goVersion: "go1.21.9",
  compiler: "gc",
  platform: "linux/amd64"
}
