/**
 * A real-time cluster with a `scheduler:` section split over two segments (docs/distributed.md "Real-time clusters"),
 * both `run --segment i/2 --start-at` in this process against a `serve` on a loopback port, then merged: the first
 * segment's scheduler binds pods to nodes the second owns, whose agents start them — and the merged pod start-up
 * keeps the created → running stage of every pod, joined across the segments (simulator/cluster/PodStartupSli.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { mergedArtifact } from "../../../app/cli/merge.js"
import { runCommand } from "../../../app/cli/run.js"
import { readArtifact } from "../../../src/loadgen/Artifact.js"
import { ownerOfName, segments } from "../../../src/loadgen/ExecutionSegment.js"
import { Pods } from "../../../src/api/Resources.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-segsched-"))

const scenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: segments-scheduler }
seed: 7
duration: 4s
cluster:
  nodes: 8
  startSpread: 100ms
  nodeAgent: { config: { nodeLeaseDurationSeconds: 4 } }
  nodeLifecycle: { enabled: false }
scheduler:
  batches: [{ namePrefix: web, count: 8, cpu: 100m, memory: 64Mi }]
phases: []
`

interface Stage {
  readonly count: number
}
interface Startup {
  readonly pods: number
  readonly observedRunning: number
  readonly createToRunning: Stage
  readonly createToObserved: Stage
}
const startupOf = (cluster: unknown): Startup | undefined => (cluster as { realTime: { podStartup?: Startup } }).realTime.podStartup

describe("run --segment of a real-time cluster with a scheduler", () => {
  it.live(
    "pods the first segment's scheduler binds to the second's nodes keep their created → running stage in the merged result",
    () =>
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        const s = yield* Scope.extend(
          Effect.flatMap(ApiServer, (api) => Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false }), (h) => ({ url: h.url, api }))),
          scope
        ).pipe(Effect.provide(ApiServer.layer({})))
        const file = join(dir, "s.yaml")
        writeFileSync(file, scenario)
        const startAt = new Date(Date.now() + 2_000)
        const runs = yield* Effect.all(
          segments(2).map((segment) =>
            runCommand({
              file,
              target: { _tag: "url", options: { baseUrl: s.url } },
              outDir: join(dir, `segment-${segment.index + 1}`),
              tty: false,
              segment,
              startAt,
              stdout: () => {},
              stderr: () => {}
            })
          ),
          { concurrency: "unbounded" }
        )
        expect(runs.map((r) => r.exitCode)).toEqual([0, 0])
        const pods = (yield* s.api.list(Pods, { namespace: "default" })).items.filter((p) => p.metadata.name?.startsWith("web"))
        expect(pods).toHaveLength(8)
        // the first segment owns node-5 and node-7: most pods run on the second's nodes
        const nodeOf = (p: (typeof pods)[number]) => (p.spec as { nodeName?: string }).nodeName ?? ""
        const crossing = pods.filter((p) => ownerOfName(nodeOf(p), segments(2)[0]!) === 1)
        expect(crossing.length).toBeGreaterThan(0)
        for (const p of pods) expect((p.status as { phase?: string }).phase).toBe("Running")
        // as `merge` reads them: the run.json files
        const merged = mergedArtifact(runs.map((r) => ({ path: r.artifactPath!, artifact: readArtifact(r.artifactPath!) })))
        if (!("artifact" in merged)) throw new Error(merged.problem)
        const startup = startupOf(merged.artifact.cluster)!
        expect([startup.pods, startup.observedRunning, startup.createToRunning.count, startup.createToObserved.count]).toEqual([8, 8, 8, 8])
        expect((startup as { crossSegment?: unknown }).crossSegment).toBeUndefined()
        // each segment alone times the stage only for the pods it both created and ran
        const [first, second] = runs.map((r) => startupOf(r.artifact!.cluster))
        expect([first?.pods, first?.createToRunning.count, second?.pods, second?.createToRunning.count]).toEqual([8, 8 - crossing.length, 0, 0])
        yield* Scope.close(scope, Exit.void)
      }),
    60_000
  )
})
