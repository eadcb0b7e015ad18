/**
 * `v1` Pod: its schema (`BuiltinSchemas.ts`), its spec validated on create and update (`PodSpec.ts`), and update
 * validation as 1.26 `ValidatePodUpdate`
 * (`kubernetes/kubernetes: pkg/apis/core/validation/validation.go`): a pod's spec is immutable except the
 * containers' and init containers' images, `activeDeadlineSeconds` (set, or lowered), added tolerations (and the
 * tolerationSeconds of existing ones) and `terminationGracePeriodSeconds` from a negative value to 1; containers
 * can be neither added nor removed. So a patch cannot silently drop containers.
 *
 * The status subresource keeps the stored spec, so status writes (node agents) pass; binding sets `nodeName`
 * through its own path. Upstream appends a Go struct diff (`cmp.Diff`) to the `spec: Forbidden` text; it is left
 * out here.
 */
import { forbidden, type FieldError, invalid, noFieldErrors, required } from "../FieldError.js"
import { isRecord, type KObject } from "../Object.js"
import { podSchema } from "./BuiltinSchemas.js"
import type { KindRules } from "./KindRules.js"
import { checkImageWhitespace, checkPodCreateSpec, checkPodSpec } from "./PodSpec.js"

type Rec = Record<string, unknown>

const rec = (v: unknown): Rec => (isRecord(v) ? v : {})
const list = (v: unknown): ReadonlyArray<unknown> => (Array.isArray(v) ? v : [])

export const podUpdateForbiddenMessage =
  "pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

const MAX_INT32 = 2 ** 31 - 1

/** Go's zero values: what an absent field decodes to in a typed struct. */
const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === "" || v === 0 || v === false || (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0)

/**
 * `apiequality.Semantic.DeepEqual` on decoded structs: an absent field equals its zero value, nil equals empty
 * for slices and maps.
 */
export const semanticallyEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (isZero(a) && isZero(b)) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticallyEqual(x, b[i]))
  if (isRecord(a) && isRecord(b)) {
    for (const k of Object.keys(a)) if (!semanticallyEqual(a[k], b[k])) return false
    for (const k of Object.keys(b)) if (!(k in a) && !isZero(b[k])) return false
    return true
  }
  return false
}

const noItems: ReadonlyArray<unknown> = Object.freeze([])
const itemsOf = (v: unknown): ReadonlyArray<unknown> => (Array.isArray(v) ? v : noItems)

/**
 * `ValidateContainerUpdates` into `errors`: same number of containers, each with a trimmed, non-empty image. False
 * when the number changed (upstream stops there).
 */
const checkContainerUpdates = (next: ReadonlyArray<unknown>, old: ReadonlyArray<unknown>, path: string, errors: FieldError[]): boolean => {
  if (next.length !== old.length) {
    errors.push(forbidden(path, "pod updates may not add or remove containers"))
    return false
  }
  for (let i = 0; i < next.length; i++) {
    if (!(i in next)) continue // as `forEach`: a hole is not an item
    const c = rec(next[i])
    const image = typeof c.image === "string" ? c.image : ""
    if (image.length === 0) errors.push(required(`${path}[${i}].image`, ""))
    if (image.trim().length !== image.length) errors.push(invalid(`${path}[${i}].image`, image, "must not have leading or trailing whitespace"))
  }
  return true
}

/** `validateOnlyAddedTolerations`: every old toleration is still there, up to its tolerationSeconds. */
const checkTolerations = (next: ReadonlyArray<unknown>, old: ReadonlyArray<unknown>, errors: FieldError[]): void => {
  // The same list (a status write shares the stored spec): nothing modified, and no copy of each toleration made.
  if (next === old) return
  for (const o of old) {
    const found = next.some((n) => semanticallyEqual({ ...rec(o), tolerationSeconds: rec(n).tolerationSeconds }, n))
    if (!found) return void errors.push(forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"))
  }
}

/**
 * Written into one list, with nothing made for a field that passes: every pod's status write comes here with the
 * stored spec (150,000 in the 5,000-node hour's first minutes), and the result objects, lists and path texts made per
 * check were ~5 % of those minutes' allocation (docs/cluster.md "The pod-start storm's status patches").
 */
export const validatePodUpdate = (pod: KObject, old: KObject): ReadonlyArray<FieldError> => {
  const errors: FieldError[] = []
  const spec = rec(pod.spec)
  const oldSpec = rec(old.spec)
  if (!checkContainerUpdates(itemsOf(spec.containers), itemsOf(oldSpec.containers), "spec.containers", errors)) return errors
  if (!checkContainerUpdates(itemsOf(spec.initContainers), itemsOf(oldSpec.initContainers), "spec.initContainers", errors)) return errors
  const deadline = spec.activeDeadlineSeconds
  const oldDeadline = oldSpec.activeDeadlineSeconds
  if (typeof deadline === "number") {
    if (deadline < 0 || deadline > MAX_INT32) {
      errors.push(invalid("spec.activeDeadlineSeconds", deadline, `must be between 0 and ${MAX_INT32}, inclusive`))
      return errors
    }
    if (typeof oldDeadline === "number" && oldDeadline < deadline) {
      errors.push(invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value"))
      return errors
    }
  } else if (typeof oldDeadline === "number") {
    // A nil pointer prints as the string "null".
    errors.push(invalid("spec.activeDeadlineSeconds", "null", "must not update from a positive integer to nil value"))
  }
  checkTolerations(itemsOf(spec.tolerations), itemsOf(oldSpec.tolerations), errors)
  if (semanticallyEqual(spec, oldSpec)) return errors.length === 0 ? noFieldErrors : errors
  // The fields that may change, taken from the stored spec before comparing the rest.
  const oldContainers = list(oldSpec.containers)
  const oldInit = list(oldSpec.initContainers)
  const munged: Rec = {
    ...spec,
    containers: list(spec.containers).map((c, i) => ({ ...rec(c), image: rec(oldContainers[i]).image })),
    initContainers: list(spec.initContainers).map((c, i) => ({ ...rec(c), image: rec(oldInit[i]).image })),
    activeDeadlineSeconds: oldDeadline,
    schedulingGates: oldSpec.schedulingGates,
    tolerations: oldSpec.tolerations
  }
  const oldGrace = oldSpec.terminationGracePeriodSeconds
  if (typeof oldGrace === "number" && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = oldGrace
  if (!semanticallyEqual(munged, oldSpec)) errors.push(forbidden("spec", podUpdateForbiddenMessage))
  return errors
}

/** `ValidatePodCreate` beyond ObjectMeta: the pod spec (`PodSpec.ts`). */
export const validatePodCreate = (pod: KObject): ReadonlyArray<FieldError> => {
  const errors: FieldError[] = []
  checkPodCreateSpec(pod.spec, errors)
  return errors.length === 0 ? noFieldErrors : errors
}

/**
 * `ValidatePodUpdate` beyond ObjectMeta: the new spec as a create's (`validatePodMetadataAndSpec`), then the update's
 * own rules. A spec that is the stored one itself (a status write, a label change) passed when it was stored, and is
 * not validated again — as upstream's status strategy validates only the status (docs/cluster.md "The pod-start
 * storm's status patches").
 */
const validatePodSpecAndUpdate = (pod: KObject, old: KObject): ReadonlyArray<FieldError> => {
  if (pod.spec === old.spec) return validatePodUpdate(pod, old)
  const errors: FieldError[] = []
  checkPodSpec(pod.spec, "spec", errors)
  checkImageWhitespace(pod.spec, errors)
  const update = validatePodUpdate(pod, old)
  if (errors.length === 0) return update
  for (const e of update) errors.push(e)
  return errors
}

export const podRules: KindRules = { schema: podSchema, validateCreate: validatePodCreate, validateUpdate: validatePodSpecAndUpdate }
