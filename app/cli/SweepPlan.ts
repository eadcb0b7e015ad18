/**
 * The points of `clustersim sweep` (docs/sweep.md): each `--vary PATH=V1,V2,…` a list of values for one scenario
 * field, the points their cartesian product (the first `--vary` outermost, as nested loops read), and every value
 * checked exactly as a `--set` of it is (../scenario/SetOverrides.ts) before anything runs. Pure: the caller runs them.
 */
import { Either } from "effect"
import { parseDuration } from "../../src/api/go/Duration.js"
import { type InvalidScenario, type LoadedScenario, parseScenario } from "../scenario/load.js"
import { parseSetOverride, parseSetOverrides, pathText, type SetOverride } from "../scenario/SetOverrides.js"
import { isSimulated } from "../scenario/Simulated.js"
import type { Environment } from "../scenario/Substitution.js"

/** More points than a sweep should run in one go: 256 runs of even a minute each is an afternoon. */
export const MaxSweepPoints = 256

export interface SweepParameter {
  /** `cluster.nodes`, as `pathText` writes it. */
  readonly path: string
  readonly values: ReadonlyArray<string>
}

export interface SweepPoint {
  /** 1-based, in the order of the product. */
  readonly index: number
  /** One value per parameter, in `--vary` order. */
  readonly values: ReadonlyArray<string>
  /** `--set PATH=V` per parameter, given after the sweep's own `--set`s. */
  readonly sets: ReadonlyArray<string>
  /** Its artifact directory under the sweep's: `03-nodes=5000_apf=false`. */
  readonly dir: string
}

export interface SweepPlan {
  /**
   * The scenario's name and seed, as every point starts from, and whether it runs in virtual time (simulated
   * sections) or is a load scenario on the real clock.
   */
  readonly scenario: { readonly name: string; readonly seed: number | undefined; readonly simulated: boolean }
  readonly parameters: ReadonlyArray<SweepParameter>
  readonly points: ReadonlyArray<SweepPoint>
}

/**
 * A value list split at its top-level commas: a comma inside `[…]` or `{…}` belongs to a YAML flow value, so
 * `cluster.zones=[a,b],[c]` is two values. Undefined when a value is empty.
 */
export const splitValues = (text: string): Array<string> | undefined => {
  const out: Array<string> = []
  let depth = 0
  let current = ""
  for (const c of text) {
    if (c === "[" || c === "{") depth++
    else if ((c === "]" || c === "}") && depth > 0) depth--
    if (c === "," && depth === 0) {
      out.push(current)
      current = ""
    } else current += c
  }
  out.push(current)
  return out.some((v) => v.trim() === "") ? undefined : out
}

/** `--vary PATH=V1,V2`: the field's path (as `--set` reads it) and its values, or what is wrong with the flag. */
export const parseVary = (source: string): Either.Either<{ readonly path: SetOverride["path"]; readonly values: ReadonlyArray<string> }, string> => {
  const parsed = parseSetOverride(source)
  if (Either.isLeft(parsed)) return Either.left(parsed.left.replace(/^--set /, "--vary ").replace("path=value, e.g. cluster.nodes=5000", "PATH=V1,V2,…, e.g. cluster.nodes=50,500"))
  const values = splitValues(parsed.right.text)
  if (values === undefined)
    return Either.left(
      parsed.right.text.trim() === ""
        ? `--vary ${source}: no values after "=": give one or more, separated by commas (cluster.nodes=50,500)`
        : `--vary ${source}: an empty value in the list: the values are separated by single commas (a comma inside [ ] or { } belongs to the value)`
    )
  return Either.right({ path: parsed.right.path, values })
}

/** What a value stands for, to find one listed twice: a duration in ms, a number, else the text. */
const sameValueKey = (value: string): string => {
  const text = value.trim()
  const duration = parseDuration(text)
  if (Either.isRight(duration) && /[a-zµ]/i.test(text)) return `duration:${duration.right}`
  return /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text) ? `number:${Number(text)}` : `text:${text}`
}

/** One path is the other or inside it: whichever is applied last would decide both. */
const overlaps = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>) => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (String(a[i]) !== String(b[i])) return false
  return true
}

/**
 * `03-nodes=5000_apf=false`: the index, then each value under its field's last name, safe as a file name (a flow
 * value's brackets dropped, its commas `+`: `zones=a+b`).
 */
const pointDir = (index: number, count: number, parameters: ReadonlyArray<{ readonly path: SetOverride["path"] }>, values: ReadonlyArray<string>) => {
  const names = parameters.map((p, i) => {
    const field = [...p.path].reverse().find((s): s is string => typeof s === "string") ?? "item"
    const value = values[i]!.replace(/[[\]{}"' ]/g, "").replace(/,/g, "+")
    return `${field}=${value}`.replace(/[^A-Za-z0-9._=+-]+/g, "_")
  })
  return `${String(index).padStart(String(count).length, "0")}-${names.join("_")}`.slice(0, 100)
}

export interface PlanInputs {
  readonly file: string
  /** The scenario file's text. */
  readonly text: string
  readonly varies: ReadonlyArray<string>
  /** The sweep's own `--set`s, applied to every point before its varied values. */
  readonly sets: ReadonlyArray<string>
  readonly env?: Environment
}

/** The sweep's points, each value and each point checked as `run --set` would check it; or the first problem (a usage error). */
export const planSweep = (o: PlanInputs): Either.Either<SweepPlan, string> => {
  if (o.varies.length === 0) return Either.left("sweep needs at least one --vary PATH=V1,V2,… (e.g. --vary cluster.nodes=50,500)")
  const baseSets = parseSetOverrides(o.sets)
  if (Either.isLeft(baseSets)) return Either.left(baseSets.left)
  const parameters: Array<{ readonly source: string; readonly path: SetOverride["path"]; readonly values: ReadonlyArray<string> }> = []
  for (const source of o.varies) {
    const parsed = parseVary(source)
    if (Either.isLeft(parsed)) return Either.left(parsed.left)
    const { path, values } = parsed.right
    const twice = parameters.find((p) => overlaps(p.path, path))
    if (twice !== undefined)
      return Either.left(`--vary ${pathText(path)}: ${pathText(twice.path) === pathText(path) ? "varied twice" : `overlaps --vary ${pathText(twice.path)}`}: give each field one --vary with all its values`)
    const set = baseSets.right.find((s) => overlaps(s.path, path))
    if (set !== undefined) return Either.left(`--vary ${pathText(path)}: also given by --set ${set.source}: a field is either set for every point or varied, not both`)
    // `1m` and `60s` are one point: compared as the values they stand for
    const normalised = values.map(sameValueKey)
    const again = normalised.findIndex((k, i) => normalised.indexOf(k) !== i)
    if (again >= 0) {
      const first = values[normalised.indexOf(normalised[again]!)]!
      return Either.left(`--vary ${source}: the value ${values[again]} is listed twice${first !== values[again] ? ` (as ${first})` : ""}`)
    }
    parameters.push({ source, path, values })
  }
  const count = parameters.reduce((n, p) => n * p.values.length, 1)
  if (count > MaxSweepPoints)
    return Either.left(`sweep: ${parameters.map((p) => p.values.length).join(" × ")} = ${count} points, more than ${MaxSweepPoints}: split the sweep, or vary fewer values`)

  // the scenario as every point starts from, then each value on its own: a problem names its --vary and value
  const load = (extra: ReadonlyArray<string>): Either.Either<LoadedScenario, string | InvalidScenario> =>
    Either.flatMap(parseSetOverrides([...o.sets, ...extra]), (sets) => parseScenario(o.text, o.file, undefined, { sets, ...(o.env ? { env: o.env } : {}) }))
  const check = (extra: ReadonlyArray<string>) => Either.match(load(extra), { onLeft: (e) => e, onRight: () => undefined })
  const base = load([])
  if (Either.isLeft(base)) return Either.left(typeof base.left === "string" ? base.left : base.left.message)
  const scenario = { name: base.right.scenario.metadata.name, seed: base.right.scenario.seed, simulated: isSimulated(base.right.scenario) }
  for (const p of parameters)
    for (const v of p.values) {
      const set = `${pathText(p.path)}=${v}`
      const problem = check([set])
      if (problem === undefined) continue
      const text = typeof problem === "string" ? problem : problem.issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`)).join("; ")
      return Either.left(`--vary ${pathText(p.path)}: the value ${v}: ${text}`)
    }

  const points: Array<SweepPoint> = []
  const product = (i: number, chosen: ReadonlyArray<string>): void => {
    if (i === parameters.length) {
      const index = points.length + 1
      points.push({ index, values: chosen, sets: parameters.map((p, k) => `${pathText(p.path)}=${chosen[k]}`), dir: pointDir(index, count, parameters, chosen) })
      return
    }
    for (const v of parameters[i]!.values) product(i + 1, [...chosen, v])
  }
  product(0, [])
  // values that pass one by one may still clash (a cross-field rule): each point as its run will read it
  for (const point of points) {
    const problem = check(point.sets)
    if (problem !== undefined)
      return Either.left(`sweep: point ${point.index} (${point.sets.join(", ")}): ${typeof problem === "string" ? problem : problem.message}`)
  }
  return Either.right({ scenario, parameters: parameters.map((p) => ({ path: pathText(p.path), values: p.values })), points })
}
