import { describe, expect, it } from "@effect/vitest"
import { fitServiceTime, sharedSeatsOf, type Measurement } from "../../src/calibrate/Fit.js"

/** What the service-time model gives for a step under the given parameters (simulator/apiserver/ServiceTime.ts). */
const modelled = (p: { readBaseMs: number; writeBaseMs: number; perObjectMs: number; perKiBMs: number }, m: Omit<Measurement, "latencyMs">): Measurement => ({
  ...m,
  latencyMs: m.kind === "read" ? p.readBaseMs + p.perObjectMs * m.objects + p.perKiBMs * m.kib : p.writeBaseMs + p.perKiBMs * m.kib
})

const probeSteps: ReadonlyArray<Omit<Measurement, "latencyMs">> = [
  { step: "get 1 KiB", kind: "read", objects: 1, kib: 1.2 },
  { step: "list 0", kind: "read", objects: 0, kib: 0 },
  { step: "list 100", kind: "read", objects: 100, kib: 0 },
  { step: "list 1000", kind: "read", objects: 1000, kib: 0 },
  { step: "create 1 KiB", kind: "write", objects: 0, kib: 1.1 },
  { step: "create 16 KiB", kind: "write", objects: 0, kib: 16.1 },
  { step: "create 64 KiB", kind: "write", objects: 0, kib: 64.1 }
]

describe("fitServiceTime", () => {
  it("recovers the parameters that produced noise-free measurements exactly", () => {
    for (const p of [
      { readBaseMs: 1, writeBaseMs: 2, perObjectMs: 0.005, perKiBMs: 0.01 },
      { readBaseMs: 0.73, writeBaseMs: 4.2, perObjectMs: 0.0137, perKiBMs: 0.052 },
      { readBaseMs: 12, writeBaseMs: 30, perObjectMs: 0.25, perKiBMs: 0 }
    ]) {
      const fit = fitServiceTime(probeSteps.map((s) => modelled(p, s)))
      expect(fit.serviceTime).toEqual(p)
      expect(fit.undetermined).toEqual([])
      for (const s of fit.steps) expect(s.modelledMs).toBeCloseTo(s.measuredMs, 9)
    }
  })

  it("least squares through noisy steps: the residuals sum to zero per request class", () => {
    const p = { readBaseMs: 2, writeBaseMs: 5, perObjectMs: 0.02, perKiBMs: 0.05 }
    const noise = [0.1, -0.2, 0.3, -0.1, 0.2, -0.3, 0.1]
    const fit = fitServiceTime(probeSteps.map((s, i) => ({ ...modelled(p, s), latencyMs: modelled(p, s).latencyMs + noise[i]! })))
    const residual = (kind: "read" | "write") =>
      fit.steps.filter((_, i) => probeSteps[i]!.kind === kind).reduce((sum, s) => sum + (s.measuredMs - s.modelledMs), 0)
    expect(residual("read")).toBeCloseTo(0, 4)
    expect(residual("write")).toBeCloseTo(0, 4)
    expect(fit.serviceTime.perObjectMs).toBeCloseTo(0.02, 3)
  })

  it("a cost the noise makes negative is fixed at 0 and the rest refitted; a parameter no step varies is undetermined", () => {
    // lists that cost the same whatever their size: the per-object estimate would be slightly negative
    const flat: ReadonlyArray<Measurement> = [
      { step: "list 0", kind: "read", objects: 0, kib: 0, latencyMs: 3.1 },
      { step: "list 500", kind: "read", objects: 500, kib: 0, latencyMs: 3.0 },
      { step: "list 1000", kind: "read", objects: 1000, kib: 0, latencyMs: 2.9 }
    ]
    const fit = fitServiceTime(flat)
    expect(fit.serviceTime).toEqual({ readBaseMs: 3, perObjectMs: 0 })
    expect(fit.undetermined).toEqual(["writeBaseMs", "perKiBMs"])
  })

  it("recovers each class's dispersion (p99 ÷ p50) exactly from measurements that have it", () => {
    const p = { readBaseMs: 0.73, writeBaseMs: 4.2, perObjectMs: 0.0137, perKiBMs: 0.052 }
    for (const [read, write] of [[1.8, 3.25], [1, 12.5], [2.37, 1]] as const) {
      const fit = fitServiceTime(probeSteps.map((s) => {
        const m = modelled(p, s)
        return { ...m, p99Ms: m.latencyMs * (s.kind === "read" ? read : write) }
      }))
      expect(fit.serviceTime).toEqual({ ...p, readDispersion: read, writeDispersion: write })
    }
  })

  it("dispersion: the costly steps weigh most, it is never below 1, and a class without p99s has none", () => {
    const steps: ReadonlyArray<Measurement> = [
      { step: "list 0", kind: "read", objects: 0, kib: 0, latencyMs: 1, p99Ms: 11 },
      { step: "list 1000", kind: "read", objects: 1000, kib: 0, latencyMs: 10, p99Ms: 20 },
      { step: "create 1 KiB", kind: "write", objects: 0, kib: 1, latencyMs: 2, p99Ms: 1.5 },
      { step: "create 64 KiB", kind: "write", objects: 0, kib: 64, latencyMs: 4, p99Ms: 3 }
    ]
    // (11·1 + 20·10) ∕ (1 + 100) = 211 ∕ 101
    expect(fitServiceTime(steps).serviceTime.readDispersion).toBe(Number((211 / 101).toPrecision(6)))
    expect(fitServiceTime(steps).serviceTime.writeDispersion).toBe(1)
    const noP99 = fitServiceTime(steps.map(({ p99Ms: _, ...m }) => m))
    expect(noP99.serviceTime).not.toHaveProperty("readDispersion")
    expect(noP99.serviceTime).not.toHaveProperty("writeDispersion")
  })

  it("sharedSeats: 1 exactly when a GET sent during a LIST waited for more than half of it", () => {
    const p = { readBaseMs: 1, writeBaseMs: 2, perObjectMs: 0.01, perKiBMs: 0.02 }
    const steps = probeSteps.map((s) => modelled(p, s))
    expect(sharedSeatsOf({ getAloneMs: 1, getDuringListMs: 7.5, listMs: 11 })).toBe(1)
    expect(sharedSeatsOf({ getAloneMs: 1, getDuringListMs: 6.5, listMs: 11 })).toBeUndefined()
    expect(sharedSeatsOf({ getAloneMs: 1, getDuringListMs: 1.2, listMs: 11 })).toBeUndefined()
    expect(fitServiceTime(steps, { getAloneMs: 1, getDuringListMs: 9, listMs: 11 }).serviceTime).toEqual({ ...p, sharedSeats: 1 })
    expect(fitServiceTime(steps, { getAloneMs: 1, getDuringListMs: 1.1, listMs: 11 }).serviceTime).toEqual(p)
  })
})

