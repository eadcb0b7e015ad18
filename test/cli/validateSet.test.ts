/** `validate` and `run` with `--set` and `${VAR}`, through the command line: the flag reaches the loader, exit codes. */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { validateFiles } from "../../app/cli/validate.js"
import { captureMain } from "../support/captureMain.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-set-"))
const file = join(dir, "s.yaml")
writeFileSync(
  file,
  `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: s
cluster:
  nodes: \${NODES_UNDER_TEST}
phases: []
`
)

const capture = (args: ReadonlyArray<string>) => captureMain(args)
afterEach(() => void vi.restoreAllMocks())

describe("validate --set / ${VAR}", () => {
  it("validates the effective scenario: the variable from the environment, then every --set in order", () => {
    const out: Array<string> = []
    const err: Array<string> = []
    const code = validateFiles([file], (s) => void out.push(s), (s) => void err.push(s), { env: { NODES_UNDER_TEST: "20" }, sets: ["cluster.nodes=70000", "cluster.nodes=5000"] })
    expect(err.join("")).toBe("")
    expect(out.join("")).toBe(`${file}: valid Scenario "s"\n`)
    expect(code).toBe(0)
  })

  it("an unset variable: exit 2 naming file, line, column and variable", async () => {
    const r = await capture(["validate", file])
    expect(r.code).toBe(2)
    expect(r.err).toBe(`${file}:6:10: cluster.nodes: environment variable NODES_UNDER_TEST is not set (set it, or give a default: \${NODES_UNDER_TEST:-value})\n`)
  })

  it("--set from the command line, repeatable; a bad one names the --set and the field, exit 2", async () => {
    // the --set replaces the value with the unset reference: it is never used
    const good = await capture(["validate", file, "--set", "cluster.nodes=5", "--set", "cluster.shape.cpu=2"])
    expect(good.err).toBe("")
    expect(good.out).toBe(`${file}: valid Scenario "s"\n`)
    expect(good.code).toBe(0)
    const bad = await capture(["validate", file, "--set", "cluster.nodes=5", "--set", "cluster.shape.cpus=4"])
    expect(bad.code).toBe(2)
    expect(bad.err).toBe(`${file}: --set cluster.shape.cpus=4: cluster.shape.cpus: unknown field "cpus" in cluster.shape; the closest valid path is cluster.shape.cpu\n`)
    const malformed = await capture(["validate", file, "--set", "cluster.nodes"])
    expect(malformed.code).toBe(2)
    expect(malformed.err).toBe("clustersim: --set cluster.nodes: expected path=value, e.g. cluster.nodes=5000\n")
    const ran = await capture(["run", file, "--set", "cluster.nodes=lots", "--out", join(dir, "out")])
    expect(ran.code).toBe(2)
    expect(ran.err).toContain(`${file}: --set cluster.nodes=lots: cluster.nodes: expected a number, got "lots"\n`)
  })
})
