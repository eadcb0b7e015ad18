/**
 * Duplicate (and, given a schema, unknown) fields found by scanning the raw JSON text of a request body,
 * as the strict decoder reports them (`sigs.k8s.io/json`, `apiserver` `handlers/rest.go`): `duplicate field
 * "metadata.name"`, `unknown field "spec.foo"`. `JSON.parse` keeps only the last of two equal keys, so this works on
 * text.
 *
 * One pass, no recursion, no tree: linear in the body (up to 3 MiB) and safe for any nesting depth.
 * The text is assumed to be valid JSON (it has been parsed already).
 */
import { goQuote } from "../go/Quote.js"
import { fieldOf, type FieldSchema } from "./FieldSchema.js"

/** Where a container's children are checked: a known struct, a map, free JSON (`any`), or nothing. */
type Mode = "struct" | "map" | "free"

interface Frame {
  readonly isArray: boolean
  readonly parent: Frame | undefined
  /** The member name or element index this container sits at in its parent. */
  readonly at: string | number
  /** Built on first use: most containers never need their path. */
  path: string | undefined
  readonly mode: Mode
  readonly schema: FieldSchema | undefined
  /** Keys seen so far: a list while small, a set beyond. */
  keys: string[] | Set<string> | undefined
  index: number
}

/** A container's path, resolving unresolved ancestors top-down without recursion. */
const framePath = (f: Frame): string => {
  if (f.path !== undefined) return f.path
  const pending: Frame[] = []
  for (let g: Frame | undefined = f; g !== undefined && g.path === undefined; g = g.parent) pending.push(g)
  for (let k = pending.length - 1; k >= 0; k--) {
    const g = pending[k]!
    g.path = g.parent === undefined ? "" : childPath(g.parent.path!, g.at)
  }
  return f.path!
}

const childPath = (p: string, key: string | number): string =>
  typeof key === "number" ? `${p}[${key}]` : p ? `${p}.${key}` : key

/** Records `key`; true when it was there already. */
const seenBefore = (f: Frame, key: string): boolean => {
  const keys = f.keys
  if (keys === undefined) {
    f.keys = [key]
    return false
  }
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return true
    if (keys.length < 16) keys.push(key)
    else f.keys = new Set([...keys, key])
    return false
  }
  if (keys.has(key)) return true
  keys.add(key)
  return false
}

const QUOTE = 34
const BACKSLASH = 92
const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9

/** Index just past the closing quote of the string starting at `i` (a `"`). */
const stringEnd = (json: string, i: number): number => {
  const n = json.length
  let j = i + 1
  while (j < n) {
    const c = json.charCodeAt(j)
    if (c === QUOTE) return j + 1
    j += c === BACKSLASH ? 2 : 1
  }
  return n
}

/** Index just past the value (scalar, object or array) starting at `i`. */
const valueEnd = (json: string, i: number): number => {
  const n = json.length
  const c = json.charCodeAt(i)
  if (c === QUOTE) return stringEnd(json, i)
  if (c !== 123 && c !== 91) {
    let j = i
    while (j < n) {
      const d = json.charCodeAt(j)
      if (d === 44 || d === 125 || d === 93 || isSpace(d)) break
      j++
    }
    return j
  }
  let depth = 0
  let j = i
  while (j < n) {
    const d = json.charCodeAt(j)
    if (d === QUOTE) {
      j = stringEnd(json, j)
      continue
    }
    if (d === 123 || d === 91) depth++
    else if (d === 125 || d === 93) {
      depth--
      if (depth === 0) return j + 1
    }
    j++
  }
  return n
}

/** `a.b` below an object (`b` at top level), `a[0]` below an array. */
const pathOf = (parent: Frame, key: string | number): string => childPath(framePath(parent), key)

/** How a value is walked, given the schema it meets; `undefined` skips it (scalar, wrong type, opaque). */
const modeFor = (schema: FieldSchema | undefined, opening: number): Mode | undefined => {
  if (schema === undefined || schema.type === "any") return "free"
  if (opening === 123) return schema.type === "object" ? "struct" : schema.type === "map" ? "map" : undefined
  return schema.type === "array" ? "free" : undefined
}

const childSchema = (frame: Frame): FieldSchema | undefined => {
  const s = frame.schema
  if (s === undefined) return undefined
  if (s.type === "array") return s.items
  if (s.type === "map") return s.values
  return undefined
}

/**
 * Walks the text; `report(kind, path)` gets every problem in decode order. With a schema, upstream's
 * rules: an unknown struct field is reported (once per path) and its value skipped; duplicates count
 * only among known fields of a struct, keys of a map and keys of free JSON; values with a type of their
 * own decoding (times, `FieldsV1`) or of the wrong JSON type are not looked into.
 */
const scan = (json: string, schema: FieldSchema | undefined, report: (kind: "unknown" | "duplicate", path: string) => void) => {
  const n = json.length
  const stack: Frame[] = []
  let i = 0
  const skipSpace = () => {
    while (i < n && isSpace(json.charCodeAt(i))) i++
  }
  /**
   * Handles the value at `i`: opens a frame for a container its schema lets us walk, skips anything
   * else.
   */
  const value = (parent: Frame | undefined, key: string | number, s: FieldSchema | undefined) => {
    skipSpace()
    const c = json.charCodeAt(i)
    const mode = c === 123 || c === 91 ? modeFor(s, c) : undefined
    if (mode === undefined) {
      i = valueEnd(json, i)
      return
    }
    // A free value below a typed array keeps the array's item schema.
    const frameSchema = s !== undefined && s.type === "any" ? undefined : s
    stack.push({ isArray: c === 91, parent, at: key, path: undefined, mode, schema: frameSchema, keys: undefined, index: 0 })
    i++
  }
  value(undefined, "", schema)
  while (stack.length > 0 && i < n) {
    skipSpace()
    const frame = stack[stack.length - 1]!
    const c = json.charCodeAt(i)
    if (c === 44) {
      i++
      continue
    }
    if (c === 125 || c === 93) {
      stack.pop()
      i++
      continue
    }
    if (frame.isArray) {
      value(frame, frame.index++, childSchema(frame))
      continue
    }
    // An object member: key, colon, value.
    const end = stringEnd(json, i)
    const raw = json.slice(i + 1, end - 1)
    const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw
    i = end
    skipSpace()
    i++ // the colon
    let next: FieldSchema | undefined
    if (frame.mode === "struct") {
      next = fieldOf(frame.schema as Extract<FieldSchema, { type: "object" }>, key)
      if (next === undefined) {
        report("unknown", pathOf(frame, key))
        skipSpace()
        i = valueEnd(json, i)
        continue
      }
    } else {
      next = childSchema(frame)
    }
    if (seenBefore(frame, key)) report("duplicate", pathOf(frame, key))
    value(frame, key, next)
  }
}

/**
 * Paths of duplicate keys at any depth, in document order, each once: `metadata.name`,
 * `items[0].name`, `foo` at top level. Without a schema every object counts; with one, only what the
 * 1.26 decoder checks (see `strictDecodingErrors`).
 */
export const duplicateFields = (json: string, schema?: FieldSchema): string[] => {
  const out = new Set<string>()
  scan(json, schema, (kind, path) => {
    if (kind === "duplicate") out.add(path)
  })
  return [...out]
}

/**
 * The strict decoder's findings in decode order, de-duplicated by text as upstream does:
 * `unknown field "spec.foo"`, `duplicate field "metadata.name"`. Joined with `, ` after
 * `strict decoding error: ` for a Strict 400; one `Warning` header each under Warn
 * (`handlers/{create,update,patch}.go`).
 */
export const strictDecodingErrors = (json: string, schema: FieldSchema): string[] => {
  const out = new Set<string>()
  scan(json, schema, (kind, path) => out.add(`${kind} field ${goQuote(path)}`))
  return [...out]
}
