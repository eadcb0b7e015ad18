/**
 * Reading a scenario file: YAML → effect/Schema decode → cross-field checks. Every problem is a
 * `ScenarioIssue` with the field path and, where the file has the node, its line and column
 * (`yaml`'s `LineCounter` maps the node's offset), printed as `file:line:col: path: message`. Between YAML and the
 * decode, `${VAR}` references are substituted (./Substitution.ts) and `--set` overrides applied (./SetOverrides.ts):
 * what is decoded is the effective scenario, and a problem in a value a `--set` gave names that `--set`.
 */
import { dirname } from "node:path"
import { Data, Either, ParseResult, Schema } from "effect"
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml"
import { ClusterBounds } from "../../simulator/cluster/ClusterSpec.js"
import { checkNodeAgentSource } from "../../simulator/cluster/NodeAgentSource.js"
import { registryFaultProblems } from "../../simulator/nodeagent/images/ImagesSpec.js"
import { durationMillis } from "../../src/api/go/Schemas.js"
import { resolveResource } from "../../src/api/Resources.js"
import { isClusterMetric } from "../../src/loadgen/ClusterMetrics.js"
import { closestMatch, unreachableReason } from "../../src/loadgen/SeriesPattern.js"
import { unreadableLog } from "../../src/replay/AuditLogFile.js"
import { parseThreshold, ServerMetricName } from "../../src/loadgen/Thresholds.js"
import { clusterSeries, possibleSeries } from "./PossibleSeries.js"
import { sectionProblems } from "./SectionChecks.js"
import { DefaultTimeUnitMs, LoadBounds, Scenario, serverSideFailures } from "./Scenario.js"
import { applySetOverrides, closestPath, type SetOverride } from "./SetOverrides.js"
import { type Environment, substituteDocument } from "./Substitution.js"
import { MaxYamlNesting, nestingPastBound } from "./YamlNesting.js"

/**
 * Aliases a scenario may use: YAML anchors are handy for repeated request bodies, but an alias bomb
 * (billion laughs) expands a few hundred bytes into gigabytes; the yaml library refuses more than this.
 */
export const MaxAliasCount = 100

export interface ScenarioIssue {
  /** `phases[0].actions[1].rate`; empty for the whole document. */
  readonly path: string
  readonly message: string
  readonly line?: number
  readonly column?: number
  /** The `--set` that gave the value (`cluster.nodes=5000`): the problem is there, not in the file. */
  readonly set?: string
}

export class InvalidScenario extends Data.TaggedError("InvalidScenario")<{
  readonly file: string
  readonly issues: ReadonlyArray<ScenarioIssue>
}> {
  override get message(): string {
    return this.issues.map((i) => formatIssue(this.file, i)).join("\n")
  }
}

export const formatIssue = (file: string, i: ScenarioIssue): string => {
  const where = i.set !== undefined ? `${file}: --set ${i.set}` : i.line === undefined ? file : `${file}:${i.line}:${i.column}`
  return i.path === "" ? `${where}: ${i.message}` : `${where}: ${i.path}: ${i.message}`
}

export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`
    else {
      const s = String(p)
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? (out === "" ? s : `.${s}`) : `[${JSON.stringify(s)}]`
    }
  }
  return out
}

/** The deepest node the file has along `path` and whether it is the node itself or an ancestor. */
const nodeAt = (doc: Document, path: ReadonlyArray<PropertyKey>): { node: Node | undefined; exact: boolean; key?: Node } => {
  let node: Node | undefined = doc.contents ?? undefined
  let keyNode: Node | undefined
  for (let i = 0; i < path.length; i++) {
    const p = path[i]!
    let next: Node | undefined
    let nextKey: Node | undefined
    if (isMap(node)) {
      const pair = node.items.find((it) => {
        const k = it.key as { value?: unknown } | null
        return k !== null && typeof k === "object" && String(k.value) === String(p)
      })
      if (pair) {
        nextKey = pair.key as Node
        next = (pair.value as Node | null) ?? nextKey
      }
    } else if (isSeq(node) && typeof p === "number") {
      next = (node.items[p] as Node | undefined) ?? undefined
    }
    if (next === undefined) return { node, exact: false }
    node = next
    keyNode = nextKey
  }
  return { node, exact: true, key: keyNode }
}

const locate = (doc: Document, lc: LineCounter, path: ReadonlyArray<PropertyKey>, message: string, preferKey = false): ScenarioIssue => {
  const found = nodeAt(doc, path)
  const target = preferKey && found.key ? found.key : found.node
  const offset = target?.range?.[0]
  if (offset === undefined) return { path: formatPath(path), message }
  const pos = lc.linePos(offset)
  return { path: formatPath(path), message, line: pos.line, column: pos.col }
}

/** Effect's messages, made to read as one line per issue. */
const issueMessage = (issue: ParseResult.ArrayFormatterIssue): string => {
  if (issue._tag === "Unexpected") return `unknown field${closestField(issue.path)}`
  if (issue._tag === "Missing") return "required field is missing"
  const message = issue.message.replace(/\s*\n\s*/g, " ")
  // one of a field's literals misspelt (`type: stop-node`): name the closest, as for a threshold's tag values
  const literals = /^Expected ((?:"[^"]*"(?: \| )?)+), actual "([^"]*)"$/.exec(message)
  const near = literals ? closestMatch(literals[2]!, [...literals[1]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!)) : undefined
  return near !== undefined ? `${message}; did you mean "${near}"?` : message
}

/** `; did you mean "duration"?` for a misspelt field (`duraton`), from the paths `--set` suggests (./SetOverrides.ts). */
const closestField = (path: ReadonlyArray<PropertyKey>): string => {
  const segments = path.map((p) => (typeof p === "number" ? p : String(p)))
  const near = closestPath(Scenario.ast, segments)
  const last = segments[segments.length - 1]
  if (near === undefined || typeof last !== "string" || near.length !== segments.length) return ""
  const same = near.slice(0, -1).every((p, i) => p === segments[i])
  const name = near[near.length - 1]
  return same && typeof name === "string" && closestMatch(last, [name]) !== undefined ? `; did you mean "${name}"?` : ""
}

/** Cross-field rules a struct schema cannot say: references between sections, unique names. */
const crossChecks = (s: Scenario, baseDir: string): Array<{ path: ReadonlyArray<PropertyKey>; message: string; key?: boolean }> => {
  const out: Array<{ path: ReadonlyArray<PropertyKey>; message: string; key?: boolean }> = []
  const sets = new Map<string, number>()
  s.setup?.objects?.forEach((o, i) => {
    if (sets.has(o.name)) out.push({ path: ["setup", "objects", i, "name"], message: `duplicate object set name "${o.name}"` })
    sets.set(o.name, i)
  })
  // a replay of a log that cannot be read would replay nothing and find out only when its phase starts
  s.phases.forEach((p, pi) =>
    p.actions.forEach((a, ai) => {
      if (a.type !== "replay") return
      a.logs.forEach((log, li) => {
        const why = unreadableLog(log)
        if (why !== undefined) out.push({ path: ["phases", pi, "actions", ai, "logs", li], message: `${log}: ${why}` })
      })
    })
  )
  // a threshold no series can reach would only ever fail with "no data" (k6 #1526: thresholds must not pass silently)
  const patterns = possibleSeries(s)
  for (const [name, exprs] of Object.entries(s.thresholds ?? {})) {
    const t = parseThreshold(name, exprs)
    if (Either.isLeft(t)) continue
    // judged on the target's own histograms, which no scenario series predicts; but its phases are the scenario's
    if (t.right.metric === ServerMetricName) {
      const phases = s.phases.map((p) => p.name)
      const missing = (t.right.selector.phase ?? []).find((p) => !phases.some((q) => q.toLowerCase() === p))
      if (missing !== undefined) {
        const near = closestMatch(missing, phases)
        const hint = near !== undefined ? `; did you mean "${near}"?` : phases.length > 0 ? ` (phases: ${phases.map((p) => `"${p}"`).join(", ")})` : ""
        out.push({ path: ["thresholds", name], message: `the scenario has no phase "${missing}"${hint}`, key: true })
      }
      continue
    }
    if (isClusterMetric(t.right.metric)) {
      if (s.cluster === undefined) {
        out.push({ path: ["thresholds", name], message: `${t.right.metric} judges a simulated cluster's result; add a "cluster" section` })
        continue
      }
      // a tag value no sample carries (`status:NotReady`) would only ever report "observed no data"
      const samples = clusterSeries(s)[t.right.metric]
      if (samples !== undefined && samples.length === 0) {
        // a threshold shared with the same scenario with APF on, passing on no data by choice
        if (!t.right.conditions.every((c) => c.allowNoData === true)) out.push({ path: ["thresholds", name], message: `${t.right.metric} needs API Priority and Fairness, which cluster.serviceTime turns off`, key: true })
        continue
      }
      const reason = samples === undefined ? undefined : unreachableReason(t.right, samples)
      if (reason !== undefined) out.push({ path: ["thresholds", name], message: reason.replace(/^no series/, `no ${t.right.metric} sample`), key: true })
      continue
    }
    const reason = unreachableReason(t.right, patterns)
    if (reason !== undefined) out.push({ path: ["thresholds", name], message: reason, key: true })
  }
  // each bound alone admits 100,000 × 1,000 pods, which no heap holds: the product has a bound of its own
  const seeded = (s.cluster?.nodes ?? 0) * (s.cluster?.podsPerNode ?? 0)
  if (seeded > ClusterBounds.seededPods) {
    out.push({
      path: ["cluster", "podsPerNode"],
      message: `${s.cluster!.nodes.toLocaleString("en-US")} nodes × ${s.cluster!.podsPerNode} pods per node is ${seeded.toLocaleString("en-US")} pods, more than ${ClusterBounds.seededPods.toLocaleString("en-US")} (docs/scenarios.md "Bounds")`
    })
  }
  if (s.faults !== undefined && s.faults.length > 0 && s.cluster === undefined) {
    out.push({ path: ["faults"], message: `faults act on a simulated cluster; add a "cluster" section` })
  }
  if (s.faults !== undefined && s.cluster !== undefined) {
    for (const p of registryFaultProblems(s.cluster.images, s.faults)) out.push({ path: ["faults", p.index, ...p.path], message: p.message })
  }
  out.push(...sectionProblems(s, baseDir))
  if (s.scheduler !== undefined && s.cluster === undefined && s.scheduler.nodes.length === 0) {
    out.push({ path: ["scheduler"], message: `"nodes" is required without a "cluster" section (the scheduler needs nodes to place pods on)` })
  }
  const phaseNames = new Set<string>()
  s.phases.forEach((phase, pi) => {
    if (phaseNames.has(phase.name)) out.push({ path: ["phases", pi, "name"], message: `duplicate phase name "${phase.name}"` })
    phaseNames.add(phase.name)
    phase.actions.forEach((a, ai) => {
      const base = ["phases", pi, "actions", ai] as const
      if (s.cluster !== undefined && (serverSideFailures.includes(a.type) || a.type === "expire-continue-token")) {
        out.push({ path: [...base, "type"], message: `"${a.type}" is not available in a cluster scenario; use "faults"` })
      }
      // the bound is per second whatever the unit: 1 per 1ns is 10⁹ a second (docs/scenarios.md "Bounds")
      if (a.type === "constant-arrival-rate" || a.type === "ramping-arrival-rate") {
        const unitMs = a.timeUnit !== undefined ? durationMillis(a.timeUnit) : DefaultTimeUnitMs
        const rates: Array<[ReadonlyArray<PropertyKey>, number]> =
          a.type === "constant-arrival-rate"
            ? [[["rate"], a.rate]]
            : [...(a.startRate !== undefined ? [[["startRate"], a.startRate] as [ReadonlyArray<PropertyKey>, number]] : []), ...a.stages.map((st, si): [ReadonlyArray<PropertyKey>, number] => [["stages", si, "target"], st.target])]
        for (const [at, rate] of rates) {
          const perSecond = (rate * 1000) / unitMs
          if (perSecond > LoadBounds.rate && unitMs !== DefaultTimeUnitMs) {
            out.push({ path: [...base, ...at], message: `${rate} per ${a.timeUnit} is ${perSecond.toLocaleString("en-US", { maximumSignificantDigits: 6 })} per second, more than ${LoadBounds.rate.toLocaleString("en-US")} (docs/scenarios.md "Bounds")` })
          }
        }
      }
      if (a.type === "ramping-arrival-rate" || a.type === "constant-arrival-rate" || a.type === "closed") {
        const r = a.request
        const rbase = [...base, "request"]
        if (r.objects !== undefined && !sets.has(r.objects)) {
          out.push({ path: [...rbase, "objects"], message: `no setup object set named "${r.objects}"` })
        }
        if (r.resource === undefined && r.objects === undefined) {
          out.push({ path: rbase, message: `one of "resource" or "objects" is required` })
        }
        const needsName = r.verb === "get" || r.verb === "update" || r.verb === "patch" || r.verb === "delete"
        if (needsName && r.objects === undefined && r.name === undefined) {
          out.push({ path: [...rbase, "verb"], message: `"${r.verb}" needs "objects" (a setup set) or "name"` })
        }
        if (r.verb !== "list" && (r.limit !== undefined || r.resourceVersionMatch !== undefined)) {
          out.push({ path: [...rbase, r.limit !== undefined ? "limit" : "resourceVersionMatch"], message: `only for "list"` })
        }
        if (r.resource !== undefined && r.objects !== undefined && sets.has(r.objects)) {
          const set = s.setup!.objects![sets.get(r.objects)!]!
          if (resolveResource(set.resource) !== resolveResource(r.resource)) {
            out.push({ path: [...rbase, "resource"], message: `object set "${r.objects}" holds ${set.resource}, not ${r.resource}` })
          }
        }
      }
    })
  })
  return out
}

export interface LoadedScenario {
  readonly scenario: Scenario
  readonly text: string
  /** The scenario as decoded: the file's YAML value after `${VAR}` substitution and the `--set` overrides. */
  readonly effective: unknown
  /** The environment variables the file referred to, sorted. */
  readonly variables: ReadonlyArray<string>
  /** The `--set` overrides applied, as given. */
  readonly sets: ReadonlyArray<string>
}

export type LoadResult = Either.Either<LoadedScenario, InvalidScenario>

/** What besides the file makes the effective scenario. */
export interface ScenarioInputs {
  /** `${VAR}` values; default `process.env`. */
  readonly env?: Environment
  /** `--set path=value`, applied in order. */
  readonly sets?: ReadonlyArray<SetOverride>
}

/**
 * The YAML value of the file with its `${VAR}` references substituted, or the issues that stop reading it (syntax,
 * alias bombs, nesting past the stack, unset variables).
 */
const readYaml = (
  text: string,
  file: string,
  env: Environment,
  replaced: (path: ReadonlyArray<string | number>) => boolean
): Either.Either<{ doc: Document; lc: LineCounter; value: unknown; variables: ReadonlyArray<string> }, InvalidScenario> => {
  const lc = new LineCounter()
  try {
    const deep = nestingPastBound(text)
    if (deep !== undefined) {
      const before = text.slice(0, deep)
      const line = before.split("\n").length
      const column = deep - before.lastIndexOf("\n")
      return Either.left(new InvalidScenario({ file, issues: [{ path: "", message: `YAML: nested deeper than ${MaxYamlNesting} levels`, line, column }] }))
    }
    // merge keys (`<<: *defaults`) as YAML 1.1 has them: handy beside anchors for repeated bodies
    const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true, merge: true })
    if (doc.errors.length > 0) {
      const issues = doc.errors.map((e) => {
        const pos = lc.linePos(e.pos[0])
        // the library's text names its own API (`please use YAML.parseAllDocuments()`)
        const message = e.code === "MULTIPLE_DOCS" ? "a scenario file is one YAML document; a second one starts here" : e.message.split("\n")[0]
        return { path: "", message: `YAML: ${message}`, line: pos.line, column: pos.col }
      })
      return Either.left(new InvalidScenario({ file, issues }))
    }
    const substituted = substituteDocument(doc, text, env, replaced)
    if (substituted.problems.length > 0) {
      const issues = substituted.problems.map((p) => {
        const pos = lc.linePos(p.offset)
        return { path: formatPath(p.path), message: p.message, line: pos.line, column: pos.col }
      })
      return Either.left(new InvalidScenario({ file, issues }))
    }
    const value: unknown = doc.toJS({ maxAliasCount: MaxAliasCount })
    if (value === null || value === undefined) return Either.left(new InvalidScenario({ file, issues: [{ path: "", message: "empty file" }] }))
    return Either.right({ doc, lc, value, variables: substituted.variables })
  } catch (e) {
    // the yaml library throws for alias bombs ("Excessive alias count…"); a stack overflow is a nesting bomb
    const message = e instanceof RangeError ? "YAML: nesting too deep" : `YAML: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`
    return Either.left(new InvalidScenario({ file, issues: [{ path: "", message }] }))
  }
}

/** Where the node agent configuration of a `cluster` section is wrong (its own validator's messages, located). */
const nodeAgentIssues = (value: unknown, baseDir: string): Array<{ path: ReadonlyArray<PropertyKey>; message: string }> => {
  const cluster = (value as { cluster?: unknown }).cluster
  if (cluster === null || typeof cluster !== "object") return []
  const source = (cluster as { nodeAgent?: unknown }).nodeAgent
  if (source === null || typeof source !== "object") return []
  const { config, file } = source as { config?: unknown; file?: unknown }
  // a wrong type here is the Schema's to report
  if ((config !== undefined && (config === null || typeof config !== "object" || Array.isArray(config))) || (file !== undefined && typeof file !== "string")) return []
  const checked = checkNodeAgentSource(source as { config?: Record<string, unknown>; file?: string }, baseDir)
  return checked.problems.map((p) => ({ path: ["cluster", "nodeAgent", ...p.path], message: p.message }))
}

/**
 * Parse and decode scenario text; `file` names the source in messages, its directory resolves `nodeAgent.file`;
 * `inputs` are the environment for `${VAR}` and the `--set` overrides.
 */
export const parseScenario = (text: string, file: string, baseDir = dirname(file), inputs: ScenarioInputs = {}): LoadResult => {
  const sets = inputs.sets ?? []
  const setAt = (path: ReadonlyArray<PropertyKey>) => [...sets].reverse().find((s) => s.path.length <= path.length && s.path.every((p, i) => String(p) === String(path[i])))
  const read = readYaml(text, file, inputs.env ?? process.env, (path) => setAt(path) !== undefined)
  if (Either.isLeft(read)) return Either.left(read.left)
  const { doc, lc, variables } = read.right
  if (typeof read.right.value !== "object" || Array.isArray(read.right.value)) {
    return Either.left(new InvalidScenario({ file, issues: [locate(doc, lc, [], "a scenario is a YAML mapping (apiVersion, kind, metadata, …)")] }))
  }
  const overridden = applySetOverrides(Scenario.ast, read.right.value, sets)
  if (overridden.problems.length > 0) {
    const issues = overridden.problems.map((p) => ({ path: formatPath(p.path), message: p.message, set: p.set.source }))
    return Either.left(new InvalidScenario({ file, issues }))
  }
  const value = overridden.value
  // a problem at or under a field a --set gave is the --set's (the last one that reaches it), not the file's line
  // a field missing where a --set changed its sibling (`faults[0].type=partition` needs `for`) is that --set's doing
  const setBeside = (path: ReadonlyArray<PropertyKey>) =>
    [...sets].reverse().find((s) => s.path.length >= 2 && s.path.length === path.length && s.path.slice(0, -1).every((p, i) => String(p) === String(path[i])))
  const at = (path: ReadonlyArray<PropertyKey>, message: string, preferKey = false, missing = false): ScenarioIssue => {
    const set = setAt(path) ?? (missing ? setBeside(path) : undefined)
    return set !== undefined ? { path: formatPath(path), message, set: set.source } : locate(doc, lc, path, message, preferKey)
  }
  const decoded = Schema.decodeUnknownEither(Scenario, { errors: "all", onExcessProperty: "error" })(value)
  // every problem at once: the Schema's, the node agent validator's and (on a decoded scenario) the cross-field rules
  const issues: Array<ScenarioIssue> = nodeAgentIssues(value, baseDir).map((i) => at(i.path, i.message))
  if (Either.isLeft(decoded)) {
    issues.push(...ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => at(i.path, issueMessage(i), i._tag === "Unexpected", i._tag === "Missing")))
  } else issues.push(...crossChecks(decoded.right, baseDir).map((c) => at(c.path, c.message, c.key === true)))
  if (issues.length > 0 || Either.isLeft(decoded)) return Either.left(new InvalidScenario({ file, issues: dedupe(issues) }))
  return Either.right({ scenario: decoded.right, text, effective: value, variables, sets: sets.map((s) => s.source) })
}

/** Drops duplicates and the "Expected undefined" half of an optional field's union, then sorts by position. */
const dedupe = (issues: ReadonlyArray<ScenarioIssue>): Array<ScenarioIssue> => {
  const seen = new Set<string>()
  const under = (parent: string, child: string) => child !== parent && (child.startsWith(parent + ".") || child.startsWith(parent + "["))
  return issues.filter((i) => {
    // an optional field's union says "Expected undefined" beside the real complaint about the same field
    if (i.message.startsWith("Expected undefined, actual") && issues.some((o) => o !== i && (o.path === i.path || under(i.path, o.path)))) return false
    const k = `${i.path}\u0000${i.message}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  }).sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
}
