/**
 * The audit of HTTP requests (`serve --audit-log-path`): upstream's filter order (`server/config.go`
 * DefaultBuildHandlerChain) — authentication, then the audit (`filters/audit.go`: the policy sees the authenticated
 * user; `filters/authn_audit.go` for a failed authentication), then impersonation (the impersonated user recorded),
 * then authorization (`filters/authorization.go`: the `authorization.k8s.io/decision` and `/reason` annotations).
 * The response is watched as upstream's `auditResponseWriter` does: its status code when the headers go out, the
 * Status or object answered (http/Responder.ts tells `auditOf(res)`), its end. The mechanism is ../audit/Auditor.ts.
 */
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import { isIP } from "node:net"
import { Either } from "effect"
import type { ApiError } from "../../../src/api/Status.js"
import { type AccessControl, forbiddenError } from "../auth/AccessControl.js"
import { impersonatedUser } from "../auth/Impersonation.js"
import { attributesOf } from "../auth/RequestAttributes.js"
import type { UserInfo } from "../auth/UserInfo.js"
import { decisionAnnotation, reasonAnnotation, type Auditor, type RequestAudit } from "../audit/Auditor.js"
import type { ParsedRequest } from "../RequestInfo.js"
import { headerText, userAgentOf } from "./HeaderText.js"
import { credentialsOf, impersonationHeaders } from "./RequestIdentity.js"

/** Each audited response's audit: the request's context, as upstream keeps it in the request's `context.Context`. */
const audits = new WeakMap<http.ServerResponse, RequestAudit>()

/** The audit of the request this response answers, if it is audited. */
export const auditOf = (res: http.ServerResponse): RequestAudit | undefined => audits.get(res)

/** Go's `net.IP.String` of an address node reports: an IPv4-mapped IPv6 address is the IPv4 one. */
const ipText = (ip: string): string => (ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip)

/**
 * `utilnet.SourceIPs`: the valid addresses of `X-Forwarded-For`, then `X-Real-Ip` unless already there, then the
 * connection's address unless it is the last one already.
 */
export const sourceIPs = (req: http.IncomingMessage): ReadonlyArray<string> => {
  const out: string[] = []
  const header = (name: string) => {
    const v = req.headers[name]
    return Array.isArray(v) ? (v[0] ?? "") : (v ?? "")
  }
  for (const part of header("x-forwarded-for").split(",")) {
    const ip = part.trim()
    if (ip !== "" && isIP(ip) !== 0) out.push(ipText(ip))
  }
  const real = header("x-real-ip")
  if (real !== "" && isIP(real) !== 0 && !out.includes(ipText(real))) out.push(ipText(real))
  const remote = req.socket.remoteAddress
  if (remote !== undefined && isIP(remote) !== 0 && out.at(-1) !== ipText(remote)) out.push(ipText(remote))
  return out
}

/** `getAuthMethods`: what a request that failed authentication tried, the message of its audit event. */
export const authenticationMethods = (req: http.IncomingMessage, query: URLSearchParams): string => {
  const methods: string[] = []
  const authorization = (req.headers.authorization ?? "").trim()
  if (/^basic /i.test(authorization)) methods.push("basic")
  const parts = authorization.split(" ")
  if (parts.length > 1 && parts[0]!.toLowerCase() === "bearer") methods.push("bearer")
  if ((query.get("access_token") ?? "").trim() !== "") methods.push("access_token")
  const tls = req.socket as { getPeerCertificate?: () => object | null }
  if (typeof tls.getPeerCertificate === "function" && Object.keys(tls.getPeerCertificate() ?? {}).length > 0) methods.push("x509")
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(", ")}` : "Authentication failed, no credentials provided"
}

/** Follows the response as upstream's `auditResponseWriter`: the first status code written, then the end. */
const follow = (res: http.ServerResponse, audit: RequestAudit): void => {
  audits.set(res, audit)
  const writeHead = res.writeHead
  res.writeHead = function (this: http.ServerResponse, code: number, ...rest: Array<unknown>) {
    audit.responseStarted(code)
    return (writeHead as (...a: Array<unknown>) => http.ServerResponse).call(this, code, ...rest)
  } as typeof res.writeHead
  res.once("close", () => audit.complete())
}

/** The request as its audit event records it; the `Audit-Id` header set (`WithAuditInit`: the client's `Audit-ID` when sent, else a new UUID). */
const auditedRequest = (req: http.IncomingMessage, res: http.ServerResponse, info: ParsedRequest["info"], receivedNanos: bigint) => {
  const sent = req.headers["audit-id"]
  const auditID = typeof sent === "string" && sent !== "" ? sent : randomUUID()
  res.setHeader("Audit-Id", auditID)
  return { auditID: headerText(auditID), requestURI: req.url ?? "/", sourceIPs: sourceIPs(req), userAgent: userAgentOf(req) ?? "", attrs: attributesOf(info), receivedNanos }
}

/** A request refused before the audit filter: its event without a user, at `ResponseStarted`, the refusal as its message. */
const refusedBeforeAudit = (auditor: Auditor, res: http.ServerResponse, request: ReturnType<typeof auditedRequest>, message: string): void => {
  const audit = auditor.begin({ ...request, user: undefined })
  if (audit === undefined) return
  audit.refusedBeforeAudit(message)
  follow(res, audit)
}

/**
 * The audit of a request `WithRequestDeadline` refuses (a `timeout` that is no Go duration: 400), which runs before
 * authentication: upstream's `withFailedRequestAudit` writes its event as a failed authentication's, with the
 * error's message (`endpoints/filters/request_deadline.go`).
 */
export const auditDeadlineRefusal = (auditor: Auditor, req: http.IncomingMessage, res: http.ServerResponse, { info }: ParsedRequest, receivedNanos: bigint, refusal: ApiError): void =>
  refusedBeforeAudit(auditor, res, auditedRequest(req, res, info, receivedNanos), refusal.status.message ?? "")

/**
 * The request's user (after any impersonation), or its 401 / 403 — `admitRequest` (./RequestIdentity.ts) with the
 * audit between the steps: the `Audit-Id` header set (the client's `Audit-ID` when sent, else a new UUID), the
 * `RequestReceived` event written once the requester is known, the impersonated user and the authorization decision
 * recorded.
 */
export const admitAudited = (
  auditor: Auditor,
  access: AccessControl,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  { info, query }: ParsedRequest,
  nowMs: number,
  receivedNanos: bigint
): Either.Either<UserInfo, ApiError> => {
  const request = auditedRequest(req, res, info, receivedNanos)
  const attrs = request.attrs
  const authenticated = access.authenticate(credentialsOf(req), nowMs)
  if (Either.isLeft(authenticated)) {
    refusedBeforeAudit(auditor, res, request, authenticationMethods(req, query))
    return authenticated
  }
  const audit = auditor.begin({ ...request, user: authenticated.right })
  if (audit !== undefined) follow(res, audit)
  const asked = impersonationHeaders(req.rawHeaders)
  const user = asked !== undefined ? impersonatedUser(access, authenticated.right, asked) : authenticated
  if (Either.isLeft(user)) return user
  if (asked !== undefined) audit?.impersonated(user.right)
  if (audit === undefined) {
    const denied = access.authorize(user.right, attrs)
    return denied ? Either.left(denied) : user
  }
  // The decision with its reason (RBAC's walk, which names the binding that allowed), for the annotations.
  const decision = access.allowsEverything ? { allowed: true, reason: "" } : access.authorizer.authorize(user.right, attrs)
  audit.annotate(decisionAnnotation, decision.allowed ? "allow" : "forbid")
  audit.annotate(reasonAnnotation, decision.reason)
  return decision.allowed ? user : Either.left(forbiddenError(user.right, attrs, decision.reason))
}
