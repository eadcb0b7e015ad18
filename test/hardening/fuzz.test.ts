/**
 * The project's own fuzz test (issue 14): seeded hostile requests against `clustersim serve`'s HTTP server
 * in this process, over real sockets. Any crash ends the test run; hangs, dropped connections, unexpected
 * 5xx and non-Status error answers are findings, and there must be none. The long run is `npm run fuzz`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runFuzz } from "../../bench/fuzz/runFuzz.js"
import { httpServer } from "../support/transports.js"
import { send } from "../support/wire.js"

/** 10,000 as issue 14 asks: ~36 s on 2 cores at a load average of 6 (the test allows 120 s). */
const requests = 10_000

describe("fuzz", () => {
  it.live(`${requests} seeded requests: no crash, hang, unexpected 5xx or non-Status error`, () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const report = yield* Effect.promise(() => runFuzz({ baseUrl: base, requests, seed: 14, concurrency: 8, hangMs: 10_000 }))
      expect(report.findings.slice(0, 10)).toEqual([])
      expect(report.findings).toHaveLength(0)
      expect(report.requests).toBe(requests)
      // Most answers are refusals, but some requests get through: the generator reaches the handlers.
      expect(Object.keys(report.byStatus)).toEqual(expect.arrayContaining(["200", "201", "400", "404", "405"]))
      expect((yield* send(base, "GET", "/api/v1/namespaces/default")).code).toBe(200)
    }).pipe(Effect.scoped), 120_000)
})
