/**
 * Node taints and pod tolerations (upstream `k8s.io/api/core/v1` types.go `Taint`, `Toleration`; toleration.go
 * `ToleratesTaint`): the one matching rule the scheduler, the taint manager and node admission share.
 */
import type { KObject } from "../Object.js"

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute"

export interface Taint {
  readonly key: string
  /** Absent and "" are the same value. */
  readonly value?: string
  readonly effect: string
  /** RFC 3339; set for NoExecute taints by the node lifecycle controller. */
  readonly timeAdded?: string
}

export interface Toleration {
  readonly key?: string
  /** "Exists" or "Equal"; absent or "" means Equal. */
  readonly operator?: string
  readonly value?: string
  /** Absent or "" matches every effect. */
  readonly effect?: string
  /** NoExecute only: how long the pod stays once tainted; absent = forever. */
  readonly tolerationSeconds?: number
}

/**
 * `Toleration.ToleratesTaint`: an empty effect matches every effect, an empty key every key; `Exists` matches any
 * value, `Equal` (or no operator) the same value; any other operator matches nothing. (Validation rejects an empty
 * key without `Exists`, but matching does not depend on it: such a toleration matches taints of its value.)
 */
export const tolerates = (t: Toleration, taint: Taint): boolean => {
  if (t.effect !== undefined && t.effect !== "" && t.effect !== taint.effect) return false
  if (t.key !== undefined && t.key !== "" && t.key !== taint.key) return false
  const op = t.operator
  if (op === undefined || op === "" || op === "Equal") return (t.value ?? "") === (taint.value ?? "")
  return op === "Exists"
}

/** `TolerationsTolerateTaint`: some toleration tolerates the taint. */
export const toleratesAny = (tolerations: ReadonlyArray<Toleration>, taint: Taint): boolean => {
  for (const t of tolerations) if (tolerates(t, taint)) return true
  return false
}

/** The taints of a Node object (`spec.taints`), none when absent. */
export const taintsOf = (node: KObject): ReadonlyArray<Taint> => ((node.spec as { taints?: ReadonlyArray<Taint> } | undefined)?.taints ?? [])
