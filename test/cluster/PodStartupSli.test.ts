import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { evaluate, parseThreshold, SloPresets } from "../../src/loadgen/Thresholds.js"
import { PodStartupSli } from "../../simulator/cluster/PodStartupSli.js"
import { podStartupSeries } from "../../simulator/cluster/PodStartupSeries.js"

const pod = (name: string, nodeName?: string, phase?: string) => ({
  metadata: { name, namespace: "default" },
  spec: nodeName ? { nodeName } : {},
  status: phase ? { phase } : {}
})

describe("pod start-up SLI", () => {
  it("creation → observed Running per pod, once, as a pod_startup series the slo preset and thresholds judge", () => {
    const sli = new PodStartupSli(0)
    sli.created(pod("a"), 1000)
    sli.created(pod("b"), 1000)
    sli.observed(pod("a", "node-1"), 1500)
    sli.running(pod("a", "node-1", "Running"), 2000)
    sli.observed(pod("a", "node-1", "Running"), 3000)
    sli.observed(pod("a", "node-1", "Running"), 9000) // seen again: counts once
    sli.observed(pod("b", "node-2", "Running"), 8000)
    const result = sli.result()
    expect(result.observedRunning).toBe(2)
    // a real-time cluster result's series (no image pulls there)
    const all = podStartupSeries({ realTime: { podStartup: result } })
    expect(all).toHaveLength(1)
    const series = all[0]!
    expect(series.key).toMatchObject({ metric: "pod_startup", name: "create-to-observed" })
    expect(series.count).toBe(2)
    const [slo] = evaluate([SloPresets.podStartup], [series])
    // pod b took 7 s: the 5 s SLO fails at p99
    expect(slo).toMatchObject({ passed: false, series: 1 })
    expect(slo!.observed).toBeCloseTo(7000, -1)
    const [med] = evaluate([Either.getOrThrow(parseThreshold("latency{metric:pod_startup}", "min < 2.5s"))], [series])
    expect(med).toMatchObject({ passed: true })
    expect(med!.observed).toBeCloseTo(2000, -1)
  })

  it("a segment hands on what it cannot time itself: its created pods another segment's agent ran, and the pods its agents ran that another segment created", () => {
    // the first segment (its clock's common start at 10_000): it timed the creation of a and b, its agent ran a only
    const first = new PodStartupSli(10_500)
    first.created(pod("a", "node-5"), 11_000)
    first.created(pod("b", "node-0"), 12_000)
    first.pending(pod("c"), 13_000) // a load phase's pod: timed at first sight
    first.running(pod("a", "node-5", "Running"), 11_400)
    expect(first.result({ originMs: 10_000 }).crossSegment).toEqual({ createdMs: { "default/b": 2000, "default/c": 3000 }, runningMs: {} })
    // the owner of node-0 (its clock's common start at 50_000) ran b and c without having seen them created
    const owner = new PodStartupSli(50_020)
    owner.running(pod("b", "node-0", "Running"), 52_700)
    owner.running(pod("c", "node-0", "Running"), 53_900)
    expect(owner.ranUnseen).toBe(2)
    const handed = owner.result({ originMs: 50_000 })
    expect(handed.crossSegment).toEqual({ createdMs: {}, runningMs: { "default/b": 2700, "default/c": 3900 } })
    // not a pod of its own: counted where it was created
    expect([handed.pods, handed.createToRunning.count]).toEqual([0, 0])
    // a whole run hands nothing on
    expect(owner.result().crossSegment).toBeUndefined()
  })
})
