/**
 * Field selectors, parsed and matched the way the 1.26 API server does (`kubernetes/apimachinery:
 * pkg/fields/selector.go`, the per-kind field label conversions of `kubernetes/kubernetes:
 * pkg/apis/<group>/v1/conversion.go`). Every parse error is a 400 BadRequest whose message is the upstream error
 * text.
 */
import { Either } from "effect"
import type { KObject } from "./Object.js"
import { isRecord } from "./Object.js"
import type { ResourceType } from "./Resources.js"
import { type ApiError, badRequest } from "./Status.js"
import { compareBytes, SelectorParseError } from "./LabelSelector.js"

export interface FieldRequirement {
  /** The field after the kind's label conversion (e.g. `spec.host` → `spec.nodeName`, `regarding.name` → `involvedObject.name`). */
  readonly field: string
  readonly operator: "=" | "!="
  readonly value: string
}

/** An AND of terms, in upstream's order (terms sorted as text). No terms selects everything. */
export interface FieldSelector {
  readonly requirements: ReadonlyArray<FieldRequirement>
}

export const everythingFields: FieldSelector = { requirements: [] }

/** Splits on commas not escaped by a backslash (`fields.splitTerms`). */
const splitTerms = (selector: string): ReadonlyArray<string> => {
  if (selector.length === 0) return []
  const terms: Array<string> = []
  let start = 0
  let inSlash = false
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]
    if (inSlash) inSlash = false
    else if (c === "\\") inSlash = true
    else if (c === ",") {
      terms.push(selector.slice(start, i))
      start = i + 1
    }
  }
  terms.push(selector.slice(start))
  return terms
}

const termOperators = ["!=", "==", "="] as const

const splitTerm = (term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined => {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) }
    }
  }
  return undefined
}

/** `fields.UnescapeValue`; an unescaped `,` or `=` is reported by its code point, as Go prints a rune with `%v`. */
const unescapeValue = (s: string): string => {
  if (!/[\\,=]/.test(s)) return s
  let out = ""
  let inSlash = false
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c
      else throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`)
      inSlash = false
    } else if (c === "\\") inSlash = true
    else if (c === "," || c === "=") throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`)
    else out += c
  }
  if (inSlash) throw new SelectorParseError("invalid field selector: invalid escape sequence: \\")
  return out
}

type FieldGetter = (obj: KObject) => string

const str = (v: unknown): string => (typeof v === "string" ? v : "")
const at = (obj: unknown, ...path: ReadonlyArray<string>): unknown => {
  let cur = obj
  for (const p of path) {
    if (!isRecord(cur)) return undefined
    cur = cur[p]
  }
  return cur
}

/** The object's value for a converted field label, i.e. upstream's `…ToSelectableFields` set. */
const fieldGetters: Record<string, FieldGetter> = {
  "metadata.name": (o) => o.metadata.name ?? "",
  "metadata.namespace": (o) => o.metadata.namespace ?? "",
  "spec.nodeName": (o) => str(at(o, "spec", "nodeName")),
  "spec.restartPolicy": (o) => str(at(o, "spec", "restartPolicy")),
  "spec.schedulerName": (o) => str(at(o, "spec", "schedulerName")),
  "spec.serviceAccountName": (o) => str(at(o, "spec", "serviceAccountName")),
  "status.phase": (o) => str(at(o, "status", "phase")),
  "status.nominatedNodeName": (o) => str(at(o, "status", "nominatedNodeName")),
  // upstream reads the first of status.podIPs
  "status.podIP": (o) => {
    const ips = at(o, "status", "podIPs")
    return Array.isArray(ips) && ips.length > 0 ? str(at(ips[0], "ip")) : str(at(o, "status", "podIP"))
  },
  "spec.unschedulable": (o) => (at(o, "spec", "unschedulable") === true ? "true" : "false"),
  reason: (o) => str(o.reason),
  type: (o) => str(o.type),
  // Events are stored once and served by both Event APIs, so read either spelling.
  reportingComponent: (o) => str(o.reportingController) || str(o.reportingComponent),
  source: (o) => str(at(o, "source", "component")) || str(at(o, "deprecatedSource", "component")) || str(o.reportingController) || str(o.reportingComponent)
}
for (const f of ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"]) {
  fieldGetters[`involvedObject.${f}`] = (o) => str(at(o, "regarding", f)) || str(at(o, "involvedObject", f))
}

type FieldLabelConversion = (label: string) => string | SelectorParseError

const notSupported = (label: string) => new SelectorParseError(`field label not supported: ${label}`)

const acceptOnly =
  (labels: ReadonlyArray<string>, aliases: Record<string, string> = {}): FieldLabelConversion =>
  (label) =>
    labels.includes(label) ? label : (aliases[label] ?? notSupported(label))

/** `runtime.DefaultMetaV1FieldSelectorConversion`, for kinds that register no conversion (Lease, Deployment). */
const defaultConversion: FieldLabelConversion = (label) =>
  label === "metadata.name" || label === "metadata.namespace"
    ? label
    : new SelectorParseError(`"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`)

const involvedObjectFields = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"]

/** Field label conversions registered upstream, keyed `group/Kind`. */
const conversions: Record<string, FieldLabelConversion> = {
  "/Pod": acceptOnly(
    [
      "metadata.name",
      "metadata.namespace",
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "status.phase",
      "status.podIP",
      "status.nominatedNodeName"
    ],
    { "spec.host": "spec.nodeName" }
  ),
  // Nodes are cluster-scoped: upstream rejects metadata.namespace for them.
  "/Node": acceptOnly(["metadata.name", "spec.unschedulable"]),
  "/Namespace": acceptOnly(["status.phase", "metadata.name"]),
  "/ConfigMap": acceptOnly(["metadata.name", "metadata.namespace"]),
  "/Service": acceptOnly(["metadata.name", "metadata.namespace"]),
  "/Event": acceptOnly([
    ...involvedObjectFields.map((f) => `involvedObject.${f}`),
    "reason",
    "reportingComponent",
    "source",
    "type",
    "metadata.namespace",
    "metadata.name"
  ]),
  // events.platform/v1 takes the v1 spellings and maps them to the internal (core) labels.
  "events.platform/Event": acceptOnly(["reason", "type", "metadata.namespace", "metadata.name"], {
    ...Object.fromEntries(involvedObjectFields.map((f) => [`regarding.${f}`, `involvedObject.${f}`])),
    reportingController: "reportingComponent"
  })
}

const conversionFor = (r: ResourceType): FieldLabelConversion => conversions[`${r.group}/${r.kind}`] ?? defaultConversion

/**
 * The terms of a `fieldSelector` query value as written (`fields.ParseSelector`: `f=v`, `f==v`, `f!=v`,
 * comma-joined; `\`, `,`, `=` in values escaped with `\`), in upstream's order, no field label converted.
 * Errors are 400 BadRequest `invalid selector: '…'; can't understand '…'` or an escape error.
 */
export const parseFieldTerms = (text: string): Either.Either<FieldSelector, ApiError> => {
  try {
    const parts = [...splitTerms(text)].sort(compareBytes)
    const requirements: Array<FieldRequirement> = []
    for (const part of parts) {
      if (part === "") continue
      const term = splitTerm(part)
      if (!term) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`)
      requirements.push({ field: term.lhs, operator: term.op === "!=" ? "!=" : "=", value: unescapeValue(term.rhs) })
    }
    return Either.right({ requirements })
  } catch (e) {
    if (e instanceof SelectorParseError) return Either.left(badRequest(e.message))
    throw e
  }
}

/**
 * Parses a `fieldSelector` query value ({@link parseFieldTerms}) and converts each field label for `resource`.
 * Errors are 400 BadRequest: the parse errors, `field label not supported: <f>`, or for kinds without conversions
 * `"<f>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
export const parseFieldSelector = (text: string, resource: ResourceType): Either.Either<FieldSelector, ApiError> =>
  Either.flatMap(parseFieldTerms(text), (parsed) => {
    const convert = conversionFor(resource)
    const requirements: Array<FieldRequirement> = []
    for (const r of parsed.requirements) {
      const field = convert(r.field)
      if (field instanceof SelectorParseError) return Either.left(badRequest(field.message))
      requirements.push({ ...r, field })
    }
    return Either.right({ requirements })
  })

/** A label the selector accepted but the object lacks reads as `""`, as upstream's `fields.Set.Get` does. */
export const matchesFields = (sel: FieldSelector, obj: KObject): boolean => {
  // a loop, not `every` with a closure: the watch fan-out asks this of every change for every pinned watcher
  for (const r of sel.requirements) {
    const actual = fieldGetters[r.field]?.(obj) ?? ""
    if (r.operator === "=" ? actual !== r.value : actual === r.value) return false
  }
  return true
}

export const fieldSelectorIsEmpty = (sel: FieldSelector): boolean => sel.requirements.length === 0

/**
 * The value a selector pins `field` to: its first `=` (or `==`) term on the field in the selector's order
 * (upstream `Selector.RequiresExactMatch`). One rule for every reader: the request's name (RequestInfo.ts), a
 * single-object watch, the indexed field a LIST or watch reads (simulator/apiserver/FieldIndex.ts).
 */
export const requiresExactMatch = (sel: FieldSelector, field: string): string | undefined => {
  for (const r of sel.requirements) if (r.field === field && r.operator === "=") return r.value
  return undefined
}

/** The name a selector pins with `metadata.name=x`, used by single-object watches. */
export const fieldSelectorName = (sel: FieldSelector): string | undefined => requiresExactMatch(sel, "metadata.name")
