/**
 * The server's one gate for who may do what: authentication (Authenticator.ts) then authorization
 * (Authorizer.ts), with upstream's 401 and 403 answers (`responsewriters/errors.go`). Transports hand it the
 * request's credentials and attributes; it never sees a socket. Also answers the questions the access reviews ask.
 */
import { Either } from "effect"
import { goQuote } from "../../../src/api/go/Quote.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { Store } from "../Store.js"
import { Authenticator, type AuthenticationConfig, type Credentials } from "./Authenticator.js"
import { Authorizer, type AuthorizationMode, type Permissions } from "./Authorizer.js"
import type { RequestAttributes } from "./RequestAttributes.js"
import type { BoundObjectLookup, ServiceAccountTokens } from "./ServiceAccountTokens.js"
import type { UserInfo } from "./UserInfo.js"

/** Upstream's `forbiddenMessage` (`endpoints/handlers/responsewriters/errors.go`), plus `: <reason>` when there is one. */
export const forbiddenError = (user: UserInfo, attrs: RequestAttributes, reason: string): ApiError => {
  const why = (text: string) => (reason === "" ? text : `${text}: ${reason}`)
  if (!attrs.resourceRequest) return Status.forbidden(undefined, "", why(`User ${goQuote(user.name)} cannot ${attrs.verb} path ${goQuote(attrs.path)}`))
  const resource = attrs.subresource === "" ? attrs.resource : `${attrs.resource}/${attrs.subresource}`
  const scope = attrs.namespace === "" ? "at the cluster scope" : `in the namespace ${goQuote(attrs.namespace)}`
  const text = `User ${goQuote(user.name)} cannot ${attrs.verb} resource ${goQuote(resource)} in API group ${goQuote(attrs.apiGroup)} ${scope}`
  return Status.forbidden({ group: attrs.apiGroup, plural: attrs.resource }, attrs.name, why(text))
}

export class AccessControl {
  readonly authenticator: Authenticator
  readonly authorizer: Authorizer

  constructor(
    authentication: AuthenticationConfig,
    mode: AuthorizationMode,
    store: Store,
    tokens: ServiceAccountTokens,
    accountUid: (namespace: string, name: string) => string | undefined,
    boundObject?: BoundObjectLookup
  ) {
    this.authenticator = new Authenticator(authentication, tokens, accountUid, boundObject)
    this.authorizer = new Authorizer(mode, store)
  }

  /** Whether every request is let in as it is (AlwaysAllow): authorization can be skipped. */
  get allowsEverything(): boolean {
    return this.authorizer.rbac === undefined
  }

  /** The user a request's credentials prove, or 401. */
  authenticate(credentials: Credentials, nowMs: number): Either.Either<UserInfo, ApiError> {
    return Either.mapLeft(this.authenticator.authenticate(credentials, nowMs), () => Status.unauthorized())
  }

  /** undefined when `user` may make the request, else the 403. */
  authorize(user: UserInfo, attrs: RequestAttributes): ApiError | undefined {
    if (this.allowsEverything || this.authorizer.allows(user, attrs)) return undefined
    return this.refusal(user, attrs)
  }

  /** What `user` may do, for a caller acting as that user throughout (an in-process component): found once. */
  permissionsOf(user: UserInfo): Permissions {
    return this.authorizer.permissionsOf(user)
  }

  /** The 403 of a request `user` may not make (its reason worked out by the uncached rule walk). */
  refusal(user: UserInfo, attrs: RequestAttributes): ApiError {
    return forbiddenError(user, attrs, this.authorizer.authorize(user, attrs).reason)
  }

  /** Authentication then authorization: the user, or the 401 / 403. */
  admit(credentials: Credentials, attrs: RequestAttributes, nowMs: number): Either.Either<UserInfo, ApiError> {
    const user = this.authenticate(credentials, nowMs)
    if (Either.isLeft(user)) return user
    const denied = this.authorize(user.right, attrs)
    return denied ? Either.left(denied) : user
  }
}
