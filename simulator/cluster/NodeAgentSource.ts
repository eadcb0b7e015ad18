/**
 * The NodeAgentConfiguration of a `cluster` section — inline (`nodeAgent.config`) or a file (`nodeAgent.file`) —
 * read, defaulted and validated exactly as the node agent does at startup (`nodeagent/config/check.ts`). Problems
 * come back with a path relative to the `nodeAgent` object, so the scenario loader can point at the line and
 * column of the scenario file; problems inside a referenced file keep that file's own `file:line:col`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { checkNodeAgentConfiguration } from "../nodeagent/config/check.js"
import { decodeNodeAgentConfiguration } from "../nodeagent/config/decode.js"
import { apiVersion, kind, type NodeAgentConfiguration } from "../nodeagent/config/NodeAgentConfiguration.js"
import type { NodeAgentSource } from "./ClusterSpec.js"

export interface SourceProblem {
  /** Relative to the `nodeAgent` object: `["config", "evictionHard", "memory.available"]`, `["file"]`. */
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
  /** An unknown or duplicate field: upstream only warns, a scenario refuses it (docs/scenarios.md). */
  readonly strict: boolean
}

export interface CheckedSource {
  /** The defaulted configuration, when it decoded and validated. */
  readonly config?: NodeAgentConfiguration
  readonly problems: ReadonlyArray<SourceProblem>
}

/** `registerWithTaints[0].key`, `evictionHard[memory.available]` → path segments. */
export const splitFieldPath = (p: string): Array<PropertyKey> => {
  const out: Array<PropertyKey> = []
  for (const m of p.matchAll(/([^.[\]]+)|\[(\d+)\]|\[([^\]]*)\]/g)) {
    if (m[1] !== undefined) out.push(m[1])
    else if (m[2] !== undefined) out.push(Number(m[2]))
    else out.push(m[3]!)
  }
  return out
}

/** Upstream's validation texts name their field first (`invalid configuration: eventBurst (--event-burst) …`). */
const fieldNamedIn = (message: string, config: Readonly<Record<string, unknown>>): Array<PropertyKey> => {
  for (const m of message.matchAll(/[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*/g)) {
    const segments = m[0].split(".")
    let at: unknown = config
    let found = true
    for (const s of segments) {
      if (at === null || typeof at !== "object" || !(s in (at as object))) {
        found = false
        break
      }
      at = (at as Record<string, unknown>)[s]
    }
    if (found) return segments
  }
  // a key of a map field (`evictionSoft: { memory.available: … }`): the first map that has a key the message names
  for (const [field, value] of Object.entries(config)) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) continue
    const key = Object.keys(value).find((k) => new RegExp(`(^|[\\s"'])${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[\\s"':,])`).test(message))
    if (key !== undefined) return [field, key]
  }
  return []
}

export const checkNodeAgentSource = (source: NodeAgentSource | undefined, baseDir = "."): CheckedSource => {
  if (source?.file !== undefined && source.config !== undefined) {
    return { problems: [{ path: ["file"], message: `give "config" or "file", not both`, strict: false }] }
  }
  if (source?.file !== undefined) {
    const file = path.resolve(baseDir, source.file)
    let text: string
    try {
      text = fs.readFileSync(file, "utf8")
    } catch (e) {
      return { problems: [{ path: ["file"], message: `cannot read node agent configuration ${file}: ${(e as Error).message}`, strict: false }] }
    }
    // a file is a whole configuration and must hold the spec's required fields; the inline form overrides defaults
    const checked = checkNodeAgentConfiguration(text, file, { requireFields: true })
    const problems = [
      ...checked.errors.map((message) => ({ path: ["file"], message: message.startsWith(file) ? message : `${file}: ${message}`, strict: false })),
      ...strictIssues(text, file).map((message) => ({ path: ["file"], message, strict: true }))
    ]
    return checked.errors.length === 0 && checked.config ? { config: checked.config, problems } : { problems }
  }
  const inline = source?.config ?? {}
  const text = YAML.stringify({ apiVersion, kind, ...inline })
  const name = "<cluster.nodeAgent.config>"
  const decoded = decodeNodeAgentConfiguration(text, name)
  const problems: Array<SourceProblem> = decoded.issues.map((i) => ({ path: ["config", ...splitFieldPath(i.path)], message: i.message, strict: i.kind !== "error" }))
  const undecodable = new Set(decoded.issues.filter((i) => i.kind === "error").map((i) => String(splitFieldPath(i.path)[0] ?? "")))
  // upstream stops at the first field it cannot decode; the scenario reports every problem at once, so the
  // validator still judges the fields that did decode (those that did not take their defaults)
  const judged = undecodable.size === 0 ? inline : Object.fromEntries(Object.entries(inline).filter(([k]) => !undecodable.has(k)))
  const checked = checkNodeAgentConfiguration(undecodable.size === 0 ? text : YAML.stringify({ apiVersion, kind, ...judged }), name)
  for (const message of checked.errors) {
    if (decoded.issues.some((i) => message.includes(i.message))) continue
    problems.push({ path: ["config", ...fieldNamedIn(message, inline)], message, strict: false })
  }
  return undecodable.size === 0 && checked.errors.length === 0 && checked.config ? { config: checked.config, problems } : { problems }
}

/** Unknown and duplicate fields of a configuration file, located in that file. */
const strictIssues = (text: string, file: string): Array<string> =>
  decodeNodeAgentConfiguration(text, file)
    .issues.filter((i) => i.kind !== "error")
    .map((i) => `${i.line === undefined ? file : `${file}:${i.line}:${i.column}`}: ${i.path === "" ? "" : `${i.path}: `}${i.message}`)
