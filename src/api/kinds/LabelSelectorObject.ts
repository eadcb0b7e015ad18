/**
 * `metav1.LabelSelector` objects (`matchLabels`, `matchExpressions`) as the workload kinds carry them: their
 * validation (apimachinery `pkg/apis/meta/v1/validation` `ValidateLabelSelector`), their meaning as a selector
 * (`metav1.LabelSelectorAsSelector`: a missing selector selects nothing, an empty one everything) and their Go
 * `%#v` form, which 422 messages print (`v1.LabelSelector{MatchLabels:map[string]string{"app":"web"},
 * MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`).
 */
import { type FieldError, forbidden, GoPrinted, invalid, required } from "../FieldError.js"
import { goSyntaxStringMap, goSyntaxStrings } from "../go/GoSyntax.js"
import { goQuote } from "../go/Quote.js"
import { compareBytes, labelRequirement, type LabelOperator, type LabelRequirement, type LabelSelector, SelectorParseError } from "../LabelSelector.js"
import { isRecord } from "../Object.js"
import { isQualifiedName, validateLabels } from "./Names.js"

const str = (v: unknown): string => (typeof v === "string" ? v : "")
const expressionsOf = (selector: Record<string, unknown>): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(selector.matchExpressions) ? selector.matchExpressions.map((e) => (isRecord(e) ? e : {})) : []
const valuesOf = (expression: Record<string, unknown>): ReadonlyArray<string> => (Array.isArray(expression.values) ? expression.values.map(str) : [])

/** `ValidateLabelSelector` (1.26): the matchLabels as labels, then each expression's operator, values and key. */
export const validateLabelSelector = (selector: unknown, path: string): FieldError[] => {
  if (!isRecord(selector)) return []
  const errs = validateLabels(selector.matchLabels, `${path}.matchLabels`)
  expressionsOf(selector).forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`
    const operator = str(e.operator)
    const values = valuesOf(e)
    switch (operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) errs.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"))
        break
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) errs.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        break
      default:
        errs.push(invalid(`${at}.operator`, operator, "not a valid selector operator"))
    }
    const key = str(e.key)
    for (const m of isQualifiedName(key)) errs.push(invalid(`${at}.key`, key, m))
  })
  return errs
}

/** Whether a selector object has no terms (`len(MatchLabels)+len(MatchExpressions) == 0`). */
export const hasNoTerms = (selector: Record<string, unknown>): boolean =>
  (!isRecord(selector.matchLabels) || Object.keys(selector.matchLabels).length === 0) && expressionsOf(selector).length === 0

const operators: Readonly<Record<string, LabelOperator>> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" }

/** What `LabelSelectorAsSelector` makes of a selector object. */
export type SelectorMeaning =
  /** A missing selector: matches no labels (`labels.Nothing()`). */
  | { readonly _tag: "nothing" }
  /** Requirements ANDed; none selects everything (`labels.Everything()`, whose `Empty()` is true). */
  | { readonly _tag: "selector"; readonly selector: LabelSelector }
  /** A requirement `labels.NewRequirement` refuses, or an unknown operator. */
  | { readonly _tag: "invalid"; readonly message: string }

/** `metav1.LabelSelectorAsSelector`. */
export const labelSelectorAsSelector = (selector: unknown): SelectorMeaning => {
  if (!isRecord(selector)) return { _tag: "nothing" }
  const requirements: LabelRequirement[] = []
  const add = (r: LabelRequirement | SelectorParseError): string | undefined => {
    if (r instanceof SelectorParseError) return r.message
    requirements.push(r)
    return undefined
  }
  if (isRecord(selector.matchLabels))
    for (const [k, v] of Object.entries(selector.matchLabels)) {
      const failed = add(labelRequirement(k, "=", [str(v)]))
      if (failed !== undefined) return { _tag: "invalid", message: failed }
    }
  for (const e of expressionsOf(selector)) {
    const operator = operators[str(e.operator)]
    if (operator === undefined) return { _tag: "invalid", message: `${goQuote(str(e.operator))} is not a valid pod selector operator` }
    const failed = add(labelRequirement(str(e.key), operator, valuesOf(e)))
    if (failed !== undefined) return { _tag: "invalid", message: failed }
  }
  return { _tag: "selector", selector: { requirements: requirements.sort((a, b) => compareBytes(a.key, b.key)) } }
}

const goRequirement = (e: Record<string, unknown>): string =>
  `v1.LabelSelectorRequirement{Key:${goQuote(str(e.key))}, Operator:${goQuote(str(e.operator))}, Values:${goSyntaxStrings(e.values)}}`

/** The selector as `field.Invalid` prints a `*metav1.LabelSelector` (dereferenced, then `%#v`). */
export const goLabelSelector = (selector: Record<string, unknown>): GoPrinted => {
  const expressions = Array.isArray(selector.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${expressionsOf(selector).map(goRequirement).join(", ")}}`
    : "[]v1.LabelSelectorRequirement(nil)"
  return new GoPrinted(`v1.LabelSelector{MatchLabels:${goSyntaxStringMap(selector.matchLabels)}, MatchExpressions:${expressions}}`)
}
