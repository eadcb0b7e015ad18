/**
 * The replay sender's timing (src/replay/Replay.ts, docs/replay.md "Memory and timing") on a TestClock, against a
 * target that answers at once: with watches' ends held in the reorder window (RequestSelection.ts hands them out in
 * time order with the requests, issue 41), every request starts at its intended time and every watch is closed at
 * its recorded end over the speed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import type { RawAnswer, RawRequest } from "../../src/client/Capabilities.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { runReplay } from "../../src/replay/Replay.js"
import { auditEvent, type EventSpec, lines } from "./auditEvents.js"

const dir = mkdtempSync(join(tmpdir(), "replay-timing-"))

/** A target answering every request at once, a watch held open until closed; when each came and closed, in TestClock ms. */
const instantTarget = () => {
  const sent: Array<{ readonly path: string; readonly atMs: number; closedMs?: number }> = []
  const client = {
    raw: {
      origin: "http://127.0.0.1:1",
      send: (q: RawRequest) =>
        Effect.clockWith((c) =>
          Effect.sync((): RawAnswer => {
            const s: { path: string; atMs: number; closedMs?: number } = { path: q.path, atMs: c.unsafeCurrentTimeMillis() }
            sent.push(s)
            if (!q.longRunning) return { code: 200 }
            let end!: () => void
            const ended = new Promise<void>((resolve) => (end = resolve))
            return { code: 200, ended, close: () => ((s.closedMs ??= c.unsafeCurrentTimeMillis()), end()) }
          })
        )
    }
  } as unknown as ApiClientService
  return { sent, layer: Layer.merge(Layer.succeed(ApiClient, client), Layer.effect(LatencyRecorder, LatencyRecorder.make())) }
}

/** A TestClock step costs a real timer: 5 ms at a time, the log's times on the steps. */
const StepMs = 5

/** One real turn of the event loop: the replay's file reads and `setImmediate` turns happen while the TestClock stands. */
const realTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

describe("the replay sender's timing", () => {
  it.effect("starts every request on time and closes every watch at its recorded end while the ends wait in the reorder window", () =>
    Effect.gen(function* () {
      // GETs every 10 ms for 1 s; a watch started every 100 ms, held 700 ms, past the 0.5 s window: its end is read
      // after the window released its start. The lines in completion order, as the log backend writes them
      const watch = (i: number): Array<EventSpec> => [
        { at: i * 100, verb: "watch", uri: `/api/v1/namespaces/a/configmaps?watch=true&w=${i}`, stage: "ResponseStarted", id: `w${i}`, latencyMs: 1 },
        { at: i * 100, verb: "watch", uri: `/api/v1/namespaces/a/configmaps?watch=true&w=${i}`, id: `w${i}`, latencyMs: 700 }
      ]
      const watches = Array.from({ length: 10 }, (_, i) => watch(i)).flat()
      const gets: Array<EventSpec> = Array.from({ length: 100 }, (_, i) => ({ at: i * 10 + 5, verb: "get", uri: `/api/v1/namespaces/a/configmaps/c${i}`, latencyMs: 2 }))
      const specs = [...watches, ...gets].sort((a, b) => a.at + (a.latencyMs ?? 2) - (b.at + (b.latencyMs ?? 2)))
      const log = join(dir, "watches.log")
      writeFileSync(log, lines(specs.map(auditEvent)))
      const target = instantTarget()
      const replay = yield* Effect.fork(
        runReplay({ logs: [log], filter: {}, speed: 1, scale: 1, impersonate: false, seed: false, loop: false, windowMs: 500, maxInFlight: 100, allowRemote: false }).pipe(
          Effect.provide(target.layer)
        )
      )
      for (let ms = 0; ms < 4000 && (yield* Fiber.poll(replay))._tag === "None"; ms += StepMs) {
        yield* realTurn
        yield* TestClock.adjust(StepMs)
      }
      const report = yield* Fiber.join(replay)
      expect(report.requests).toMatchObject({ sent: 110, matched: 110, longRunning: 10 })
      expect(report.scheduling.lateOver5ms).toBe(0)
      expect(report.scheduling.max).toBeLessThanOrEqual(1)
      const first = target.sent[0]!.atMs
      const find = (p: string) => target.sent.find((s) => s.path === p)!
      expect([20, 55, 80, 99].map((i) => find(`/api/v1/namespaces/a/configmaps/c${i}`).atMs - first)).toEqual([205, 555, 805, 995])
      // each watch from its recorded start to its recorded end (its ResponseComplete), not later
      const w = (i: number) => find(`/api/v1/namespaces/a/configmaps?watch=true&w=${i}`)
      expect([0, 4, 9].map((i) => [w(i).atMs - first, w(i).closedMs! - first])).toEqual([
        [0, 700],
        [400, 1100],
        [900, 1600]
      ])
    })
  )
})
