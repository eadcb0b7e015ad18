/**
 * Who an HTTP request is from and whether it may proceed: the credentials it carries (the `Authorization` header,
 * the TLS client certificate) and the attributes of its RequestInfo (../RequestInfo.ts, the same reading of the URL
 * that routes it), handed to the server's AccessControl. The attributes are only made when an authorizer needs them.
 */
import type * as http from "node:http"
import type { TLSSocket } from "node:tls"
import { Either } from "effect"
import type { ApiError } from "../../../src/api/Status.js"
import type { AccessControl } from "../auth/AccessControl.js"
import type { ClientCertificate, Credentials } from "../auth/Authenticator.js"
import { impersonatedUser, unescapeExtraKey, type ImpersonationRequest } from "../auth/Impersonation.js"
import { attributesOf } from "../auth/RequestAttributes.js"
import type { RequestInfo } from "../RequestInfo.js"
import type { UserInfo } from "../auth/UserInfo.js"
import { headerText } from "./HeaderText.js"

/** The client certificate a TLS socket presented: subject CN and O, and whether it chains to the client CA. */
export const clientCertificateOf = (socket: TLSSocket): ClientCertificate | undefined => {
  const peer = socket.getPeerCertificate()
  if (peer === null || peer === undefined || Object.keys(peer).length === 0) return undefined
  const subject = (peer.subject ?? {}) as unknown as Record<string, string | ReadonlyArray<string> | undefined>
  const listOf = (v: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> => (v === undefined ? [] : typeof v === "string" ? [v] : v)
  return { commonName: listOf(subject.CN)[0] ?? "", organizations: listOf(subject.O), verified: socket.authorized === true }
}

const isTlsSocket = (socket: unknown): socket is TLSSocket => typeof (socket as TLSSocket | undefined)?.getPeerCertificate === "function"

export const credentialsOf = (req: http.IncomingMessage): Credentials => ({
  authorization: req.headers.authorization,
  clientCertificate: isTlsSocket(req.socket) ? clientCertificateOf(req.socket) : undefined
})

/**
 * What the request's `Impersonate-*` headers ask for, read in one pass over the raw headers (each line's value as
 * sent, as Go's `http.Header` keeps it, read as UTF-8 text: HeaderText.ts); undefined when there are none, the usual case, so nothing is allocated.
 */
export const impersonationHeaders = (rawHeaders: ReadonlyArray<string>): ImpersonationRequest | undefined => {
  let asked: { user: string | undefined; uid: string | undefined; groups: string[]; extras: Array<readonly [string, string]> } | undefined
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!
    if (name.length < 12 || (name.charCodeAt(0) | 0x20) !== 0x69 /* i */) continue
    const lower = name.toLowerCase()
    if (!lower.startsWith("impersonate-")) continue
    asked ??= { user: undefined, uid: undefined, groups: [], extras: [] }
    const value = headerText(rawHeaders[i + 1]!)
    if (lower === "impersonate-user") asked.user ??= value
    else if (lower === "impersonate-uid") asked.uid ??= value
    else if (lower === "impersonate-group") asked.groups.push(value)
    else if (lower.startsWith("impersonate-extra-")) asked.extras.push([unescapeExtraKey(lower.slice("impersonate-extra-".length)), value])
  }
  return asked === undefined ? undefined : { user: asked.user ?? "", uid: asked.uid ?? "", groups: asked.groups, extras: asked.extras }
}

/** The request's user (after any impersonation), or its 401 / 403. */
export const admitRequest = (access: AccessControl, req: http.IncomingMessage, info: RequestInfo, nowMs: number): Either.Either<UserInfo, ApiError> => {
  const authenticated = access.authenticate(credentialsOf(req), nowMs)
  const asked = Either.isRight(authenticated) ? impersonationHeaders(req.rawHeaders) : undefined
  const user = asked !== undefined && Either.isRight(authenticated) ? impersonatedUser(access, authenticated.right, asked) : authenticated
  if (Either.isLeft(user) || access.allowsEverything) return user
  const denied = access.authorize(user.right, attributesOf(info))
  return denied ? Either.left(denied) : user
}
