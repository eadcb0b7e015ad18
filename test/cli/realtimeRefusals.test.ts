/**
 * `clustersim run cluster.yaml --target URL` refuses, by name and before anything runs, what only virtual time has
 * (simulator/cluster/RealTimeCluster.ts `realTimeProblems`); the real-clock runs themselves are in the system tier
 * (test/system/cli/realtime.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { realTimeProblems } from "../../simulator/cluster/RealTimeCluster.js"
import { clusterScenario, file, run, serve } from "../support/realtimeRun.js"
import { runOptionsOf } from "../support/runFlags.js"

describe("clustersim run <cluster scenario> --target URL: what only virtual time has", () => {
  it.live(
    "refuses, by name, what only virtual time has: apiserver-pause without admin hooks, the scheduler section's bare nodes; and a phase's failure step without admin hooks, as a load run does",
    () =>
      Effect.gen(function* () {
        const s = yield* serve(false)
        const pause = yield* run(file(clusterScenario("faults:\n  - { type: apiserver-pause, at: 1s, for: 1s }\n")), s.url)
        expect(pause.exitCode).toBe(2)
        expect(pause.stderr).toContain("faults[0]: apiserver-pause needs a target with failure hooks (clustersim serve --admin)")
        const scheduler = yield* run(file(clusterScenario("scheduler:\n  nodes: [{ count: 2 }]\n  batches: [{ namePrefix: web, count: 2, rate: 1, cpu: 100m, memory: 64Mi }]\n")), s.url)
        expect(scheduler.exitCode).toBe(2)
        expect(scheduler.stderr).toContain(
          "scheduler.nodes: in real time the scheduler places pods on the cluster's simulated nodes (cluster.nodes); bare scheduler nodes exist only in virtual time"
        )
        // a load phase's server-side failure step against a target whose user has no expiring token: refused before
        // anything runs, by the credential check that comes first (app/cli/preflight.ts; the admin-hook refusal of
        // drivers/Driver.ts withTarget: test/cli/adminOverHttp.test.ts)
        const compact = yield* run(
          file(
            "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: rt }\nduration: 3s\ncluster: { nodes: 2 }\n" +
              "phases:\n  - name: p\n    duration: 1s\n    actions:\n      - { type: expire-tokens, at: 0s, side: server }\n"
          ),
          s.url
        )
        expect(compact.exitCode).toBe(2)
        expect(compact.stderr).toContain("phases[0].actions[0] (expire-tokens side: server): expiring tokens needs a client whose token can expire and be fetched again")
        yield* s.close
      }),
    30_000
  )

  it.effect("--cleanup is a run flag (the command line's real parser)", () =>
    Effect.gen(function* () {
      const flags = yield* runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1", "--cleanup"])
      expect(flags).toMatchObject({ file: "s.yaml", cleanup: true, target: { _tag: "url" } })
      const embedded = yield* runOptionsOf(["s.yaml", "--target", "embedded"])
      expect(embedded.target).toEqual({ _tag: "embedded", explicit: true, serverProcess: "own" })
    })
  )

  it("realTimeProblems names image pulls and registry faults, which need virtual time, and nothing for a plain cluster", () => {
    const spec = { nodes: 2 }
    expect(realTimeProblems(spec, [], false)).toEqual([])
    expect(realTimeProblems({ ...spec, images: {} } as never, [], true)).toEqual(["cluster.images: image pulls are modelled in virtual time only; run without --target"])
    expect(realTimeProblems(spec, [{ type: "registry-outage" } as never, { type: "apiserver-pause" } as never], true)).toEqual([
      "faults[0]: registry-outage needs cluster.images (virtual time only)"
    ])
  })
})
