/**
 * A replay's input checked before it starts (docs/replay.md "Bad input"): a log that cannot be read is the scenario's
 * invalid field (file, line, path), a log with no request to send — empty, every line bad, every request filtered
 * out — is refused before the run (exit 2, app/cli/preflight.ts), and a replay that sent nothing never passes
 * (`outcome:replay-requests`). A log with some bad lines still replays the rest, the bad ones counted and named.
 */
import { Effect, Either } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { emptyReplay } from "../../app/cli/preflight.js"
import { runCommand } from "../../app/cli/run.js"
import { parseScenario } from "../../app/scenario/load.js"
import { outcomeChecks } from "../../app/scenario/Outcome.js"
import type { ReplayReport, RunArtifact } from "../../src/loadgen/Artifact.js"
import { auditEvent, lines } from "../replay/auditEvents.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-replay-input-"))
const write = (name: string, text: string): string => {
  const f = join(dir, name)
  writeFileSync(f, text)
  return f
}
const scenarioText = (logs: ReadonlyArray<string>, extra = "") => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: replay-input }
phases:
  - name: p
    duration: 0s
    actions:
      - type: replay
        name: r
        logs: ${JSON.stringify(logs)}
${extra}`

const getNamespace = (at: number) => auditEvent({ at, verb: "get", uri: "/api/v1/namespaces/default", ref: { resource: "namespaces", name: "default", apiVersion: "v1" } })

const run = (file: string) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const outDir = join(dir, `out-${Math.random().toString(36).slice(2)}`)
  return Effect.map(
    runCommand({ file, target: { _tag: "embedded" }, outDir, tty: false, stdout: (s) => void stdout.push(s), stderr: (s) => void stderr.push(s) }),
    (r) => ({ ...r, outDir, stdout: stdout.join(""), stderr: stderr.join("") })
  )
}

describe("a replay's logs, checked before it starts", () => {
  it("a log that cannot be read is the scenario's invalid field, with its line: missing, a directory", () => {
    const good = write("good.log", lines([getNamespace(0)]))
    const directory = join(dir, "a-dir")
    mkdirSync(directory, { recursive: true })
    const missing = join(dir, "missing.log")
    const file = join(dir, "unreadable.yaml")
    const text = scenarioText([good, missing, directory])
    const loaded = parseScenario(text, file)
    // each list item's own line and column
    const column = (s: string) => text.split("\n")[9]!.indexOf(JSON.stringify(s)) + 1
    expect(Either.isLeft(loaded) && loaded.left.message).toBe(
      [
        `${file}:10:${column(missing)}: phases[0].actions[0].logs[1]: ${missing}: no such file`,
        `${file}:10:${column(directory)}: phases[0].actions[0].logs[2]: ${directory}: is a directory, not an audit log file`
      ].join("\n")
    )
  })

  it.live("an empty log, or one whose every line is bad input, is refused before the run: exit 2, the lines named, no artifact", () =>
    Effect.gen(function* () {
      const empty = write("empty.log", "")
      const garbage = write("garbage.log", 'not json\n{"apiVersion":"audit.k8s.io/v1beta1","kind":"Event"}\n')
      for (const [logs, why] of [
        [[empty], `no request to replay in ${empty}: the log is empty`],
        [
          [garbage],
          `no request to replay in ${garbage}: 2 lines, 0 events; 2 lines not replayable (not-json 1, api-version 1), the first: ${garbage}:1: not-json: not JSON (Unexpected token 'o', "not json" is not valid JSON); a truncated line?`
        ]
      ] as const) {
        const file = write(`s-${logs.length}-${why.length}.yaml`, scenarioText(logs))
        const r = yield* run(file)
        expect(r.exitCode, why).toBe(2)
        expect(r.stderr, why).toBe(`clustersim: ${file}: phases[0].actions[0] (replay): ${why}\n`)
        expect(existsSync(join(r.outDir, "run.json"))).toBe(false)
      }
    })
  )

  it.effect("only RequestReceived events, or filters that keep no request: nothing to replay, said why", () =>
    Effect.gen(function* () {
      const received = write("received.log", lines([auditEvent({ at: 0, verb: "get", uri: "/api/v1/namespaces/default", stage: "RequestReceived" })]))
      const loaded = parseScenario(scenarioText([received]), join(dir, "x.yaml"))
      expect(yield* emptyReplay(Either.getOrThrow(loaded).scenario)).toBe(
        `phases[0].actions[0] (replay): no request to replay in ${received}: 1 line, 1 event; 1 RequestReceived event, a stage the replay does not use`
      )
      const good = write("filtered.log", lines([getNamespace(0), getNamespace(10)]))
      const filtered = parseScenario(scenarioText([good], "        users: [nobody]"), join(dir, "y.yaml"))
      expect(yield* emptyReplay(Either.getOrThrow(filtered).scenario)).toBe(
        `phases[0].actions[0] (replay): no request to replay in ${good}: 2 lines, 2 events; the filters (users, verbs, resources, namespaces, from, to) keep none of its 2 requests`
      )
    })
  )

  it.live("a log with a bad line among good ones replays the good ones and reports the bad one (docs/replay.md): it passes, its duration not negative", () =>
    Effect.gen(function* () {
      const log = write("partly.log", lines([getNamespace(0), "cut sho", getNamespace(20)]))
      const r = yield* run(write("partly.yaml", scenarioText([log])))
      expect(r.exitCode, r.stderr).toBe(0)
      const artifact = JSON.parse(readFileSync(join(r.outDir, "run.json"), "utf8")) as RunArtifact
      const replay = artifact.actions[0]!.replay!
      expect(replay.requests).toMatchObject({ planned: 2, sent: 2, matched: 2 })
      expect(replay.badInput).toMatchObject({ total: 1, byClass: { "not-json": 1 } })
      expect(replay.badInput.examples[0]).toMatchObject({ file: log, line: 2, class: "not-json" })
      expect(replay.durationMs).toBeGreaterThanOrEqual(0)
      expect(r.stdout).toContain(`${log}:2: not-json:`)
    }),
    30_000
  )

  it("a replay that sent nothing fails the run (outcome:replay-requests), whatever the way it got there", () => {
    const report = { requests: { planned: 0, sent: 0, matched: 0, mismatched: 0, connectionErrors: 0, dropped: 0, synthesized: 0, longRunning: 0 }, seeding: { failed: 0 } } as unknown as ReplayReport
    expect(outcomeChecks({ scenario: {}, series: [], actions: [{ phase: "p", action: "r", type: "replay", replay: report }], errorsTotal: 0 }).map((c) => [c.threshold, c.condition, c.passed])).toEqual([
      ["outcome:replay-matches", "failed replayed requests == 0", true],
      ["outcome:replay-requests", "replayed requests > 0", false]
    ])
  })
})
