/**
 * Who a request is from, in upstream's order (`pkg/kubeapiserver/authenticator/config.go`): client certificate
 * (user = CN, groups = O), bearer token (the static token file, then service-account tokens), and — only when no
 * authenticator failed — anonymous. A presented credential that fails (an unknown token, a certificate not signed
 * by the client CA) is a 401 even with anonymous on: upstream never turns a bad credential into anonymous.
 * Every authenticated user gets `system:authenticated`.
 */
import { Either } from "effect"
import type { BoundObjectLookup, ServiceAccountTokens } from "./ServiceAccountTokens.js"
import type { TokenTable } from "./TokenFile.js"
import { anonymousUser, withAuthenticatedGroup, type UserInfo } from "./UserInfo.js"

/** A client certificate the transport saw: its subject, and whether it chains to the client CA. */
export interface ClientCertificate {
  readonly commonName: string
  readonly organizations: ReadonlyArray<string>
  readonly verified: boolean
}

/** What a request carries to prove who it is. */
export interface Credentials {
  /** The `Authorization` header. */
  readonly authorization?: string | undefined
  readonly clientCertificate?: ClientCertificate | undefined
}

export interface AuthenticationConfig {
  /** `--anonymous-auth`: requests without credentials are `system:anonymous` (else 401). */
  readonly anonymous: boolean
  /** `--token-auth-file`, read. */
  readonly tokens: TokenTable
}

export const defaultAuthentication: AuthenticationConfig = { anonymous: true, tokens: new Map() }

/** The bearer token of an `Authorization` header, as upstream's `bearertoken` reads it. */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const parts = header.trim().split(" ")
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer" || parts[1] === "") return undefined
  return parts[1]
}

export class Authenticator {
  constructor(
    readonly config: AuthenticationConfig,
    readonly serviceAccountTokens: ServiceAccountTokens,
    private readonly accountUid: (namespace: string, name: string) => string | undefined,
    private readonly boundObject: BoundObjectLookup = () => undefined
  ) {}

  /** The user, or why the request is unauthorized (a 401). */
  authenticate(credentials: Credentials, nowMs: number): Either.Either<UserInfo, string> {
    const failures: Array<string> = []
    const cert = credentials.clientCertificate
    if (cert !== undefined && cert.commonName !== "") {
      if (cert.verified) return Either.right(withAuthenticatedGroup({ name: cert.commonName, uid: "", groups: cert.organizations }))
      failures.push("x509: certificate signed by unknown authority")
    }
    const token = bearerToken(credentials.authorization)
    if (token !== undefined) {
      const user = this.authenticateToken(token, nowMs)
      if (Either.isRight(user)) return Either.right(withAuthenticatedGroup(user.right))
      failures.push(user.left)
    }
    if (failures.length > 0) return Either.left(failures.join(", "))
    return this.config.anonymous ? Either.right(anonymousUser) : Either.left("no credentials")
  }

  private authenticateToken(token: string, nowMs: number): Either.Either<UserInfo, string> {
    const fromFile = this.config.tokens.get(token)
    if (fromFile !== undefined) return Either.right(fromFile)
    if (this.serviceAccountTokens.isOwn(token)) return this.serviceAccountTokens.verify(token, nowMs, this.accountUid, this.boundObject)
    return Either.left("invalid bearer token")
  }
}
