/**
 * What a recorded request becomes on the target, decided without I/O: whether the filters keep it, when it starts
 * (`--speed`, `--scale` copies, `--loop` rounds), its method, URI and body (the recorded ones, or synthesized), its
 * namespace under `--namespace-prefix` and scale copies, and the identity headers under `--impersonate`.
 */
import type { Event } from "../api/audit/Event.js"
import { resolveResource } from "../api/Resources.js"
import { recordedResource, synthesizedPatch, synthesizeObject } from "./BodySynthesis.js"
import type { RecordedRequest } from "./RequestSelection.js"
import { formatRequestUri, parseRequestUri, type RequestPath, UnparsableUri } from "./RequestUri.js"

export interface ReplayFilter {
  readonly users?: ReadonlyArray<string>
  readonly verbs?: ReadonlyArray<string>
  /** Plural, `plural/subresource`, or any name kubectl takes for a served type (`cm`, `ConfigMap`). */
  readonly resources?: ReadonlyArray<string>
  readonly namespaces?: ReadonlyArray<string>
  /** Log time window, ms since the epoch; either end open. */
  readonly fromMs?: number
  readonly toMs?: number
  /** The window as offsets from the log's first request (`--from 10m`). */
  readonly fromOffsetMs?: number
  readonly toOffsetMs?: number
}

export interface ReplayShape {
  /** Time compression: a recorded second lasts `1/speed` s. */
  readonly speed: number
  /** Copies of the traffic, each in its own namespaces, spread over the same time. */
  readonly scale: number
  readonly namespacePrefix?: string | undefined
  readonly impersonate: boolean
  /**
   * Send recorded `resourceVersion` and `continue` query values as they are. Default false: they are the recorded
   * server's, which the target never had (a watch from one is 410 Gone there), so a specific resource version
   * becomes `0` and a continue token is dropped (a first page of the same size).
   */
  readonly keepResourceVersions?: boolean
}

/** The user a request ran as: the impersonated one when there was one. */
export const effectiveUser = (e: Event) => e.impersonatedUser ?? e.user

/** The resource a report groups by: `pods`, `pods/status`, or the path of a non-resource URL. */
export const resourceLabel = (e: Event, path?: RequestPath): string => {
  const r = e.objectRef?.resource ?? path?.resource
  if (r === undefined) return path?.raw ?? e.requestURI.split("?")[0]!
  const sub = e.objectRef?.subresource ?? path?.subresource
  return sub ? `${r}/${sub}` : r
}

const plural = (name: string): string => resolveResource(name)?.plural ?? name.toLowerCase()

/** Whether the filters keep `r`; `logStartMs` is the log's first request, for a window given as offsets. */
export const keptByFilter = (f: ReplayFilter, r: RecordedRequest, logStartMs: number): boolean => {
  const e = r.event
  if (f.fromMs !== undefined && r.receivedMs < f.fromMs) return false
  if (f.toMs !== undefined && r.receivedMs >= f.toMs) return false
  if (f.fromOffsetMs !== undefined && r.receivedMs < logStartMs + f.fromOffsetMs) return false
  if (f.toOffsetMs !== undefined && r.receivedMs >= logStartMs + f.toOffsetMs) return false
  if (f.verbs && f.verbs.length > 0 && !f.verbs.includes(e.verb)) return false
  if (f.users && f.users.length > 0 && !f.users.includes(effectiveUser(e).username ?? "") && !f.users.includes(e.user.username ?? "")) return false
  if (f.namespaces && f.namespaces.length > 0 && !f.namespaces.includes(e.objectRef?.namespace ?? "")) return false
  if (f.resources && f.resources.length > 0) {
    const r0 = e.objectRef?.resource
    if (r0 === undefined) return false
    const label = resourceLabel(e)
    if (!f.resources.some((x) => x === label || x === r0 || plural(x) === r0 || `${plural(x.split("/")[0]!)}/${x.split("/")[1]}` === label)) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

/** Copy `copy` of `scale` starts this much after the original: the copies spread over one recorded second. */
export const copyShiftMs = (copy: number, scale: number, speed: number): number => (copy / scale) * (1000 / speed)

/**
 * Replay time of a request, ms after the replay's start: its recorded offset from the first request, divided by
 * the speed, plus its copy's shift and the loop rounds before it (a round lasts the log's span plus one recorded
 * second, over the speed).
 */
export const intendedOffsetMs = (o: { readonly recordedOffsetMs: number; readonly speed: number; readonly copy: number; readonly scale: number; readonly round: number; readonly spanMs: number }): number =>
  o.recordedOffsetMs / o.speed + copyShiftMs(o.copy, o.scale, o.speed) + (o.round * (o.spanMs + 1000)) / o.speed

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

/** The namespace a recorded one becomes: `P-ns` under a prefix, `…-k` in scale copy k ≥ 1. */
export const replayNamespace = (ns: string, copy: number, prefix: string | undefined): string => {
  const base = prefix ? `${prefix}-${ns}` : ns
  return copy === 0 ? base : `${base}-${copy}`
}

/** A cluster-scoped object's name in scale copy k (namespaces go through `replayNamespace`). */
export const replayClusterName = (name: string, copy: number): string => (copy === 0 ? name : `${name}-${copy}`)

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** The path rewritten for copy `copy`: its namespace, a namespace's own name, a cluster-scoped object's name. */
export const rewritePath = (p: RequestPath, copy: number, shape: ReplayShape): RequestPath => {
  if (p.prefix === undefined || p.resource === undefined) return p
  const ns = p.namespace === undefined ? undefined : replayNamespace(p.namespace, copy, shape.namespacePrefix)
  if (p.resource === "namespaces" && p.name !== undefined) return { ...p, namespace: ns, name: replayNamespace(p.name, copy, shape.namespacePrefix) }
  const clusterScoped = p.namespace === undefined && p.name !== undefined && !isNamespaced(p)
  return { ...p, namespace: ns, name: clusterScoped ? replayClusterName(p.name!, copy) : p.name }
}

const isNamespaced = (p: RequestPath): boolean => recordedResource(p.group, p.version, p.resource ?? "")?.namespaced ?? false

/** A body's `metadata.namespace` (and a namespace's or cluster-scoped object's name) as `rewritePath` renames them. */
export const rewriteBody = (body: unknown, p: RequestPath, rewritten: RequestPath): unknown => {
  if (!isRecord(body) || !isRecord(body.metadata)) return body
  const meta: Record<string, unknown> = { ...body.metadata }
  if (typeof meta.namespace === "string" && rewritten.namespace !== undefined) meta.namespace = rewritten.namespace
  if (p.name !== undefined && meta.name === p.name && rewritten.name !== undefined) meta.name = rewritten.name
  return { ...body, metadata: meta }
}

// ---------------------------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------------------------

const methods: Readonly<Record<string, string>> = {
  get: "GET",
  list: "GET",
  watch: "GET",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE"
}

/** The HTTP method of a recorded verb: the resource verbs', or a non-resource request's own (`get`, `post`, …). */
export const methodOf = (verb: string): string => methods[verb] ?? verb.toUpperCase()

/** The query with recorded resource versions as `0` and continue tokens dropped (`ReplayShape.keepResourceVersions`). */
export const portableQuery = (query: string): string =>
  query
    .split("&")
    .filter((kv) => kv !== "" && !kv.startsWith("continue="))
    .map((kv) => {
      if (!kv.startsWith("resourceVersion=")) return kv
      const v = kv.slice("resourceVersion=".length)
      return v === "" || v === "0" ? kv : "resourceVersion=0"
    })
    .join("&")

/**
 * A patch body's content type, which the audit log does not keep: a JSON patch is an array; server-side apply sends
 * a whole object with `fieldManager` in the query; a served built-in type gets kubectl's strategic merge patch,
 * anything else a merge patch.
 */
export const patchContentType = (body: unknown, p: RequestPath): string => {
  if (Array.isArray(body)) return "application/json-patch+json"
  if (isRecord(body) && typeof body.apiVersion === "string" && typeof body.kind === "string" && /(^|&)fieldManager=/.test(p.query))
    return "application/apply-patch+yaml"
  return recordedResource(p.group, p.version, p.resource ?? "") ? "application/strategic-merge-patch+json" : "application/merge-patch+json"
}

/** What an update must not carry on another server: the recorded resourceVersion and uid (`portableQuery`'s reason). */
const unconditional = (body: unknown): unknown => {
  if (!isRecord(body) || !isRecord(body.metadata)) return body
  const { resourceVersion: _rv, uid: _uid, ...meta } = body.metadata
  return { ...body, metadata: meta }
}

export interface OutgoingRequest {
  readonly method: string
  /** Path and query. */
  readonly uri: string
  /** Flat `[name, value, …]`: `Impersonate-Group` repeats. */
  readonly headers: ReadonlyArray<string>
  readonly body: string | undefined
  /** The body was made from `objectRef` (a Metadata-level event), not recorded. */
  readonly synthesized: boolean
  readonly longRunning: boolean
  /** The rewritten path, for seeding and reports. */
  readonly path: RequestPath
  /** The one object it reads or writes (`group/resource/namespace/name`): requests on it keep the log's order. */
  readonly object: string | undefined
  /** The namespace it is in, as an `object` key: a request in a namespace waits for one on the namespace (its create). */
  readonly within: string | undefined
  /**
   * An update of a kind that refuses one without `metadata.resourceVersion` (Leases: upstream's `AllowUnconditionalUpdate`
   * false): sent with the target's current resourceVersion, read just before.
   */
  readonly conditional: boolean
}

/** `objectKey` of the object a rewritten path names (a `.k8s.io` and a `.platform` group are the same objects). */
const objectKey = (p: RequestPath, name: string | undefined): string | undefined => {
  if (p.prefix === undefined || p.resource === undefined || name === undefined || name === "") return undefined
  // a namespace's key is `/namespaces//<name>` (`within`)
  const group = p.resource === "namespaces" ? "" : (recordedResource(p.group, p.version, p.resource)?.group ?? p.group)
  return `${group}/${p.resource}/${p.resource === "namespaces" ? "" : (p.namespace ?? "")}/${name}`
}

const nameIn = (body: unknown): string | undefined =>
  isRecord(body) && isRecord(body.metadata) && typeof body.metadata.name === "string" ? body.metadata.name : undefined

/**
 * A create by `generateName` as the recorded server named it (its `responseObject`, RequestResponse level): the log's
 * later requests use that name, which the target would not generate again. Otherwise the recorded body.
 */
export const recordedCreateBody = (e: Event): unknown => {
  const body = e.requestObject
  if (e.verb !== "create" || !isRecord(body) || !isRecord(body.metadata) || body.metadata.name || typeof body.metadata.generateName !== "string") return body
  const name = nameIn(e.responseObject)
  return name === undefined ? body : { ...body, metadata: { ...body.metadata, name } }
}

/**
 * The event as the replay keeps it until it is sent (SelectedSource's `retain`): without its `responseObject`, which
 * a send never reads except for the name of a create by `generateName` (`recordedCreateBody`). A recorded answer can be
 * a LIST of thousands of objects, and the reorder window holds a window of events: those live long enough to reach
 * the old generation, so what they carry is what the garbage collector copies and marks (docs/replay.md "Memory").
 */
export const sendingView = (e: Event): Event => {
  const name = e.verb === "create" ? nameIn(e.responseObject) : undefined
  // the fields a send, the filters, the window and the report read; not the source IPs, user agent, annotations
  const kept: Record<string, unknown> = {
    kind: e.kind,
    apiVersion: e.apiVersion,
    level: e.level,
    auditID: e.auditID,
    stage: e.stage,
    requestURI: e.requestURI,
    verb: e.verb,
    user: e.user,
    requestReceivedTimestamp: e.requestReceivedTimestamp,
    stageTimestamp: e.stageTimestamp
  }
  if (e.impersonatedUser !== undefined) kept.impersonatedUser = e.impersonatedUser
  if (e.objectRef !== undefined) kept.objectRef = e.objectRef
  if (e.responseStatus !== undefined) kept.responseStatus = e.responseStatus.code === undefined ? {} : { code: e.responseStatus.code }
  if (e.requestObject !== undefined) kept.requestObject = e.requestObject
  if (name !== undefined) kept.responseObject = { metadata: { name } }
  return kept as Event
}

/** Upstream adds these groups to every authenticated or anonymous user; impersonating them is refused or redundant. */
const implicitGroups = new Set(["system:authenticated", "system:unauthenticated"])

export const identityHeaders = (e: Event): Array<string> => {
  const u = effectiveUser(e)
  if (u.username === undefined || u.username === "") return []
  return ["impersonate-user", u.username, ...(u.groups ?? []).filter((g) => !implicitGroups.has(g)).flatMap((g) => ["impersonate-group", g])]
}

/** The request copy `copy` sends for `r`, or why its URI cannot be sent. */
export const outgoingRequest = (r: RecordedRequest, copy: number, shape: ReplayShape): OutgoingRequest | UnparsableUri => {
  const e = r.event
  const parsed = parseRequestUri(e.requestURI)
  if (parsed instanceof UnparsableUri) return parsed
  const path0 = shape.keepResourceVersions ? parsed : { ...parsed, query: portableQuery(parsed.query) }
  const path = rewritePath(path0, copy, shape)
  const method = methodOf(e.verb)
  let body: unknown
  let synthesized = false
  let contentType = "application/json"
  const writes = e.verb === "create" || e.verb === "update" || e.verb === "patch"
  // a create names its object in the body: a namespace or cluster-scoped object is renamed there as its path would be
  const requestObject = recordedCreateBody(e)
  const createdName = e.verb === "create" && parsed.name === undefined ? (nameIn(requestObject) ?? e.objectRef?.name) : undefined
  if (requestObject !== undefined && (writes || e.verb === "delete" || e.verb === "deletecollection" || method === "POST" || method === "PUT")) {
    body =
      createdName === undefined
        ? rewriteBody(requestObject, parsed, path)
        : rewriteBody(requestObject, { ...parsed, name: createdName }, rewritePath({ ...path0, name: createdName }, copy, shape))
    if (e.verb === "update") body = unconditional(body)
    if (e.verb === "patch") contentType = patchContentType(body, path)
  } else if (writes && e.objectRef !== undefined) {
    synthesized = true
    if (e.verb === "patch") {
      body = synthesizedPatch(e.auditID)
      contentType = "application/merge-patch+json"
    } else {
      const name = path.subresource !== undefined || e.verb === "update" ? path.name : (path.name ?? (e.objectRef.name ? rewritePath({ ...parsed, name: e.objectRef.name }, copy, shape).name : undefined))
      body = synthesizeObject(e.objectRef, path.group, path.version, name, path.resource === "namespaces" ? undefined : path.namespace)
    }
  }
  const text = body === undefined ? undefined : JSON.stringify(body)
  const headers = [...(text !== undefined ? ["content-type", contentType] : []), ...(shape.impersonate ? identityHeaders(e) : [])]
  const object = objectKey(path, path.name ?? (createdName === undefined ? undefined : rewritePath({ ...path0, name: createdName }, copy, shape).name))
  const conditional = e.verb === "update" && body !== undefined && recordedResource(path.group, path.version, path.resource ?? "")?.allowUnconditionalUpdate === false
  const within = path.namespace !== undefined && path.resource !== "namespaces" ? `/namespaces//${path.namespace}` : undefined
  return { method, uri: formatRequestUri(path), headers, body: text, synthesized, longRunning: r.longRunning, path, object, within, conditional }
}

/** A replayed update's body with the target's current `metadata.resourceVersion` (`OutgoingRequest.conditional`). */
export const withResourceVersion = (body: string, resourceVersion: string): string => {
  const o = JSON.parse(body) as Record<string, unknown>
  return JSON.stringify({ ...o, metadata: { ...(isRecord(o.metadata) ? o.metadata : {}), resourceVersion } })
}

/** The object's own path (no subresource, no query): where a conditional update reads the current resourceVersion. */
export const objectUri = (p: RequestPath): string => formatRequestUri({ ...p, subresource: undefined, query: "" })
