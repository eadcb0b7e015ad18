/**
 * `clustersim run cluster.yaml --target URL`: the cluster section on the real clock against a `serve` on a loopback
 * port (a few seconds), its artifact and summary, `--cleanup`; the refusals of what only virtual time has, which
 * come before anything runs, are in the fast tier (test/cli/realtimeRefusals.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { runCommand } from "../../../app/cli/run.js"
import { Nodes } from "../../../src/api/Resources.js"
import { clusterScenario, dir, file, run, serve } from "../../support/realtimeRun.js"

describe("clustersim run <cluster scenario> --target URL", () => {
  it.live(
    "runs the node agents on the real clock against the server; --cleanup deletes what the run owned",
    () =>
      Effect.gen(function* () {
        const s = yield* serve(false)
        const r = yield* run(file(clusterScenario()), s.url, true)
        expect(r.exitCode).toBe(0)
        const a = r.artifact!
        expect(a.target.kind).toBe("url")
        const cluster = a.cluster as { nodes: number; heartbeats: { leaseWrites: number }; realTime: { registered: number; errorsByCode: object; cleanup: unknown } }
        expect(cluster.nodes).toBe(4)
        expect(cluster.realTime.registered).toBe(4)
        // 4 creates, then renewals every second of the 3 s run; a loaded host may answer late, so only "some renewed"
        expect(cluster.heartbeats.leaseWrites).toBeGreaterThan(4)
        expect(cluster.realTime.errorsByCode).toEqual({})
        expect(cluster.realTime.cleanup).toEqual({ removed: { nodes: 4, leases: 4, pods: 0 }, left: { nodes: 0, leases: 0, pods: 0 }, deleted: true })
        expect(a.thresholds.find((t) => t.threshold === "outcome:node-agent-requests")?.passed).toBe(true)
        expect(r.stdout).toContain("simulated nodes on the real clock: 4 nodes")
        // no status change within the run: the summary says so rather than printing latencies of nothing
        expect(r.stdout).toContain("  no status patches; failed requests: none")
        expect(yield* s.api.list(Nodes)).toMatchObject({ items: [] })
        yield* s.close
      }),
    30_000
  )

  it.live(
    "without --cleanup it says what it left and how to remove it",
    () =>
      Effect.gen(function* () {
        const s = yield* serve(false)
        const r = yield* run(file(clusterScenario()), s.url)
        expect(r.exitCode).toBe(0)
        expect(r.stderr).toContain(
          "clustersim: left on the target: 4 nodes, 4 node leases, 0 pods (label clustersim.io/simulated=true); the next run adopts them, --cleanup deletes them at its end, or: kubectl delete nodes -l clustersim.io/simulated=true"
        )
        yield* s.close
      }),
    30_000
  )

  it.live(
    "Ctrl-C stops the agents, cleans up with --cleanup and writes the partial artifact (exit 130)",
    () =>
      Effect.gen(function* () {
        const s = yield* serve(false)
        const r = yield* runCommand({
          file: file(clusterScenario().replace("duration: 3s", "duration: 1m")),
          target: { _tag: "url", options: { baseUrl: s.url } },
          outDir: join(dir, "out-interrupted"),
          tty: false,
          cleanup: true,
          interrupt: Effect.sleep("1500 millis"),
          stdout: () => {},
          stderr: () => {}
        })
        expect(r.exitCode).toBe(130)
        expect(r.artifact!.outcome).toBe("interrupted")
        const cluster = r.artifact!.cluster as { durationMs: number; realTime: { cleanup: { left: object; deleted: boolean } } }
        expect(cluster.durationMs).toBeLessThan(10_000)
        expect(cluster.realTime.cleanup).toMatchObject({ left: { nodes: 0, leases: 0, pods: 0 }, deleted: true })
        expect(yield* s.api.list(Nodes)).toMatchObject({ items: [] })
        yield* s.close
      }),
    30_000
  )
})
