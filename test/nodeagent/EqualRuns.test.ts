import { describe, expect, it } from "@effect/vitest"
import { encodeHistogram, makeHistogram } from "../../src/loadgen/LatencyRecorder.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import { EqualRuns } from "../../simulator/nodeagent/EqualRuns.js"

describe("EqualRuns", () => {
  it("leaves the histogram as recording every value would, read between runs or in the middle of one", () => {
    const random = SeededRandom.make(7)
    const each = makeHistogram()
    const runs = new EqualRuns(makeHistogram())
    const values: Array<number> = []
    // long runs of one value, runs of a few, single values, zeros (a latency of 0 or less), the first value 0
    for (let i = 0; i < 5_000; i++) {
      const r = random.next()
      const value = i < 3 ? 0 : r < 0.7 ? 2_004 : r < 0.8 ? 3_013 : r < 0.85 ? 0 : Math.floor(random.next() * 1e7)
      for (let k = Math.floor(random.next() * 4); k >= 0; k--) values.push(value)
    }
    values.forEach((v, i) => {
      each.recordValue(v)
      runs.record(v)
      if (i % 997 === 0) expect(encodeHistogram(runs.histogram)).toBe(encodeHistogram(each))
    })
    const h = runs.histogram
    expect([h.totalCount, h.minNonZeroValue, h.maxValue, h.mean]).toEqual([each.totalCount, each.minNonZeroValue, each.maxValue, each.mean])
    expect(encodeHistogram(h)).toBe(encodeHistogram(each))
    expect(h.totalCount).toBe(values.length)
  })
})
