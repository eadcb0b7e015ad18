/**
 * What differs between the scenarios two runs ran, field by field (`compare --allow-different`, docs/compare.md
 * "What-if comparisons"): the effective scenarios are compared — the file after `${VAR}` substitution and `--set`
 * (`RunArtifact.scenario.effective`); an artifact from before they were recorded has its file's text read as YAML.
 */
import { parse as parseYaml } from "yaml"
import type { RunArtifact } from "../loadgen/Artifact.js"

export interface FieldDifference {
  /** `cluster.serviceTime.apf`, `phases[0].duration` */
  readonly path: string
  /** The value on each side as text; `(not set)` where a side's scenario does not have the field. */
  readonly baseline: string
  readonly other: string
}

export const NotSet = "(not set)"

/** The scenario a run decoded. */
export const effectiveScenario = (a: RunArtifact): unknown => {
  if (a.scenario.effective !== undefined) return a.scenario.effective
  try {
    return parseYaml(a.scenario.text) ?? undefined
  } catch {
    return undefined
  }
}

const segment = (out: string, key: string | number): string =>
  typeof key === "number" ? `${out}[${key}]` : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? (out === "" ? key : `${out}.${key}`) : `${out}[${JSON.stringify(key)}]`

const show = (v: unknown): string => (v === undefined ? NotSet : typeof v === "string" ? v : JSON.stringify(v))

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Leaf by leaf: a mapping on one side only is walked as if empty on the other (`cluster.serviceTime.apf: (not set) →
 * false`, not the whole mapping); a list item on one side only is one difference, its whole value.
 */
export const scenarioDifferences = (baseline: unknown, other: unknown): ReadonlyArray<FieldDifference> => {
  const out: Array<FieldDifference> = []
  const walk = (a: unknown, b: unknown, path: string) => {
    if ((isRecord(a) || a === undefined) && (isRecord(b) || b === undefined) && (a !== undefined || b !== undefined)) {
      a ??= {}
      b ??= {}
    }
    if (isRecord(a) && isRecord(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
      for (const k of keys) walk(a[k], b[k], segment(path, k))
      return
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        if (i < a.length && i < b.length) walk(a[i], b[i], segment(path, i))
        else out.push({ path: segment(path, i), baseline: show(a[i]), other: show(b[i]) })
      }
      return
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path: path === "" ? "(the whole scenario)" : path, baseline: show(a), other: show(b) })
  }
  walk(baseline, other, "")
  return out
}

/** `cluster.serviceTime.apf: (not set) → false` */
export const differenceText = (d: FieldDifference): string => `${d.path}: ${d.baseline} → ${d.other}`
