/**
 * The access reviews (spec 000: "a permission check is a POST of a SubjectAccessReview"): SubjectAccessReview asks
 * about any user, SelfSubjectAccessReview about the caller, SelfSubjectRulesReview lists the caller's rules in a
 * namespace (`kubectl auth can-i [--list]`). Validation and answers as upstream's
 * `pkg/registry/authorization/*` and `pkg/apis/authorization/validation`. Nothing is stored: the answer is the
 * request with its `status` filled, 201.
 */
import { Either } from "effect"
import { GoPrinted, invalid, type FieldError } from "../../../src/api/FieldError.js"
import type { PolicyRule } from "../../../src/api/kinds/Rbac.js"
import { isRecord, type KObject } from "../../../src/api/Object.js"
import type { WriteResult } from "../../../src/api/Requests.js"
import { authorizationGroup, SelfSubjectAccessReviews, SelfSubjectRulesReviews, SubjectAccessReviews, type ResourceType } from "../../../src/api/Resources.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { Authorizer } from "./Authorizer.js"
import type { RequestAttributes } from "./RequestAttributes.js"
import type { UserInfo } from "./UserInfo.js"

const str = (v: unknown): string => (typeof v === "string" ? v : "")
const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [])

/** The attributes a review's spec asks about (`authorizationutil.AuthorizationAttributesFrom`). */
export const reviewAttributes = (spec: Record<string, unknown>): RequestAttributes | undefined => {
  if (isRecord(spec.resourceAttributes)) {
    const r = spec.resourceAttributes
    return {
      resourceRequest: true,
      verb: str(r.verb),
      apiGroup: str(r.group),
      apiVersion: str(r.version),
      resource: str(r.resource),
      subresource: str(r.subresource),
      namespace: str(r.namespace),
      name: str(r.name)
    }
  }
  if (isRecord(spec.nonResourceAttributes)) return { resourceRequest: false, verb: str(spec.nonResourceAttributes.verb), path: str(spec.nonResourceAttributes.path) }
  return undefined
}

const validateAttributes = (spec: Record<string, unknown>): FieldError[] => {
  const hasResource = isRecord(spec.resourceAttributes)
  const hasNonResource = isRecord(spec.nonResourceAttributes)
  if (hasResource && hasNonResource)
    return [invalid("spec.nonResourceAttributes", new GoPrinted(goAttributes(spec.nonResourceAttributes as Record<string, unknown>)), "cannot be specified in combination with resourceAttributes")]
  if (!hasResource && !hasNonResource) return [invalid("spec.resourceAttributes", "null", "exactly one of nonResourceAttributes or resourceAttributes must be specified")]
  return []
}

/** Go's `%v` of `authorization.NonResourceAttributes` as field.Invalid prints a struct. */
const goAttributes = (a: Record<string, unknown>) => `authorization.NonResourceAttributes{Path:"${str(a.path)}", Verb:"${str(a.verb)}"}`

const invalidReview = (kind: string, errors: ReadonlyArray<FieldError>) =>
  Status.invalid(`${kind}.${authorizationGroup}`, "", errors, { kind, group: authorizationGroup })

const answered = (resource: ResourceType, body: Record<string, unknown>, spec: Record<string, unknown>, status: Record<string, unknown>): WriteResult => ({
  code: 201,
  object: { kind: resource.kind, apiVersion: resource.apiVersion, metadata: { creationTimestamp: null }, spec, status } as unknown as KObject,
  warnings: []
})

const decisionStatus = (authorizer: Authorizer, user: UserInfo, attrs: RequestAttributes) => {
  const decision = authorizer.authorize(user, attrs)
  return { allowed: decision.allowed, ...(decision.reason !== "" ? { reason: decision.reason } : {}) }
}

const resourceRule = (r: PolicyRule) => ({
  verbs: r.verbs,
  ...((r.apiGroups ?? []).length > 0 ? { apiGroups: r.apiGroups } : {}),
  ...((r.resources ?? []).length > 0 ? { resources: r.resources } : {}),
  ...((r.resourceNames ?? []).length > 0 ? { resourceNames: r.resourceNames } : {})
})

/** Answers a review posted by `caller`; `resource` is one of the three review types. */
export const review = (authorizer: Authorizer, resource: ResourceType, body: unknown, caller: UserInfo): Either.Either<WriteResult, ApiError> => {
  const value = isRecord(body) ? body : {}
  const spec = isRecord(value.spec) ? value.spec : {}
  switch (resource) {
    case SubjectAccessReviews: {
      const errors = validateAttributes(spec)
      if (str(spec.user) === "" && strings(spec.groups).length === 0) errors.push(invalid("spec.user", "", "at least one of user or group must be specified"))
      if (errors.length > 0) return Either.left(invalidReview(resource.kind, errors))
      const user: UserInfo = { name: str(spec.user), uid: str(spec.uid), groups: strings(spec.groups) }
      return Either.right(answered(resource, value, spec, decisionStatus(authorizer, user, reviewAttributes(spec)!)))
    }
    case SelfSubjectAccessReviews: {
      const errors = validateAttributes(spec)
      if (errors.length > 0) return Either.left(invalidReview(resource.kind, errors))
      return Either.right(answered(resource, value, spec, decisionStatus(authorizer, caller, reviewAttributes(spec)!)))
    }
    case SelfSubjectRulesReviews: {
      const namespace = str(spec.namespace)
      if (namespace === "") return Either.left(Status.badRequest("no namespace on request"))
      const rules = authorizer.rulesFor(caller, namespace)
      return Either.right(
        answered(resource, value, spec, {
          resourceRules: rules.resourceRules.map(resourceRule),
          nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
          incomplete: rules.incomplete,
          ...(rules.evaluationError !== undefined ? { evaluationError: rules.evaluationError } : {})
        })
      )
    }
    default:
      return Either.left(Status.methodNotAllowed())
  }
}
