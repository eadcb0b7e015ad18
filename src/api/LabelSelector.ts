/**
 * Label selectors, parsed and matched the way the 1.26 API server does (`kubernetes/apimachinery:
 * pkg/labels/selector.go`). Every parse error is a 400 BadRequest whose message is the upstream error text.
 */
import { Either } from "effect"
import { aggregate, type FieldError, invalid } from "./FieldError.js"
import { type ApiError, badRequest } from "./Status.js"
import { isQualifiedName, isValidLabelValue } from "./kinds/Names.js"

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

/** A parse failure inside the selector parsers: its message is upstream's error text. */
export class SelectorParseError {
  constructor(readonly message: string) {}
}

/** The parser passes no field path, so a key error prints `<nil>: Invalid value: …`. */
const keyError = (key: string, field: string): FieldError | undefined => {
  const errs = isQualifiedName(key)
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
    const errs = isValidLabelValue(v)
    if (errs.length > 0) errors.push(invalid(`values[${i}][${key}]`, v, errs.join("; ")))
  })
  if (errors.length > 0) throw new SelectorParseError(aggregate(errors))
  return { key, operator, values }
}

/** `labels.NewRequirement` as a value: the requirement, or the error whose message is upstream's text. */
export const labelRequirement = (key: string, operator: LabelOperator, values: ReadonlyArray<string>): LabelRequirement | SelectorParseError => {
  try {
    return newRequirement(key, operator, values)
  } catch (e) {
    if (e instanceof SelectorParseError) return e
    throw e
  }
}

const sortedSet = (values: Iterable<string>): ReadonlyArray<string> => [...new Set(values)].sort(compareBytes)

/** Go compares strings bytewise; UTF-16 order differs only above the BMP, so compare UTF-8 bytes. */
/** Go's string order: by UTF-8 bytes. */
export const compareBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))

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
