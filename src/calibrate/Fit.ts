/**
 * The fit of `clustersim calibrate`: the service-time parameters (the scenario's `cluster.serviceTime`,
 * simulator/apiserver/ServiceTime.ts; docs/calibration.md) under which the simulated server's modelled latency
 * reproduces what the probe measured. The model is linear in its parameters —
 *
 *   read  (GET, LIST) = readBaseMs  + perObjectMs × objects returned + perKiBMs × KiB of the object (GET only)
 *   write             = writeBaseMs                                  + perKiBMs × KiB of the request body
 *
 * — so the fit is ordinary least squares over the probe's steps (each step's median latency, one row per step),
 * solved in closed form on the 4 × 4 normal equations; a parameter the steps cannot determine (no row varies it) is
 * left out and reported as such. Parameters come out non-negative, as the scenario schema requires: a negative
 * estimate (noise around a cost near zero) is fixed at 0 and the others refitted.
 *
 * The spread of a request class (`readDispersion`, `writeDispersion`: p99 ÷ p50 of its service time, the model's
 * log-normal factor) is fitted through the origin over the class's steps — p99 ≈ d × p50, least squares:
 * d = Σ p99·p50 ∕ Σ p50² — so the costly steps (large LISTs and bodies), where the spread costs most, weigh most.
 *
 * `sharedSeats: 1` when a GET sent during a large LIST waits for it (`sharedSeatsOf`): the server answers on one
 * thread, so its reads and writes queue in one line.
 */

/** One probe step's measurement: its request shape and its median latency. */
export interface Measurement {
  readonly step: string
  readonly kind: "read" | "write"
  /** Objects returned (1 for a GET, the items of a LIST, 0 for a write). */
  readonly objects: number
  /** KiB charged per KiB: a GET's object, a write's body; 0 for a LIST (the model charges lists per object). */
  readonly kib: number
  readonly latencyMs: number
  /** The step's 99th percentile (ms), for the class's dispersion; without it the class's is not fitted. */
  readonly p99Ms?: number
}

export const FittedParameters = ["readBaseMs", "writeBaseMs", "perObjectMs", "perKiBMs"] as const
export type FittedParameter = (typeof FittedParameters)[number]
export const DispersionParameters = { read: "readDispersion", write: "writeDispersion" } as const
export type DispersionParameter = (typeof DispersionParameters)[keyof typeof DispersionParameters]

export interface Fit {
  /** The `serviceTime` block (parameters the steps determined). */
  readonly serviceTime: Readonly<Partial<Record<FittedParameter | DispersionParameter | "sharedSeats", number>>>
  /** Parameters no step could determine (left at the simulator's defaults). */
  readonly undetermined: ReadonlyArray<FittedParameter>
  /** Per step: measured and modelled latency (ms). */
  readonly steps: ReadonlyArray<{ readonly step: string; readonly measuredMs: number; readonly modelledMs: number }>
}

const row = (m: Measurement): ReadonlyArray<number> => (m.kind === "read" ? [1, 0, m.objects, m.kib] : [0, 1, 0, m.kib])

/** Solves A x = b (Gaussian elimination with partial pivoting); undefined when A is singular. */
const solve = (a: ReadonlyArray<ReadonlyArray<number>>, b: ReadonlyArray<number>): Array<number> | undefined => {
  const n = b.length
  const m = a.map((r, i) => [...r, b[i]!])
  for (let col = 0; col < n; col++) {
    let pivot = col
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r
    const scale = Math.max(1, ...m.map((r) => Math.abs(r[col]!)))
    if (Math.abs(m[pivot]![col]!) <= 1e-12 * scale) return undefined
    ;[m[col], m[pivot]] = [m[pivot]!, m[col]!]
    for (let r = 0; r < n; r++) {
      if (r === col) continue
      const f = m[r]![col]! / m[col]![col]!
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!
    }
  }
  return m.map((r, i) => r[n]! / r[i]!)
}

/** Least squares over the parameters in `free` (indices into `FittedParameters`), the others fixed at 0. */
const leastSquares = (ms: ReadonlyArray<Measurement>, free: ReadonlyArray<number>): Array<number> | undefined => {
  const ata = free.map((i) => free.map((j) => ms.reduce((s, m) => s + row(m)[i]! * row(m)[j]!, 0)))
  const atb = free.map((i) => ms.reduce((s, m) => s + row(m)[i]! * m.latencyMs, 0))
  return solve(ata, atb)
}

/** Rounds to 6 significant digits, so a block reads cleanly and a noise-free fit recovers its inputs exactly. */
const round = (x: number): number => (x === 0 ? 0 : Number(x.toPrecision(6)))

/** p99 ≈ d × p50 through the origin over a class's steps; at least 1 (quantiles of noise can only make it so). */
const dispersionOf = (ms: ReadonlyArray<Measurement>): number | undefined => {
  const rows = ms.filter((m) => m.p99Ms !== undefined && m.latencyMs > 0)
  const squares = rows.reduce((s, m) => s + m.latencyMs * m.latencyMs, 0)
  if (squares === 0) return undefined
  return Math.max(1, round(rows.reduce((s, m) => s + m.p99Ms! * m.latencyMs, 0) / squares))
}

/** Medians (ms) of a GET alone, of a GET sent during the probe's largest LIST, and of that LIST alone. */
export interface Overlap {
  readonly getAloneMs: number
  readonly getDuringListMs: number
  readonly listMs: number
}

/**
 * 1 when a GET sent during a LIST waited for more than half of the LIST (a server answering on one thread makes it
 * wait for the rest of the LIST, on average most of it; a server with threads to spare answers it as if alone).
 */
export const sharedSeatsOf = (o: Overlap): 1 | undefined => (o.getDuringListMs - o.getAloneMs > o.listMs / 2 ? 1 : undefined)

export const fitServiceTime = (measurements: ReadonlyArray<Measurement>, overlap?: Overlap): Fit => {
  // a parameter no measurement varies cannot be fitted
  const determined = FittedParameters.map((_, i) => measurements.some((m) => row(m)[i] !== 0))
  let free = FittedParameters.map((_, i) => i).filter((i) => determined[i])
  let x: Array<number> | undefined
  for (;;) {
    x = leastSquares(measurements, free)
    if (x === undefined) {
      // collinear columns (e.g. every GET of the same size): drop the per-KiB term, the least determined
      const kib = FittedParameters.indexOf("perKiBMs")
      if (!free.includes(kib)) break
      free = free.filter((i) => i !== kib)
      continue
    }
    const negative = x.findIndex((v) => v < 0)
    if (negative < 0) break
    free = free.filter((_, k) => k !== negative)
  }
  const values = FittedParameters.map(() => 0)
  free.forEach((i, k) => (values[i] = round(x?.[k] ?? 0)))
  const serviceTime: Partial<Record<FittedParameter | DispersionParameter | "sharedSeats", number>> = {}
  FittedParameters.forEach((p, i) => {
    if (determined[i]) serviceTime[p] = values[i]!
  })
  for (const kind of ["read", "write"] as const) {
    const d = dispersionOf(measurements.filter((m) => m.kind === kind))
    if (d !== undefined) serviceTime[DispersionParameters[kind]] = d
  }
  if (overlap !== undefined && sharedSeatsOf(overlap) !== undefined) serviceTime.sharedSeats = 1
  return {
    serviceTime,
    undetermined: FittedParameters.filter((_, i) => !determined[i]),
    steps: measurements.map((m) => ({ step: m.step, measuredMs: m.latencyMs, modelledMs: row(m).reduce((s, v, i) => s + v * values[i]!, 0) }))
  }
}
