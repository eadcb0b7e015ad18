/**
 * Aggregated discovery (`apidiscovery.k8s.io` v2beta1 and v2): every group, version and resource in one document
 * at `/api` (the core group) and `/apis` (the rest), so kubectl 1.27+ discovers in two requests instead of one per
 * group version. Built from the same per-group documents (./Discovery.ts) so both forms always agree, in upstream's
 * shape (`endpoints/discovery/aggregated/handler.go`, `endpoints/installer.go` `ConvertGroupVersionIntoToDiscovery`):
 * subresources nested under their parent, a `responseKind` whose group and version are empty unless the kind lives
 * elsewhere, `freshness: Current`.
 */
import { createHash } from "node:crypto"
import { groupVersions } from "../../src/api/Resources.js"
import { apiGroupList, apiResourceList } from "./Discovery.js"

type ResourceEntry = ReturnType<typeof apiResourceList>["resources"][number]

const field = (entry: ResourceEntry, key: string): string => {
  const value = (entry as Record<string, unknown>)[key]
  return typeof value === "string" ? value : ""
}

const responseKind = (entry: ResourceEntry) => ({ group: field(entry, "group"), version: field(entry, "version"), kind: entry.kind })

const resourceDiscovery = (entry: ResourceEntry, subresources: ReadonlyArray<ResourceEntry>) => {
  const { shortNames, categories } = entry as { shortNames?: ReadonlyArray<string>; categories?: ReadonlyArray<string> }
  return {
    resource: entry.name,
    responseKind: responseKind(entry),
    scope: entry.namespaced ? "Namespaced" : "Cluster",
    singularResource: entry.singularName,
    verbs: entry.verbs,
    ...(shortNames !== undefined ? { shortNames } : {}),
    ...(categories !== undefined ? { categories } : {}),
    ...(subresources.length > 0
      ? {
          subresources: subresources.map((s) => ({
            subresource: s.name.slice(s.name.indexOf("/") + 1),
            responseKind: responseKind(s),
            verbs: s.verbs
          }))
        }
      : {})
  }
}

const versionDiscovery = (group: string, version: string) => {
  const entries = apiResourceList(group, version).resources
  const parents = entries.filter((e) => !e.name.includes("/"))
  return {
    version,
    resources: parents.map((parent) => resourceDiscovery(parent, entries.filter((e) => e.name.startsWith(`${parent.name}/`)))),
    freshness: "Current"
  }
}

const groupDiscovery = (group: string, versions: ReadonlyArray<string>) => ({
  metadata: group === "" ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
  versions: versions.map((v) => versionDiscovery(group, v))
})

/** The aggregated document of `/api` (`"api"`) or `/apis` (`"apis"`) in `apidiscovery.k8s.io/<version>`. */
export const aggregatedDiscovery = (root: "api" | "apis", version: string) => ({
  kind: "APIGroupDiscoveryList",
  apiVersion: `apidiscovery.k8s.io/${version}`,
  metadata: {},
  items:
    root === "api"
      ? [groupDiscovery("", groupVersions().filter((gv) => gv.group === "").map((gv) => gv.version))]
      : apiGroupList().groups.map((g) => groupDiscovery(g.name, g.versions.map((v) => v.version)))
})

/** The Content-Type of an aggregated answer. */
export const aggregatedDiscoveryContentType = (version: string) => `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`

/** The document's ETag as upstream's `discovery/aggregated/etag.go` makes it: the hash of its JSON, in quotes. */
export const discoveryETag = (bytes: Buffer): string => `"${createHash("sha512").update(bytes).digest("hex").toUpperCase()}"`
