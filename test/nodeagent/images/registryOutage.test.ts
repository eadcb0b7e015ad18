/**
 * The shipped registry-outage scenario end to end on the virtual clock (on 60 nodes instead of 1,000, to stay
 * fast): pods without pulls start at once, pods with pulls fail, back off and recover after the outage.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import * as YAML from "yaml"
import { Pods } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { runSimulatedCluster } from "../../../simulator/cluster/ClusterRun.js"
import { decodeClusterFaults, decodeClusterSpec } from "../../../simulator/cluster/ClusterSpec.js"
import { podStartupSeries } from "../../../simulator/cluster/PodStartupSeries.js"
import { imagePullBackoff } from "../../../simulator/nodeagent/images/PullBackoff.js"

const scenario = YAML.parse(readFileSync("scenarios/registry-outage.yaml", "utf8")) as { cluster: object; faults: unknown }
const spec = { ...Either.getOrThrow(decodeClusterSpec(scenario.cluster)), nodes: 60 }
const faults = Either.getOrThrow(decodeClusterFaults(scenario.faults))
const outageMs = 3 * 60_000

describe("scenarios/registry-outage.yaml on 60 nodes", () => {
  // every 5 s during the outage: the waiting reasons the pods show (at 2 min: how many wait)
  const reasonsSeen = new Set<string>()
  let waitingAt2m = 0
  const probe = Effect.gen(function* () {
    const client = yield* ApiClient
    for (let t = 5_000; t < outageMs; t += 5_000) {
      yield* Effect.sleep(5_000)
      const list = yield* Effect.orDie(client.list(Pods, { namespace: "default" }))
      const waiting = list.items.flatMap((p) => {
        const s = (p.status as { containerStatuses?: ReadonlyArray<{ state?: { waiting?: { reason?: string } } }> } | undefined)?.containerStatuses
        const reason = s?.[0]?.state?.waiting?.reason
        return reason === undefined ? [] : [reason]
      })
      for (const r of waiting) reasonsSeen.add(r)
      if (t === 120_000) waitingAt2m = waiting.length
    }
  })
  const result = Effect.runSync(runSimulatedCluster({ spec, faults, seed: 1, durationMs: 10 * 60_000, workload: probe }))
  const images = result.images!

  it("every pod runs in the end; 3 of 10 needed a pull", () => {
    expect(images.podsStarted).toBe(600)
    expect(images.podsWithPulls).toBe(180)
    expect(result.podStatusWrites).toBe(600)
  })

  it("pods without pulls meet the pod start-up SLO (p99 ≤ 5 s)", () => {
    expect(images.podStartup.withoutPulls.count).toBe(420)
    expect(images.podStartup.withoutPulls.p99).toBeLessThanOrEqual(5_000)
    // the others waited for the outage to end
    expect(images.podStartup.withPulls.count).toBe(180)
    expect(images.podStartup.withPulls.p50).toBeGreaterThan(outageMs - 10_000)
  })

  it("shows the upstream sequence: Pulling, Failed (connection refused), BackOff; waiting statuses posted", () => {
    const reasons = images.events.byReason
    expect(reasons.Pulling).toBeGreaterThan(180)
    expect(reasons.Failed).toBeGreaterThan(180)
    expect(reasons.BackOff).toBeGreaterThan(180)
    expect(reasons.Pulled).toBeGreaterThanOrEqual(600) // 420 already present, 180 pulled
    const first = images.events.sample.find((e) => e.reason === "Failed")!
    expect(first.message).toMatch(/^Failed to pull image "registry\.example\/[a-z]+:\d+": rpc error: code = Unavailable desc = .*connection refused$/)
    expect(images.events.sample.some((e) => e.reason === "BackOff" && /^Back-off pulling image "registry\.example\//.test(e.message))).toBe(true)
    expect(reasonsSeen).toStrictEqual(new Set(["ErrImagePull", "ImagePullBackOff"]))
    expect(waitingAt2m).toBe(180)
    expect(images.waitingStatusWrites).toBeGreaterThanOrEqual(360)
  })

  it("recovers after the outage: the last failure within a maximal back-off cycle of its end, none in the last minutes", () => {
    expect(images.lastFailureAt).not.toBeNull()
    expect(images.lastFailureAt!).toBeGreaterThan(outageMs - 60_000)
    expect(images.lastFailureAt!).toBeLessThan(outageMs + imagePullBackoff.maxMs)
    const late = images.events.perMinute.filter((m) => m.t >= 8 * 60_000)
    expect(late.every((m) => (m as Record<string, number>).Failed === undefined && (m as Record<string, number>).BackOff === undefined)).toBe(true)
    expect(images.registries["registry.example"]!.outage).toBeGreaterThan(0)
    expect(images.credentialPlugin.execs).toBeGreaterThan(0)
  })

  it("hands the latencies to thresholds as pod_startup series", () => {
    const series = podStartupSeries(result)
    expect(series.map((s) => [s.key.name, s.count])).toStrictEqual([
      ["without-image-pulls", 420],
      ["with-image-pulls", 180]
    ])
  })
})
