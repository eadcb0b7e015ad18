import { describe, expect, it } from "@effect/vitest"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { renewalSpec } from "../../simulator/nodeagent/RenewalSpec.js"

describe("renewalSpec", () => {
  /** What the agent sent before: the spread of the lease's spec with the new renewTime. */
  const general = (spec: Readonly<Record<string, unknown>>, renewTime: string) => ({ ...extendable, ...spec, renewTime })

  it("is the spread of the spec with the new renewTime: the same keys in the same order, the same values", () => {
    const renewTime = "2026-01-01T00:00:05.123456Z"
    const specs: Array<Record<string, unknown>> = [
      { holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:00.000000Z" },
      { holderIdentity: "node-1", leaseDurationSeconds: 40 },
      { holderIdentity: undefined, leaseDurationSeconds: undefined, renewTime: undefined },
      { holderIdentity: "node-1", renewTime: "x", leaseDurationSeconds: 40 },
      { leaseDurationSeconds: 40, holderIdentity: "node-1", renewTime: "x" },
      { holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "x", acquireTime: "2026-01-01T00:00:00.000000Z" },
      { acquireTime: "a", holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "x" },
      { holderIdentity: "node-1", leaseDurationSeconds: 40, leaseTransitions: 2, renewTime: "x" },
      { holderIdentity: "node-1", renewTime: "x" },
      { renewTime: "x" },
      {}
    ]
    for (const spec of specs) {
      const built = renewalSpec(spec, renewTime)
      const expected = general(spec, renewTime)
      expect([spec, Object.keys(built)]).toEqual([spec, Object.keys(expected)])
      expect([spec, Object.values(built)]).toEqual([spec, Object.values(expected)])
      expect(built).not.toBe(spec)
    }
    // a spec renewed by a renewal is renewed the same way again
    let spec: Record<string, unknown> = specs[0]!
    for (let i = 0; i < 3; i++) spec = renewalSpec(spec, `${renewTime}${i}`)
    expect(Object.entries(spec)).toEqual([["holderIdentity", "node-1"], ["leaseDurationSeconds", 40], ["renewTime", `${renewTime}2`]])
  })
})
