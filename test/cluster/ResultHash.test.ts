/**
 * The same seed gives the same cluster result document: the shipped node-death scenario's cluster and faults
 * (bench/resultHash.ts, docs/benchmarks.md) hash as recorded. The 500-node control plane is in the system tier
 * (test/system/cluster/ResultHash.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { nodeDeath, resultHash } from "../../bench/resultHashConfigurations.js"

describe("same-seed cluster result hashes", () => {
  it("node-death: the recorded hash", () => {
    expect(resultHash(nodeDeath())).toBe("cb4171cbee0dbfd819a4eae3a4b6376cb5af8a4c8d7d38530732627e5089f5fd")
  })
})
