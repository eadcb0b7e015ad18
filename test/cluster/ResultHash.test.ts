/**
 * The same seed gives the same cluster result document: the shipped node-death scenario's cluster and faults
 * (bench/resultHash.ts, docs/benchmarks.md) hash as recorded. The 500-node control plane is in the system tier
 * (test/system/cluster/ResultHash.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { nodeDeath, resultHash } from "../../bench/resultHashConfigurations.js"

describe("same-seed cluster result hashes", () => {
  it("node-death: the recorded hash", () => {
    expect(resultHash(nodeDeath())).toBe("5fb0c7e0617ab3736a6dce84ea5ef70bd85d8fdd615a14176b9bba6c66321a6e")
  })
})
