/**
 * One simulated node: its shape and its faults. Faults are known when a run starts (a node stops, or is cut off
 * from the API server for a while); the fields stay mutable so a run can set them before its agents start.
 */
import { extendable } from "../../src/api/internal/V8Shapes.js"

export interface Interval {
  readonly from: number
  readonly to: number
}

export interface SimulatedNode {
  readonly name: string
  readonly zone: string
  readonly region: string
  readonly cpu: string
  readonly memory: string
  /** Pod capacity (already min(cores × podsPerCore, maxPods) or the shape's value). */
  readonly pods: number
  /** When the agent starts (virtual ms). */
  readonly startAt: number
  /** From this time on the agent is dead: no writes at all. Infinity = never. */
  stoppedAt: number
  /** Windows in which the agent cannot reach the API server. */
  partitions: Array<Interval>
}

export const makeNode = (fields: Omit<SimulatedNode, "stoppedAt" | "partitions">): SimulatedNode => ({
  ...extendable,
  ...fields,
  stoppedAt: Infinity,
  partitions: []
})

/** True when `t` falls in one of `windows`. */
export const inside = (windows: ReadonlyArray<Interval>, t: number): boolean => {
  for (const w of windows) if (t >= w.from && t < w.to) return true
  return false
}

/**
 * When the first fault of `node` begins, undefined if it never has one. (Undefined rather than Infinity: a field
 * that only ever holds numbers keeps each in a box of its own, one more memory read per event.)
 */
export const undisturbedUntil = (node: SimulatedNode, pauses: ReadonlyArray<Interval>): number | undefined => {
  const first = Math.min(node.stoppedAt, ...node.partitions.map((w) => w.from), ...pauses.map((w) => w.from))
  return first === Infinity ? undefined : first
}
