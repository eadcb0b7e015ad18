/**
 * A recorded `requestURI` read as upstream's `RequestInfoFactory` reads it (apiserver
 * `endpoints/request/requestinfo.go`): API prefix, group, version, namespace, resource, name, subresource, and
 * the query kept as it was. The replay rewrites only the namespace and, for scale copies, cluster-scoped names;
 * everything else goes back to the target byte for byte.
 */

export interface RequestPath {
  /** `/api` or `/apis`; undefined for a non-resource URL (`/version`, `/healthz`, `/openapi/v2`). */
  readonly prefix: "/api" | "/apis" | undefined
  readonly group: string
  readonly version: string
  readonly namespace: string | undefined
  readonly resource: string | undefined
  readonly name: string | undefined
  readonly subresource: string | undefined
  /** The path of a non-resource URL, or of an API path with fewer parts than a resource (`/apis/apps`). */
  readonly raw: string
  /** The query after `?`, as recorded (without the `?`), or "". */
  readonly query: string
}

/** Why a URI cannot be replayed (`BadInput` class `unparsable-uri`). */
export class UnparsableUri {
  readonly _tag = "UnparsableUri"
  constructor(readonly message: string) {}
}

const decodeSegment = (s: string): string | UnparsableUri => {
  try {
    return decodeURIComponent(s)
  } catch {
    return new UnparsableUri(`path segment "${s}" is not valid percent-encoding`)
  }
}

/** The recorded URI's parts; an `UnparsableUri` when it is not an absolute path an API server would route. */
export const parseRequestUri = (uri: string): RequestPath | UnparsableUri => {
  if (!uri.startsWith("/")) return new UnparsableUri(`requestURI "${uri}" is not an absolute path`)
  // control characters and spaces never reach a server unescaped: a log edited by hand or cut mid-line
  if (/[\s\u0000-\u001f\u007f]/.test(uri)) return new UnparsableUri(`requestURI ${JSON.stringify(uri)} contains whitespace or control characters`)
  const q = uri.indexOf("?")
  const path = q < 0 ? uri : uri.slice(0, q)
  const query = q < 0 ? "" : uri.slice(q + 1)
  const raw: Array<string> = path.split("/").slice(1)
  const parts: Array<string> = []
  for (const s of raw) {
    if (s === "") continue
    const d = decodeSegment(s)
    if (d instanceof UnparsableUri) return d
    parts.push(d)
  }
  const nonResource: RequestPath = { prefix: undefined, group: "", version: "", namespace: undefined, resource: undefined, name: undefined, subresource: undefined, raw: path, query }
  let rest: Array<string>
  let prefix: "/api" | "/apis"
  let group = ""
  let version: string
  if (parts[0] === "api" && parts.length >= 2) {
    prefix = "/api"
    version = parts[1]!
    rest = parts.slice(2)
  } else if (parts[0] === "apis" && parts.length >= 3) {
    prefix = "/apis"
    group = parts[1]!
    version = parts[2]!
    rest = parts.slice(3)
  } else return nonResource
  if (rest.length === 0) return { ...nonResource, prefix, group, version }
  // the deprecated `/watch/` prefix (requestinfo.go: specialVerbs)
  if (rest[0] === "watch") rest = rest.slice(1)
  let namespace: string | undefined
  if (rest[0] === "namespaces" && rest.length >= 2) {
    namespace = rest[1]
    // a namespace itself, or its `status` / `finalize` (requestinfo.go: namespaceSubresources): the namespace is the name
    if (rest.length === 2 || rest[2] === "status" || rest[2] === "finalize")
      return { prefix, group, version, namespace, resource: "namespaces", name: rest[1], subresource: rest[2], raw: path, query }
    rest = rest.slice(2)
  }
  return { prefix, group, version, namespace, resource: rest[0], name: rest[1], subresource: rest.slice(2).join("/") || undefined, raw: path, query }
}

/** The path of `p` again, its namespace and name through `rename` (the query unchanged). */
export const formatRequestUri = (p: RequestPath): string => {
  const q = p.query === "" ? "" : `?${p.query}`
  if (p.prefix === undefined || p.resource === undefined) return `${p.raw}${q}`
  const enc = encodeURIComponent
  let path = p.prefix === "/api" ? `/api/${enc(p.version)}` : `/apis/${enc(p.group)}/${enc(p.version)}`
  if (p.resource === "namespaces" && p.name !== undefined) return `${path}/namespaces/${enc(p.name)}${p.subresource ? `/${p.subresource}` : ""}${q}`
  if (p.namespace !== undefined) path += `/namespaces/${enc(p.namespace)}`
  path += `/${enc(p.resource)}`
  if (p.name !== undefined) path += `/${enc(p.name)}`
  if (p.subresource !== undefined) path += `/${p.subresource}`
  return `${path}${q}`
}

/** The collection path of an object (`POST` target): the path without name and subresource. */
export const collectionUri = (p: RequestPath, namespace: string | undefined): string =>
  formatRequestUri({ ...p, namespace, name: undefined, subresource: undefined, query: "" })
