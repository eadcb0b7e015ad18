/**
 * The audit of requests, transport-free: `Auditor` (the policy, the backend, the clock) starts a `RequestAudit` for a
 * request the policy records, and the transport tells it what happens — upstream's `AuditContext` and the event it
 * fills (`apiserver/pkg/audit/request.go`, `context.go`; the stage logic of `endpoints/filters/audit.go`):
 *
 * - `RequestReceived` when the request is let in (after authentication), its stage time the arrival time;
 * - `ResponseStarted` when the headers go out, for long-running requests only (watches, logs, exec…);
 * - `ResponseComplete` when the answer is done; a request that wrote no status is recorded `200` "Connection closed
 *   early" (and a long-running one gets its `ResponseStarted` then), as upstream fakes it;
 * - `Panic` instead, for a request that failed with a defect (500 "APIServer panic'd: …").
 *
 * Levels: Metadata records who, what and the outcome (`responseStatus`, with status, reason, message and details
 * for a failure) and the annotations; Request adds `requestObject`; RequestResponse adds `responseObject`. Each event
 * is encoded when it is written (later changes of the request's audit do not reach earlier events), in upstream's
 * field order. The HTTP side is ../http/AuditFilter.ts, the in-process side ./AuditedClient.ts.
 */
import { Context } from "effect"
import { AuditApiVersion, formatMicroTime, levelOrder, type Level, type ResponseStatus, type Stage } from "../../../src/api/audit/Event.js"
import type { RequestAttributes } from "../auth/RequestAttributes.js"
import type { UserInfo } from "../auth/UserInfo.js"
import type { PolicyRuleEvaluator, RequestAuditConfig } from "./PolicyChecker.js"

/** Upstream's `BasicLongRunningRequestCheck` as kube-apiserver configures it: these verbs and subresources. */
const longRunningVerbs: ReadonlySet<string> = new Set(["watch", "proxy"])
const longRunningSubresources: ReadonlySet<string> = new Set(["attach", "exec", "proxy", "log", "portforward"])
export const isLongRunning = (attrs: RequestAttributes): boolean =>
  longRunningVerbs.has(attrs.verb) || (attrs.resourceRequest && longRunningSubresources.has(attrs.subresource))

/** `maybeTruncateUserAgent`. */
const maxUserAgentLength = 1024
const truncateUserAgent = (agent: string): string => (agent.length > maxUserAgentLength ? `${agent.slice(0, maxUserAgentLength)}...TRUNCATED` : agent)

/** What a transport knows of a request when it is let in. */
export interface AuditedRequest {
  /** The `Audit-Id` (the client's `Audit-ID` header when it sent one). */
  readonly auditID: string
  readonly requestURI: string
  /** The requesting user (before impersonation); undefined when authentication failed. */
  readonly user: UserInfo | undefined
  readonly sourceIPs: ReadonlyArray<string>
  readonly userAgent: string
  readonly attrs: RequestAttributes
  /** The arrival time, ns since the epoch. */
  readonly receivedNanos: bigint
}

/** authentication/v1 `UserInfo` as the event holds it (empty fields left out, `extra` only when there is some). */
const userOf = (user: UserInfo): Record<string, unknown> => {
  const out: Record<string, unknown> = { username: user.name }
  if (user.uid !== "") out.uid = user.uid
  if (user.groups.length > 0) out.groups = user.groups
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out.extra = user.extra
  return out
}

interface ObjectRef {
  resource?: string
  namespace?: string
  name?: string
  uid?: string
  apiGroup?: string
  apiVersion?: string
  resourceVersion?: string
  subresource?: string
}

/** The object reference's fields in upstream's order, empty ones left out (`omitempty`). */
const encodeObjectRef = (r: ObjectRef): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key of ["resource", "namespace", "name", "uid", "apiGroup", "apiVersion", "resourceVersion", "subresource"] as const) {
    const v = r[key]
    if (v !== undefined && v !== "") out[key] = v
  }
  return out
}

/** The copy of an object or list without `metadata.managedFields` (`copyWithoutManagedFields`), for `omitManagedFields`. */
const withoutManagedFields = (obj: unknown): unknown => {
  if (typeof obj !== "object" || obj === null) return obj
  const o = obj as { metadata?: Record<string, unknown>; items?: unknown }
  let out = o as Record<string, unknown>
  if (o.metadata !== undefined && typeof o.metadata === "object" && o.metadata !== null && "managedFields" in o.metadata) {
    const { managedFields: _dropped, ...metadata } = o.metadata
    out = { ...out, metadata }
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map(withoutManagedFields) }
  return out
}

/** One request's audit event, filled as the request goes (upstream's `AuditContext` with its `Event`). */
export class RequestAudit {
  private impersonatedUser: Record<string, unknown> | undefined = undefined
  private readonly objectRef: ObjectRef | undefined
  private responseStatus: Record<string, unknown> | undefined = undefined
  private requestObject: unknown = undefined
  private responseObject: unknown = undefined
  private annotations: Record<string, string> | undefined = undefined
  private codeSeen = false
  private done = false
  /** A request refused before the audit filter (a failed authentication, a malformed `timeout`): one `ResponseStarted` event, whatever the request. */
  private refusedEarly = false
  readonly longRunning: boolean

  constructor(
    private readonly auditor: Auditor,
    readonly request: AuditedRequest,
    readonly config: RequestAuditConfig
  ) {
    const a = request.attrs
    this.objectRef = a.resourceRequest
      ? { resource: a.resource, namespace: a.namespace, name: a.name, apiGroup: a.apiGroup, apiVersion: a.apiVersion, subresource: a.subresource }
      : undefined
    this.longRunning = isLongRunning(a)
  }

  get level(): Level {
    return this.config.level
  }

  private atLeast(level: Level): boolean {
    return levelOrder[this.config.level] >= levelOrder[level]
  }

  /** `LogImpersonatedUser`. */
  impersonated(user: UserInfo): void {
    this.impersonatedUser = userOf(user)
  }

  /** `AddAuditAnnotation`: a key keeps its first value. */
  annotate(key: string, value: string): void {
    this.annotations ??= {}
    if (!(key in this.annotations)) this.annotations[key] = value
  }

  /**
   * `LogRequestObject`: the object reference completed from the body's metadata (a create's name), and at level
   * Request and above the body itself, as the server decoded it.
   */
  requestBody(obj: unknown): void {
    const meta = (obj as { metadata?: Record<string, unknown> } | undefined)?.metadata
    if (this.objectRef !== undefined && typeof meta === "object" && meta !== null) {
      const text = (k: string) => (typeof meta[k] === "string" ? (meta[k] as string) : "")
      if (!this.objectRef.namespace) this.objectRef.namespace = text("namespace")
      if (!this.objectRef.name) this.objectRef.name = text("name")
      if (!this.objectRef.uid) this.objectRef.uid = text("uid")
      if (!this.objectRef.resourceVersion) this.objectRef.resourceVersion = text("resourceVersion")
    }
    if (this.atLeast("Request")) this.requestObject = this.config.omitManagedFields ? withoutManagedFields(obj) : obj
  }

  /** `LogRequestPatch`: a patch is recorded as sent. */
  requestPatch(patch: unknown): void {
    if (this.atLeast("Request")) this.requestObject = patch
  }

  /**
   * `LogResponseObject`: a Status answer's bounded fields become `responseStatus` (at Metadata and above); at
   * RequestResponse the body is the `responseObject`.
   */
  responseBody(obj: object): void {
    // the failed-request audit is not in the request's context: the 401 or 400 Status does not reach it
    if (this.refusedEarly) return
    const status = obj as { kind?: unknown; status?: string; message?: string; reason?: string; details?: unknown; code?: number }
    if (status.kind === "Status") {
      const s: Record<string, unknown> = { metadata: {} }
      if (status.status) s.status = status.status
      if (status.message) s.message = status.message
      if (status.reason) s.reason = status.reason
      if (status.details !== undefined) s.details = status.details
      if (status.code) s.code = status.code
      this.responseStatus = s
    }
    if (this.atLeast("RequestResponse")) this.responseObject = this.config.omitManagedFields ? withoutManagedFields(obj) : obj
  }

  /**
   * The event of a request refused before the audit filter: a failed authentication (`withFailedAuthenticationAudit`:
   * the methods tried as the message), a malformed `timeout` (`WithRequestDeadline`'s `withFailedRequestAudit`: the
   * error as the message).
   */
  refusedBeforeAudit(message: string): void {
    this.refusedEarly = true
    this.responseStatus = { metadata: {}, message }
  }

  /** `auditResponseWriter.processCode`: the first status code; a long-running request's `ResponseStarted` now. */
  responseStarted(code: number): void {
    if (this.codeSeen) return
    this.codeSeen = true
    this.responseStatus ??= { metadata: {} }
    this.responseStatus.code = code
    if (this.longRunning || this.refusedEarly) this.emit("ResponseStarted")
  }

  /** The answer is done (or the client went away): `ResponseComplete`, as the audit filter's deferred function. */
  complete(): void {
    if (this.done || this.refusedEarly) return
    this.done = true
    const faked = () => ({ metadata: {}, status: "Success", message: "Connection closed early", code: 200 })
    if (this.responseStatus === undefined && this.longRunning) {
      this.responseStatus = faked()
      this.emit("ResponseStarted")
    }
    this.responseStatus ??= faked()
    this.emit("ResponseComplete")
  }

  /** The request failed with a defect: the `Panic` stage, and no `ResponseComplete`. */
  panic(reason: string): void {
    if (this.done) return
    this.done = true
    this.responseStatus = { metadata: {}, status: "Failure", message: `APIServer panic'd: ${reason}`, reason: "InternalError", code: 500 }
    this.emit("Panic")
  }

  /** Only the first event of a stage is written (`ResponseStarted` can be asked for twice). */
  private emitted: Stage | undefined = undefined

  /** `processAuditEvent`: unless the stage is omitted, the event as it is now, stamped now. */
  emit(stage: Stage): void {
    if (this.config.omitStages.includes(stage) || this.emitted === stage) return
    this.emitted = stage
    const r = this.request
    const stamp = stage === "RequestReceived" ? r.receivedNanos : this.auditor.nowNanos()
    // Built in the field order of upstream's Event struct (Go's encoder writes them so).
    const event: Record<string, unknown> = {
      kind: "Event",
      apiVersion: AuditApiVersion,
      level: this.config.level,
      auditID: r.auditID,
      stage,
      requestURI: r.requestURI,
      verb: r.attrs.verb,
      user: r.user === undefined ? {} : userOf(r.user)
    }
    if (this.impersonatedUser !== undefined) event.impersonatedUser = this.impersonatedUser
    if (r.sourceIPs.length > 0) event.sourceIPs = r.sourceIPs
    if (r.userAgent !== "") event.userAgent = truncateUserAgent(r.userAgent)
    if (this.objectRef !== undefined) event.objectRef = encodeObjectRef(this.objectRef)
    if (this.responseStatus !== undefined) event.responseStatus = this.responseStatus as ResponseStatus
    if (this.requestObject !== undefined) event.requestObject = this.requestObject
    if (this.responseObject !== undefined) event.responseObject = this.responseObject
    event.requestReceivedTimestamp = formatMicroTime(r.receivedNanos)
    event.stageTimestamp = formatMicroTime(stamp)
    if (this.annotations !== undefined) event.annotations = sortedKeys(this.annotations)
    this.auditor.write(JSON.stringify(event))
  }
}

/** Go encodes a map's keys sorted. */
const sortedKeys = (m: Record<string, string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const k of Object.keys(m).sort()) out[k] = m[k]!
  return out
}

/** The audit backend: where each event's JSON line goes (the log file, stdout). */
export interface AuditBackend {
  /** One event, encoded, without its newline. */
  readonly write: (line: string) => void
}

/** The policy, the backend and the clock of a server's audit (`serve --audit-log-path`, `--audit-policy-file`). */
export class Auditor {
  constructor(
    readonly policy: PolicyRuleEvaluator,
    private readonly backend: AuditBackend,
    /** The server's clock, ns since the epoch. */
    readonly nowNanos: () => bigint
  ) {}

  /** The audit of a request the policy records (`RequestReceived` written), or undefined at level None. */
  begin(request: AuditedRequest): RequestAudit | undefined {
    const config = this.policy.evaluate(request.user, request.attrs)
    if (config.level === "None") return undefined
    const audit = new RequestAudit(this, request, config)
    if (request.user !== undefined) audit.emit("RequestReceived")
    return audit
  }

  write(line: string): void {
    this.backend.write(line)
  }
}

/** `authorization.k8s.io/decision` and `/reason`, as upstream's authorization filter annotates each request. */
export const decisionAnnotation = "authorization.k8s.io/decision"
export const reasonAnnotation = "authorization.k8s.io/reason"

/** A server's audit, when it has one: the HTTP server and the live cluster's clients read it. */
export class Audit extends Context.Tag("clustersim/Audit")<Audit, Auditor>() {}
