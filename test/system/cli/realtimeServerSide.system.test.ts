/**
 * A cluster scenario run on the real clock against a target (app/cli/drivers/RealTimeDriver.ts) reads the target's
 * server-side latency around its load phases too: the phase's LISTs, and the node agents' lease writes made in the
 * same window (the server counts every client's requests), each per verb, resource and scope.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { clusterScenario, file, run, serve } from "../../support/realtimeRun.js"

describe("real-time cluster run: server-side figures", () => {
  it.live("reads the target's histograms around the load phase, agents' lease writes included", () =>
    Effect.gen(function* () {
      const s = yield* serve(false)
      const text = clusterScenario().replace(
        "phases: []",
        `setup:
  namespaces: [rt]
phases:
  - name: steady
    duration: 2s
    actions:
      - { type: constant-arrival-rate, name: list, rate: 20, request: { verb: list, resource: configmaps, namespace: rt } }`
      )
      const r = yield* run(file(text), s.url)
      yield* s.close
      expect(r.exitCode, r.stderr).toBe(0)
      const artifact = JSON.parse(readFileSync(r.artifactPath!, "utf8")) as RunArtifact
      const phase = artifact.server!.phases.find((p) => p.phase === "steady")!
      const calls = phase.calls.map((c) => `${c.verb} ${c.resource} ${c.scope}`)
      expect(calls).toContain("LIST configmaps namespace")
      expect(calls).toContain("PUT leases resource")
      const list = phase.calls.find((c) => c.verb === "LIST")!
      expect(list.count).toBe(artifact.series.find((x) => x.key.operation === "LIST" && x.key.phase === "steady")!.count)
      expect(r.stdout).toContain("steady  LIST configmaps namespace")
    })
  , 120_000)
})
