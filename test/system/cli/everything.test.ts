import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCommand } from "../../../app/cli/run.js"

/** scenarios/everything.yaml, cut to 2 virtual minutes (leader killed at 1m, load phase 1m) to keep the test short. */
const shortened = (): string =>
  readFileSync(new URL("../../../scenarios/everything.yaml", import.meta.url), "utf8")
    .replace(/^duration: 10m$/m, "duration: 2m15s")
    .replace("killLeaderAt: 2m", "killLeaderAt: 1m")
    .replace("duration: 8m", "duration: 1m")

describe("scenarios/everything.yaml", () => {
  it.live(
    "runs cluster, scheduler failover, eviction, faults, informers and LIST load in one simulation; the artifact has every section",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), "everything-"))
        const file = join(dir, "everything.yaml")
        writeFileSync(file, shortened())
        const r = yield* runCommand({ file, target: { _tag: "in-process" }, outDir: join(dir, "out"), tty: false, stdout: () => {}, stderr: () => {} })
        const a = JSON.parse(readFileSync(join(dir, "out", "run.json"), "utf8"))
        expect(r.exitCode).toBe(0)
        expect(a.outcome).toBe("pass")
        expect(a.target.kind).toBe("simulated-cluster")
        // cluster: 1,000 nodes with their agents, the three stopped nodes gone Unknown, every fault applied
        expect(a.cluster.nodes).toBe(1000)
        expect(a.cluster.heartbeats.leaseWrites).toBeGreaterThan(1000)
        expect(a.cluster.faults.map((f: { type: string }) => f.type)).toEqual(["stop-nodes", "partition", "apiserver-pause"])
        const stopped: ReadonlyArray<string> = a.cluster.faults[0].nodes
        expect(stopped).toHaveLength(3)
        for (const n of stopped) expect(a.cluster.readyTimeline[n].at(-1)[1]).toBe("Unknown")
        // scheduler: pods bound on the cluster's nodes, the leader killed at 1m and replaced
        const scheduler = a.sections.scheduler
        expect(scheduler.binds).toBeGreaterThan(300)
        expect(scheduler.failover.killedAtMs).toBe(60_000)
        expect(scheduler.failover.newLeader).toBeDefined()
        expect(scheduler.failover.newLeaderToFirstBindMs).toBeDefined()
        // eviction: the leaking pod evicted on the eviction node, which stayed Ready (its lease is renewed)
        expect(a.sections.eviction.evictions.map((e: { pod: string }) => e.pod)).toEqual(["default/leaky-cache"])
        expect(a.cluster.readyTimeline["eviction-node"]).toBeUndefined()
        // the phases: informers synced, LIST load answered
        const names = new Set(a.series.map((s: { key: { name?: string } }) => s.key.name))
        for (const n of ["pod-informers", "node-informers", "list-nodes", "list-pods"]) expect(names.has(n), n).toBe(true)
        expect(a.actions.filter((x: { informers?: { synced: number } }) => x.informers?.synced === 2)).toHaveLength(2)
      }),
    180_000
  )
})
