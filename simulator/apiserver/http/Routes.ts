/**
 * The URL layout of spec 000 "Endpoints": a path mapped to a resource route (namespaced or cluster-scoped, with a
 * subresource, a served-name view or a legacy `/watch/` prefix), a discovery document, a health text or an admin
 * action. Pure: no I/O here.
 */
import { findResource, groupVersions, type ResourceType } from "../../../src/api/Resources.js"
import { findView, viewGroupVersions, type ResourceView } from "../../../src/api/ServedNames.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, versionInfo } from "../Discovery.js"

export interface Route {
  readonly resource: ResourceType
  readonly namespace: string | undefined
  readonly name: string | undefined
  readonly subresource: string | undefined
  /** Served under another name (docs/upstream-names.md): answers and bodies go through the view. */
  readonly view?: ResourceView | undefined
  /** A legacy `/watch/` path: always a watch. */
  readonly watch?: boolean
}

export type Parsed =
  | { readonly _tag: "resource"; readonly route: Route }
  | { readonly _tag: "document"; readonly body: unknown }
  | { readonly _tag: "text"; readonly code: number; readonly body: string }
  | { readonly _tag: "error"; readonly error: ApiError }
  | { readonly _tag: "admin"; readonly action: string }

const servedGroupVersions = new Set([...groupVersions().map((gv) => (gv.group ? `${gv.group}/${gv.version}` : gv.version)), ...viewGroupVersions])

/** A stored type, or a view of one, by the URL's group, version and plural. */
const lookup = (group: string, version: string, plural: string): { resource: ResourceType; view?: ResourceView } | undefined => {
  const resource = findResource(group, version, plural)
  if (resource) return { resource }
  const view = findView(group, version, plural)
  return view && { resource: view.resource, view }
}

/** Maps a path to a resource route or a discovery document (spec 000 "Endpoints"). */
export const parsePath = (path: string, serverAddress: string): Parsed => {
  const segments = path.split("/").filter((s) => s !== "").map(decodeURIComponent)
  const notFoundPage: Parsed = { _tag: "text", code: 404, body: "404 page not found\n" }
  if (segments.length === 0) return notFoundPage
  const [root] = segments
  if (segments.length === 1) {
    if (root === "healthz" || root === "readyz" || root === "livez") return { _tag: "text", code: 200, body: "ok" }
    if (root === "version") return { _tag: "document", body: versionInfo }
    if (root === "api") return { _tag: "document", body: apiVersions(serverAddress) }
    if (root === "apis") return { _tag: "document", body: apiGroupList() }
  }
  if (root === "clustersim" && segments.length === 2) return { _tag: "admin", action: segments[1]! }
  let group: string
  let rest: string[]
  if (root === "api") {
    group = ""
    rest = segments.slice(1)
  } else if (root === "apis") {
    if (segments.length === 2) {
      const doc = apiGroupDocument(segments[1]!)
      return doc ? { _tag: "document", body: doc } : notFoundPage
    }
    group = segments[1]!
    rest = segments.slice(2)
  } else return notFoundPage
  const version = rest[0]!
  if (!servedGroupVersions.has(group ? `${group}/${version}` : version)) return notFoundPage
  const afterVersion = rest.slice(1)
  if (afterVersion.length === 0) return { _tag: "document", body: apiResourceList(group, version) }
  // Legacy watch paths (`/api/v1/watch/namespaces/ns/configmaps[/name]`), still served upstream.
  const watch = afterVersion[0] === "watch"
  const parts = watch ? afterVersion.slice(1) : afterVersion
  if (parts.length === 0) return notFoundPage
  const unknown = (): Parsed => ({ _tag: "error", error: Status.resourceNotFound() })
  // namespaces/<ns>/<plural>[/<name>[/<sub>]] for namespaced types; <plural>[/<name>[/<sub>]] otherwise.
  if (parts[0] === "namespaces" && parts.length >= 3) {
    const found = lookup(group, version, parts[2]!)
    const resource = found?.resource
    if (found && resource?.namespaced && parts.length <= 5 && !(watch && parts.length > 4)) {
      const namespace = found.view ? found.view.namespaceToStore(parts[1]!) : parts[1]
      return { _tag: "resource", route: { resource, namespace, name: parts[3], subresource: parts[4], view: found.view, watch } }
    }
    if (!resource || parts.length > 5 || !resource.namespaced) {
      // namespaces/<name>/<subresource> is the namespace object's own subresource.
      const namespaces = findResource(group, version, "namespaces")
      if (namespaces && !watch && parts.length === 3 && namespaces.subresources.includes(parts[2]!))
        return { _tag: "resource", route: { resource: namespaces, namespace: undefined, name: parts[1], subresource: parts[2] } }
      return unknown()
    }
  }
  const found = lookup(group, version, parts[0]!)
  if (!found || parts.length > (watch ? 2 : 3)) return unknown()
  if (parts.length === 3 && !found.resource.subresources.includes(parts[2]!)) return unknown()
  return { _tag: "resource", route: { resource: found.resource, namespace: undefined, name: parts[1], subresource: parts[2], view: found.view, watch } }
}
