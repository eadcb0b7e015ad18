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
import { impersonatedUser } from "../auth/Impersonation.js"
import { attributesOf } from "../auth/RequestAttributes.js"
import type { RequestInfo } from "../RequestInfo.js"
import type { UserInfo } from "../auth/UserInfo.js"

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

const headerList = (v: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> => (v === undefined ? [] : typeof v === "string" ? [v] : v)

/** The request's user (after any impersonation), or its 401 / 403. */
export const admitRequest = (access: AccessControl, req: http.IncomingMessage, info: RequestInfo, nowMs: number): Either.Either<UserInfo, ApiError> => {
  const authenticated = access.authenticate(credentialsOf(req), nowMs)
  const asUser = req.headers["impersonate-user"]
  // Each group is its own header; node would join repeated ones with ", ".
  const asGroups = headerList(req.headersDistinct["impersonate-group"])
  const user =
    Either.isRight(authenticated) && (asUser !== undefined || asGroups.length > 0)
      ? impersonatedUser(access, authenticated.right, { user: typeof asUser === "string" ? asUser : undefined, groups: asGroups })
      : authenticated
  if (Either.isLeft(user) || access.allowsEverything) return user
  const denied = access.authorize(user.right, attributesOf(info))
  return denied ? Either.left(denied) : user
}
