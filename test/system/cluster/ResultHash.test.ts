/**
 * The same seed gives the same cluster result document (bench/resultHash.ts, docs/benchmarks.md): the 500-node
 * control plane for 10 virtual minutes, and both configurations with API Priority and Fairness off.
 */
import { describe, expect, it } from "@effect/vitest"
import { controlPlane, nodeDeath, resultHash } from "../../../bench/resultHashConfigurations.js"

describe("same-seed cluster result hashes (long runs)", () => {
  it("the 500-node control plane: the recorded hash, and with APF off", () => {
    expect(resultHash(controlPlane(500, 10))).toBe("62fe3583ecd93f19676b07ef38e41c647092062cab0580104885a51ef4053d7c")
    expect(resultHash(controlPlane(500, 10), true)).toBe("4f08c0694bbaa33c8a620e44a9b77faa9d69b345b46441c81109d121c2f71886")
  })

  it("node-death with APF off: the recorded hash", () => {
    expect(resultHash(nodeDeath(), true)).toBe("abc60bb0a28d47a501d46494b2d1ed9118dc0c6cd26f7b2bc5e47839654f715d")
  })
})
