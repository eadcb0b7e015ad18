/**
 * The part of spf13/pflag the scheduler's command line relies on: `--flag=value`, `--flag value`,
 * booleans with an optional value, shorthands (`-v3`, `-v=3`, `-v 3`), `--` ends the flags, `_` in a long
 * name reads as `-` (upstream's word-separator normalization), list values accumulate; error texts as pflag.
 */
import { Either } from "effect"
import { goQuote } from "../../../../src/api/go/Quote.js"

export interface FlagKind<V> {
  /** The type name pflag prints in help ("" for booleans). */
  readonly typeName: string
  /** Value used when the flag is given without one (`--leader-elect`). */
  readonly noOptDefVal?: string
  /** Applies one occurrence; `changed` tells whether the flag was set before (lists append then). */
  readonly set: (current: V, changed: boolean, raw: string) => Either.Either<V, string>
  /** pflag's `DefValue` text; `undefined` when it is the zero value and help omits it. */
  readonly defaultText: (v: V) => string | undefined
}

export interface FlagDef<V = unknown> {
  readonly name: string
  readonly shorthand?: string
  readonly kind: FlagKind<V>
  readonly default: V
  readonly usage: string
}

export interface Parsed {
  readonly values: ReadonlyMap<string, unknown>
  /** Canonical long names of the flags given on the command line. */
  readonly changed: ReadonlySet<string>
  /** Arguments that are not flags (kept in order; after `--` everything is an argument). */
  readonly args: ReadonlyArray<string>
}

const normalize = (name: string) => name.replaceAll("_", "-")

export const parseArgs = (defs: ReadonlyArray<FlagDef>, argv: ReadonlyArray<string>): Either.Either<Parsed, string> => {
  const byName = new Map(defs.map((d) => [d.name, d] as const))
  const byShort = new Map(defs.filter((d) => d.shorthand).map((d) => [d.shorthand!, d] as const))
  const values = new Map<string, unknown>(defs.map((d) => [d.name, d.default] as const))
  const changed = new Set<string>()
  const args: Array<string> = []

  const set = (def: FlagDef, raw: string): string | undefined => {
    const result = def.kind.set(values.get(def.name), changed.has(def.name), raw)
    if (Either.isLeft(result)) {
      const shown = def.shorthand ? `-${def.shorthand}, --${def.name}` : `--${def.name}`
      return `invalid argument ${goQuote(raw)} for ${goQuote(shown)} flag: ${result.left}`
    }
    values.set(def.name, result.right)
    changed.add(def.name)
    return undefined
  }

  const rest = [...argv]
  while (rest.length > 0) {
    const s = rest.shift()!
    if (s.length <= 1 || s[0] !== "-") {
      args.push(s)
      continue
    }
    if (s[1] === "-") {
      if (s.length === 2) {
        args.push(...rest)
        break
      }
      const body = s.slice(2)
      if (body[0] === "-" || body[0] === "=") return Either.left(`bad flag syntax: ${s}`)
      const eq = body.indexOf("=")
      const name = eq < 0 ? body : body.slice(0, eq)
      const def = byName.get(normalize(name))
      if (!def) return Either.left(`unknown flag: --${name}`)
      let value: string
      if (eq >= 0) value = body.slice(eq + 1)
      else if (def.kind.noOptDefVal !== undefined) value = def.kind.noOptDefVal
      else if (rest.length > 0) value = rest.shift()!
      else return Either.left(`flag needs an argument: ${s}`)
      const err = set(def, value)
      if (err) return Either.left(err)
      continue
    }
    // A run of shorthands: "-hv3" is -h then -v with "3".
    let shorts = s.slice(1)
    while (shorts.length > 0) {
      const c = shorts[0]!
      const def = byShort.get(c)
      if (!def) return Either.left(`unknown shorthand flag: '${c}' in -${shorts}`)
      let value: string
      if (shorts.length > 2 && shorts[1] === "=") (value = shorts.slice(2)), (shorts = "")
      else if (def.kind.noOptDefVal !== undefined) (value = def.kind.noOptDefVal), (shorts = shorts.slice(1))
      else if (shorts.length > 1) (value = shorts.slice(1)), (shorts = "")
      else if (rest.length > 0) (value = rest.shift()!), (shorts = "")
      else return Either.left(`flag needs an argument: '${c}' in -${shorts}`)
      const err = set(def, value)
      if (err) return Either.left(err)
    }
  }
  return Either.right({ values, changed, args })
}

/**
 * pflag's `FlagUsages` layout for one section: flags sorted by name, the usage column aligned, a
 * non-zero default appended (`(default "x")` for strings), continuation lines of a usage indented.
 */
export const flagUsages = (defs: ReadonlyArray<FlagDef>): string => {
  const sorted = [...defs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const rows = sorted.map((d) => {
    let head = d.shorthand ? `  -${d.shorthand}, --${d.name}` : `      --${d.name}`
    if (d.kind.typeName) head += " " + d.kind.typeName
    const noOpt = d.kind.noOptDefVal
    if (noOpt !== undefined && !(d.kind.typeName === "" && noOpt === "true")) head += `[=${noOpt}]`
    let usage = d.usage
    const def = d.kind.defaultText(d.default)
    if (def !== undefined) usage += d.kind.typeName === "string" ? ` (default ${goQuote(def)})` : ` (default ${def})`
    return { head, usage }
  })
  const width = Math.max(0, ...rows.map((r) => r.head.length))
  return rows
    .map(({ head, usage }) => {
      const indent = " ".repeat(width + 3)
      return `${head}${" ".repeat(width - head.length + 3)}${usage.replaceAll("\n", "\n" + indent)}\n`
    })
    .join("")
}
