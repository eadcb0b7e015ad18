/**
 * The raw-latency tap (src/loadgen/RawLatencies.ts, `CLUSTERSIM_RAW_LATENCIES`): every request latency the recorder
 * puts in a histogram, in order, the recorder's own figures unchanged; connection errors and non-request series left out.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { RawLatencies, tapRawLatencies } from "../../src/loadgen/RawLatencies.js"

const key = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource" }

describe("raw latencies", () => {
  it.effect("the tap keeps what the histogram gets, from the intended start; the recorder counts as without it", () =>
    Effect.gen(function* () {
      const recorder = yield* LatencyRecorder.make({ originMs: 0 })
      const raw = new RawLatencies()
      const tapped = tapRawLatencies(recorder, raw)
      const bound = tapped.bind(key, "open")
      bound(0, 5, 12.5, "ok")
      bound(10, 10, 11, "error")
      bound(20, 20, 40, "connectionError")
      yield* tapped.record(key, { intendedStart: 30, sentAt: 30, completedAt: 33.25, ok: true, model: "open" })
      yield* tapped.record({ ...key, metric: "setup" }, { intendedStart: 0, sentAt: 0, completedAt: 7, ok: true, model: "closed" })
      for (let i = 0; i < 70_000; i++) raw.add(1)
      expect(raw.text().split("\n").slice(0, 4)).toEqual(["12.500", "1.000", "3.250", "1.000"])
      yield* recorder.flush
      const series = (yield* recorder.snapshot).find((s) => s.key.metric === "api_call")!
      expect([series.count, series.latency.totalCount, series.errors, series.connectionErrors]).toEqual([4, 3, 2, 1])
      expect(raw.text().split("\n").filter((l) => l !== "")).toHaveLength(70_003)
    })
  )
})
