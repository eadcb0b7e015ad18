/**
 * `--set path=value` (docs/scenarios.md "Overrides"): one field of the scenario replaced before it is decoded, so the
 * result is validated exactly like the file. The path uses the field names of the file (`cluster.nodes`,
 * `cluster.serviceTime.apf`, `phases[0].duration`, `thresholds["lease_writes"]`); the value is typed by the
 * scenario schema at that path — a number, `true`/`false`, one of a field's literals, or text (durations,
 * quantities); a list or mapping field takes a YAML flow value (`cluster.zones=[a,b]`); under a free-form field
 * (an object template, a node agent configuration) YAML's own scalar rules decide. A path the schema does not
 * have is refused with the closest one it has.
 */
import { Either } from "effect"
import * as AST from "effect/SchemaAST"
import { parse as parseYaml } from "yaml"
import { plainScalarValue } from "./Substitution.js"

export type PathSegment = string | number

export interface SetOverride {
  /** As given: `cluster.nodes=5000`. */
  readonly source: string
  readonly path: ReadonlyArray<PathSegment>
  /** The text after the first `=`. */
  readonly text: string
}

/** Parses `a.b[0]["c.d"]=value`; the message says what is wrong with it. */
export const parseSetOverride = (source: string): Either.Either<SetOverride, string> => {
  const eq = source.indexOf("=")
  if (eq < 0) return Either.left(`--set ${source}: expected path=value, e.g. cluster.nodes=5000`)
  const pathText = source.slice(0, eq).trim()
  const path: Array<PathSegment> = []
  let i = 0
  const bad = (why: string) => Either.left(`--set ${source}: ${why}`)
  if (pathText === "") return bad("the path before \"=\" is empty")
  while (i < pathText.length) {
    if (pathText[i] === "[") {
      const close = pathText.indexOf("]", i)
      if (close < 0) return bad(`unclosed "[" in the path`)
      const inner = pathText.slice(i + 1, close)
      if (/^\d+$/.test(inner)) path.push(Number(inner))
      else if (/^"(?:[^"\\]|\\.)*"$/.test(inner)) path.push(JSON.parse(inner) as string)
      else return bad(`expected a list index [0] or a quoted key ["name"] in the path, got [${inner}]`)
      i = close + 1
      if (pathText[i] === ".") i++
      continue
    }
    let end = i
    while (end < pathText.length && pathText[end] !== "." && pathText[end] !== "[") end++
    const name = pathText.slice(i, end)
    if (name === "") return bad(`empty field name in the path`)
    path.push(/^\d+$/.test(name) ? Number(name) : name)
    i = end < pathText.length && pathText[end] === "." ? end + 1 : end
    if (i === pathText.length && pathText.endsWith(".")) return bad(`empty field name in the path`)
  }
  return Either.right({ source, path, text: source.slice(eq + 1) })
}

/** Every `--set`, or the first one's problem. */
export const parseSetOverrides = (sources: ReadonlyArray<string>): Either.Either<ReadonlyArray<SetOverride>, string> => {
  const out: Array<SetOverride> = []
  for (const source of sources) {
    const parsed = parseSetOverride(source)
    if (Either.isLeft(parsed)) return Either.left(parsed.left)
    out.push(parsed.right)
  }
  return Either.right(out)
}

/** `cluster.serviceTime.apf`, `phases[0].duration`, `thresholds["lease_writes"]` */
export const pathText = (path: ReadonlyArray<PathSegment>): string => {
  let out = ""
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`
    else out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(p) ? (out === "" ? p : `.${p}`) : `[${JSON.stringify(p)}]`
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// The schema along a path
// ---------------------------------------------------------------------------------------------

/** The encoded forms a field may take: what YAML supplies before decoding. */
const members = (ast: AST.AST, depth = 0): Array<AST.AST> => {
  if (depth > 20) return []
  switch (ast._tag) {
    case "Refinement":
      return members(ast.from, depth + 1)
    case "Transformation":
      return members(ast.from, depth + 1)
    case "Suspend":
      return members(ast.f(), depth + 1)
    case "Union":
      return ast.types.flatMap((t) => members(t, depth + 1))
    case "UndefinedKeyword":
      return []
    default:
      return [ast]
  }
}

/** The field's schemas one step down, or none when the schema has no such field. */
const child = (ast: AST.AST, seg: PathSegment): Array<AST.AST> =>
  members(ast).flatMap((m): Array<AST.AST> => {
    if (m._tag === "UnknownKeyword" || m._tag === "AnyKeyword") return [m]
    if (m._tag === "TypeLiteral" && typeof seg === "string") {
      const p = m.propertySignatures.find((ps) => ps.name === seg)
      if (p) return [p.type]
      return m.indexSignatures.filter((ix) => members(ix.parameter).some((k) => k._tag === "StringKeyword" || k._tag === "TemplateLiteral")).map((ix) => ix.type)
    }
    if (m._tag === "TupleType" && typeof seg === "number") {
      const el = m.elements[seg]
      if (el) return [el.type]
      return m.rest.length > 0 ? [m.rest[0]!.type] : []
    }
    return []
  })

/** Every path the schema has below `ast` (a list's items as `[0]`), for "the closest valid path". */
const allPaths = (ast: AST.AST, prefix: ReadonlyArray<PathSegment>, out: Array<ReadonlyArray<PathSegment>>, depth: number): void => {
  if (depth > 8) return
  for (const m of members(ast)) {
    if (m._tag === "TypeLiteral")
      for (const p of m.propertySignatures) {
        const path = [...prefix, String(p.name)]
        out.push(path)
        allPaths(p.type, path, out, depth + 1)
      }
    else if (m._tag === "TupleType" && (m.rest.length > 0 || m.elements.length > 0)) {
      const path = [...prefix, 0]
      allPaths(m.rest[0]?.type ?? m.elements[0]!.type, path, out, depth + 1)
    }
  }
}

const editDistance = (a: string, b: string): number => {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const keep = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = keep
    }
  }
  return d[b.length]!
}

/**
 * Paths compared segment by segment: a misspelt segment costs its relative edit distance, one that is not a
 * misspelling (half its letters or more differ), a missing or an extra one costs 1.
 */
const pathDistance = (a: ReadonlyArray<PathSegment>, b: ReadonlyArray<PathSegment>): number => {
  const cost = (x: PathSegment, y: PathSegment) => {
    if (typeof x === "number" || typeof y === "number") return typeof x === typeof y ? 0 : 1
    const relative = editDistance(x.toLowerCase(), y.toLowerCase()) / Math.max(x.length, y.length, 1)
    return relative < 0.5 ? relative : 1
  }
  const d = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!
    d[0] = i
    for (let j = 1; j <= b.length; j++) {
      const keep = d[j]!
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + cost(a[i - 1]!, b[j - 1]!))
      prev = keep
    }
  }
  return d[b.length]!
}

/** The schema's path nearest to `path`, with `path`'s own list indices. */
export const closestPath = (root: AST.AST, path: ReadonlyArray<PathSegment>): ReadonlyArray<PathSegment> | undefined => {
  const candidates: Array<ReadonlyArray<PathSegment>> = []
  allPaths(root, [], candidates, 0)
  // a field name the path shares with a candidate counts, the more the fewer fields have it, and the nearer the
  // root it is in the path: an early name says which part is meant (`apf` in `cluster.apiServer.apf.enabled`), a
  // late one which field of it (`enabled`)
  const endingIn = new Map<string, number>()
  for (const c of candidates) endingIn.set(String(c[c.length - 1]), (endingIn.get(String(c[c.length - 1])) ?? 0) + 1)
  const weight = (name: string) => {
    const at = path.indexOf(name)
    return at < 0 ? 0 : (0.5 / (endingIn.get(name) ?? 1)) * (1 + (path.length - at) / 10)
  }
  let best: ReadonlyArray<PathSegment> | undefined
  let bestScore = Infinity
  for (const c of candidates) {
    const shared = c.filter((p): p is string => typeof p === "string")
    const score = pathDistance(path, c) - shared.reduce((sum, p) => sum + weight(p), 0)
    if (score < bestScore) {
      best = c
      bestScore = score
    }
  }
  if (best === undefined) return undefined
  const indices = path.filter((p): p is number => typeof p === "number")
  return best.map((p) => (typeof p === "number" ? (indices.shift() ?? p) : p))
}

// ---------------------------------------------------------------------------------------------
// Typing and applying
// ---------------------------------------------------------------------------------------------

const numberText = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

/** The value `text` stands for at a field of these schemas, or why it cannot be one. */
const typedValue = (schemas: ReadonlyArray<AST.AST>, text: string): Either.Either<unknown, string> => {
  const leaves = schemas.flatMap((s) => members(s))
  const freeForm = leaves.some((l) => l._tag === "UnknownKeyword" || l._tag === "AnyKeyword")
  // `[a, b]` / `{k: v}` is a flow value wherever a list or mapping may stand: a threshold's list of expressions or
  // its object form beside the one-expression string, any value of a free-form field (YAML reads it so in the file)
  if (/^\s*[[{]/.test(text) && (freeForm || leaves.some((l) => l._tag === "TypeLiteral" || l._tag === "TupleType"))) return flowValue(text, leaves)
  if (freeForm) return Either.right(plainScalarValue(text))
  const literals = leaves.filter((l): l is AST.Literal => l._tag === "Literal").map((l) => l.literal)
  const literal = literals.find((l) => String(l) === text)
  if (literal !== undefined) return Either.right(literal)
  if (leaves.some((l) => l._tag === "NumberKeyword") && numberText.test(text.trim())) return Either.right(Number(text))
  if (leaves.some((l) => l._tag === "BooleanKeyword") && (text === "true" || text === "false")) return Either.right(text === "true")
  if (leaves.some((l) => l._tag === "StringKeyword" || l._tag === "TemplateLiteral")) return Either.right(text)
  if (leaves.some((l) => l._tag === "TypeLiteral" || l._tag === "TupleType")) return flowValue(text, leaves)
  const expected: Array<string> = []
  if (leaves.some((l) => l._tag === "NumberKeyword")) expected.push("a number")
  if (leaves.some((l) => l._tag === "BooleanKeyword")) expected.push("true or false")
  if (literals.length > 0) expected.push(`one of ${literals.map((l) => JSON.stringify(l)).join(", ")}`)
  return Either.left(`expected ${expected.length > 0 ? expected.join(" or ") : "a value this field takes"}, got "${text}"`)
}

/** A YAML flow value (`[a, b]`, `{k: v}`) for a list or mapping field. */
const flowValue = (text: string, leaves: ReadonlyArray<AST.AST>): Either.Either<unknown, string> => {
  let v: unknown
  try {
    v = parseYaml(text)
  } catch (e) {
    return Either.left(`expected a YAML flow value (a list [a, b] or a mapping {k: v}): ${(e as Error).message.split("\n")[0]}`)
  }
  if (typeof v === "object" && v !== null) return Either.right(v)
  return Either.left(`expected a ${leaves.some((l) => l._tag === "TupleType") ? "list, e.g. [a, b]" : "mapping, e.g. {k: v}"}, got "${text}"`)
}

export interface SetProblem {
  readonly set: SetOverride
  /** The field the problem is at (the set's path, or the part of it that does not exist). */
  readonly path: ReadonlyArray<PathSegment>
  readonly message: string
}

/**
 * `value` (the scenario as YAML gave it) with every override applied in order, or the overrides' problems. Missing
 * mappings on the way are created; a list index must exist.
 */
export const applySetOverrides = (
  root: AST.AST,
  value: unknown,
  sets: ReadonlyArray<SetOverride>
): { readonly value: unknown; readonly problems: ReadonlyArray<SetProblem> } => {
  const problems: Array<SetProblem> = []
  let current = value
  for (const set of sets) {
    // the schema along the path first: an unknown field is named with the closest valid path
    let schemas: Array<AST.AST> = [root]
    let unknownAt = -1
    for (const [i, seg] of set.path.entries()) {
      schemas = schemas.flatMap((s) => child(s, seg))
      if (schemas.length === 0) {
        unknownAt = i
        break
      }
    }
    if (unknownAt >= 0) {
      const where = set.path.slice(0, unknownAt + 1)
      const seg = set.path[unknownAt]!
      const closest = closestPath(root, set.path)
      const parent = unknownAt === 0 ? "the scenario" : pathText(set.path.slice(0, unknownAt))
      const what = typeof seg === "number" ? `${parent} is not a list` : `unknown field "${seg}" in ${parent}`
      problems.push({ set, path: where, message: `${what}; the closest valid path is ${closest ? pathText(closest) : "(none)"}` })
      continue
    }
    const typed = typedValue(schemas, set.text)
    if (Either.isLeft(typed)) {
      problems.push({ set, path: set.path, message: typed.left })
      continue
    }
    const placed = setIn(current, set.path, typed.right)
    if (Either.isLeft(placed)) problems.push({ set, path: placed.left.path, message: placed.left.message })
    else current = placed.right
  }
  return { value: current, problems }
}

/** A copy of `value` with `path` set; mappings on the way are created, list items must exist. */
const setIn = (value: unknown, path: ReadonlyArray<PathSegment>, v: unknown): Either.Either<unknown, { path: ReadonlyArray<PathSegment>; message: string }> => {
  if (path.length === 0) return Either.right(v)
  const [seg, ...rest] = path as [PathSegment, ...Array<PathSegment>]
  if (typeof seg === "number") {
    if (!Array.isArray(value)) return Either.left({ path: [seg], message: value === undefined ? "no such list in the file" : "not a list in the file" })
    if (seg >= value.length) return Either.left({ path: [seg], message: `the list has ${value.length} item${value.length === 1 ? "" : "s"}; index ${seg} is past its end` })
    const inner = setIn(value[seg], rest, v)
    if (Either.isLeft(inner)) return Either.left({ path: [seg, ...inner.left.path], message: inner.left.message })
    const copy = [...value]
    copy[seg] = inner.right
    return Either.right(copy)
  }
  const obj = value === undefined || value === null ? {} : value
  if (typeof obj !== "object" || Array.isArray(obj)) return Either.left({ path: [seg], message: "the file has a value here that is not a mapping" })
  const inner = setIn((obj as Record<string, unknown>)[seg], rest, v)
  if (Either.isLeft(inner)) return Either.left({ path: [seg, ...inner.left.path], message: inner.left.message })
  return Either.right({ ...(obj as Record<string, unknown>), [seg]: inner.right })
}
