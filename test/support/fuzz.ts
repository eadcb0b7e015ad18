/**
 * The project's own fuzz check (issue 14): `requests` seeded hostile requests against `clustersim serve`'s HTTP
 * server in this process, over real sockets. Any crash ends the test run; hangs, dropped connections, unexpected
 * 5xx and non-Status error answers are findings, and there must be none. The fast tier sends a share of them
 * (test/hardening/fuzz.test.ts), the system tier the 10,000 (test/system/hardening/fuzz.test.ts); the long run
 * is `npm run fuzz`.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { runFuzz } from "../../bench/fuzz/runFuzz.js"
import { httpServer } from "./transports.js"
import { send } from "./wire.js"

export const fuzzChecked = (requests: number) =>
  Effect.gen(function* () {
    const base = yield* httpServer()
    const report = yield* Effect.promise(() => runFuzz({ baseUrl: base, requests, seed: 14, concurrency: 8, hangMs: 10_000 }))
    expect(report.findings.slice(0, 10)).toEqual([])
    expect(report.findings).toHaveLength(0)
    expect(report.requests).toBe(requests)
    // Most answers are refusals, but some requests get through: the generator reaches the handlers.
    expect(Object.keys(report.byStatus)).toEqual(expect.arrayContaining(["200", "201", "400", "404", "405"]))
    expect((yield* send(base, "GET", "/api/v1/namespaces/default")).code).toBe(200)
  }).pipe(Effect.scoped)
