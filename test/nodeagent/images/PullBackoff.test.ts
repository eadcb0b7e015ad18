import { describe, expect, it } from "@effect/vitest"
import { PullBackoff } from "../../../simulator/nodeagent/images/PullBackoff.js"
import * as TokenBucket from "../../../simulator/events/TokenBucket.js"

describe("image pull back-off (10 s doubling to 5 min, flowcontrol.Backoff)", () => {
  it("doubles from 10 s to the 5 min cap", () => {
    const b = new PullBackoff()
    const seen: Array<number> = []
    let t = 0
    for (let i = 0; i < 8; i++) {
      const d = b.next("uid_img", t)
      seen.push(d)
      t += d
    }
    expect(seen).toStrictEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000])
  })

  it("is in back-off for exactly the current delay after the last failure", () => {
    const b = new PullBackoff()
    b.next("k", 1_000)
    expect(b.inBackOff("k", 1_000)).toBe(true)
    expect(b.inBackOff("k", 10_999)).toBe(true)
    expect(b.inBackOff("k", 11_000)).toBe(false)
    expect(b.until("k", 5_000)).toBe(11_000)
    expect(b.inBackOff("other", 1_000)).toBe(false)
  })

  it("starts over at 10 s after more than 2 × 5 min without failures, and gc forgets quiet entries", () => {
    const b = new PullBackoff()
    b.next("k", 0)
    b.next("k", 10_000) // 20 s
    expect(b.next("k", 30_000)).toBe(40_000)
    expect(b.next("k", 30_000 + 600_000)).toBe(80_000) // exactly 2 × max: not yet quiet
    expect(b.next("k", 630_000 + 600_001)).toBe(10_000)
    b.gc(1_230_001 + 600_001)
    expect(b.size).toBe(0)
  })
})

describe("TokenBucket.tryAccept (registryPullQPS / registryBurst in virtual time)", () => {
  it("takes the burst at once, then one token per 1/qps s; never waits", () => {
    const bucket = TokenBucket.make(5, 10)
    const accepted = Array.from({ length: 12 }, () => bucket.tryAccept(0))
    expect(accepted.filter(Boolean).length).toBe(10)
    expect(bucket.tryAccept(199)).toBe(false)
    expect(bucket.tryAccept(200)).toBe(true)
    expect(bucket.tryAccept(200)).toBe(false)
    // a refill over 10 s stops at the burst
    expect(Array.from({ length: 12 }, () => bucket.tryAccept(10_200)).filter(Boolean).length).toBe(10)
  })

  it("QPS 0 means no limit", () => {
    const bucket = TokenBucket.make(0, 0)
    expect(Array.from({ length: 100 }, () => bucket.tryAccept(0)).every(Boolean)).toBe(true)
  })
})
