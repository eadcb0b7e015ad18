/**
 * The shipped expired-credentials scenario end to end on the virtual clock (its 100 nodes, 12 minutes): tokens
 * revoked at 1m30s make the pulls that follow fail with 401 while the nodes hold them in their credential cache;
 * when the cached answer expires the plugin runs again and every pull succeeds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import * as YAML from "yaml"
import { runSimulatedCluster } from "../../../simulator/cluster/ClusterRun.js"
import { decodeClusterFaults, decodeClusterSpec } from "../../../simulator/cluster/ClusterSpec.js"
import { imagePullBackoff } from "../../../simulator/nodeagent/images/PullBackoff.js"

const scenario = YAML.parse(readFileSync("scenarios/expired-credentials.yaml", "utf8")) as { cluster: object; faults: unknown }
const spec = Either.getOrThrow(decodeClusterSpec(scenario.cluster))
const faults = Either.getOrThrow(decodeClusterFaults(scenario.faults))
const revokedAt = 90_000
const cacheMs = 4 * 60_000

describe("scenarios/expired-credentials.yaml", () => {
  const result = Effect.runSync(runSimulatedCluster({ spec, faults, seed: 1, durationMs: 12 * 60_000 }))
  const images = result.images!
  const failedIn = (from: number, to: number) =>
    images.events.perMinute.filter((m) => m.t >= from && m.t < to).reduce((n, m) => n + ((m as Record<string, number>).Failed ?? 0), 0)

  it("every pod runs in the end; 5 of 6 needed a pull", () => {
    expect(result.faults).toStrictEqual([{ type: "expire-registry-credentials", at: revokedAt, registry: "registry.example" }])
    expect(images.podsStarted).toBe(600)
    expect(images.podsWithPulls).toBe(500)
    expect(result.podStatusWrites).toBe(600)
    expect(images.registries["registry.example"]!.served).toBe(500)
  })

  it("no pull fails before the revocation; after it pulls fail with 401 Unauthorized and back off", () => {
    expect(failedIn(0, 60_000)).toBe(0)
    expect(failedIn(60_000, cacheMs + 60_000)).toBe(images.events.byReason.Failed)
    const first = images.events.sample.find((e) => e.reason === "Failed")!
    expect(first.t).toBeGreaterThanOrEqual(revokedAt)
    expect(first.message).toMatch(/^Failed to pull image "registry\.example\/[a-z]+:1": rpc error: code = Unknown desc = .*failed to authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized$/)
    expect(images.events.byReason.BackOff).toBeGreaterThan(0)
    const registry = images.registries["registry.example"]!
    expect(registry.unauthorized).toBe(images.events.byReason.Failed)
    expect([registry.outage, registry.throttled, registry.failed]).toStrictEqual([0, 0, 0])
  })

  it("recovers once the cached credentials expire: the plugin runs again on every node and gives a fresh token", () => {
    // one exec at each node's first pull, one when that answer (defaultCacheDuration 4m) has expired
    expect(images.credentialPlugin).toStrictEqual({ execs: 200, failures: 0, cacheHits: expect.any(Number) })
    expect(images.lastFailureAt).not.toBeNull()
    expect(images.lastFailureAt!).toBeGreaterThan(cacheMs - 60_000)
    expect(images.lastFailureAt!).toBeLessThan(cacheMs + imagePullBackoff.maxMs)
    const late = images.events.perMinute.filter((m) => m.t >= cacheMs + imagePullBackoff.maxMs)
    expect(late.every((m) => (m as Record<string, number>).Failed === undefined && (m as Record<string, number>).BackOff === undefined)).toBe(true)
    expect(images.podStartup.withPulls.max).toBeLessThan(cacheMs + 2 * imagePullBackoff.maxMs)
  })

  it("pods without pulls meet the pod start-up SLO (p99 ≤ 5 s)", () => {
    expect(images.podStartup.withoutPulls.count).toBe(100)
    expect(images.podStartup.withoutPulls.p99).toBeLessThanOrEqual(5_000)
  })
})
