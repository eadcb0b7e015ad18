/**
 * ServiceAccount tokens: JWTs issued by the `serviceaccounts/<name>/token` subresource (TokenRequest) and checked
 * on every request that bears one, as upstream's bound service-account tokens
 * (`pkg/serviceaccount/claims.go`, `jwt.go`). Expiry is in the server's time, so virtual time expires them. A token
 * bound to a pod (TokenRequest `spec.boundObjectRef`, what kubelet's projected tokens are) dies with that pod, and its
 * user carries the pod's name and uid as extras (`ServiceAccountInfo.UserInfo`), so an audit log tells tokens apart.
 *
 * Upstream signs with RS256 and a configured key; here an HMAC-SHA256 key made per server does: only this
 * server checks the tokens, and the key is a secret rather than a simulation choice (no seeded randomness).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { Either } from "effect"
import { serviceAccountGroups, serviceAccountUserName, type UserInfo } from "./UserInfo.js"

/** `--service-account-issuer`; also the API server's own audience (`--api-audiences` defaults to it). */
export const defaultIssuer = "https://platform.default.svc.cluster.local"
/** go-jose's `DefaultLeeway`: `exp` and `nbf` are checked with a minute of slack. */
const leewaySeconds = 60

export interface ServiceAccountRef {
  readonly namespace: string
  readonly name: string
  readonly uid: string
}

/** The object a token is bound to (TokenRequest `spec.boundObjectRef`; upstream binds to pods and secrets). */
export interface BoundObjectRef {
  readonly kind: "Pod" | "Secret"
  readonly name: string
  readonly uid: string
}

/** A bound object as the server holds it: its uid and, once it is being deleted, when. */
export interface BoundObject {
  readonly uid: string
  readonly deletionTimestampMs?: number
}

/** The bound object of a kind by namespace and name, if it exists. */
export type BoundObjectLookup = (kind: BoundObjectRef["kind"], namespace: string, name: string) => BoundObject | undefined

/** `authentication.kubernetes.io/pod-name` and `pod-uid`, renamed by the spec's rule. */
export const podNameExtra = "authentication.platform.io/pod-name"
export const podUidExtra = "authentication.platform.io/pod-uid"

interface ObjectClaim {
  readonly name: string
  readonly uid: string
}

interface Claims {
  readonly aud: ReadonlyArray<string>
  readonly exp: number
  readonly iat: number
  readonly iss: string
  /** The token's number on this server (upstream's `jti` is a random id; the expiry failure needs the order). */
  readonly jti: string
  readonly nbf: number
  readonly sub: string
  readonly "platform.io": {
    readonly namespace: string
    readonly serviceaccount: ObjectClaim
    readonly pod?: ObjectClaim
    readonly secret?: ObjectClaim
  }
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString("base64url")
const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))

export class ServiceAccountTokens {
  private readonly key: Buffer
  /** Tokens issued so far; each carries its number (`jti`). */
  private issued = 0
  /**
   * Tokens numbered below this are refused: the server-side "tokens expire now" failure. A number rather than
   * the `iat` second, so a token issued right after the expiry, in the same second, works.
   */
  private firstValid = 0

  constructor(
    readonly issuer: string = defaultIssuer,
    key: Buffer = randomBytes(32)
  ) {
    this.key = key
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.key).update(`${header}.${payload}`).digest("base64url")
  }

  /** A token for `account` valid from `nowMs` for `expirationSeconds`, for `audiences` (default: this server), maybe bound to an object. */
  issue(
    account: ServiceAccountRef,
    audiences: ReadonlyArray<string>,
    expirationSeconds: number,
    nowMs: number,
    bound?: BoundObjectRef
  ): { readonly token: string; readonly expiresAtMs: number } {
    const iat = Math.floor(nowMs / 1000)
    const claims: Claims = {
      aud: audiences.length > 0 ? audiences : [this.issuer],
      exp: iat + expirationSeconds,
      iat,
      iss: this.issuer,
      jti: String(this.issued++),
      nbf: iat,
      sub: serviceAccountUserName(account.namespace, account.name),
      "platform.io": {
        namespace: account.namespace,
        serviceaccount: { name: account.name, uid: account.uid },
        ...(bound === undefined ? {} : { [bound.kind === "Pod" ? "pod" : "secret"]: { name: bound.name, uid: bound.uid } })
      }
    }
    const payload = base64url(JSON.stringify(claims))
    return { token: `${header}.${payload}.${this.sign(payload)}`, expiresAtMs: claims.exp * 1000 }
  }

  /** Every token issued so far stops working (they count as expired from then on); how many were still valid. */
  expireIssued(): number {
    const expired = this.issued - this.firstValid
    this.firstValid = this.issued
    return expired
  }

  /** Whether `token` looks like one of this server's JWTs (else other token authenticators may know it). */
  isOwn(token: string): boolean {
    return token.startsWith(`${header}.`)
  }

  /**
   * The service account a token names, if its signature, issuer, audience and times check out at `nowMs`;
   * `accountUid` looks the account up (upstream refuses tokens of deleted or recreated accounts), `boundObject` the
   * object a bound token names.
   */
  verify(
    token: string,
    nowMs: number,
    accountUid: (namespace: string, name: string) => string | undefined,
    boundObject: BoundObjectLookup = () => undefined
  ): Either.Either<UserInfo, string> {
    const parts = token.split(".")
    if (parts.length !== 3 || parts[0] !== header) return Either.left("not a service account token")
    const expected = Buffer.from(this.sign(parts[1]!))
    const given = Buffer.from(parts[2]!)
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return Either.left("invalid signature")
    let claims: Claims
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Claims
    } catch {
      return Either.left("malformed claims")
    }
    const now = Math.floor(nowMs / 1000)
    if (claims.iss !== this.issuer) return Either.left("token issuer is not this server")
    if (!claims.aud.includes(this.issuer)) return Either.left("token audiences is invalid")
    if (now > claims.exp + leewaySeconds) return Either.left("service account token has expired")
    if (now < claims.nbf - leewaySeconds) return Either.left("service account token is not valid yet")
    if (!(Number(claims.jti) >= this.firstValid)) return Either.left("service account token has expired")
    const { namespace, serviceaccount, pod, secret } = claims["platform.io"]
    const uid = accountUid(namespace, serviceaccount.name)
    if (uid === undefined) return Either.left(`serviceaccounts "${serviceaccount.name}" not found`)
    if (uid !== serviceaccount.uid) return Either.left(`service account UID (${serviceaccount.uid}) does not match claim (${uid})`)
    // claims.go: a bound object gone, recreated (another uid) or deleted more than the leeway ago invalidates the token
    for (const [kind, claim] of [["Secret", secret], ["Pod", pod]] as const) {
      if (claim === undefined) continue
      const object = boundObject(kind, namespace, claim.name)
      if (object === undefined || object.uid !== claim.uid || (object.deletionTimestampMs !== undefined && object.deletionTimestampMs < nowMs - leewaySeconds * 1000))
        return Either.left("Token has been invalidated")
    }
    return Either.right({
      name: serviceAccountUserName(namespace, serviceaccount.name),
      uid,
      groups: serviceAccountGroups(namespace),
      ...(pod === undefined ? {} : { extra: { [podNameExtra]: [pod.name], [podUidExtra]: [pod.uid] } })
    })
  }
}

/** A stored pod as a bound object: its uid and deletion time (a pod on a node is deleted gracefully). */
export const boundPod = (pod: { readonly metadata: { readonly uid?: string; readonly deletionTimestamp?: string } } | undefined): BoundObject | undefined => {
  if (pod === undefined) return undefined
  const deleting = pod.metadata.deletionTimestamp
  return { uid: pod.metadata.uid ?? "", ...(deleting === undefined ? {} : { deletionTimestampMs: Date.parse(deleting) }) }
}
