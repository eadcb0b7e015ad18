/** client-go's reflector backoff: `NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`. */
import { describe, expect, it } from "@effect/vitest"
import { initialBackoff, nextBackoff, reflectorBackoff } from "../../src/informer/Backoff.js"

describe("reflector backoff", () => {
  it("800 ms doubling to a 30 s cap, jitter on top of the cap, reset after 2 min quiet", () => {
    let state = initialBackoff(reflectorBackoff, 0)
    const waits: Array<number> = []
    let t = 0
    for (let i = 0; i < 8; i++) {
      const next = nextBackoff(reflectorBackoff, state, t, 0)
      waits.push(next.waitMs)
      state = next.state
      t += 1000
    }
    expect(waits).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000])
    // jitter 1.0: up to twice the step, also at the cap (steady gap 30–60 s)
    expect(nextBackoff(reflectorBackoff, state, t, 0.999).waitMs).toBeCloseTo(59_970, 0)
    // exactly 2 min since the last backoff is not yet quiet; more than that → the initial step again
    expect(nextBackoff(reflectorBackoff, state, t - 1000 + 120_000, 0).waitMs).toBe(30_000)
    expect(nextBackoff(reflectorBackoff, state, t + 120_001, 0.5).waitMs).toBe(1200)
  })
})
