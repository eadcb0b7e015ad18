import { describe, expect, it } from "@effect/vitest"
import { leaseColumns, readyNodesFigures, readyNodesOverTime } from "../../reports/clusterSeries.js"

const timeline = {
  "node-0": [[1000, "True", "NodeAgentReady"]],
  "node-1": [[2000, "True", "NodeAgentReady"], [165_000, "Unknown", "NodeStatusUnknown"], [200_000, "True", "NodeAgentReady"]],
  "node-2": [[2000, "True", "NodeAgentReady"], [165_000, "Unknown", "NodeStatusUnknown"]],
  // seen NotReady first: it counts from its first True
  "node-3": [[500, "False", "NodeAgentNotReady"], [3000, "True", "NodeAgentReady"]]
} as const

describe("cluster series", () => {
  it("Ready nodes as steps: registrations add, a lost Ready removes, changes at one instant merge", () => {
    expect(readyNodesOverTime(timeline)).toEqual([
      [1000, 1],
      [2000, 3],
      [3000, 4],
      [165_000, 2],
      [200_000, 3]
    ])
  })

  it("the figures the summary quotes: at the end, and the fewest after all were Ready", () => {
    expect(readyNodesFigures(timeline)).toEqual({ peak: 4, atEnd: 3, fewest: { count: 2, atMs: 165_000 } })
    expect(readyNodesFigures({ a: [[0, "True", "r"]] })).toEqual({ peak: 1, atEnd: 1 })
    expect(readyNodesFigures({})).toBeUndefined()
  })

  it("lease timeline columns: interval starts in seconds, counts per second", () => {
    expect(leaseColumns({ intervalMs: 10_000, writes: [20, 5], failures: [0, 10], renewP50: [2, null], renewP99: [3, null] })).toEqual({
      x: [0, 10],
      writesPerSecond: [2, 0.5],
      failuresPerSecond: [0, 1],
      renewP50: [2, null],
      renewP99: [3, null]
    })
  })
})
