/**
 * `run`'s metrics flags as the real command line reads them (test/support/runFlags.ts): `--metrics-out` with its
 * interval (15 s unless `--metrics-interval`), `--metrics-addr` (PORT alone: 127.0.0.1); bad values are usage errors
 * (exit 2) naming the flag; each flag refused on the clock it does not belong to.
 */
import { Effect, Option } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { runCommand } from "../../app/cli/run.js"
import { parseListenAddress } from "../../app/cli/MetricsFlags.js"
import { parsedRun, runOptionsOf } from "../support/runFlags.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-metrics-flags-"))
let stderr = ""
beforeEach(() => {
  stderr = ""
  vi.spyOn(process.stderr, "write").mockImplementation((s) => ((stderr += String(s)), true))
})
afterEach(() => vi.restoreAllMocks())

describe("run's metrics flags", () => {
  it("--metrics-out FILE with the default interval, or --metrics-interval's", async () => {
    const out = join(dir, "m.om")
    const o = await Effect.runPromise(runOptionsOf(["--target", "in-process", "--metrics-out", out, "s.yaml"]))
    expect([o.metricsOut, o.metricsIntervalMs, o.metricsAddr]).toEqual([out, 15_000, undefined])
    const p = await Effect.runPromise(runOptionsOf(["--target", "in-process", "--metrics-out", out, "--metrics-interval", "1m", "s.yaml"]))
    expect(p.metricsIntervalMs).toBe(60_000)
  })

  it("--metrics-addr: PORT and :PORT bind 127.0.0.1, HOST:PORT and [v6]:PORT as given", async () => {
    const o = await Effect.runPromise(runOptionsOf(["--target", "in-process", "--metrics-addr", "9100", "s.yaml"]))
    expect(o.metricsAddr).toEqual({ host: "127.0.0.1", port: 9100 })
    expect(parseListenAddress(":0")).toEqual({ host: "127.0.0.1", port: 0 })
    expect(parseListenAddress("0.0.0.0:9100")).toEqual({ host: "0.0.0.0", port: 9100 })
    expect(parseListenAddress("[::1]:9100")).toEqual({ host: "::1", port: 9100 })
  })

  it("bad values are usage errors naming the flag", async () => {
    const cases: Array<[Array<string>, string]> = [
      [["--metrics-addr", "localhost"], 'clustersim: --metrics-addr: expected HOST:PORT or PORT, got "localhost"'],
      [["--metrics-addr", "70000"], "clustersim: --metrics-addr: port out of range (0-65535): 70000"],
      [["--metrics-out", join(dir, "no/such/m.om")], `clustersim: --metrics-out ${join(dir, "no/such/m.om")}: cannot write there: no such directory: ${join(dir, "no/such")}`],
      [["--metrics-out", dir], `clustersim: --metrics-out ${dir}: cannot write there: ${dir} is a directory`],
      [["--metrics-out", join(dir, "m.om"), "--metrics-interval", "1500ms"], "clustersim: --metrics-interval: must be whole seconds, at least 1s, got 1500 ms"]
    ]
    for (const [flags, message] of cases) {
      stderr = ""
      const r = await Effect.runPromise(parsedRun(["--target", "in-process", ...flags, "s.yaml"]))
      expect(r.exitCode, flags.join(" ")).toBe(2)
      expect(Option.isNone(r.options)).toBe(true)
      expect(stderr).toContain(`${message}\n`)
    }
  })

  it("--metrics-out is for virtual time, --metrics-addr for real time", async () => {
    const load = join(dir, "load.yaml")
    writeFileSync(load, "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: l }\nphases:\n  - { name: p, duration: 1s, actions: [] }\n")
    const cluster = join(dir, "cluster.yaml")
    writeFileSync(cluster, "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: c }\nduration: 10s\ncluster: { nodes: 1 }\nphases: []\n")
    const err: Array<string> = []
    const quiet = { tty: false, stdout: () => {}, stderr: (s: string) => void err.push(s) }
    const a = await Effect.runPromise(runCommand({ file: load, target: { _tag: "in-process" }, outDir: join(dir, "a"), metricsOut: join(dir, "a.om"), ...quiet }))
    expect(a.exitCode).toBe(2)
    expect(err.join("")).toBe(
      "clustersim: --metrics-out: only a run in virtual time (a scenario with simulated sections, without --target) has modelled metrics to write; this is a load-only run: serve its metrics with --metrics-addr\n"
    )
    err.length = 0
    const b = await Effect.runPromise(runCommand({ file: cluster, target: { _tag: "in-process" }, outDir: join(dir, "b"), metricsAddr: { host: "127.0.0.1", port: 0 }, ...quiet }))
    expect(b.exitCode).toBe(2)
    expect(err.join("")).toBe("clustersim: --metrics-addr: a run in virtual time is over before a scrape would come: write its metrics with --metrics-out FILE\n")
  })
})
