/**
 * Field codecs: decode a parsed YAML/JSON tree into typed values the way upstream's JSON decoder
 * (`sigs.k8s.io/json`, strict mode) does, keeping what a user needs to find a mistake — the field path
 * and the line and column — next to Go's own error text.
 *
 * A codec never throws: type errors are recorded as errors, unknown and duplicate fields as strict
 * issues (upstream `configfiles.go` then decodes leniently and accepts the result).
 */
import { Either } from "effect"
import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node, type Pair } from "yaml"
import { parseDuration } from "../../../src/api/go/Duration.js"
import { parseQuantity, type Quantity } from "../../../src/api/go/Quantity.js"

export type IssueKind = "error" | "unknown field" | "duplicate field"

export interface DecodeIssue {
  readonly kind: IssueKind
  /** Field path: `authentication.webhook.cacheTTL`, `registerWithTaints[0].key`, `evictionHard[memory.available]`. */
  readonly path: string
  /** Go's text: `time: invalid duration "x"`, `json: cannot unmarshal …`; for strict issues `unknown field "a.b"`. */
  readonly message: string
  readonly line?: number
  readonly column?: number
}

export class DecodeContext {
  readonly issues: Array<DecodeIssue> = []
  constructor(
    readonly doc: Document | undefined,
    readonly lines: LineCounter
  ) {}

  resolve(node: unknown): Node | null {
    let n = node
    for (let hops = 0; isAlias(n) && this.doc && hops < 100; hops++) n = n.resolve(this.doc)
    return (n as Node | null | undefined) ?? null
  }

  /** 1-based line and column where `node` starts, when it has a place in the text. */
  position(node: unknown): { line: number; column: number } | undefined {
    const offset = (node as { range?: [number, number, number] } | null)?.range?.[0]
    if (offset === undefined) return undefined
    const pos = this.lines.linePos(offset)
    return { line: pos.line, column: pos.col }
  }

  report(kind: IssueKind, path: string, message: string, node: unknown): void {
    const pos = this.position(node)
    this.issues.push(pos ? { kind, path, message, ...pos } : { kind, path, message })
  }
}

/** Where a value sits: its display path, and what Go's decoder would name it in a type error. */
export interface At {
  readonly path: string
  /** The innermost Go struct holding the field (Go reports `Struct.a.b.c`). */
  readonly goStruct: string
  /** JSON names from the root, without list indices or map keys (Go's field stack). */
  readonly goFields: ReadonlyArray<string>
  readonly node: unknown
}

export interface Codec<A> {
  /** The Go type named in `json: cannot unmarshal X into Go struct field … of type <goType>`. */
  readonly goType: string
  /** `undefined` for a null value (Go leaves the field unset) or after recording an error. */
  readonly decode: (node: Node | null, ctx: DecodeContext, at: At) => A | undefined
}

export type TypeOf<C> = C extends Codec<infer A> ? A : never

type JsonKind = "null" | "string" | "number" | "bool" | "array" | "object"

const jsonKind = (node: Node | null): JsonKind => {
  if (node === null) return "null"
  if (isMap(node)) return "object"
  if (isSeq(node)) return "array"
  if (isScalar(node)) {
    const v = node.value
    if (v === null || v === undefined) return "null"
    if (typeof v === "number" || typeof v === "bigint") return "number"
    if (typeof v === "boolean") return "bool"
  }
  return "string"
}

const fieldName = (at: At) => `${at.goStruct}.${at.goFields.join(".")}`

const typeError = (ctx: DecodeContext, at: At, what: string, goType: string): undefined => {
  ctx.report("error", at.path, `json: cannot unmarshal ${what} into Go struct field ${fieldName(at)} of type ${goType}`, at.node)
  return undefined
}

/** The error a custom unmarshaler reading a JSON string reports (metav1.Duration, metav1.Time). */
const notAString = (ctx: DecodeContext, at: At, kind: JsonKind): undefined => {
  ctx.report("error", at.path, `json: cannot unmarshal ${kind} into Go value of type string`, at.node)
  return undefined
}

const scalarText = (node: Node | null): string => {
  if (isScalar(node)) return String(node.value)
  return ""
}

const scalar = <A>(goType: string, kind: JsonKind, read: (v: unknown) => A) =>
  ({
    goType,
    decode: (node, ctx, at) => {
      const k = jsonKind(node)
      if (k === "null") return undefined
      if (k !== kind) return typeError(ctx, at, k, goType)
      return read((node as { value: unknown }).value)
    }
  }) satisfies Codec<A>

export const bool = scalar("bool", "bool", (v) => v as boolean)
export const string = (goType = "string") => scalar(goType, "string", (v) => v as string)
export const float64 = scalar("float64", "number", (v) => Number(v))

const intRanges = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint32: [0, 2 ** 32 - 1]
} as const

/** An integer field; a fraction or an out-of-range number is reported as Go does (`number 1.5`). */
export const int = (bits: keyof typeof intRanges, goType: string = bits): Codec<number> => ({
  goType,
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    if (k !== "number") return typeError(ctx, at, k, goType)
    const v = Number((node as { value: unknown }).value)
    const [lo, hi] = intRanges[bits]
    if (!Number.isInteger(v) || v < lo || v > hi) return typeError(ctx, at, `number ${scalarText(node)}`, goType)
    return v
  }
})

/** `metav1.Duration`: a Go duration string, decoded to milliseconds. */
export const duration: Codec<number> = {
  goType: "v1.Duration",
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    if (k !== "string") return notAString(ctx, at, k)
    const d = parseDuration(scalarText(node))
    if (Either.isLeft(d)) {
      ctx.report("error", at.path, d.left, at.node)
      return undefined
    }
    return d.right
  }
}

/** `metav1.Time`: kept as written (RFC 3339 text); only its presence matters to validation. */
export const time: Codec<string> = {
  goType: "v1.Time",
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    if (k !== "string") return notAString(ctx, at, k)
    return scalarText(node)
  }
}

/** `resource.Quantity`: a string or a bare number; anything else fails the quantity grammar. */
export const quantity: Codec<Quantity> = {
  goType: "resource.Quantity",
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    const text = k === "string" || k === "number" || k === "bool" ? scalarText(node) : k === "array" ? "[" : "{"
    const q = parseQuantity(text.trim())
    if (Either.isLeft(q)) {
      ctx.report("error", at.path, q.left, at.node)
      return undefined
    }
    return q.right
  }
}

const keyText = (ctx: DecodeContext, pair: Pair<unknown, unknown>): string => {
  const key = ctx.resolve(pair.key)
  if (isScalar(key)) return String(key.value)
  return String(key)
}

/** `map[string]V` (Go type errors on values name the map field, not the key). */
export const record = <A>(value: Codec<A>, goType = `map[string]${value.goType}`): Codec<Record<string, A>> => ({
  goType,
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    if (k !== "object") return typeError(ctx, at, k, goType)
    const out: Record<string, A> = {}
    const seen = new Set<string>()
    for (const pair of (node as { items: Array<Pair<unknown, unknown>> }).items) {
      const key = keyText(ctx, pair)
      const path = `${at.path}[${key}]`
      if (seen.has(key)) ctx.report("duplicate field", path, `duplicate field ${JSON.stringify(path)}`, pair.key)
      seen.add(key)
      const v = value.decode(ctx.resolve(pair.value), ctx, { ...at, path, node: pair.value ?? pair.key })
      if (v !== undefined) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
    }
    return out
  }
})

/** `[]V`; null items are dropped. */
export const list = <A>(item: Codec<A>, goType = `[]${item.goType}`): Codec<ReadonlyArray<A>> => ({
  goType,
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    if (k !== "array") return typeError(ctx, at, k, goType)
    const out: Array<A> = []
    ;(node as { items: Array<unknown> }).items.forEach((raw, i) => {
      const v = item.decode(ctx.resolve(raw), ctx, { ...at, path: `${at.path}[${i}]`, node: raw })
      if (v !== undefined) out.push(v)
    })
    return out
  }
})

export type Fields = Record<string, Codec<unknown>>
export type StructOf<F extends Fields> = { -readonly [K in keyof F]?: TypeOf<F[K]> }

export interface StructCodec<F extends Fields> extends Codec<StructOf<F>> {
  readonly fields: F
}

/**
 * A Go struct: known JSON names only (case-sensitive); others are strict issues, as are repeated
 * names (the later value wins, as in lenient decoding).
 */
export const struct = <F extends Fields>(goName: string, goType: string, fields: F): StructCodec<F> => ({
  goType,
  fields,
  decode: (node, ctx, at) => {
    const k = jsonKind(node)
    if (k === "null") return undefined
    if (k !== "object") return typeError(ctx, at, k, goType)
    const out: Record<string, unknown> = {}
    const seen = new Set<string>()
    for (const pair of (node as { items: Array<Pair<unknown, unknown>> }).items) {
      const key = keyText(ctx, pair)
      const path = at.path ? `${at.path}.${key}` : key
      const field = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined
      if (!field) {
        ctx.report("unknown field", path, `unknown field ${JSON.stringify(path)}`, pair.key)
        continue
      }
      if (seen.has(key)) ctx.report("duplicate field", path, `duplicate field ${JSON.stringify(path)}`, pair.key)
      seen.add(key)
      const v = field.decode(ctx.resolve(pair.value), ctx, {
        path,
        goStruct: goName,
        goFields: [...at.goFields, key],
        node: pair.value ?? pair.key
      })
      if (v !== undefined) out[key] = v
    }
    return out as StructOf<F>
  }
})

/**
 * Positions of the items of the list under `key` in the map `root`, null items left out as `list` leaves them
 * out, so index i is the position of the i-th decoded item. The last occurrence of a repeated key counts.
 */
export const itemsOf = (root: Node | null, ctx: DecodeContext, key: string): Array<{ line: number; column: number } | undefined> => {
  if (!isMap(root)) return []
  let list: Node | null = null
  for (const pair of root.items) if (keyText(ctx, pair) === key) list = ctx.resolve(pair.value)
  if (!isSeq(list)) return []
  return list.items.filter((raw) => jsonKind(ctx.resolve(raw)) !== "null").map((raw) => ctx.position(raw))
}
