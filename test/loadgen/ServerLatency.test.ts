/**
 * A phase's server-side figures from two readings of the target's histograms (src/loadgen/ServerLatency.ts): the
 * difference per call, summed over the labels a call does not have, WATCH and the streaming subresources left out,
 * the SLI histogram preferred, and a counter that went down refused rather than read as negative counts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseExposition } from "../../src/loadgen/Exposition.js"
import { DurationMetric, familyFor, phaseCalls, poolCalls, readingOf, SliMetric, wantedSample } from "../../src/loadgen/ServerLatency.js"

const family = (name: string, rows: ReadonlyArray<{ verb: string; resource: string; scope: string; subresource?: string; group?: string; counts: ReadonlyArray<number>; sum: number }>) =>
  rows
    .flatMap((r) => {
      const labels = `component="apiserver",group="${r.group ?? ""}",resource="${r.resource}",scope="${r.scope}",subresource="${r.subresource ?? ""}",verb="${r.verb}",version="v1"`
      return [
        ...["0.05", "0.1", "0.2", "+Inf"].map((le, i) => `${name}_bucket{${labels},le="${le}"} ${r.counts[i]}`),
        `${name}_sum{${labels}} ${r.sum}`,
        `${name}_count{${labels}} ${r.counts[3]}`
      ]
    })
    .join("\n")

const reading = (text: string) => readingOf(Either.getOrThrow(parseExposition(text, wantedSample)))

describe("phaseCalls", () => {
  const before = reading(family(SliMetric, [{ verb: "LIST", resource: "pods", scope: "namespace", counts: [5, 5, 5, 5], sum: 0.1 }]))
  const after = reading(
    [
      family(SliMetric, [
        { verb: "LIST", resource: "pods", scope: "namespace", counts: [15, 25, 35, 35], sum: 3.1 },
        // another group/version of the same call: summed in
        { verb: "LIST", resource: "pods", scope: "namespace", group: "extra", counts: [0, 0, 0, 10], sum: 5 },
        { verb: "WATCH", resource: "pods", scope: "namespace", counts: [0, 0, 0, 3], sum: 900 },
        { verb: "CONNECT", resource: "pods", subresource: "exec", scope: "resource", counts: [0, 0, 1, 1], sum: 0.15 },
        { verb: "GET", resource: "", scope: "", counts: [4, 4, 4, 4], sum: 0.01 }
      ]),
      family(DurationMetric, [{ verb: "LIST", resource: "pods", scope: "namespace", counts: [1, 1, 1, 1], sum: 0.01 }])
    ].join("\n")
  )

  it("takes the SLI histogram's difference per call, with p50/p90/p99 and their buckets", () => {
    expect(familyFor(after)).toBe(SliMetric)
    const calls = Either.getOrThrow(phaseCalls(SliMetric, before, after))
    expect(calls).toHaveLength(1)
    const list = calls[0]!
    expect(list).toMatchObject({ verb: "LIST", resource: "pods", subresource: "", scope: "namespace", count: 40 })
    expect(list.buckets).toEqual({ bounds: [0.05, 0.1, 0.2], counts: [10, 20, 30, 40] })
    expect(list.sumSeconds).toBeCloseTo(8, 9)
    // rank 20 of 40: the end of the second bucket
    expect(list.p50).toEqual({ ms: 100, bucketMs: [50, 100] })
    // ranks 36 and 39.6 lie in +Inf: the highest finite bound, an open bucket
    expect(list.p90).toEqual({ ms: 200, bucketMs: [200, null] })
    expect(list.p99).toEqual({ ms: 200, bucketMs: [200, null] })
  })

  it("falls back to apiserver_request_duration_seconds when the target has no SLI histogram", () => {
    const old = reading(family(DurationMetric, [{ verb: "GET", resource: "pods", scope: "resource", counts: [2, 2, 2, 2], sum: 0.02 }]))
    expect(familyFor(old)).toBe(DurationMetric)
    expect(familyFor(reading("up 1"))).toBeUndefined()
  })

  it("refuses a reading whose counts went down (the target restarted)", () => {
    expect(phaseCalls(SliMetric, after, before)).toEqual(Either.left(`${SliMetric} went down between the readings (the target restarted?)`))
  })

  it("pools calls over phases bucket by bucket", () => {
    const calls = Either.getOrThrow(phaseCalls(SliMetric, before, after))
    const pooled = poolCalls([...calls, ...calls])
    expect(pooled).toHaveLength(1)
    expect(pooled[0]!.count).toBe(80)
    expect(pooled[0]!.buckets.counts).toEqual([20, 40, 60, 80])
  })
})
