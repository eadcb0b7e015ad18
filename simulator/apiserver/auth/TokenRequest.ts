/**
 * `POST …/serviceaccounts/<name>/token`: a TokenRequest answered with a fresh service-account token
 * (`pkg/registry/core/serviceaccount/storage/token.go`). `spec.expirationSeconds` defaults to 3600 and must be at
 * least 600 (`pkg/apis/authentication/validation`); `spec.audiences` defaults to the API server's own. A
 * `spec.boundObjectRef` to a Pod binds the token to that pod (it dies with it; ./ServiceAccountTokens.ts): the pod must
 * exist, run as this account, and have the uid given. Secrets, upstream's other bound kind, are not stored here, so a
 * token bound to one is upstream's answer for a missing secret. Nothing is stored. The answer speaks the apiVersion the request used (`authentication.k8s.io/v1` from stock clients,
 * `authentication.platform/v1` otherwise).
 */
import { Either } from "effect"
import { invalid, type FieldError } from "../../../src/api/FieldError.js"
import { FieldSchema, typeError } from "../../../src/api/kinds/FieldSchema.js"
import { isRecord } from "../../../src/api/Object.js"
import type { WriteResult } from "../../../src/api/Requests.js"
import { Pods, ServiceAccounts } from "../../../src/api/Resources.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { BoundObjectRef, ServiceAccountTokens } from "./ServiceAccountTokens.js"
import type { KObject } from "../../../src/api/Object.js"
import { rfc3339 } from "../SystemMeta.js"

export const authenticationGroup = "authentication.platform"
const apiVersions = new Set([`${authenticationGroup}/v1`, "authentication.k8s.io/v1"])
const defaultExpirationSeconds = 3600
const minExpirationSeconds = 600
/** `ValidateTokenRequest`'s upper bound: `> 1<<32` is refused, so 2^32 itself is allowed. */
const maxExpirationSeconds = 2 ** 32

export const validateTokenRequest = (expirationSeconds: number): ReadonlyArray<FieldError> => [
  ...(expirationSeconds < minExpirationSeconds ? [invalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration less than 10 minutes")] : []),
  ...(expirationSeconds > maxExpirationSeconds ? [invalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration larger than 2^32 seconds")] : [])
]

/** `authentication/v1.TokenRequest` as 1.26 decodes it: a wrong JSON type is the decoder's 400, not a default. */
const tokenRequestSchema: FieldSchema = FieldSchema.object("TokenRequest", {
  spec: FieldSchema.object("TokenRequestSpec", {
    audiences: FieldSchema.array(FieldSchema.string()),
    expirationSeconds: FieldSchema.int64(),
    boundObjectRef: FieldSchema.object("BoundObjectReference", {
      kind: FieldSchema.string(),
      apiVersion: FieldSchema.string(),
      name: FieldSchema.string(),
      uid: FieldSchema.string("types.UID")
    })
  })
})

/**
 * The object a request binds its token to (`token.go` `Create`): a pod of the account, by name and, if given, uid.
 * Texts as upstream's: `cannot bind token to object of type <gvk>`, the pod's NotFound, the service-account and
 * uid mismatches.
 */
const boundObjectOf = (ref: unknown, account: string, pod: (name: string) => KObject | undefined): Either.Either<BoundObjectRef | undefined, ApiError> => {
  if (!isRecord(ref)) return Either.right(undefined)
  const kind = typeof ref.kind === "string" ? ref.kind : ""
  const apiVersion = typeof ref.apiVersion === "string" ? ref.apiVersion : ""
  const name = typeof ref.name === "string" ? ref.name : ""
  const uid = typeof ref.uid === "string" ? ref.uid : ""
  const slash = apiVersion.lastIndexOf("/")
  const [group, version] = slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)]
  if (group === "" && kind === "Secret") return Either.left(Status.notFound({ group: "", plural: "secrets" }, name))
  if (group !== "" || kind !== "Pod") return Either.left(Status.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`))
  const found = pod(name)
  if (found === undefined) return Either.left(Status.notFound(Pods, name))
  const spec = isRecord(found.spec) ? found.spec : {}
  const runsAs = typeof spec.serviceAccountName === "string" && spec.serviceAccountName !== "" ? spec.serviceAccountName : "default"
  if (runsAs !== account) return Either.left(Status.badRequest(`cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`))
  const recorded = found.metadata.uid ?? ""
  if (uid !== "" && uid !== recorded)
    return Either.left(
      Status.conflict({ group: "", plural: "Pod" }, name, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`)
    )
  return Either.right({ kind: "Pod", name, uid: recorded })
}

export const tokenRequestAt = (
  tokens: ServiceAccountTokens,
  account: KObject | undefined,
  name: string,
  namespace: string,
  body: unknown,
  now: number,
  pod: (name: string) => KObject | undefined = () => undefined
): Either.Either<WriteResult, ApiError> => {
  const value = isRecord(body) ? body : {}
  const typeProblem = typeError(tokenRequestSchema, value, "TokenRequest", "v1")
  if (typeProblem !== undefined) return Either.left(Status.badRequest(typeProblem))
  const apiVersion = typeof value.apiVersion === "string" && apiVersions.has(value.apiVersion) ? value.apiVersion : `${authenticationGroup}/v1`
  const spec = isRecord(value.spec) ? value.spec : {}
  const expirationSeconds = typeof spec.expirationSeconds === "number" ? spec.expirationSeconds : defaultExpirationSeconds
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === "string") : []
  const errors = validateTokenRequest(expirationSeconds)
  if (errors.length > 0) return Either.left(Status.invalid(`TokenRequest.${authenticationGroup}`, "", errors, { kind: "TokenRequest", group: authenticationGroup }))
  if (account === undefined) return Either.left(Status.notFound(ServiceAccounts, name))
  const bound = boundObjectOf(spec.boundObjectRef, name, pod)
  if (Either.isLeft(bound)) return Either.left(bound.left)
  const issued = tokens.issue({ namespace, name, uid: account.metadata.uid ?? "" }, audiences, expirationSeconds, now, bound.right)
  const object = {
    kind: "TokenRequest",
    apiVersion,
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences: audiences.length > 0 ? audiences : [tokens.issuer], expirationSeconds, boundObjectRef: isRecord(spec.boundObjectRef) ? spec.boundObjectRef : null },
    status: { token: issued.token, expirationTimestamp: rfc3339(issued.expiresAtMs) }
  } as unknown as KObject
  return Either.right({ code: 201, object, warnings: [] })
}
