import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { runCommand } from "../../app/cli/run.js"
import { validateFiles } from "../../app/cli/validate.js"

const validate = (text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), "thresholds-")), "s.yaml")
  writeFileSync(file, text)
  const out: Array<string> = []
  const err: Array<string> = []
  const code = validateFiles([file], (s) => void out.push(s), (s) => void err.push(s))
  return { code, file, out: out.join(""), err: err.join("") }
}

describe("validate: a threshold no series can match", () => {
  it("is rejected (exit 2) at its key's line and column, naming the closest metric", () => {
    const text = readFileSync("scenarios/quickstart.yaml", "utf8").replace('"latency{metric:api_call,operation:GET}"', '"latency{metric:api_cal,operation:GET}"')
    const r = validate(text)
    const line = text.split("\n").findIndex((l) => l.includes("api_cal,")) + 1
    expect(r.code).toBe(2)
    expect(r.out).toBe("")
    expect(r.err).toBe(`${r.file}:${line}:3: thresholds["latency{metric:api_cal,operation:GET}"]: no series has metric "api_cal"; did you mean "api_call"?\n`)
  })

  it("run refuses it before running, exit 2, with the same message", async () => {
    const text = readFileSync("scenarios/quickstart.yaml", "utf8").replace('"latency{metric:watch_event}"', '"latency{metric:watch_events}"')
    const file = join(mkdtempSync(join(tmpdir(), "thresholds-")), "q.yaml")
    writeFileSync(file, text)
    const line = text.split("\n").findIndex((l) => l.includes("watch_events")) + 1
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const r = await Effect.runPromise(
      runCommand({ file, target: { _tag: "in-process" }, outDir: join(dirname(file), "out"), tty: false, stdout: (s) => void stdout.push(s), stderr: (s) => void stderr.push(s) })
    )
    expect(r.exitCode).toBe(2)
    expect(stdout.join("")).toBe("")
    expect(stderr.join("")).toContain(`${file}:${line}:3: thresholds["latency{metric:watch_events}"]: no series has metric "watch_events"; did you mean "watch_event"?\n`)
  })

  it("names a tag value no series of the chosen metric has", () => {
    const r = validate(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: t }
phases:
  - name: p
    duration: 1s
    actions: [{ type: closed, workers: 1, request: { verb: get, resource: configmaps, name: x } }]
thresholds:
  "latency{metric:api_call}": ["p(99) < 1s"]
  "latency{metric:api_call,operation:GTE}": ["p(99) < 1s"]
`)
    expect(r.err).toBe(`${r.file}:10:3: thresholds["latency{metric:api_call,operation:GTE}"]: no series with metric "api_call" has operation "GTE"; did you mean "GET"?\n`)
    expect(r.code).toBe(2)
  })

  it("accepts k6's object form with allowNoData", () => {
    const r = validate(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: t }
phases:
  - name: p
    duration: 1s
    actions: [{ type: closed, workers: 1, request: { verb: get, resource: configmaps, name: x } }]
thresholds:
  "latency{operation:GET}": [{ threshold: "p(99) < 1s", allowNoData: true }, "max < 2s"]
  "errors": { threshold: "rate < 0.1" }
`)
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
  })
})
