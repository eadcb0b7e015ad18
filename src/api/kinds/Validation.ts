/**
 * The one validation path of every write (upstream `rest.BeforeCreate` / `rest.BeforeUpdate` calling the
 * strategy's `Validate` / `ValidateUpdate`): the ObjectMeta rules, then the kind's own. Create, update (PUT),
 * every patch type and server-side apply all come through here, so a rule a create enforces cannot be side-stepped
 * by writing the same object as an update — and nothing stored can break a later request that reads it
 * (docs/limits.md).
 */
import { type FieldError, noFieldErrors } from "../FieldError.js"
import type { KObject } from "../Object.js"
import type { KindRules } from "./KindRules.js"
import { validateObjectMetaCreate, validateObjectMetaUpdate } from "./Names.js"

const joined = (a: ReadonlyArray<FieldError>, b: ReadonlyArray<FieldError> | undefined): ReadonlyArray<FieldError> =>
  b === undefined || b.length === 0 ? a : a.length === 0 ? b : [...a, ...b]

/** Field errors of a create: ObjectMeta (`ValidateObjectMeta`), then the kind's rules. */
export const validateForCreate = (rules: KindRules, namespaced: boolean, obj: KObject): ReadonlyArray<FieldError> => {
  if (rules.validatesMetadata) return rules.validateCreate?.(obj) ?? noFieldErrors
  return joined(validateObjectMetaCreate(obj, namespaced, rules.nameRule), rules.validateCreate?.(obj))
}

/**
 * Field errors of an update against the stored object: ObjectMeta (`ValidateObjectMetaUpdate`: immutable
 * identity, no new finalizers while deleting, labels, annotations, owner references, finalizer names), then the
 * kind's rules.
 */
export const validateForUpdate = (rules: KindRules, obj: KObject, old: KObject): ReadonlyArray<FieldError> => {
  if (rules.validatesMetadata) return rules.validateUpdate?.(obj, old) ?? noFieldErrors
  return joined(validateObjectMetaUpdate(obj, old), rules.validateUpdate?.(obj, old))
}

/**
 * `validateForUpdate` of an object whose metadata is the stored object's own (the same object): the ObjectMeta rules
 * passed when it was stored (`validateObjectMetaUpdate` answers none for it), so only the kind's rules are asked — a
 * lease renewal's (simulator/apiserver/LeaseRenewal.ts).
 */
export const validateForUpdateOfStoredMetadata = (rules: KindRules, obj: KObject, old: KObject): ReadonlyArray<FieldError> =>
  rules.validateUpdate?.(obj, old) ?? noFieldErrors
