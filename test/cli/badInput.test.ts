/**
 * Bad input on the command line gets one line naming what and where, and exit 2 — never a stack trace: a listen
 * address in use or not this machine's, a run.json with a field missing or of the wrong type, a negative duration,
 * a single-valued flag given twice. (The embedded server's process refusing to start: test/system/cli/embeddedServerRefusal.test.ts.)
 */
import { afterAll, afterEach, describe, expect, it, vi } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { captureMain } from "../support/captureMain.js"
import { syntheticRun } from "../support/syntheticRun.js"

const capture = (args: ReadonlyArray<string>) => captureMain(args, { stripColour: true })

afterEach(() => void vi.restoreAllMocks())

const holdPort = (): Promise<{ readonly server: Server; readonly port: number }> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port }))
  })

describe("listen failures", () => {
  it("serve on a port in use names --port and the address, exit 2", async () => {
    const held = await holdPort()
    try {
      const r = await capture(["serve", "--port", String(held.port)])
      expect(r.code).toBe(2)
      expect(r.err).toBe(`clustersim: --port ${held.port}: 127.0.0.1:${held.port} is already in use (another server?)\nRun "clustersim help" for usage.\n`)
    } finally {
      held.server.close()
    }
  })

  it("serve on an address not this machine's, or no host at all, names --host, exit 2", async () => {
    const notMine = await capture(["serve", "--host", "10.255.255.1", "--port", "0"])
    expect(notMine.code).toBe(2)
    expect(notMine.err).toContain("clustersim: --host 10.255.255.1: 10.255.255.1 is not an address of this machine\n")
    const noHost = await capture(["serve", "--host", "999.1.1.1", "--port", "0"])
    expect(noHost.code).toBe(2)
    expect(noHost.err).toContain("clustersim: --host 999.1.1.1: no such host: 999.1.1.1\n")
  })

  it("run --metrics-addr on a port in use says so in the same words", async () => {
    const held = await holdPort()
    try {
      const r = await capture(["run", "scenarios/compare-list.yaml", "--target", "in-process", "--metrics-addr", String(held.port), "--out", join(tmpdir(), "clustersim-unused")])
      expect(r.code).toBe(2)
      expect(r.err).toContain(`clustersim: --metrics-addr 127.0.0.1:${held.port}: 127.0.0.1:${held.port} is already in use (another server?)\n`)
    } finally {
      held.server.close()
    }
  })
})

describe("stored artifacts with a field missing or of the wrong type", () => {
  const dir = mkdtempSync(join(tmpdir(), "clustersim-badartifact-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const valid = syntheticRun({ seed: 1, series: [{ key: { metric: "api_call", operation: "LIST", resource: "pods", scope: "namespace", phase: "steady" }, medianMs: 5, samples: 200 }] })
  const write = (name: string, value: unknown) => {
    const path = join(dir, name)
    writeFileSync(path, JSON.stringify(value))
    return path
  }
  const good = write("good.json", valid)
  const { target: _target, ...withoutTarget } = valid
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ["no-target.json", withoutTarget, "target: is missing"],
    ["null-series.json", { ...valid, series: null }, "series: Expected ReadonlyArray<ArtifactSeries>, actual null"],
    ["no-thresholds.json", (({ thresholds: _t, ...rest }) => rest)(valid), "thresholds: is missing"],
    ["format-only.json", { format: "clustersim/run-v2" }, "scenario: is missing"],
    ["bad-p50.json", { ...valid, series: [{ ...valid.series[0]!, latency: { ...valid.series[0]!.latency, p50: "fast" } }] }, 'series[0].latency.p50: Expected number, actual "fast"']
  ]

  it.each(cases)("report %s: exit 2, the file and the field named", async (name, value, problem) => {
    const path = write(name, value)
    const r = await capture(["report", path])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`clustersim report: ${path}: not a run.json artifact: ${problem}`)
    expect(r.err).not.toContain("    at ")
  })

  it("a truncated run.json: the line and column where it stops, not a character offset (report, compare)", async () => {
    const text = JSON.stringify(valid, null, 2)
    const cut = text.indexOf('"latencyHistogram": "') + 30
    const path = join(dir, "truncated.json")
    writeFileSync(path, text.slice(0, cut))
    const line = text.slice(0, cut).split("\n").length
    const column = cut - text.lastIndexOf("\n", cut - 1)
    expect(column).toBe('      "latencyHistogram": "'.length + 10)
    const r = await capture(["report", path])
    expect([r.code, r.err]).toEqual([2, `clustersim report: ${path}:${line}:${column}: not a run.json artifact: Unterminated string in JSON\n`])
    const c = await capture(["compare", path, good])
    expect(c.code).toBe(2)
    expect(c.err).toContain(`${path}:${line}:${column}: not a run.json artifact: Unterminated string in JSON\n`)
  })

  it("compare on such a file: exit 2, the file and the field named", async () => {
    const path = write("compare-no-target.json", withoutTarget)
    const r = await capture(["compare", path, good])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`${path}: not a run.json artifact: target: is missing`)
  })

  it("merge of such a segment: exit 2, the file and the field named", async () => {
    const path = write("merge-null-series.json", { ...valid, series: null })
    const r = await capture(["merge", path, good, "--out", join(dir, "merged")])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`${path}: not a run.json artifact: series: Expected ReadonlyArray<ArtifactSeries>, actual null`)
  })

  it("a valid artifact still reads", async () => {
    const r = await capture(["report", good])
    expect(r.code).toBe(0)
  })
})

describe("serve's durations", () => {
  it.each(["--history-window", "--bookmark-interval", "--added-latency", "--request-timeout"])("%s -1s is refused, exit 2", async (flag) => {
    const r = await capture(["serve", "--port", "0", flag, "-1s"])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`clustersim: ${flag}: must not be negative, got "-1s"\n`)
  })
})

describe("a flag given twice", () => {
  it("a single-valued flag or a switch given twice is named, exit 2", async () => {
    expect(await capture(["run", "s.yaml", "--out", "a", "--out", "b"])).toMatchObject({
      code: 2,
      err: 'clustersim run: flag "--out" given twice: it takes one value\nRun "clustersim run --help" for usage.\n'
    })
    expect((await capture(["serve", "--port", "0", "--port=1"])).err).toContain('clustersim serve: flag "--port" given twice: it takes one value\n')
    expect((await capture(["serve", "--admin", "--admin"])).err).toContain('clustersim serve: flag "--admin" given twice\n')
    expect((await capture(["serve", "-v", "--verbose"])).err).toContain('clustersim serve: flag "--verbose" given twice (as "-v" and "--verbose")\n')
    expect((await capture(["calibrate", "--ca", "a", "--certificate-authority", "b"])).err).toContain('clustersim calibrate: flag "--ca" given twice (as "--ca" and "--certificate-authority")')
  })

  it("repeatable flags stay repeatable", async () => {
    // both --set pass the check and reach the scenario (the file is missing: that is the error)
    const set = await capture(["validate", "--set", "a=1", "--set", "b=2", "no-such.yaml"])
    expect(set.err).not.toContain("given twice")
    const vary = await capture(["sweep", "no-such.yaml", "--vary", "cluster.nodes=1,2", "--vary", "seed=1,2"])
    expect(vary.err).not.toContain("given twice")
    const failIf = await capture(["compare", "a.json", "b.json", "--fail-if", "p50 ratio > 2", "--fail-if", "p99 ratio > 2"])
    expect(failIf.err).not.toContain("given twice")
  })
})
