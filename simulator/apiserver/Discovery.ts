/** Discovery documents so stock clients find the served types: /api, /apis, /api/v1, /apis/<g>/<v>, /version. */
import { apiVersionOf, groupVersions, resourceTypes, resourceVerbs, type ResourceType } from "../../src/api/Resources.js"

const apiResource = (r: ResourceType) => ({
  name: r.plural,
  singularName: r.singular,
  namespaced: r.namespaced,
  kind: r.kind,
  verbs: resourceVerbs(r),
  ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {})
})

const subresource = (r: ResourceType, sub: string) => ({
  name: `${r.plural}/${sub}`,
  singularName: "",
  namespaced: r.namespaced,
  kind: sub === "binding" ? "Binding" : sub === "scale" ? "Scale" : r.kind,
  verbs: sub === "binding" ? ["create"] : ["get", "patch", "update"]
})

export const apiResourceList = (group: string, version: string) => ({
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: apiVersionOf({ group, version }),
  resources: resourceTypes
    .filter((r) => r.group === group && r.version === version)
    .flatMap((r) => [apiResource(r), ...r.subresources.map((s) => subresource(r, s))])
})

export const apiVersions = (serverAddress: string) => ({
  kind: "APIVersions",
  versions: ["v1"],
  serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }]
})

const apiGroup = (group: string) => {
  const versions = groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({ groupVersion: apiVersionOf(gv), version: gv.version }))
  return { name: group, versions, preferredVersion: versions[0] }
}

export const apiGroupList = () => ({
  kind: "APIGroupList",
  apiVersion: "v1",
  groups: [...new Set(groupVersions().map((gv) => gv.group).filter((g) => g !== ""))].map(apiGroup)
})

export const apiGroupDocument = (group: string) =>
  groupVersions().some((gv) => gv.group === group && group !== "") ? { kind: "APIGroup", apiVersion: "v1", ...apiGroup(group) } : undefined

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
