/**
 * What authorization sees of a request, derived from the URL as upstream's `RequestInfoFactory` does
 * (`k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`): resource requests carry verb, API group,
 * resource, subresource, namespace and name; everything else (discovery, /healthz, /version) is a
 * non-resource request with the lower-cased HTTP method as its verb. Pure.
 */

export interface ResourceAttributes {
  readonly resourceRequest: true
  readonly verb: string
  readonly apiGroup: string
  readonly apiVersion: string
  readonly resource: string
  readonly subresource: string
  readonly namespace: string
  readonly name: string
}

export interface NonResourceAttributes {
  readonly resourceRequest: false
  readonly verb: string
  readonly path: string
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes

const methodVerbs: Readonly<Record<string, string>> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" }
const namespaceSubresources = new Set(["status", "finalize"])

/** `metadata.name=<x>` (or `==`) as the only requirement of a field selector names `x`. */
const exactName = (fieldSelector: string | null): string | undefined => {
  if (fieldSelector === null) return undefined
  const terms = fieldSelector.split(",").map((t) => t.trim()).filter((t) => t !== "")
  for (const term of terms) {
    const m = /^metadata\.name\s*==?\s*(.*)$/.exec(term)
    if (m) return m[1]!.trim()
  }
  return undefined
}

/** A name usable as a path segment (`path.IsValidPathSegmentName`). */
const validSegment = (name: string) => name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("%")

const watchParam = (query: URLSearchParams): boolean => {
  const v = query.get("watch")
  return v !== null && v.toLowerCase() !== "false" && v !== "0"
}

export const requestAttributes = (method: string, path: string, query: URLSearchParams): RequestAttributes => {
  const nonResource: NonResourceAttributes = { resourceRequest: false, verb: method.toLowerCase(), path }
  let parts = path.split("/").filter((s) => s !== "")
  const prefix = parts[0]
  if (prefix !== "api" && prefix !== "apis") return nonResource
  parts = parts.slice(1)
  let apiGroup = ""
  if (prefix === "apis") {
    if (parts.length < 3) return nonResource
    apiGroup = parts[0]!
    parts = parts.slice(1)
  } else if (parts.length < 2) return nonResource
  const apiVersion = parts[0]!
  parts = parts.slice(1)
  let verb: string
  if (parts[0] === "watch" || parts[0] === "proxy") {
    verb = parts[0]
    parts = parts.slice(1)
  } else verb = methodVerbs[method] ?? ""
  let namespace = ""
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = decodeURIComponent(parts[1]!)
    if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2)
  }
  const decoded = parts.map((p) => decodeURIComponent(p))
  const resource = decoded[0] ?? ""
  let name = decoded[1] ?? ""
  const subresource = decoded.length >= 3 && verb !== "proxy" ? decoded[2]! : ""
  if (name === "" && verb === "get") {
    verb = watchParam(query) ? "watch" : "list"
    const selected = exactName(query.get("fieldSelector"))
    if (selected !== undefined && validSegment(selected)) name = selected
  }
  if (name === "" && verb === "delete") verb = "deletecollection"
  return { resourceRequest: true, verb, apiGroup, apiVersion, resource, subresource, namespace, name }
}

/** The attributes of a call made without a URL (the in-process client): the same verbs and scope as over HTTP. */
export const callAttributes = (
  verb: string,
  resource: { readonly group: string; readonly version: string; readonly plural: string; readonly namespaced: boolean },
  namespace: string | undefined,
  name: string | undefined,
  subresource?: string | undefined
): ResourceAttributes => ({
  resourceRequest: true,
  verb,
  apiGroup: resource.group,
  apiVersion: resource.version,
  resource: resource.plural,
  subresource: subresource ?? "",
  // A namespace object is authorized in its own namespace, as its URL `/api/v1/namespaces/<name>` makes it upstream.
  namespace: resource.namespaced ? (namespace ?? "") : resource.plural === "namespaces" ? (name ?? "") : "",
  name: name ?? ""
})
