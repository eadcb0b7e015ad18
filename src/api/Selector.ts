/**
 * Label and field selectors, parsed and matched the way the 1.26 API server does
 * (`kubernetes/apimachinery: pkg/labels/selector.go`, `pkg/fields/selector.go`, the per-kind field label
 * conversions of `kubernetes/kubernetes: pkg/apis/<group>/v1/conversion.go`). Every parse error is a 400
 * BadRequest whose message is the upstream error text.
 */
import { Either } from "effect"
import { aggregate, type FieldError, invalid } from "./FieldError.js"
import type { KObject } from "./Object.js"
import { isRecord } from "./Object.js"
import type { ResourceType } from "./Resources.js"
import { type ApiError, badRequest } from "./Status.js"

// ---------------------------------------------------------------------------------------------------------
// Label selectors
// ---------------------------------------------------------------------------------------------------------

/** Upstream `selection.Operator` spellings. */
export type LabelOperator = "in" | "notin" | "=" | "==" | "!=" | "gt" | "lt" | "exists" | "!"

export interface LabelRequirement {
  readonly key: string
  readonly operator: LabelOperator
  /** Sorted and de-duplicated, as upstream's `sets.String.List()` leaves them. */
  readonly values: ReadonlyArray<string>
}

/** An AND of requirements, sorted by key. No requirements selects everything. */
export interface LabelSelector {
  readonly requirements: ReadonlyArray<LabelRequirement>
}

export const everythingLabels: LabelSelector = { requirements: [] }

const binaryOperators = ["in", "notin", "=", "==", "!=", "gt", "lt"]

type Token =
  | "error"
  | "eos"
  | ")"
  | ","
  | "!"
  | "=="
  | "="
  | ">"
  | "id"
  | "in"
  | "<"
  | "!="
  | "notin"
  | "("

const literalTokens: Record<string, Token> = {
  ")": ")",
  ",": ",",
  "!": "!",
  "==": "==",
  "=": "=",
  ">": ">",
  in: "in",
  "<": "<",
  "!=": "!=",
  notin: "notin",
  "(": "("
}

interface Item {
  readonly tok: Token
  readonly lit: string
}

const isWhitespace = (ch: string) => ch === " " || ch === "\t" || ch === "\r" || ch === "\n"
const isSpecial = (ch: string) => "=!(),><".includes(ch)

/** The upstream lexer. Go's `read()` returns 0 at the end, so a NUL character also ends a token (or the input). */
const lex = (s: string): ReadonlyArray<Item> => {
  let pos = 0
  const read = (): string => (pos < s.length ? s[pos++]! : "\u0000")
  const items: Array<Item> = []
  for (;;) {
    let ch = read()
    while (isWhitespace(ch)) ch = read()
    let item: Item
    if (ch === "\u0000") {
      item = { tok: "eos", lit: "" }
    } else if (isSpecial(ch)) {
      pos--
      let buffer = ""
      let last: Item | undefined
      for (;;) {
        const c = read()
        if (c === "\u0000") break
        if (!isSpecial(c)) {
          pos--
          break
        }
        buffer += c
        const tok = literalTokens[buffer]
        if (tok !== undefined) last = { tok, lit: buffer }
        else if (last) {
          pos--
          break
        }
      }
      item = last ?? { tok: "error", lit: `error expected: keyword found '${buffer}'` }
    } else {
      pos--
      let buffer = ""
      for (;;) {
        const c = read()
        if (c === "\u0000") break
        if (isSpecial(c) || isWhitespace(c)) {
          pos--
          break
        }
        buffer += c
      }
      item = { tok: buffer === "in" || buffer === "notin" ? buffer : "id", lit: buffer }
    }
    items.push(item)
    if (item.tok === "eos") return items
  }
}

class SelectorParseError {
  constructor(readonly message: string) {}
}

const utf8Length = (s: string) => Buffer.byteLength(s, "utf8")

const qualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`)
const labelValueFmt = `(${qualifiedNameFmt})?`
const labelValueRe = new RegExp(`^${labelValueFmt}$`)
const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`)

const regexError = (msg: string, fmt: string, ...examples: ReadonlyArray<string>) =>
  examples.length === 0
    ? `${msg} (regex used for validation is '${fmt}')`
    : `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`

const qualifiedNameError = regexError(
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  qualifiedNameFmt,
  "MyName",
  "my.name",
  "123-abc"
)

/** `validation.IsQualifiedName`. */
const qualifiedNameErrors = (value: string): ReadonlyArray<string> => {
  const errs: Array<string> = []
  const parts = value.split("/")
  let name: string
  if (parts.length === 1) {
    name = parts[0]!
  } else if (parts.length === 2) {
    const prefix = parts[0]!
    name = parts[1]!
    if (prefix.length === 0) errs.push("prefix part must be non-empty")
    else {
      if (utf8Length(prefix) > 253) errs.push("prefix part must be no more than 253 characters")
      if (!dns1123SubdomainRe.test(prefix)) {
        errs.push(
          "prefix part " +
            regexError(
              "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
              dns1123SubdomainFmt,
              "example.com"
            )
        )
      }
    }
  } else {
    return [`a qualified name ${qualifiedNameError} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]
  }
  if (name.length === 0) errs.push("name part must be non-empty")
  else if (utf8Length(name) > 63) errs.push("name part must be no more than 63 characters")
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${qualifiedNameError}`)
  return errs
}

/** `validation.IsValidLabelValue`. */
const labelValueErrors = (value: string): ReadonlyArray<string> => {
  const errs: Array<string> = []
  if (utf8Length(value) > 63) errs.push("must be no more than 63 characters")
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFmt,
        "MyValue",
        "my_value",
        "12345"
      )
    )
  }
  return errs
}

/** The parser passes no field path, so a key error prints `<nil>: Invalid value: …`. */
const keyError = (key: string, field: string): FieldError | undefined => {
  const errs = qualifiedNameErrors(key)
  return errs.length > 0 ? invalid(field, key, errs.join("; ")) : undefined
}

const int64Re = /^[+-]?[0-9]+$/
const parsesAsInt64 = (s: string): boolean => {
  if (!int64Re.test(s)) return false
  const n = BigInt(s)
  return n >= -(2n ** 63n) && n < 2n ** 63n
}

/** `labels.NewRequirement`: the key again (path `key`), then the operator's value rules, then each value. */
const newRequirement = (key: string, operator: LabelOperator, values: ReadonlyArray<string>): LabelRequirement => {
  const errors: Array<FieldError> = []
  const k = keyError(key, "key")
  if (k) errors.push(k)
  switch (operator) {
    case "in":
    case "notin":
      if (values.length === 0) errors.push(invalid("values", [...values], "for 'in', 'notin' operators, values set can't be empty"))
      break
    case "=":
    case "==":
    case "!=":
      if (values.length !== 1) errors.push(invalid("values", [...values], "exact-match compatibility requires one single value"))
      break
    case "exists":
    case "!":
      if (values.length !== 0) errors.push(invalid("values", [...values], "values set must be empty for exists and does not exist"))
      break
    case "gt":
    case "lt":
      if (values.length !== 1) errors.push(invalid("values", [...values], "for 'Gt', 'Lt' operators, exactly one value is required"))
      values.forEach((v, i) => {
        if (!parsesAsInt64(v)) errors.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"))
      })
      break
  }
  values.forEach((v, i) => {
    const errs = labelValueErrors(v)
    if (errs.length > 0) errors.push(invalid(`values[${i}][${key}]`, v, errs.join("; ")))
  })
  if (errors.length > 0) throw new SelectorParseError(aggregate(errors))
  return { key, operator, values }
}

const sortedSet = (values: Iterable<string>): ReadonlyArray<string> => [...new Set(values)].sort(compareBytes)

/** Go compares strings bytewise; UTF-16 order differs only above the BMP, so compare UTF-8 bytes. */
const compareBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))

const parseItems = (items: ReadonlyArray<Item>): ReadonlyArray<LabelRequirement> => {
  let position = 0
  // In a values context `in` and `notin` are plain identifiers.
  const asValue = (item: Item): Item => (item.tok === "in" || item.tok === "notin" ? { tok: "id", lit: item.lit } : item)
  const lookahead = (values: boolean): Item => (values ? asValue(items[position]!) : items[position]!)
  const consume = (values: boolean): Item => {
    const item = items[position++]!
    return values ? asValue(item) : item
  }
  const fail = (message: string): never => {
    throw new SelectorParseError(message)
  }

  const parseKeyAndInferOperator = (): { key: string; operator: LabelOperator | undefined } => {
    let operator: LabelOperator | undefined
    let item = consume(true)
    if (item.tok === "!") {
      operator = "!"
      item = consume(true)
    }
    if (item.tok !== "id") fail(`found '${item.lit}', expected: identifier`)
    const k = keyError(item.lit, "<nil>")
    if (k) fail(aggregate([k]))
    const next = lookahead(true).tok
    if ((next === "eos" || next === ",") && operator !== "!") operator = "exists"
    return { key: item.lit, operator }
  }

  const parseOperator = (): LabelOperator => {
    const item = consume(false)
    switch (item.tok) {
      case "in":
        return "in"
      case "=":
        return "="
      case "==":
        return "=="
      case ">":
        return "gt"
      case "<":
        return "lt"
      case "notin":
        return "notin"
      case "!=":
        return "!="
      default:
        return fail(`found '${item.lit}', expected: ${binaryOperators.join(", ")}`)
    }
  }

  const parseIdentifiersList = (): Set<string> => {
    const s = new Set<string>()
    for (;;) {
      const item = consume(true)
      if (item.tok === "id") {
        s.add(item.lit)
        const next = lookahead(true)
        if (next.tok === ",") continue
        if (next.tok === ")") return s
        fail(`found '${next.lit}', expected: ',' or ')'`)
      } else if (item.tok === ",") {
        // "(," and ",," and ",)" each stand for an empty value
        if (s.size === 0) s.add("")
        const next = lookahead(true).tok
        if (next === ")") {
          s.add("")
          return s
        }
        if (next === ",") {
          consume(true)
          s.add("")
        }
      } else {
        fail(`found '${item.lit}', expected: ',', or identifier`)
      }
    }
  }

  const parseValues = (): ReadonlyArray<string> => {
    const open = consume(true)
    if (open.tok !== "(") fail(`found '${open.lit}' expected: '('`)
    const next = lookahead(true)
    if (next.tok === "id" || next.tok === ",") {
      const s = parseIdentifiersList()
      // upstream reports the token seen before the list here
      if (consume(true).tok !== ")") fail(`found '${next.lit}', expected: ')'`)
      return sortedSet(s)
    }
    if (next.tok === ")") {
      consume(true)
      return [""]
    }
    return fail(`found '${next.lit}', expected: ',', ')' or identifier`)
  }

  const parseExactValue = (): ReadonlyArray<string> => {
    const next = lookahead(true).tok
    if (next === "eos" || next === ",") return [""]
    const item = consume(true)
    if (item.tok === "id") return [item.lit]
    return fail(`found '${item.lit}', expected: identifier`)
  }

  const parseRequirement = (): LabelRequirement => {
    const { key, operator: inferred } = parseKeyAndInferOperator()
    if (inferred === "exists" || inferred === "!") return newRequirement(key, inferred, [])
    const operator = parseOperator()
    const values = operator === "in" || operator === "notin" ? parseValues() : parseExactValue()
    return newRequirement(key, operator, values)
  }

  const requirements: Array<LabelRequirement> = []
  for (;;) {
    const item = lookahead(true)
    if (item.tok === "id" || item.tok === "!") {
      try {
        requirements.push(parseRequirement())
      } catch (e) {
        if (e instanceof SelectorParseError) fail(`unable to parse requirement: ${e.message}`)
        throw e
      }
      const after = consume(true)
      if (after.tok === "eos") return requirements
      if (after.tok === ",") {
        const next = lookahead(true)
        if (next.tok !== "id" && next.tok !== "!") fail(`found '${next.lit}', expected: identifier after ','`)
      } else {
        fail(`found '${after.lit}', expected: ',' or 'end of string'`)
      }
    } else if (item.tok === "eos") {
      return requirements
    } else {
      fail(`found '${item.lit}', expected: !, identifier, or 'end of string'`)
    }
  }
}

/**
 * Parses a `labelSelector` query value: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
 * `a>1`, `a<1`, comma-joined. Errors are 400 BadRequest with upstream's text, e.g.
 * `unable to parse requirement: <nil>: Invalid value: "a b": …`.
 */
export const parseLabelSelector = (text: string): Either.Either<LabelSelector, ApiError> => {
  try {
    const requirements = [...parseItems(lex(text))].sort((a, b) => compareBytes(a.key, b.key))
    return Either.right({ requirements })
  } catch (e) {
    if (e instanceof SelectorParseError) return Either.left(badRequest(e.message))
    throw e
  }
}

const parseInt64 = (s: string): bigint | undefined => (parsesAsInt64(s) ? BigInt(s) : undefined)

const requirementMatches = (r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean => {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key)
  const value = has ? labels[r.key]! : ""
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has && r.values.includes(value)
    case "notin":
    case "!=":
      return !has || !r.values.includes(value)
    case "exists":
      return has
    case "!":
      return !has
    case "gt":
    case "lt": {
      if (!has || r.values.length !== 1) return false
      const actual = parseInt64(value)
      const bound = parseInt64(r.values[0]!)
      if (actual === undefined || bound === undefined) return false
      return r.operator === "gt" ? actual > bound : actual < bound
    }
  }
}

/** True when every requirement holds for `labels` (absent labels are an empty set). */
export const matchesLabels = (sel: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean =>
  sel.requirements.every((r) => requirementMatches(r, labels ?? {}))

export const labelSelectorIsEmpty = (sel: LabelSelector): boolean => sel.requirements.length === 0

/** Upstream's canonical `String()`: requirements by key, set values sorted, e.g. `a in (x,y),!b`. */
export const formatLabelSelector = (sel: LabelSelector): string =>
  sel.requirements
    .map((r) => {
      switch (r.operator) {
        case "exists":
          return r.key
        case "!":
          return `!${r.key}`
        case "in":
        case "notin":
          return `${r.key} ${r.operator} (${r.values.join(",")})`
        case "gt":
          return `${r.key}>${r.values.join(",")}`
        case "lt":
          return `${r.key}<${r.values.join(",")}`
        default:
          return `${r.key}${r.operator}${r.values.join(",")}`
      }
    })
    .join(",")

// ---------------------------------------------------------------------------------------------------------
// Field selectors
// ---------------------------------------------------------------------------------------------------------

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
 * Parses a `fieldSelector` query value (`f=v`, `f==v`, `f!=v`, comma-joined; `\`, `,`, `=` in values
 * escaped with `\`) and converts each field label for `resource`. Errors are 400 BadRequest:
 * `invalid selector: '…'; can't understand '…'`, `field label not supported: <f>`, or for kinds
 * without conversions `"<f>" is not a known field selector: only "metadata.name", "metadata.namespace"`.
 */
export const parseFieldSelector = (text: string, resource: ResourceType): Either.Either<FieldSelector, ApiError> => {
  try {
    const parts = [...splitTerms(text)].sort(compareBytes)
    const parsed: Array<FieldRequirement> = []
    for (const part of parts) {
      if (part === "") continue
      const term = splitTerm(part)
      if (!term) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`)
      parsed.push({ field: term.lhs, operator: term.op === "!=" ? "!=" : "=", value: unescapeValue(term.rhs) })
    }
    const convert = conversionFor(resource)
    const requirements = parsed.map((r) => {
      const field = convert(r.field)
      if (field instanceof SelectorParseError) throw field
      return { ...r, field }
    })
    return Either.right({ requirements })
  } catch (e) {
    if (e instanceof SelectorParseError) return Either.left(badRequest(e.message))
    throw e
  }
}

/** A label the selector accepted but the object lacks reads as `""`, as upstream's `fields.Set.Get` does. */
export const matchesFields = (sel: FieldSelector, obj: KObject): boolean =>
  sel.requirements.every((r) => {
    const actual = fieldGetters[r.field]?.(obj) ?? ""
    return r.operator === "=" ? actual === r.value : actual !== r.value
  })

export const fieldSelectorIsEmpty = (sel: FieldSelector): boolean => sel.requirements.length === 0

/** The name a selector pins with `metadata.name=x` (upstream `RequiresExactMatch`), used by single-object watches. */
export const fieldSelectorName = (sel: FieldSelector): string | undefined =>
  sel.requirements.find((r) => r.field === "metadata.name" && r.operator === "=")?.value
