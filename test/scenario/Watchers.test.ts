/** The `watch` action: watch-only reflectors, their watch-event samples and counters, a 410 answered by a fresh rv. */
import { wholeRun } from "../../src/loadgen/ExecutionSegment.js"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { ConfigMaps, Namespaces } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { LatencyRecorder, nowMillis } from "../../src/loadgen/LatencyRecorder.js"
import { Progress, WriteLog, WrittenAtAnnotation, type RunEnv } from "../../app/scenario/Operations.js"
import type { Scenario } from "../../app/scenario/Scenario.js"
import { runWatchers } from "../../app/scenario/Watchers.js"
import { runSim } from "../scheduler/sim.js"

describe("watch action", () => {
  it("every stamped write is one sample per watcher; after compaction + dropped watches each watcher starts again from the current rv", () => {
    const r = runSim(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const server = yield* ApiServer
        const env: RunEnv = { scenario: {} as Scenario, random: () => 0, writes: new WriteLog(), progress: new Progress(), runTag: "t", segment: wholeRun }
        const counts: Record<string, number> = {}
        for (const ns of ["t", "other"]) yield* Effect.orDie(api.create(Namespaces, { metadata: { name: ns } }))
        const write = (name: string) =>
          Effect.gen(function* () {
            const t = yield* nowMillis
            const created = yield* Effect.orDie(api.create(ConfigMaps, { metadata: { name, annotations: { [WrittenAtAnnotation]: String(t) } } }, { namespace: "t" }))
            env.writes.ack(WriteLog.key("t", name, created.object.metadata.resourceVersion), yield* nowMillis)
          })
        const recorder = yield* LatencyRecorder
        const fiber = yield* Effect.fork(runWatchers(env, { type: "watch", resource: "configmaps", namespace: "t", count: 2 }, "w", counts))
        yield* Effect.sleep("5 seconds")
        yield* write("a")
        yield* write("b")
        yield* Effect.sleep("5 seconds")
        // the watchers' rv falls out of history: a 410 on the re-watch, then a fresh current rv
        yield* Effect.orDie(api.create(ConfigMaps, { metadata: { name: "unseen" } }, { namespace: "other" }))
        yield* server.compact()
        yield* server.dropWatches()
        yield* Effect.sleep("5 seconds")
        yield* write("c")
        yield* Effect.sleep("5 seconds")
        yield* Fiber.interrupt(fiber)
        const samples = (yield* recorder.snapshot).find((s) => s.key.metric === "watch_event")
        return { counts, samples: samples?.count, key: samples?.key }
      }).pipe(Effect.provide(LatencyRecorder.layer()))
    )
    // the dropped watch is a clean close (a re-watch each); the re-watch's 410 a fresh start (a relist each)
    expect(r.counts).toEqual({ events: 6, rewatches: 2, relists: 2, expired: 2, watchErrors: 0 })
    expect(r.samples).toBe(6)
    expect(r.key).toEqual({ metric: "watch_event", operation: "WATCH", resource: "configmaps", scope: "namespace" })
  })
})
