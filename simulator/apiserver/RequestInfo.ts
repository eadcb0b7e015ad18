/**
 * What a request asks for, worked out once and read by everything after: authorization
 * (auth/RequestAttributes.ts), routing (http/Routes.ts) and the handlers. Upstream's `RequestInfo` and
 * `RequestInfoFactory.NewRequestInfo` (`apiserver/pkg/endpoints/request/requestinfo.go`), from the method, the
 * path and the query; an in-process call gets its RequestInfo from the same function (`callRequestInfo`), as the
 * URL the HTTP client would send for it. Nothing else in the server takes a URL apart (docs/architecture.md,
 * "Simulated API server").
 *
 * The path is percent-decoded once, before anything reads it, as Go's `net/http` decodes `URL.Path` before any
 * handler runs: `%6eamespaces` is `namespaces`, `%2F` is a `/` that separates segments, `%256e` is the text `%6e`.
 * A malformed escape (`%ZZ`, `%4`) makes the whole request target unparsable (Go's `url.ParseRequestURI`): the
 * server answers it as Go's server does, before authentication. Pure.
 */
import { Either } from "effect"
import { parseGoInt } from "../../src/api/go/Strconv.js"
import { parseFieldTerms, requiresExactMatch } from "../../src/api/FieldSelector.js"
import { parseLabelSelector } from "../../src/api/LabelSelector.js"
import { storedNamespace } from "../../src/api/ServedNames.js"

export interface RequestInfo {
  /** An API resource or subresource (`/api/<v>/…`, `/apis/<g>/<v>/…` with something after the version). */
  readonly isResourceRequest: boolean
  /** The decoded URL path ("" for an in-process call, which has none). */
  readonly path: string
  /** The API verb (`get`, `list`, `watch`, `create`, …, `deletecollection`); for non-resource requests the lower-cased method. */
  readonly verb: string
  readonly apiPrefix: string
  readonly apiGroup: string
  readonly apiVersion: string
  readonly namespace: string
  readonly resource: string
  readonly subresource: string
  /** The path's name, or for a list or watch the name a `metadata.name=` field selector pins. */
  readonly name: string
  /** The path parts from the resource on: `[resource, name, subresource, …]` (upstream `Parts`). */
  readonly parts: ReadonlyArray<string>
  /** Not upstream's: the verb came from a `/watch/` or `/proxy/` segment rather than the method (routing serves only GET there). */
  readonly verbInPath: boolean
}

/** A query's values as the server reads them: the first value of a parameter, or null (`URLSearchParams` is one). */
export interface QueryValues {
  readonly get: (name: string) => string | null
}

/** A request target Go's `url.ParseRequestURI` refuses; Go's server answers it with a plain `400 Bad Request`. */
export class MalformedRequestTarget {
  readonly _tag = "MalformedRequestTarget"
  constructor(readonly target: string) {}
}

/**
 * A `/api/<v>/watch` or `/api/<v>/proxy` with nothing after: upstream's `NewRequestInfo` error, which its
 * `WithRequestInfo` filter answers 500 (`responsewriters.InternalError`).
 */
export class UndeterminedRequest {
  readonly _tag = "UndeterminedRequest"
  constructor(readonly url: string) {}
  get message(): string {
    return `failed to create RequestInfo: unable to determine kind and namespace from url, ${this.url}`
  }
}

export interface ParsedRequest {
  readonly info: RequestInfo
  readonly query: URLSearchParams
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
const utf8 = new TextDecoder("utf-8", { fatal: false })
const malformedEscape = /%(?![0-9A-Fa-f]{2})/

/** Go's `url.unescape`: every `%` must start two hex digits, else undefined; `+` is a space in a query component. */
const unescape = (raw: string, plusIsSpace: boolean): string | undefined => {
  if (raw.indexOf("%") < 0) return plusIsSpace && raw.includes("+") ? raw.replaceAll("+", " ") : raw
  const bytes: number[] = []
  for (let i = 0; i < raw.length; ) {
    const c = raw.charCodeAt(i)
    if (c === 37) {
      if (i + 2 >= raw.length) return undefined
      const h = raw.charCodeAt(i + 1)
      const l = raw.charCodeAt(i + 2)
      if (!isHex(h) || !isHex(l)) return undefined
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16))
      i += 3
    } else if (c === 43 && plusIsSpace) {
      bytes.push(32)
      i++
    } else {
      // node:http refuses request targets with non-ASCII bytes; other callers' text is taken as UTF-8.
      const cp = raw.codePointAt(i)!
      for (const b of Buffer.from(String.fromCodePoint(cp), "utf8")) bytes.push(b)
      i += cp > 0xffff ? 2 : 1
    }
  }
  return utf8.decode(Uint8Array.from(bytes))
}

/**
 * Go's `url.PathUnescape` as `URL.Path` is made: every `%` must start two hex digits, else undefined; `+` stays.
 * Bytes that are not UTF-8 become U+FFFD (Go keeps the raw bytes; no name or namespace may hold them anyway).
 */
export const unescapePath = (raw: string): string | undefined => unescape(raw, false)

/**
 * Go's `url.ParseQuery` as `req.URL.Query()` reads a query (its error ignored): pairs split at `&`, a pair holding
 * `;` or a malformed escape dropped, `+` a space. `URLSearchParams` reads a query without either the same way (it
 * would keep `%ZZ` as text and a `;` pair), so such a query, nearly every one, is left to it.
 */
export const parseQuery = (raw: string): URLSearchParams => {
  if (raw.indexOf(";") < 0 && !malformedEscape.test(raw)) return new URLSearchParams(raw)
  const query = new URLSearchParams()
  for (const pair of raw.split("&")) {
    if (pair === "" || pair.includes(";")) continue
    const eq = pair.indexOf("=")
    const key = unescape(eq >= 0 ? pair.slice(0, eq) : pair, true)
    const value = unescape(eq >= 0 ? pair.slice(eq + 1) : "", true)
    if (key !== undefined && value !== undefined) query.append(key, value)
  }
  return query
}

/**
 * The path and raw query of a request target as Go's `url.ParseRequestURI` splits them: origin form (`/path?q`),
 * absolute form (`http://host/path?q`, the authority dropped) or `*`; anything else is malformed.
 */
const splitTarget = (target: string): { rawPath: string; rawQuery: string } | undefined => {
  const q = target.indexOf("?")
  let rawPath = q >= 0 ? target.slice(0, q) : target
  const rawQuery = q >= 0 ? target.slice(q + 1) : ""
  if (rawPath.startsWith("/") || target === "*") return { rawPath, rawQuery }
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rawPath)
  if (scheme === null) return undefined
  rawPath = rawPath.slice(scheme[0].length)
  // A rootless rest is Go's opaque URL: an empty path.
  if (!rawPath.startsWith("/")) return { rawPath: "", rawQuery }
  if (rawPath.startsWith("//")) {
    const slash = rawPath.indexOf("/", 2)
    rawPath = slash < 0 ? "" : rawPath.slice(slash)
  }
  return { rawPath, rawQuery }
}

/** Upstream `splitPath`: slashes trimmed at both ends, empty segments inside kept. Routing matches non-resource paths by it. */
export const pathSegments = (path: string): string[] => {
  let start = 0
  let end = path.length
  while (start < end && path.charCodeAt(start) === 47) start++
  while (end > start && path.charCodeAt(end - 1) === 47) end--
  return start === end ? [] : path.slice(start, end).split("/")
}

/** `path.IsValidPathSegmentName`: a field-selected name only becomes the request's name if it could be a path segment. */
const isValidPathSegmentName = (name: string) => name !== "." && name !== ".." && !name.includes("/") && !name.includes("%")

/** `Convert_Slice_string_To_bool` of the first value: absent is false, `0` and any-case `false` are false. */
const queryTrue = (query: QueryValues, name: string): boolean => {
  const v = query.get(name)
  return v !== null && v !== "0" && v.toLowerCase() !== "false"
}

const isInt = (v: string | null) => v === null || v === "" || Either.isRight(parseGoInt(v, 10, 64))

/**
 * The name a list's or watch's `metadata.name=` field selector pins, when its list options decode: upstream decodes
 * them all (`ParameterCodec.DecodeParameters`), and a failure anywhere leaves the request unnamed.
 */
const selectedName = (query: QueryValues): string | undefined => {
  const fieldSelector = query.get("fieldSelector")
  if (fieldSelector === null || fieldSelector === "") return undefined
  const terms = parseFieldTerms(fieldSelector)
  if (Either.isLeft(terms)) return undefined
  const name = requiresExactMatch(terms.right, "metadata.name")
  if (name === undefined || !isValidPathSegmentName(name)) return undefined
  const labelSelector = query.get("labelSelector")
  if (labelSelector !== null && labelSelector !== "" && Either.isLeft(parseLabelSelector(labelSelector))) return undefined
  if (!isInt(query.get("limit")) || !isInt(query.get("timeoutSeconds"))) return undefined
  return name
}

/** Discovery, health, version and anything else outside `/api` and `/apis`: the verb is the lower-cased method. */
const nonResourceInfo = (method: string, path: string): RequestInfo => ({
  isResourceRequest: false,
  path,
  verb: method.toLowerCase(),
  apiPrefix: "",
  apiGroup: "",
  apiVersion: "",
  namespace: "",
  resource: "",
  subresource: "",
  name: "",
  parts: [],
  verbInPath: false
})

/**
 * Upstream `NewRequestInfo` over the first `count` of a decoded path's segments; `url` is only for the error text.
 * Plain comparisons instead of sets and no array copies but `parts`: in-process calls come through here too, by
 * the hundred thousand a simulated minute.
 */
const requestInfoOfSegments = (
  method: string,
  path: string,
  segments: ReadonlyArray<string>,
  count: number,
  query: QueryValues,
  url: string
): RequestInfo | UndeterminedRequest => {
  if (count < 3) return nonResourceInfo(method, path)
  const apiPrefix = segments[0]!
  if (apiPrefix !== "api" && apiPrefix !== "apis") return nonResourceInfo(method, path)
  let i = 1
  let apiGroup = ""
  if (apiPrefix === "apis") {
    if (count - i < 3) return nonResourceInfo(method, path)
    apiGroup = segments[i++]!
  }
  const apiVersion = segments[i++]!
  let verb: string
  const special = segments[i]!
  // `specialVerbs`: proxy and watch given in the path
  const verbInPath = special === "watch" || special === "proxy"
  if (verbInPath) {
    if (count - i < 2) return new UndeterminedRequest(url)
    verb = special
    i++
  } else verb = methodVerb(method)
  let namespace = ""
  if (segments[i] === "namespaces" && count - i > 1) {
    namespace = segments[i + 1]!
    // `namespaceSubresources`: /namespaces/<name>/status and /finalize are the namespace object's own
    const next = count - i > 2 ? segments[i + 2]! : undefined
    if (next !== undefined && next !== "status" && next !== "finalize") i += 2
  }
  const parts = segments.slice(i, count)
  const resource = parts[0] ?? ""
  // Through an upstream group name a path's kube-system is the stored platform-system (docs/stock-clients.md):
  // the request is in the namespace it is served from, for authorization as for routing.
  if (namespace !== "") namespace = storedNamespace(apiGroup, apiVersion, resource, namespace)
  let name = parts[1] ?? ""
  // `specialVerbsNoSubresources`: a proxy path's third part is no subresource
  const subresource = parts.length >= 3 && verb !== "proxy" ? parts[2]! : ""
  if (name === "" && verb === "get") {
    verb = queryTrue(query, "watch") ? "watch" : "list"
    name = selectedName(query) ?? ""
  }
  if (name === "" && verb === "delete") verb = "deletecollection"
  return { isResourceRequest: true, path, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts, verbInPath }
}

const methodVerb = (method: string): string => {
  switch (method) {
    case "POST":
      return "create"
    case "GET":
    case "HEAD":
      return "get"
    case "PUT":
      return "update"
    case "PATCH":
      return "patch"
    case "DELETE":
      return "delete"
    default:
      return ""
  }
}

/**
 * A request target (`req.url`) as the server reads it: decoded once, split into path and query, then
 * `NewRequestInfo`. The query is parsed here once too, for every later reader.
 */
export const parseRequest = (method: string, target: string): ParsedRequest | MalformedRequestTarget | UndeterminedRequest => {
  const split = splitTarget(target)
  if (split === undefined) return new MalformedRequestTarget(target)
  const path = unescapePath(split.rawPath)
  if (path === undefined) return new MalformedRequestTarget(target)
  const query = parseQuery(split.rawQuery)
  const segments = pathSegments(path)
  const info = requestInfoOfSegments(method, path, segments, segments.length, query, target)
  return info instanceof UndeterminedRequest ? info : { info, query }
}

/** The RequestInfo of a decoded path (tests and callers that already hold one). */
export const requestInfo = (method: string, path: string, query: QueryValues): RequestInfo | UndeterminedRequest => {
  const segments = pathSegments(path)
  return requestInfoOfSegments(method, path, segments, segments.length, query, path)
}

// ---------------------------------------------------------------------------------------------------------------
// In-process calls

/** An in-process call's verb: the API client's method names. */
export type CallVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection"

/** The HTTP method the HTTP client sends for each call. */
export const callMethods: Readonly<Record<CallVerb, string>> = {
  get: "GET",
  list: "GET",
  watch: "GET",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE"
}

export interface CallTarget {
  readonly group: string
  readonly version: string
  readonly plural: string
  readonly namespaced: boolean
}

/** The list options of a call, read as its URL's query would be. */
export interface CallQuery {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly limit?: number | undefined
  readonly timeoutSeconds?: number | undefined
}

class CallQueryValues implements QueryValues {
  watch = false
  options: CallQuery | undefined = undefined
  get = (name: string): string | null => {
    if (name === "watch") return this.watch ? "true" : null
    const v = this.options?.[name as keyof CallQuery]
    return v === undefined ? null : String(v)
  }
}

/** Reused by every call: the function below is synchronous, so one suffices (the in-process path allocates little). */
const scratchQuery = new CallQueryValues()
const scratchSegments: string[] = ["", "", "", "", "", "", "", ""]

/**
 * The RequestInfo of an in-process call: the segments of the URL the HTTP client builds for it
 * (`/api/v1/namespaces/<ns>/<plural>/<name>/<subresource>`, a watch as `?watch=true`), through the same
 * `NewRequestInfo`. So a namespace object is in its own namespace, a nameless get is a list, a list pinned to one
 * name by its field selector is authorized by that name — exactly as over HTTP.
 */
export const callRequestInfo = (
  verb: CallVerb,
  target: CallTarget,
  namespace: string | undefined,
  name: string | undefined,
  subresource?: string | undefined,
  options?: CallQuery | undefined
): RequestInfo => {
  const segments = scratchSegments
  let n = 0
  if (target.group === "") segments[n++] = "api"
  else {
    segments[n++] = "apis"
    segments[n++] = target.group
  }
  segments[n++] = target.version
  if (target.namespaced && namespace !== undefined && namespace !== "") {
    segments[n++] = "namespaces"
    segments[n++] = namespace
  }
  segments[n++] = target.plural
  const collection = verb === "list" || verb === "watch" || verb === "deletecollection"
  const hasSubresource = subresource !== undefined && subresource !== ""
  // As the client's resourcePath: a name, then a subresource; an empty last segment is trimmed away as upstream's splitPath does.
  if (!collection && name !== undefined && (name !== "" || hasSubresource)) segments[n++] = name
  if (!collection && hasSubresource) segments[n++] = subresource
  scratchQuery.watch = verb === "watch"
  scratchQuery.options = collection ? options : undefined
  const info = requestInfoOfSegments(callMethods[verb], "", segments, n, scratchQuery, "")
  scratchQuery.options = undefined
  // Never undetermined: the segments always hold a resource after the version.
  return info as RequestInfo
}
