/**
 * `coordination.platform/v1` Lease: the 1.26 fields and validation (upstream `pkg/apis/coordination/validation`). Only
 * the two number rules and the ObjectMeta rules exist; holders, expiry and transitions are not enforced.
 */
import { type FieldError, invalid, noFieldErrors } from "../FieldError.js"
import { isRecord, type KObject } from "../Object.js"
import { FieldSchema, kindSchema } from "./FieldSchema.js"
import type { KindRules } from "./KindRules.js"

/** `strategy` and `preferredHolder` arrive in 1.31, so they are unknown here. */
export const leaseSchema: FieldSchema = kindSchema({
  spec: FieldSchema.object("v1.LeaseSpec", {
    holderIdentity: FieldSchema.string(),
    leaseDurationSeconds: FieldSchema.int32(),
    acquireTime: FieldSchema.microtime(),
    renewTime: FieldSchema.microtime(),
    leaseTransitions: FieldSchema.int32()
  })
})

/** `ValidateLeaseSpec`: a set duration must be > 0, set transitions ≥ 0. */
const validateLeaseSpec = (obj: KObject): ReadonlyArray<FieldError> => {
  const spec = isRecord(obj.spec) ? obj.spec : {}
  const duration = spec.leaseDurationSeconds
  const transitions = spec.leaseTransitions
  const badDuration = typeof duration === "number" && duration <= 0
  const badTransitions = typeof transitions === "number" && transitions < 0
  // A shared empty answer: every lease renewal asks.
  if (!badDuration && !badTransitions) return noFieldErrors
  const errs: FieldError[] = []
  if (badDuration) errs.push(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
  if (badTransitions) errs.push(invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
  return errs
}

export const leaseRules: KindRules = {
  schema: leaseSchema,
  validateCreate: validateLeaseSpec,
  validateUpdate: validateLeaseSpec
}
