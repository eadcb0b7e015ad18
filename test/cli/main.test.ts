import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { captureMain } from "../support/captureMain.js"

const capture = (args: ReadonlyArray<string>) => captureMain(args, { stripColour: true })

afterEach(() => void vi.restoreAllMocks())

describe("clustersim command line", () => {
  it.each(["run", "start", "serve", "validate", "report", "compare", "calibrate", "schema"])("%s --help prints the subcommand's usage and exits 0", async (command) => {
    const r = await capture([command, "--help"])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(new RegExp(`Usage:\n  clustersim ${command}( |\n)`))
    expect(r.out).toContain("Exit codes: 0 pass, 99")
  })

  it("scheduler --help is the scheduler's own help", async () => {
    const r = await capture(["scheduler", "--help"])
    expect(r.code).toBe(0)
    expect(r.out).toContain("platform-scheduler [flags]")
  })

  it("help and no arguments list every subcommand", async () => {
    for (const args of [[], ["help"]]) {
      const r = await capture(args)
      expect(r.code).toBe(0)
      for (const c of ["run", "start", "serve", "validate", "report", "compare", "schema", "scheduler"]) expect(r.out).toMatch(new RegExp(`^  ${c} `, "m"))
    }
  })

  it("errors name the flag and exit 2", async () => {
    expect(await capture(["run", "--bogus", "x.yaml"])).toMatchObject({ code: 2, err: 'clustersim run: unknown flag "--bogus"\nRun "clustersim run --help" for usage.\n' })
    expect(await capture(["run", "x.yaml", "--seed"])).toMatchObject({ code: 2, err: expect.stringContaining('clustersim run: flag "--seed" needs a value') })
    const port = await capture(["serve", "--port", "abc"])
    expect(port.code).toBe(2)
    expect(port.out + port.err).toContain('--port: not an integer: "abc"')
    const latency = await capture(["serve", "--added-latency", "soon"])
    expect(latency.code).toBe(2)
    expect(latency.err).toContain('invalid argument "soon" for "--added-latency" flag')
    const timeout = await capture(["serve", "--port", "0", "--request-timeout", "-5s"])
    expect([timeout.code, timeout.out + timeout.err]).toEqual([2, expect.stringContaining('--request-timeout: must not be negative, got "-5s"')])
    const connections = await capture(["serve", "--port", "0", "--max-connections", "0"])
    expect([connections.code, connections.out + connections.err]).toEqual([2, expect.stringContaining("--max-connections: must be at least 1, got 0")])
    expect((await capture(["run"])).code).toBe(2)
    const unknown = await capture(["bogus"])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toBe('clustersim: unknown command "bogus"\nRun "clustersim help" for usage.\n')
  })

  it("--seed beyond a safe integer is refused where the flag is parsed, as the scenario's seed: is (exit 2, nothing run), for every command taking it", async () => {
    const message = "--seed: Expected an integer, actual 1e+23 (from -9007199254740991 to 9007199254740991)"
    for (const args of [
      ["run", "scenarios/compare-list.yaml"],
      ["run", "scenarios/compare-list.yaml", "--target", "in-process"],
      ["start", "scenarios/compare-list.yaml"],
      ["sweep", "scenarios/compare-list.yaml", "--vary", "rate=1,2"],
      ["compare", "scenarios/compare-list.yaml", "--target", "in-process", "--target", "in-process"],
      ["serve"]
    ]) {
      const r = await capture([...args, "--seed", "99999999999999999999999"])
      expect([r.code, r.out + r.err], args.join(" ")).toEqual([2, expect.stringContaining(message)])
      expect(r.out + r.err, args.join(" ")).not.toContain("PASS")
    }
    // the largest exact integer passes the flag: the run goes on to read its scenario (here a missing one)
    const edge = await capture(["run", "no-such.yaml", "--target", "in-process", "--seed", String(Number.MAX_SAFE_INTEGER)])
    expect([edge.code, edge.err]).toEqual([2, expect.stringContaining("clustersim: cannot read no-such.yaml")])
  }, 30_000)

  it("report on a file that is not an artifact: exit 2, naming the file, no stack trace", async () => {
    const r = await capture(["report", "package.json"])
    expect(r.code).toBe(2)
    expect(r.err).toBe('clustersim report: package.json: not a run.json artifact: format is undefined, expected one of clustersim/run-v1, clustersim/run-v2\n')
    const missing = await capture(["validate", "no-such-file.yaml"])
    expect(missing.code).toBe(2)
    expect(missing.err).toContain("no-such-file.yaml: cannot read: ENOENT")
  })

  it("validate and run refuse a registry fault without cluster.images: exit 2, located", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-faults-"))
    const file = join(dir, "s.yaml")
    writeFileSync(file, "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: t }\nduration: 1m\nphases: []\ncluster: { nodes: 2 }\nfaults:\n  - { type: registry-outage, registry: registry.example, at: 0s, for: 1m }\n")
    try {
      for (const command of ["validate", "run"]) {
        const r = await capture([command, file])
        expect([command, r.code]).toEqual([command, 2])
        expect(r.err).toContain(`${file}:8:13: faults[0].type: "registry-outage" needs cluster.images (the registries and images it acts on)`)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("offers shell completions", async () => {
    const r = await capture(["--completions", "bash"])
    expect(r.code).toBe(0)
    expect(r.out).toContain("complete")
  })
})
