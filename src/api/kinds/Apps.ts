/**
 * `apps/v1` Deployment and ReplicaSet validation as 1.26 (`kubernetes/kubernetes: pkg/apis/apps/validation/
 * validation.go` `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`, `ValidatePodTemplateSpecForReplicaSet`,
 * `ValidateDeploymentStrategy`; the strategies in `pkg/registry/apps/{deployment,replicaset}/strategy.go`): replicas
 * and counts ≥ 0, a selector that is set, valid and not empty, a pod template whose labels it matches (else the
 * controllers would create pods they never count — docs/limits.md), the template validated as a pod spec
 * (`PodSpec.ts`) with `restartPolicy: Always` and no `activeDeadlineSeconds`, the rolling-update bounds, and the
 * selector immutable on update. The server stores workloads without their defaults, so the rules read the spec as
 * upstream's `SetDefaults_Deployment` would leave it (1 replica, RollingUpdate 25 % / 25 %, a 600 s deadline).
 *
 * A write that keeps the stored spec itself (a status write) is not validated again: upstream's status strategies
 * validate the status only.
 */
import { type FieldError, forbidden, GoPrinted, invalid, noFieldErrors, notSupported, required } from "../FieldError.js"
import { goSyntaxStringMap } from "../go/GoSyntax.js"
import { goQuote } from "../go/Quote.js"
import { matchesLabels } from "../LabelSelector.js"
import { isRecord, type KObject } from "../Object.js"
import { deploymentSchema, replicaSetSchema } from "./BuiltinSchemas.js"
import type { KindRules } from "./KindRules.js"
import { goLabelSelector, hasNoTerms, labelSelectorAsSelector, validateLabelSelector } from "./LabelSelectorObject.js"
import { semanticallyEqual } from "./Pod.js"
import { checkPodTemplateSpec } from "./PodSpec.js"

type Rec = Record<string, unknown>

const rec = (v: unknown): Rec => (isRecord(v) ? v : {})
const isNegative = "must be greater than or equal to 0"

const checkNonNegative = (value: unknown, path: string, errs: FieldError[]): void => {
  if (typeof value === "number" && value < 0) errs.push(invalid(path, value, isNegative))
}

/** The text upstream gives a template whose labels its selector does not match. */
export const selectorMismatchMessage = "`selector` does not match template `labels`"

/**
 * The selector and template rules both kinds share (`ValidateReplicaSetSpec` from its selector on): the selector
 * set, valid and not empty (upstream says "for deployment" for both kinds), then the template against it.
 */
const checkSelectorAndTemplate = (spec: Rec, errs: FieldError[]): void => {
  const selector = spec.selector
  if (!isRecord(selector)) errs.push(required("spec.selector"))
  else {
    errs.push(...validateLabelSelector(selector, "spec.selector"))
    if (hasNoTerms(selector)) errs.push(invalid("spec.selector", goLabelSelector(selector), "empty selector is invalid for deployment"))
  }
  const meaning = labelSelectorAsSelector(selector)
  if (meaning._tag === "invalid") return void errs.push(invalid("spec.selector", goLabelSelector(rec(selector)), "invalid label selector"))
  // `ValidatePodTemplateSpecForReplicaSet`: a missing selector selects nothing, so no template matches it.
  const template = rec(spec.template)
  const labels = rec(template.metadata).labels
  const matches = meaning._tag === "selector" && (meaning.selector.requirements.length === 0 || matchesLabels(meaning.selector, isRecord(labels) ? (labels as Record<string, string>) : undefined))
  if (!matches) errs.push(invalid("spec.template.metadata.labels", new GoPrinted(goSyntaxStringMap(labels)), selectorMismatchMessage))
  checkPodTemplateSpec(template, "spec.template", errs)
  const templateSpec = rec(template.spec)
  const restart = templateSpec.restartPolicy
  if (typeof restart === "string" && restart !== "" && restart !== "Always") errs.push(notSupported("spec.template.spec.restartPolicy", restart, ["Always"]))
  if (typeof templateSpec.activeDeadlineSeconds === "number")
    errs.push(forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicaSet is not Supported"))
}

/** `ValidateReplicaSetSpec`. */
const checkReplicaSetSpec = (obj: KObject, errs: FieldError[]): void => {
  const spec = rec(obj.spec)
  checkNonNegative(spec.replicas, "spec.replicas", errs)
  checkNonNegative(spec.minReadySeconds, "spec.minReadySeconds", errs)
  checkSelectorAndTemplate(spec, errs)
}

/** `IsValidPercent`'s text. */
const percentMessage = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

/** An `intstr.IntOrString` as `field.Invalid` prints it: a struct without `String()`, so `%#v`. */
const goIntOrString = (v: number | string): GoPrinted =>
  new GoPrinted(typeof v === "number" ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}` : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`)

const percentOf = (v: number | string): number | undefined => (typeof v === "string" && /^[0-9]+%$/.test(v) ? Number(v.slice(0, -1)) : undefined)

/** `getIntOrPercentValue`: a percent's number, else the int (a string that is no number is 0, as `IntValue`). */
const intOrPercentValue = (v: number | string): number => {
  if (typeof v === "number") return v
  const percent = percentOf(v)
  if (percent !== undefined) return percent
  return /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0
}

/** `ValidatePositiveIntOrPercent`. */
const checkIntOrPercent = (v: number | string, path: string, errs: FieldError[]): void => {
  if (typeof v === "string") {
    if (percentOf(v) === undefined) errs.push(invalid(path, goIntOrString(v), percentMessage))
  } else checkNonNegative(v, path, errs)
}

const intOrString = (v: unknown): number | string => (typeof v === "number" || typeof v === "string" ? v : "25%")

/** `ValidateDeploymentStrategy` of the defaulted strategy. */
const checkStrategy = (strategy: Rec, errs: FieldError[]): void => {
  const type = typeof strategy.type === "string" && strategy.type !== "" ? strategy.type : "RollingUpdate"
  const rolling = strategy.rollingUpdate
  const hasRolling = rolling !== undefined && rolling !== null
  if (type === "Recreate") {
    if (hasRolling) errs.push(forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"))
    return
  }
  if (type !== "RollingUpdate") {
    // The struct as `%#v` prints it; a set rollingUpdate is a pointer, whose address upstream prints.
    const pointer = hasRolling ? "(*apps.RollingUpdateDeployment)(0xc000000000)" : "(*apps.RollingUpdateDeployment)(nil)"
    return void errs.push(notSupported("spec.strategy", new GoPrinted(`apps.DeploymentStrategy{Type:${goQuote(type)}, RollingUpdate:${pointer}}`), ["Recreate", "RollingUpdate"]))
  }
  // `ValidateRollingUpdateDeployment`, each bound defaulted to 25 %.
  const r = rec(rolling)
  const maxUnavailable = intOrString(r.maxUnavailable)
  const maxSurge = intOrString(r.maxSurge)
  checkIntOrPercent(maxUnavailable, "spec.strategy.rollingUpdate.maxUnavailable", errs)
  checkIntOrPercent(maxSurge, "spec.strategy.rollingUpdate.maxSurge", errs)
  if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0)
    errs.push(invalid("spec.strategy.rollingUpdate.maxUnavailable", goIntOrString(maxUnavailable), "may not be 0 when `maxSurge` is 0"))
  const percent = percentOf(maxUnavailable)
  if (percent !== undefined && percent > 100) errs.push(invalid("spec.strategy.rollingUpdate.maxUnavailable", goIntOrString(maxUnavailable), "must not be greater than 100%"))
}

const defaultProgressDeadlineSeconds = 600

/** `ValidateDeploymentSpec`. */
const checkDeploymentSpec = (obj: KObject, errs: FieldError[]): void => {
  const spec = rec(obj.spec)
  checkNonNegative(spec.replicas, "spec.replicas", errs)
  checkSelectorAndTemplate(spec, errs)
  checkStrategy(rec(spec.strategy), errs)
  const minReady = typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0
  checkNonNegative(minReady, "spec.minReadySeconds", errs)
  checkNonNegative(spec.revisionHistoryLimit, "spec.revisionHistoryLimit", errs)
  const deadline = typeof spec.progressDeadlineSeconds === "number" ? spec.progressDeadlineSeconds : defaultProgressDeadlineSeconds
  checkNonNegative(deadline, "spec.progressDeadlineSeconds", errs)
  if (deadline <= minReady) errs.push(invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
}

/** `ValidateImmutableField` of the selector (apps/v1 only; the strategies add it after the spec's rules). */
const checkSelectorUnchanged = (obj: KObject, old: KObject, errs: FieldError[]): void => {
  const selector = rec(obj.spec).selector
  if (!semanticallyEqual(selector, rec(old.spec).selector))
    errs.push(invalid("spec.selector", isRecord(selector) ? goLabelSelector(selector) : "null", "field is immutable"))
}

const answer = (errs: ReadonlyArray<FieldError>): ReadonlyArray<FieldError> => (errs.length === 0 ? noFieldErrors : errs)

export const validateDeployment = (obj: KObject): ReadonlyArray<FieldError> => {
  const errs: FieldError[] = []
  checkDeploymentSpec(obj, errs)
  return answer(errs)
}

export const validateDeploymentUpdate = (obj: KObject, old: KObject): ReadonlyArray<FieldError> => {
  if (obj.spec === old.spec) return noFieldErrors
  const errs: FieldError[] = []
  checkDeploymentSpec(obj, errs)
  checkSelectorUnchanged(obj, old, errs)
  return answer(errs)
}

export const validateReplicaSet = (obj: KObject): ReadonlyArray<FieldError> => {
  const errs: FieldError[] = []
  checkReplicaSetSpec(obj, errs)
  return answer(errs)
}

/**
 * The ReplicaSet strategy's `ValidateUpdate` runs `ValidateReplicaSet` and `ValidateReplicaSetUpdate`, both of
 * which check the spec: each spec error is a cause twice (the message lists it once, `ToAggregate` dedupes).
 */
export const validateReplicaSetUpdate = (obj: KObject, old: KObject): ReadonlyArray<FieldError> => {
  if (obj.spec === old.spec) return noFieldErrors
  const errs: FieldError[] = []
  checkReplicaSetSpec(obj, errs)
  checkReplicaSetSpec(obj, errs)
  checkSelectorUnchanged(obj, old, errs)
  return answer(errs)
}

export const deploymentRules: KindRules = { schema: deploymentSchema, validateCreate: validateDeployment, validateUpdate: validateDeploymentUpdate }
export const replicaSetRules: KindRules = { schema: replicaSetSchema, validateCreate: validateReplicaSet, validateUpdate: validateReplicaSetUpdate }
