/**
 * What `clustersim replay`'s command line makes (app/cli/replayCommand.ts), caught at `RunEntry`: the scenario it
 * writes, one generator, and its refusals — a remote target without --allow-remote, --speed 0, --loop without
 * --duration, a --from that is no time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Ref } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { commandLine, RunEntry } from "../../app/cli/commandLine.js"
import type { RunCommandOptions } from "../../app/cli/run.js"

const parsed = (args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const seen = yield* Ref.make(Option.none<RunCommandOptions>())
    const entry = (options: RunCommandOptions) => Effect.as(Ref.set(seen, Option.some(options)), { exitCode: 0 })
    const stderr: Array<string> = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((s: string) => (stderr.push(String(s)), true)) as typeof process.stderr.write
    try {
      const exitCode = yield* Effect.provideService(commandLine(["replay", ...args]), RunEntry, entry)
      return { exitCode, options: yield* Ref.get(seen), stderr: stderr.join("") }
    } finally {
      process.stderr.write = write
    }
  })

/** Log files that exist (their content is the run's to read: `RunEntry` is caught here). */
const logs = mkdtempSync(join(tmpdir(), "replay-logs-"))
const aLog = join(logs, "a.log")
const bLog = join(logs, "b.log.gz")
writeFileSync(aLog, "")
writeFileSync(bLog, "")

describe("clustersim replay's command line", () => {
  it.effect("writes the one-action scenario it runs, with one generator, into --out", () =>
    Effect.gen(function* () {
      const out = mkdtempSync(join(tmpdir(), "replay-flags-"))
      const r = yield* parsed([
        "--target", "http://127.0.0.1:6443", "--out", out, "--speed", "10", "--scale", "3", "--namespace-prefix", "r1", "--impersonate",
        "--verb", "get", "--verb", "list", "--from", "10m", "--to", "2026-01-01T11:00:00Z", aLog, bLog
      ])
      expect(r.exitCode).toBe(0)
      const o = Option.getOrThrow(r.options)
      expect(o).toMatchObject({ file: join(out, "replay.yaml"), outDir: out, workers: 1, target: { _tag: "url" } })
      const scenario = JSON.parse(readFileSync(o.file, "utf8"))
      expect(scenario.phases).toEqual([
        {
          name: "replay",
          duration: "0s",
          actions: [
            {
              type: "replay", name: "replay", logs: [aLog, bLog], speed: 10, scale: 3, namespacePrefix: "r1", impersonate: true,
              verbs: ["get", "list"], from: "10m", to: "2026-01-01T11:00:00Z"
            }
          ]
        }
      ])
    })
  )

  it.effect("refuses a target that is not a loopback address, exit 2, and runs nothing; --allow-remote lets it", () =>
    Effect.gen(function* () {
      const r = yield* parsed(["--target", "https://10.1.2.3:6443", aLog])
      expect(r.exitCode).toBe(2)
      expect(Option.isNone(r.options)).toBe(true)
      expect(r.stderr).toContain("clustersim replay: https://10.1.2.3:6443 is not a loopback address, and a replayed log sends its creates, updates and deletes again")
      const out = mkdtempSync(join(tmpdir(), "replay-flags-"))
      const allowed = yield* parsed(["--target", "https://10.1.2.3:6443", "--allow-remote", "--out", out, aLog])
      expect(allowed.exitCode).toBe(0)
      expect(JSON.parse(readFileSync(join(out, "replay.yaml"), "utf8")).phases[0].actions[0].allowRemote).toBe(true)
    })
  )

  it.effect("names what is wrong in its flags: exit 2", () =>
    Effect.gen(function* () {
      for (const [args, message] of [
        [["--speed", "0", aLog], "--speed: must be greater than 0, got 0"],
        [["--loop", aLog], "--loop: give --duration, how long to replay"],
        [["--from", "soon", aLog], '--from: expected an RFC 3339 time or a duration, got "soon"'],
        [["--target", "in-process", aLog], "--target in-process: replay sends recorded requests as they are and needs an HTTP target"],
        // what the scenario's schema refuses, named by the flag, not by a line of the generated replay.yaml
        [["--reorder-window", "-1s", aLog], "clustersim: --reorder-window: duration must not be negative\n"],
        [["--max-in-flight", "0", aLog], "clustersim: --max-in-flight: Expected a number between 1 and 100000, actual 0\n"],
        [["--speed", "1e300", aLog], "clustersim: --speed: Expected a number less than or equal to 10000, actual 1e+300\n"],
        [["--speed", "1e400", aLog], "clustersim: --speed: Expected a number less than or equal to 10000, actual Infinity\n"],
        // @effect/cli prints a flag's parse error itself (test/cli/help.test.ts reads it)
        [["--speed", "0x10", aLog], 'Run "clustersim replay --help" for usage.'],
        [["--namespace-prefix", "A_B", aLog], "clustersim: --namespace-prefix: must be a DNS label"],
        [["--loop", "--duration", "soon", aLog], 'clustersim: --duration: time: invalid duration "soon"\n']
      ] as const) {
        const cwd = process.cwd()
        const here = mkdtempSync(join(tmpdir(), "replay-flags-cwd-"))
        process.chdir(here)
        try {
          const r = yield* parsed(args)
          expect(r.exitCode, args.join(" ")).toBe(2)
          expect(r.stderr, args.join(" ")).toContain(message)
          expect(Option.isNone(r.options)).toBe(true)
          // nothing written: no runs/…/replay.yaml in the working directory
          expect(readdirSync(here), args.join(" ")).toEqual([])
        } finally {
          process.chdir(cwd)
        }
      }
    })
  )

  it.effect("names a log it cannot read — missing, a directory — exit 2, before it writes or starts anything", () =>
    Effect.gen(function* () {
      const dir = join(logs, "a-directory")
      mkdirSync(dir, { recursive: true })
      const out = join(logs, "never-made")
      for (const [log, message] of [
        [join(logs, "missing.log"), `clustersim: LOG ${join(logs, "missing.log")}: no such file\n`],
        [dir, `clustersim: LOG ${dir}: is a directory, not an audit log file\n`],
        [join(aLog, "x.log"), `clustersim: LOG ${join(aLog, "x.log")}: no such file (a part of the path is a file, not a directory)\n`],
        // not a regular file: a replay reads its logs twice (a pipe, `<(zcat audit.log.gz)`: test/system/replay)
        ["/dev/null", `clustersim: LOG /dev/null: is a device, not a regular file: a replay reads its logs twice (what to seed, then the requests); save it to a file first\n`]
      ] as const) {
        const r = yield* parsed(["--out", out, aLog, log])
        expect(r.exitCode, log).toBe(2)
        expect(r.stderr, log).toBe(`${message}Run "clustersim help" for usage.\n`)
        expect(Option.isNone(r.options)).toBe(true)
      }
      expect(() => readFileSync(join(out, "replay.yaml"))).toThrow(/ENOENT/)
    })
  )
})
