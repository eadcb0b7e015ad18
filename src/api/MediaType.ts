/**
 * Content negotiation (spec 000 "Representations and headers"; upstream `endpoints/handlers/negotiation`).
 *
 * Upstream decides in two steps, and so do we:
 * 1. Route matching (go-restful): each Accept entry, parameters cut off, must be `*`/`*` or exactly one
 *    of the route's types, else 406 `406: Not Acceptable\n\nAvailable representations: …`, details `{}`.
 *    `application/*` alone therefore fails here.
 * 2. Handler negotiation (`apiserver: pkg/endpoints/handlers/negotiation`): entries sorted by `q`, each
 *    tried against json, yaml, protobuf (`application/*` and `*`/`*` match too) with the `as`/`g`/`v`,
 *    `stream` and `sv` parameter rules; none left → 406 `only the following media types are accepted: …`
 *    with no details.
 *
 * `application/vnd.kubernetes.protobuf` (upstream's name, which stock clients send) is the same representation as
 * `application/vnd.platform.protobuf`; the answer carries the name the client asked for.
 *
 * Our choice where we cannot render what upstream would (YAML, PartialObjectMetadata, a Table in YAML):
 * such an entry is skipped, as if the server did not offer it, so a later fallback (`, application/json`)
 * is used — exactly what upstream does for a type without a Table convertor. With no usable entry left the
 * answer is the handler's 406 with upstream's full list, the text a client asking only for protobuf Table
 * would get upstream. For a watch, upstream picks the stream framing from the first acceptable entry, and
 * YAML has none: that case keeps upstream's 406 `only the following media types are accepted:
 * application/json;stream=watch, application/vnd.platform.protobuf;stream=watch` rather than skipping.
 */
import { Either } from "effect"
import { ApiError, makeStatus, notAcceptable, unsupportedMediaType } from "./Status.js"

export const jsonMediaType = "application/json"
export const yamlMediaType = "application/yaml"
export const protobufMediaType = "application/vnd.platform.protobuf"
/** Upstream's name for the protobuf envelope, which stock clients send: the same representation. */
export const kubernetesProtobufMediaType = "application/vnd.kubernetes.protobuf"

/**
 * What the server renders: JSON, the protobuf envelope (`src/api/protobuf/`), or a server-side Table in JSON
 * (`src/api/table/`) under the `meta` group and version the client named. YAML is never chosen.
 */
export type Representation = "json" | "protobuf" | TableRepresentation

export interface TableRepresentation {
  readonly _tag: "table"
  /** `meta.k8s.io/v1`, `meta.platform/v1beta1`, …: the Table carries the apiVersion asked for (kubectl checks it). */
  readonly apiVersion: string
}

export const isTable = (r: Representation): r is TableRepresentation => typeof r === "object"

/** The serializers in upstream's order; JSON and protobuf are rendered. */
const serializers = [
  { type: "application", subType: "json", mediaType: jsonMediaType, streams: true, renders: "json" },
  { type: "application", subType: "yaml", mediaType: yamlMediaType, streams: false, renders: undefined },
  { type: "application", subType: "vnd.platform.protobuf", mediaType: protobufMediaType, streams: true, renders: "protobuf" },
  { type: "application", subType: "vnd.kubernetes.protobuf", mediaType: kubernetesProtobufMediaType, streams: true, renders: "protobuf" }
] as const
type Serializer = (typeof serializers)[number]

/** The types error texts list: upstream's three, under this API's names (the upstream alias is not listed). */
const listedSerializers = serializers.filter((s) => s.mediaType !== kubernetesProtobufMediaType)
export const mediaTypes: ReadonlyArray<string> = listedSerializers.map((s) => s.mediaType)
export const streamMediaTypes: ReadonlyArray<string> = listedSerializers.filter((s) => s.streams).map((s) => `${s.mediaType};stream=watch`)
const routeMediaTypes: ReadonlyArray<string> = serializers.map((s) => s.mediaType)

export interface NegotiateOptions {
  /** The request is a watch (`?watch=true` or a `/watch/` path): the body is a stream of events. */
  readonly watch: boolean
  /**
   * The route is a collection GET (list and watch share it), whose representations upstream also lists
   * with `;stream=watch` in the route-level 406. Defaults to `watch`.
   */
  readonly collection?: boolean
  /** Protobuf may be chosen (default true); false asks for the fallback after an object had no protobuf form. */
  readonly protobuf?: boolean
}

// --- 1. route matching --------------------------------------------------------------------------------

const routeAccepts = (accept: string): boolean =>
  accept.split(",").some((entry) => {
    const semi = entry.indexOf(";")
    const type = (semi >= 0 ? entry.slice(0, semi) : entry).trim()
    return type === "*/*" || routeMediaTypes.includes(type)
  })

// --- 2. handler negotiation ---------------------------------------------------------------------------

interface Clause {
  readonly type: string
  readonly subType: string
  readonly q: number
  readonly params: ReadonlyMap<string, string>
}

/** Go's `strconv.ParseFloat`, enough for q values; anything it rejects counts as 0, as goautoneg ignores the error. */
const parseQ = (s: string): number => (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : 0)

const trimSpaces = (s: string) => s.replace(/^ +| +$/g, "")

/** goautoneg `ParseAccept`, including its sort (insertion sort for short lists, hence stable here). */
const parseAccept = (header: string): ReadonlyArray<Clause> => {
  const clauses: Array<Clause> = []
  for (const rawPart of header.split(",")) {
    const [mediaRange = "", ...rawParams] = trimSpaces(rawPart).split(";")
    const sp = mediaRange.split("/")
    const type = trimSpaces(sp[0]!)
    let subType: string
    if (sp.length === 1 && type === "*") subType = "*"
    else if (sp.length === 2) subType = trimSpaces(sp[1]!)
    else continue
    let q = 1
    const params = new Map<string, string>()
    for (const param of rawParams) {
      const eq = param.indexOf("=")
      if (eq < 0) continue
      const token = trimSpaces(param.slice(0, eq))
      if (token === "q") q = parseQ(param.slice(eq + 1))
      else params.set(token, trimSpaces(param.slice(eq + 1)))
    }
    clauses.push({ type, subType, q, params })
  }
  const less = (a: Clause, b: Clause) =>
    a.q > b.q || (a.type !== "*" && b.type === "*") || (a.subType !== "*" && b.subType === "*")
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j]!, clauses[j - 1]!); j--) {
      const t = clauses[j]!
      clauses[j] = clauses[j - 1]!
      clauses[j - 1] = t
    }
  }
  return clauses
}

interface Accepted {
  readonly serializer: Serializer
  /** `as`, `g` or `v` was given: a Table or PartialObjectMetadata transform. */
  readonly transform: boolean
  /** The transform is a Table we render (JSON only): its apiVersion. */
  readonly table?: string
}

/** `acceptMediaTypeOptions` with the resource endpoint's restrictions (stream `watch` only, `sv` = v1). */
const acceptsWithParams = (clause: Clause, serializer: Serializer): Accepted | undefined => {
  let transform = false
  let as = ""
  let group = ""
  let version = ""
  for (const [k, v] of clause.params) {
    switch (k) {
      case "as":
        transform = true
        as = v
        break
      case "g":
        transform = true
        group = v
        break
      case "v":
        transform = true
        version = v
        break
      case "stream":
        if (v.length > 0 && (!serializer.streams || v !== "watch")) return undefined
        break
      case "sv":
        if (v.length > 0 && v !== "v1") return undefined
        break
    }
  }
  if (transform) {
    // Upstream only knows Table (JSON or YAML) and PartialObjectMetadata[List] of meta v1/v1beta1; the meta
    // group goes by this API's name or upstream's, which stock clients send.
    const metaGroup = (group === "meta.platform" || group === "meta.k8s.io") && (version === "v1" || version === "v1beta1")
    const known =
      metaGroup &&
      ((as === "Table" && serializer.renders !== "protobuf") ||
        as === "PartialObjectMetadata" ||
        as === "PartialObjectMetadataList")
    if (!known) return undefined
    if (as === "Table" && serializer.renders === "json") return { serializer, transform, table: `${group}/${version}` }
  }
  return { serializer, transform }
}

/** Every acceptable (clause, serializer) pair, in upstream's order of preference. */
const acceptable = (header: string): ReadonlyArray<Accepted> => {
  const out: Array<Accepted> = []
  for (const clause of parseAccept(header)) {
    for (const serializer of serializers) {
      const matches =
        (clause.type === serializer.type && (clause.subType === serializer.subType || clause.subType === "*")) ||
        (clause.type === "*" && clause.subType === "*")
      if (!matches) continue
      const accepted = acceptsWithParams(clause, serializer)
      if (accepted) out.push(accepted)
    }
  }
  return out
}

/** The representation an acceptable entry is rendered in, if we render it (YAML and PartialObjectMetadata are not). */
const rendering = (a: Accepted, protobuf: boolean): Representation | undefined => {
  if (a.table !== undefined) return { _tag: "table", apiVersion: a.table }
  if (a.transform) return undefined
  return a.serializer.renders === "json" ? "json" : protobuf && a.serializer.renders === "protobuf" ? "protobuf" : undefined
}

const handlerNotAcceptable = (types: ReadonlyArray<string>) =>
  new ApiError({
    status: makeStatus({
      code: 406,
      reason: "NotAcceptable",
      message: `only the following media types are accepted: ${types.join(", ")}`
    })
  })

/**
 * Chooses the response representation for an `Accept` header: JSON or protobuf; see the module comment for
 * how entries we cannot render are treated.
 */
export const negotiate = (accept: string | undefined, opts: NegotiateOptions): Either.Either<Representation, ApiError> => {
  const header = accept ?? ""
  if (header !== "" && !routeAccepts(header)) {
    const available = (opts.collection ?? opts.watch) ? [...mediaTypes, ...streamMediaTypes] : mediaTypes
    return Either.left(notAcceptable(`406: Not Acceptable\n\nAvailable representations: ${available.join(", ")}`))
  }
  if (header === "") return Either.right("json")
  const candidates = acceptable(header)
  const protobuf = opts.protobuf ?? true
  if (!opts.watch) {
    for (const c of candidates) {
      const chosen = rendering(c, protobuf)
      if (chosen !== undefined) return Either.right(chosen)
    }
    return Either.left(handlerNotAcceptable(mediaTypes))
  }
  // Watch: the object negotiation must succeed first, then the stream framing is chosen.
  if (candidates.length === 0) return Either.left(handlerNotAcceptable(mediaTypes))
  for (const c of candidates) {
    if (!c.serializer.streams) return Either.left(handlerNotAcceptable(streamMediaTypes))
    const chosen = rendering(c, protobuf)
    if (chosen !== undefined) return Either.right(chosen)
  }
  return Either.left(handlerNotAcceptable(streamMediaTypes))
}

/** The aggregated discovery versions served (`apidiscovery.k8s.io`): v2beta1 (kubectl 1.27–1.29 ask first), v2 (1.30+). */
export const aggregatedDiscoveryVersions: ReadonlyArray<string> = ["v2", "v2beta1"]

/**
 * The aggregated discovery version a discovery request's Accept header prefers, or undefined for the per-group
 * documents: the first acceptable entry decides, as upstream's `WrapAggregatedDiscoveryToHandler` negotiates with
 * `DiscoveryEndpointRestrictions` (an entry naming an unknown version or kind is skipped).
 */
export const aggregatedDiscoveryVersion = (accept: string | undefined): string | undefined => {
  for (const clause of parseAccept(accept ?? "")) {
    const json = (clause.type === "application" && (clause.subType === "json" || clause.subType === "*")) || (clause.type === "*" && clause.subType === "*")
    if (!json) continue
    if (!clause.params.has("as") && !clause.params.has("g") && !clause.params.has("v")) return undefined
    const version = clause.params.get("v") ?? ""
    if (clause.params.get("g") === "apidiscovery.k8s.io" && clause.params.get("as") === "APIGroupDiscoveryList" && aggregatedDiscoveryVersions.includes(version)) return version
  }
  return undefined
}

/**
 * The Content-Type of a protobuf answer: the protobuf name the client's Accept header prefers (stock clients
 * only decode the name they asked for), else this API's own.
 */
export const protobufResponseMediaType = (accept: string | undefined): string => {
  const first = accept === undefined ? undefined : acceptable(accept).find((c) => c.serializer.renders === "protobuf")
  return first?.serializer.mediaType ?? protobufMediaType
}

// --- request bodies -----------------------------------------------------------------------------------

const tspecials = new Set('()<>@,;:\\"/[]?='.split(""))
const isTokenChar = (c: string) => c > " " && c < "\u007f" && !tspecials.has(c)
const consumeToken = (s: string): [string, string] => {
  let i = 0
  while (i < s.length && isTokenChar(s[i]!)) i++
  return [s.slice(0, i), s.slice(i)]
}
const trimLeftSpace = (s: string) => s.replace(/^\s+/u, "")

/**
 * A quoted-string or a token, as Go's `consumeValue`: a backslash escapes only a tspecial (else it is
 * literal); an unterminated string or a line break inside gives `["", s]`.
 */
const consumeValue = (s: string): [string, string] => {
  if (!s.startsWith('"')) return consumeToken(s)
  let value = ""
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!
    if (c === '"') return [value, s.slice(i + 1)]
    if (c === "\\" && i + 1 < s.length && tspecials.has(s[i + 1]!)) {
      value += s[++i]
      continue
    }
    if (c === "\r" || c === "\n") return ["", s]
    value += c
  }
  return ["", s]
}

/** Go's `mime.ParseMediaType`, reduced to what decides acceptance: the lower-cased type, or `undefined`. */
const parseMediaType = (v: string): string | undefined => {
  const semi = v.indexOf(";")
  const base = semi >= 0 ? v.slice(0, semi) : v
  const mediaType = base.toLowerCase().trim()
  const [type, rest] = consumeToken(mediaType)
  if (type === "") return undefined
  if (rest !== "") {
    if (!rest.startsWith("/")) return undefined
    const [subType, after] = consumeToken(rest.slice(1))
    if (subType === "" || after !== "") return undefined
  }
  const seen = new Set<string>()
  let params = v.slice(base.length)
  while (params.length > 0) {
    params = trimLeftSpace(params)
    if (params.length === 0) break
    const original = params
    let ok = false
    if (params.startsWith(";")) {
      const [key, afterKey] = consumeToken(trimLeftSpace(params.slice(1)))
      const afterEq = trimLeftSpace(afterKey)
      if (key !== "" && afterEq.startsWith("=")) {
        const valueStart = trimLeftSpace(afterEq.slice(1))
        const [value, afterValue] = consumeValue(valueStart)
        if (!(value === "" && afterValue === valueStart)) {
          const lower = key.toLowerCase()
          if (seen.has(lower)) return undefined // mime: duplicate parameter name
          seen.add(lower)
          params = afterValue
          ok = true
        }
      }
    }
    if (!ok) {
      if (original.trim() === ";") break // a trailing semicolon is not an error
      return undefined
    }
  }
  return mediaType
}

/** How a POST/PUT body is written: JSON, YAML (decoded to the same value) or protobuf. */
export type BodyFormat = "json" | "yaml" | "protobuf"

/**
 * The format of a POST/PUT body from its Content-Type (empty means JSON; protobuf under either name); any other type
 * gets upstream's 415: `the body of the request was in an unknown format - accepted media types include: …`.
 */
export const requestBodyFormat = (contentType: string | undefined): Either.Either<BodyFormat, ApiError> => {
  const mediaType = contentType === undefined || contentType === "" ? jsonMediaType : parseMediaType(contentType)
  if (mediaType === jsonMediaType) return Either.right("json")
  if (mediaType === yamlMediaType) return Either.right("yaml")
  if (mediaType === protobufMediaType || mediaType === kubernetesProtobufMediaType) return Either.right("protobuf")
  return Either.left(
    unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: ${mediaTypes.join(", ")}`)
  )
}
