import { describe, expect, it } from "@effect/vitest"
import { fitServiceTime, type Measurement } from "../../src/calibrate/Fit.js"

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
})
