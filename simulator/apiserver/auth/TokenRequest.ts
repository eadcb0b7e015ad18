/**
 * `POST …/serviceaccounts/<name>/token`: a TokenRequest answered with a fresh service-account token
 * (`pkg/registry/core/serviceaccount/storage/token.go`). `spec.expirationSeconds` defaults to 3600 and must be at
 * least 600 (`pkg/apis/authentication/validation`); `spec.audiences` defaults to the API server's own. Nothing is
 * stored. The answer speaks the apiVersion the request used (`authentication.k8s.io/v1` from stock clients,
 * `authentication.platform/v1` otherwise).
 */
import { Either } from "effect"
import { invalid, tooLong, type FieldError } from "../../../src/api/FieldError.js"
import { isRecord } from "../../../src/api/Object.js"
import type { WriteResult } from "../../../src/api/Requests.js"
import { ServiceAccounts } from "../../../src/api/Resources.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { ServiceAccountTokens } from "./ServiceAccountTokens.js"
import type { KObject } from "../../../src/api/Object.js"
import { rfc3339 } from "../SystemMeta.js"

export const authenticationGroup = "authentication.platform"
const apiVersions = new Set([`${authenticationGroup}/v1`, "authentication.k8s.io/v1"])
const defaultExpirationSeconds = 3600
const minExpirationSeconds = 600
const maxUint32 = 4294967295

export const validateTokenRequest = (expirationSeconds: number): ReadonlyArray<FieldError> => [
  ...(expirationSeconds < minExpirationSeconds ? [invalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration less than 10 minutes")] : []),
  ...(expirationSeconds > maxUint32 ? [tooLong("spec.expirationSeconds", maxUint32)] : [])
]

export const tokenRequestAt = (
  tokens: ServiceAccountTokens,
  account: KObject | undefined,
  name: string,
  namespace: string,
  body: unknown,
  now: number
): Either.Either<WriteResult, ApiError> => {
  const value = isRecord(body) ? body : {}
  const apiVersion = typeof value.apiVersion === "string" && apiVersions.has(value.apiVersion) ? value.apiVersion : `${authenticationGroup}/v1`
  const spec = isRecord(value.spec) ? value.spec : {}
  const expirationSeconds = typeof spec.expirationSeconds === "number" ? spec.expirationSeconds : defaultExpirationSeconds
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === "string") : []
  const errors = validateTokenRequest(expirationSeconds)
  if (errors.length > 0) return Either.left(Status.invalid(`TokenRequest.${authenticationGroup}`, "", errors, { kind: "TokenRequest", group: authenticationGroup }))
  if (account === undefined) return Either.left(Status.notFound(ServiceAccounts, name))
  const issued = tokens.issue({ namespace, name, uid: account.metadata.uid ?? "" }, audiences, expirationSeconds, now)
  const object = {
    kind: "TokenRequest",
    apiVersion,
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences: audiences.length > 0 ? audiences : [tokens.issuer], expirationSeconds, boundObjectRef: null },
    status: { token: issued.token, expirationTimestamp: rfc3339(issued.expiresAtMs) }
  } as unknown as KObject
  return Either.right({ code: 201, object, warnings: [] })
}
