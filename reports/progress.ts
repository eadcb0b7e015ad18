/**
 * A run's progress line: how far it is, of how much, and when it ends — `[ 42%] 25m12s / 60m00s virtual · ETA 14 s`.
 * On a terminal the runner rewrites it in place; without one (CI, a pipe) it writes one every few seconds to stderr.
 */
import { clockText } from "./format.js"

export interface ProgressPoint {
  /** Run time reached (virtual ms for a simulation, elapsed ms on the real clock). */
  readonly doneMs: number
  /** The run's planned length on the same clock; 0 or less: unknown (no percent, no ETA). */
  readonly totalMs: number
  /** Wall time spent so far: a simulation's ETA extrapolates its pace; on the real clock the ETA is what is left. */
  readonly wallMs: number
  readonly clock: "virtual" | "real"
  /** What follows: the phase, operations, errors. */
  readonly detail?: string
}

/** `14 s`, `2 min 05 s`, `1 h 02 min`: a wait, rounded up to the second. */
export const etaText = (ms: number): string => {
  const s = Math.max(0, Math.ceil(ms / 1000))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`
}

/** The time left, or undefined before there is a pace to extrapolate from. */
export const etaMs = (p: ProgressPoint): number | undefined => {
  if (p.totalMs <= 0) return undefined
  if (p.doneMs >= p.totalMs) return 0
  if (p.clock === "real") return p.totalMs - p.doneMs
  return p.doneMs > 0 && p.wallMs > 0 ? (p.wallMs * (p.totalMs - p.doneMs)) / p.doneMs : undefined
}

export const progressLine = (p: ProgressPoint): string => {
  const clock = p.clock === "virtual" ? " virtual" : ""
  const detail = p.detail !== undefined && p.detail !== "" ? ` · ${p.detail}` : ""
  if (p.totalMs <= 0) return `[    ] ${clockText(p.doneMs)}${clock}${detail}`
  const percent = Math.min(100, Math.floor((100 * p.doneMs) / p.totalMs))
  const eta = etaMs(p)
  return `[${String(percent).padStart(3)}%] ${clockText(Math.min(p.doneMs, p.totalMs))} / ${clockText(p.totalMs)}${clock} · ETA ${eta === undefined ? "—" : etaText(eta)}${detail}`
}
