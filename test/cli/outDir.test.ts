/**
 * `run --out`: a directory where run.json cannot be written is refused before the run (exit 2, naming the path
 * and why), and when writing fails at the end anyway the summary is still printed, the exit is 1 and no
 * temporary file is left behind (issue 36, item 8). `run --junit`, `report`'s files and `calibrate --out` the same.
 */
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { calibrateCommand } from "../../app/cli/calibrate.js"
import { outDirProblem } from "../../app/cli/outDir.js"
import { reportCommand } from "../../app/cli/report.js"
import { runCommand } from "../../app/cli/run.js"
import { writeAtomically } from "../../src/loadgen/Artifact.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-outdir-"))

const scenario = join(dir, "tiny.yaml")
writeFileSync(
  scenario,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: tiny-out }
phases:
  - name: p1
    duration: 200ms
    actions:
      - { type: constant-arrival-rate, name: list, rate: 20, request: { verb: list, resource: configmaps, namespace: default } }
`
)

const run = (outDir: string, interrupt?: Effect.Effect<void>, junit?: string) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  return Effect.runPromise(
    runCommand({
      file: scenario,
      target: { _tag: "in-process" },
      outDir,
      tty: false,
      stdout: (s) => void stdout.push(s),
      stderr: (s) => void stderr.push(s),
      ...(interrupt ? { interrupt } : {}),
      ...(junit !== undefined ? { junit } : {})
    })
  ).then((r) => ({ ...r, stdout: stdout.join(""), stderr: stderr.join("") }))
}

describe("outDirProblem", () => {
  it("accepts a new directory (and makes it) and an existing one, leaving no probe file", () => {
    const fresh = join(dir, "fresh", "deeper")
    expect(outDirProblem(fresh)).toBeUndefined()
    expect(readdirSync(fresh)).toEqual([])
    expect(outDirProblem(fresh)).toBeUndefined()
  })

  it("names the file a path runs under", () => {
    const file = join(dir, "a-file")
    writeFileSync(file, "x")
    expect(outDirProblem(join(file, "out"))).toBe(`${file} is a file, not a directory`)
    expect(outDirProblem(file)).toBe(`${file} is a file, not a directory`)
  })

  it("refuses a directory whose run.json is a directory", () => {
    const out = join(dir, "runjson-dir")
    mkdirSync(join(out, "run.json"), { recursive: true })
    expect(outDirProblem(out)).toBe(`${join(out, "run.json")} is a directory`)
  })

  it("refuses a directory no file can be made in (/sys refuses even root)", () => {
    expect(outDirProblem("/sys/clustersim-out")).toBe("permission denied")
    expect(outDirProblem("/sys")).toBe("permission denied")
  })
})

describe("writeAtomically", () => {
  it("removes its temporary file when the rename fails", () => {
    const out = join(dir, "rename-fails")
    mkdirSync(join(out, "run.json", "inside"), { recursive: true })
    expect(() => writeAtomically(join(out, "run.json"), "{}")).toThrow()
    expect(readdirSync(out)).toEqual(["run.json"])
  })
})

describe("run --out", () => {
  it("exits 2 before the run for a path under a file, naming both", async () => {
    const file = join(dir, "plain-file")
    writeFileSync(file, "x")
    const r = await run(join(file, "out"))
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toBe(`clustersim: --out ${join(file, "out")}: cannot write run.json there: ${file} is a file, not a directory\n`)
    expect(r.stdout).toBe("")
  })

  it("exits 2 before the run for a directory named run.json inside --out", async () => {
    const out = join(dir, "has-runjson-dir")
    mkdirSync(join(out, "run.json"), { recursive: true })
    const r = await run(out)
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toBe(`clustersim: --out ${out}: cannot write run.json there: ${join(out, "run.json")} is a directory\n`)
  })

  it("prints the summary when run.json cannot be written at the end, exits 1 and leaves no temporary file", async () => {
    const out = join(dir, "breaks-during-run")
    // the run starts with a good directory; while it runs, run.json becomes a directory
    const breakOut = Effect.sync(() => mkdirSync(join(out, "run.json", "x"), { recursive: true })).pipe(Effect.zipRight(Effect.never))
    const r = await run(out, breakOut)
    expect(r.exitCode).toBe(1)
    expect(r.stdout).toContain("tiny-out")
    expect(r.stdout).not.toContain("artifact:")
    expect(r.stderr).toContain(`clustersim: could not write ${join(out, "run.json")}: `)
    expect(readdirSync(out)).toEqual(["run.json"])
    expect(existsSync(join(out, "report.html"))).toBe(false)
  })
})

describe("run --junit FILE", () => {
  it("is checked before the run as --out is: a directory, a directory that does not exist (not made), a path under a file: exit 2, naming the flag", async () => {
    const plain = join(dir, "junit-plain-file")
    writeFileSync(plain, "x")
    const isDir = join(dir, "junit-is-a-dir.xml")
    mkdirSync(isDir, { recursive: true })
    for (const [junit, why] of [
      [isDir, `${isDir} is a directory`],
      [join(dir, "no", "such", "j.xml"), `no such directory: ${join(dir, "no", "such")}`],
      [join(plain, "j.xml"), `${plain} is a file, not a directory`]
    ] as const) {
      const out = join(dir, `junit-out-${why.length}`)
      const r = await run(out, undefined, junit)
      expect(r.exitCode, junit).toBe(2)
      expect(r.stderr, junit).toBe(`clustersim: --junit ${junit}: cannot write there: ${why}\n`)
      expect(r.stdout).toBe("")
      expect(existsSync(join(out, "run.json"))).toBe(false)
    }
    expect(existsSync(join(dir, "no"))).toBe(false)
  })

  it("a junit file that cannot be written at the end after all fails a run that passed: exit 1, the artifact kept", async () => {
    const out = join(dir, "junit-breaks")
    const junit = join(dir, "junit-breaks.xml")
    // good before the run; while it runs, a directory takes the file's name
    const breakJunit = Effect.sync(() => mkdirSync(junit, { recursive: true })).pipe(Effect.zipRight(Effect.never))
    const r = await run(out, breakJunit, junit)
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(`clustersim: could not write ${junit}: `)
    expect(r.stdout).toContain("PASS")
    expect(r.stderr).toContain(`clustersim: exit 1: --junit ${junit} was not written (above), although the run passed\n`)
    expect(existsSync(join(out, "run.json"))).toBe(true)
  })
})

describe("report and calibrate: their files are checked before they print or probe", () => {
  it("report --html --out, report's default report.html and --junit: exit 2 naming the flag, nothing printed or written", async () => {
    const out = join(dir, "report-run")
    expect((await run(out)).exitCode).toBe(0)
    const file = join(out, "run.json")
    const isDir = join(dir, "report-is-a-dir.html")
    mkdirSync(isDir, { recursive: true })
    const missing = join(dir, "no-report-dir", "r.html")
    for (const [options, message] of [
      [{ html: true, out: missing }, `clustersim report: --out ${missing}: cannot write there: no such directory: ${join(dir, "no-report-dir")}\n`],
      [{ html: false, junit: isDir }, `clustersim report: --junit ${isDir}: cannot write there: ${isDir} is a directory\n`]
    ] as const) {
      const stdout: Array<string> = []
      const stderr: Array<string> = []
      expect(reportCommand({ file, ...options, stdout: (s) => void stdout.push(s), stderr: (s) => void stderr.push(s) })).toBe(2)
      expect([stdout.join(""), stderr.join("")]).toEqual(["", message])
    }
    // without --out the page goes beside run.json (run wrote one): a directory in its place is named as the path alone
    rmSync(join(out, "report.html"))
    mkdirSync(join(out, "report.html"))
    const stderr: Array<string> = []
    expect(reportCommand({ file, html: true, stdout: () => {}, stderr: (s) => void stderr.push(s) })).toBe(2)
    expect(stderr.join("")).toBe(`clustersim report: ${join(out, "report.html")}: cannot write there: ${join(out, "report.html")} is a directory\n`)
  })

  it("calibrate --out is refused before the probe starts (no server needed to find out)", async () => {
    const isDir = join(dir, "calibrate-is-a-dir.yaml")
    mkdirSync(isDir, { recursive: true })
    const stderr: Array<string> = []
    const r = await Effect.runPromise(calibrateCommand({ target: "http://127.0.0.1:9", out: isDir, stdout: () => {}, stderr: (s) => void stderr.push(s) }))
    expect(r.exitCode).toBe(2)
    expect(stderr.join("")).toBe(`clustersim calibrate: --out ${isDir}: cannot write there: ${isDir} is a directory\n`)
  })
})
