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
})
