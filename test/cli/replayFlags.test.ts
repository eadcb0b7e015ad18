/**
 * What `clustersim replay`'s command line makes (app/cli/replayCommand.ts), caught at `RunEntry`: the scenario it
 * writes, one generator, and its refusals — a remote target without --allow-remote, --speed 0, --loop without
 * --duration, a --from that is no time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Ref } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
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

describe("clustersim replay's command line", () => {
  it.effect("writes the one-action scenario it runs, with one generator, into --out", () =>
    Effect.gen(function* () {
      const out = mkdtempSync(join(tmpdir(), "replay-flags-"))
      const r = yield* parsed([
        "--target", "http://127.0.0.1:6443", "--out", out, "--speed", "10", "--scale", "3", "--namespace-prefix", "r1", "--impersonate",
        "--verb", "get", "--verb", "list", "--from", "10m", "--to", "2026-01-01T11:00:00Z", "a.log", "b.log.gz"
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
              type: "replay", name: "replay", logs: [resolve("a.log"), resolve("b.log.gz")], speed: 10, scale: 3, namespacePrefix: "r1", impersonate: true,
              verbs: ["get", "list"], from: "10m", to: "2026-01-01T11:00:00Z"
            }
          ]
        }
      ])
    })
  )

  it.effect("refuses a target that is not a loopback address, exit 2, and runs nothing; --allow-remote lets it", () =>
    Effect.gen(function* () {
      const r = yield* parsed(["--target", "https://10.1.2.3:6443", "a.log"])
      expect(r.exitCode).toBe(2)
      expect(Option.isNone(r.options)).toBe(true)
      expect(r.stderr).toContain("clustersim replay: https://10.1.2.3:6443 is not a loopback address, and a replayed log sends its creates, updates and deletes again")
      const out = mkdtempSync(join(tmpdir(), "replay-flags-"))
      const allowed = yield* parsed(["--target", "https://10.1.2.3:6443", "--allow-remote", "--out", out, "a.log"])
      expect(allowed.exitCode).toBe(0)
      expect(JSON.parse(readFileSync(join(out, "replay.yaml"), "utf8")).phases[0].actions[0].allowRemote).toBe(true)
    })
  )

  it.effect("names what is wrong in its flags: exit 2", () =>
    Effect.gen(function* () {
      for (const [args, message] of [
        [["--speed", "0", "a.log"], "--speed: must be greater than 0, got 0"],
        [["--loop", "a.log"], "--loop: give --duration, how long to replay"],
        [["--from", "soon", "a.log"], '--from: expected an RFC 3339 time or a duration, got "soon"'],
        [["--target", "in-process", "a.log"], "--target in-process: replay sends recorded requests as they are and needs an HTTP target"]
      ] as const) {
        const r = yield* parsed(args)
        expect(r.exitCode, args.join(" ")).toBe(2)
        expect(r.stderr, args.join(" ")).toContain(message)
        expect(Option.isNone(r.options)).toBe(true)
      }
    })
  )
})
