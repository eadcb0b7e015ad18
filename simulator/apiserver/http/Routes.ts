/**
 * The URL layout of spec 000 "Endpoints": a request's RequestInfo (../RequestInfo.ts, the one reading of its URL,
 * which authorization reads too) mapped to a resource route (namespaced or cluster-scoped, with a subresource, a
 * served-name view or a legacy `/watch/` prefix), a discovery document, a health endpoint or an admin action. Pure:
 * no I/O here.
 */
import { findResource, groupVersions, type ResourceType } from "../../../src/api/Resources.js"
import { findView, viewGroupVersions, type ResourceView } from "../../../src/api/ServedNames.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, versionInfo } from "../Discovery.js"
import { metricsGroup, metricsGroupVersion } from "../metricsapi/ResourceMetrics.js"
import { pathSegments, type RequestInfo } from "../RequestInfo.js"
import type { HealthEndpoint } from "./HealthChecks.js"

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
  | { readonly _tag: "document"; readonly body: unknown; readonly aggregated?: "api" | "apis" }
  | { readonly _tag: "text"; readonly code: number; readonly body: string }
  | { readonly _tag: "error"; readonly error: ApiError }
  | { readonly _tag: "admin"; readonly action: string }
  | { readonly _tag: "metrics" }
  /** `/healthz`, `/livez`, `/readyz` (`check` undefined) or one of their checks, `/livez/ping` (./HealthChecks.ts). */
  | { readonly _tag: "health"; readonly endpoint: HealthEndpoint; readonly check: string | undefined }
  /** `metrics.k8s.io/v1beta1`: NodeMetrics (`nodes`) and PodMetrics (`pods`), served apart from the stored types. */
  | { readonly _tag: "resourceMetrics"; readonly resource: "nodes" | "pods"; readonly namespace: string | undefined; readonly name: string | undefined }

const servedGroupVersions = new Set([...groupVersions().map((gv) => (gv.group ? `${gv.group}/${gv.version}` : gv.version)), ...viewGroupVersions, metricsGroupVersion])

/** A stored type, or a view of one, by the URL's group, version and plural. */
const lookup = (group: string, version: string, plural: string): { resource: ResourceType; view?: ResourceView } | undefined => {
  const resource = findResource(group, version, plural)
  if (resource) return { resource }
  const view = findView(group, version, plural)
  return view && { resource: view.resource, view }
}

/** A resource route or a discovery document for a request, read from its RequestInfo (spec 000 "Endpoints"). */
export const routeOf = (info: RequestInfo, serverAddress: string): Parsed => {
  const notFoundPage: Parsed = { _tag: "text", code: 404, body: "404 page not found\n" }
  if (!info.isResourceRequest) return nonResourceRoute(info, serverAddress, notFoundPage)
  const group = info.apiGroup
  const version = info.apiVersion
  if (!servedGroupVersions.has(group ? `${group}/${version}` : version)) return notFoundPage
  const unknown = (): Parsed => ({ _tag: "error", error: Status.resourceNotFound() })
  if (group === metricsGroup) return resourceMetricsRoute(info) ?? unknown()
  // `/proxy/` paths are not served (upstream dropped them); a legacy `/watch/` path takes no subresource.
  if (info.verbInPath && info.verb !== "watch") return unknown()
  const watch = info.verbInPath
  const parts = info.parts
  if (parts.length > (watch ? 2 : 3)) return unknown()
  const found = lookup(group, version, info.resource)
  if (!found) return unknown()
  const { resource, view } = found
  const name = parts.length >= 2 ? parts[1] : undefined
  const subresource = parts.length >= 3 ? parts[2] : undefined
  if (subresource !== undefined && !resource.subresources.includes(subresource)) return unknown()
  let namespace: string | undefined
  // Already the stored namespace: RequestInfo renames a view's (kube-system → platform-system) for authorization too.
  if (resource.namespaced) namespace = info.namespace === "" ? undefined : info.namespace
  // A cluster-scoped type has no namespace in its path, but a namespace object's path (`/namespaces/<name>`) names it.
  else if (info.namespace !== "" && !(resource.plural === "namespaces" && info.namespace === name)) return unknown()
  // `/pods//status`: upstream's handlers find no name (`errEmptyName`).
  if (name === "") return { _tag: "error", error: Status.badRequest("name must be provided") }
  return { _tag: "resource", route: { resource, namespace, name, subresource, view, watch } }
}

/** A `metrics.k8s.io` path: `nodes[/NAME]`, `pods[/NAME]` (namespaced or across namespaces); no subresources. */
const resourceMetricsRoute = (info: RequestInfo): Parsed | undefined => {
  const [resource, name] = info.parts
  if (info.verbInPath || info.parts.length > 2 || name === "") return undefined
  if (resource === "pods") return { _tag: "resourceMetrics", resource, namespace: info.namespace || undefined, name }
  if (resource === "nodes" && info.namespace === "") return { _tag: "resourceMetrics", resource, namespace: undefined, name }
  return undefined
}

const isHealthEndpoint = (segment: string | undefined): segment is HealthEndpoint => segment === "healthz" || segment === "livez" || segment === "readyz"

/** Health endpoints, version, discovery documents and admin actions: matched on the decoded path's segments. */
const nonResourceRoute = (info: RequestInfo, serverAddress: string, notFoundPage: Parsed): Parsed => {
  const segments = pathSegments(info.path)
  const [root, second, third] = segments
  switch (segments.length) {
    case 1:
      if (isHealthEndpoint(root)) return { _tag: "health", endpoint: root, check: undefined }
      if (root === "version") return { _tag: "document", body: versionInfo }
      if (root === "metrics") return { _tag: "metrics" }
      if (root === "api") return { _tag: "document", body: apiVersions(serverAddress), aggregated: "api" }
      if (root === "apis") return { _tag: "document", body: apiGroupList(), aggregated: "apis" }
      return notFoundPage
    case 2:
      if (root === "clustersim") return { _tag: "admin", action: second! }
      if (isHealthEndpoint(root)) return { _tag: "health", endpoint: root, check: second! }
      if (root === "api" && servedGroupVersions.has(second!)) return { _tag: "document", body: apiResourceList("", second!) }
      if (root === "apis") {
        const doc = apiGroupDocument(second!)
        return doc ? { _tag: "document", body: doc } : notFoundPage
      }
      return notFoundPage
    case 3:
      if (root === "apis" && servedGroupVersions.has(`${second}/${third}`)) return { _tag: "document", body: apiResourceList(second!, third!) }
      return notFoundPage
    default:
      return notFoundPage
  }
}
