/**
 * `--prometheus` and `--server-metrics-timeout` on `run` (and `compare`): what the real command line hands the run
 * pipeline, and the usage errors (exit 2, the flag named) for a URL that is not http(s), a bound of 0, and a compare
 * whose Prometheus URLs do not pair with its targets.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import { main } from "../../app/cli/main.js"
import { parsedRun, runOptionsOf } from "../support/runFlags.js"

afterEach(() => void vi.restoreAllMocks())

const stderrOf = <A>(e: Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    const err: Array<string> = []
    vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true))
    const result = yield* e
    vi.restoreAllMocks()
    return { result, err: err.join("") }
  })

describe("server-side flags", () => {
  it.effect("run: the default bound, and --prometheus with its own bound", () =>
    Effect.gen(function* () {
      const plain = yield* stderrOf(runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1"]))
      expect(plain.result.serverSide).toEqual({ timeoutMs: 10_000 })
      const prom = yield* stderrOf(runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1", "--prometheus", "http://prom:9090/", "--server-metrics-timeout", "2s"]))
      expect(prom.result.serverSide).toEqual({ timeoutMs: 2_000, prometheus: "http://prom:9090" })
    })
  )

  it.effect.each([
    [["--prometheus", "ftp://prom"], 'clustersim: --prometheus: not an http(s) URL: "ftp://prom"\n'],
    [["--prometheus", "prom:9090"], 'clustersim: --prometheus: not an http(s) URL: "prom:9090"\n'],
    [["--server-metrics-timeout", "0s"], "clustersim: --server-metrics-timeout: must be more than 0, got 0s\n"],
    [["--server-metrics-timeout", "soon"], 'clustersim: invalid argument "soon" for "--server-metrics-timeout" flag: ']
  ])("run %j: a usage error, exit 2, nothing run", ([flags, message]) =>
    Effect.gen(function* () {
      const r = yield* stderrOf(parsedRun(["s.yaml", "--target", "http://127.0.0.1:1", ...flags]))
      expect(r.result.exitCode).toBe(2)
      expect(r.result.options._tag).toBe("None")
      expect(r.err).toContain(message)
    })
  )

  it("compare: one --prometheus per --target, or none", async () => {
    const err: Array<string> = []
    vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true))
    const code = await main(["compare", "s.yaml", "--target", "http://127.0.0.1:1", "--target", "http://127.0.0.1:2", "--prometheus", "http://prom:9090"])
    vi.restoreAllMocks()
    expect(code).toBe(2)
    expect(err.join("")).toContain("clustersim: --prometheus: give one per --target (in order), got 1 for 2 targets\n")
  })
})
