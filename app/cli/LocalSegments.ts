/**
 * `run --segments n`: the n segments of a run as n processes of this machine (docs/distributed.md "Locally"), each
 * the CLI's own `run --segment i/n --rendezvous ID` meeting the others through the target exactly as on a cluster,
 * then their artifacts merged (./merge.ts) into `--out`, the segments' own under `--out/segment-i`. For machines with
 * more cores than one generator uses, and for trying the distributed path before a cluster.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { basename, join } from "node:path"
import { defaultOutDir } from "../../src/loadgen/Artifact.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import type { StopSignal } from "./artifact.js"
import { spawnEntry } from "./ChildEntry.js"
import { mergeCommand } from "./merge.js"

export interface LocalSegmentsOptions {
  readonly file: string
  readonly count: number
  /** The flags every segment gets besides its segment, rendezvous and output (target, seed, `--set`s). */
  readonly args: ReadonlyArray<string>
  /** Default `runs/<timestamp>-<file name>-segments/`. */
  readonly outDir?: string
  readonly junit?: string
  /** Resolves when a signal asks the run to stop: passed on to every segment, which writes what it measured. */
  readonly interrupt: Effect.Effect<StopSignal>
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

/** Each line of a segment's stderr, marked with the segment. */
const prefixed = (prefix: string, write: (s: string) => void) => {
  let pending = ""
  return {
    data: (d: Buffer) => {
      const lines = (pending + d.toString()).split("\n")
      pending = lines.pop() ?? ""
      for (const l of lines) write(`${prefix}${l.replace(/^.*\r/, "")}\n`)
    },
    end: () => void (pending !== "" && write(`${prefix}${pending}\n`))
  }
}

export const runLocalSegments = (o: LocalSegmentsOptions): Effect.Effect<number> =>
  Effect.gen(function* () {
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    const id = `local-${process.pid}-${Date.now().toString(36)}`
    const outDir = o.outDir ?? defaultOutDir(`${basename(o.file).replace(/\.ya?ml$/i, "")}-segments`, new Date())
    const dirs = Array.from({ length: o.count }, (_, i) => join(outDir, `segment-${i + 1}`))
    err(`clustersim: ${o.count} segments as processes of this machine, meeting at rendezvous ${id}\n`)
    const children = dirs.map((dir, i) => {
      const child = spawnEntry("cliEntry", ["run", o.file, ...o.args, "--segment", `${i + 1}/${o.count}`, "--rendezvous", id, "--out", dir], { pipeStderr: true })
      const lines = prefixed(`[segment ${i + 1}/${o.count}] `, err)
      child.stderr!.on("data", lines.data)
      child.stderr!.on("end", lines.end)
      // a segment's summary is in its run.json; the merged one is printed below
      child.stdout!.resume()
      return child
    })
    const exits = Effect.forEach(children, (child) =>
      Effect.async<number>((resume) => {
        if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
        child.once("exit", (code, signal) => resume(Effect.succeed(code ?? (signal === "SIGINT" ? 130 : 143))))
      })
    )
    const stop = Effect.flatMap(o.interrupt, (signal) => Effect.sync(() => children.forEach((c) => c.exitCode === null && c.kill(signal))))
    const codes = yield* Effect.raceFirst(exits, Effect.zipRight(stop, exits))
    if (codes.some((c) => c === ExitCode.InvalidInput)) {
      err(`clustersim: a segment refused its input (exit 2): nothing to merge\n`)
      return ExitCode.InvalidInput
    }
    // a segment that wrote nothing (killed, crashed) is missing: the merge names it and fails the run
    const written = dirs.filter((d) => existsSync(join(d, "run.json")))
    if (written.length === 0) {
      err(`clustersim: no segment wrote its artifact (exit codes ${codes.join(", ")})\n`)
      return ExitCode.RunError
    }
    return mergeCommand({ paths: written, outDir, ...(o.junit !== undefined ? { junit: o.junit } : {}), ...(o.stdout ? { stdout: o.stdout } : {}), stderr: err })
  })
