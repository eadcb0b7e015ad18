import { describe, expect, it } from "@effect/vitest"
import { NodeImages } from "../../../simulator/nodeagent/images/NodeImages.js"

const Mi = 2 ** 20
const gc = { capacityBytes: 1_000 * Mi, highThresholdPercent: 85, lowThresholdPercent: 80, minimumGCAgeMs: 120_000 }

describe("node images: shared layers and image GC (spec 001 imageGC thresholds)", () => {
  it("stores a layer once for the images sharing it; a pull fetches only missing layers", () => {
    const disk = new NodeImages(gc)
    const base = { digest: "base", size: 100 * Mi }
    disk.add("r/a:1", [base, { digest: "a", size: 10 * Mi }], 0)
    expect(disk.missingBytes([base, { digest: "b", size: 20 * Mi }])).toBe(20 * Mi)
    disk.add("r/b:1", [base, { digest: "b", size: 20 * Mi }], 5_000)
    expect(disk.usageBytes).toBe(130 * Mi)
    expect(disk.availableAt("r/b:1")).toBe(5_000)
  })

  const filled = (n: number) => {
    const disk = new NodeImages(gc)
    for (let i = 0; i < n; i++) disk.add(`r/i${i}:1`, [{ digest: `d${i}`, size: 100 * Mi }], 0)
    return disk
  }

  it("does nothing below the high threshold", () => {
    expect(filled(8).collect(600_000, new Set())).toStrictEqual([]) // 80 %
  })

  it("at or above the high threshold frees least recently used images down to the low threshold", () => {
    const disk = filled(9) // 90 %
    disk.markUsed("r/i0:1", 500_000)
    expect(disk.collect(600_000, new Set())).toStrictEqual(["r/i1:1"])
    expect(disk.usageBytes).toBe(800 * Mi)
    const fuller = filled(10) // 100 %: free 200 Mi
    expect(fuller.collect(600_000, new Set())).toStrictEqual(["r/i0:1", "r/i1:1"])
  })

  it("never removes images in use or younger than imageMinimumGCAge", () => {
    const disk = filled(9)
    disk.add("r/new:1", [{ digest: "new", size: 50 * Mi }], 590_000)
    expect(disk.collect(600_000, new Set(["r/i0:1", "r/i1:1"]))).toStrictEqual(["r/i2:1", "r/i3:1"])
  })

  it("an image whose layers other images hold frees nothing, and GC goes on to the next", () => {
    const disk = new NodeImages(gc)
    disk.add("r/a:1", [{ digest: "d0", size: 450 * Mi }], 0)
    disk.add("r/shares:1", [{ digest: "d0", size: 450 * Mi }], 0)
    disk.add("r/b:1", [{ digest: "d1", size: 450 * Mi }], 0)
    expect(disk.usageBytes).toBe(900 * Mi)
    disk.markUsed("r/a:1", 100)
    disk.markUsed("r/b:1", 200)
    expect(disk.collect(600_000, new Set())).toStrictEqual(["r/shares:1", "r/a:1"])
    expect(disk.usageBytes).toBe(450 * Mi)
  })
})
