/**
 * `run --segments n`: the n segments of a run as n processes of this machine (docs/distributed.md "Locally"), each
 * the CLI's own `run --segment i/n --rendezvous ID` meeting the others through the target exactly as on a cluster,
 * then their artifacts merged (./merge.ts) into `--out`, the segments' own under `--out/segment-i`. For machines with
 * more cores than one generator uses, and for trying the distributed path before a cluster.
 */
import { Effect, Either } from "effect"
import type { ChildProcess } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { constants } from "node:os"
import { basename, join } from "node:path"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { HttpClientOptions } from "../../src/client/HttpClientOptions.js"
import { defaultOutDir } from "../../src/loadgen/Artifact.js"
import { removeRendezvous, rendezvousName } from "../../src/loadgen/Rendezvous.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { parseScenario } from "../scenario/load.js"
import { parseSetOverrides } from "../scenario/SetOverrides.js"
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
  /** The target the segments meet through: their rendezvous ConfigMap is deleted there at the end. */
  readonly target?: HttpClientOptions
  /** The `--set` values every segment gets (in `args` too): they may move the rendezvous namespace. */
  readonly sets?: ReadonlyArray<string>
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

/** How a segment process ended: its exit code, or the signal that ended it (then Node gives no exit code). */
interface SegmentEnd {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** As a shell reports it: the exit code, or 128 + the signal's number (SIGKILL 137, SIGTERM 143). */
const exitCodeOfEnd = (end: SegmentEnd): number =>
  end.code ?? (end.signal !== null ? 128 + (constants.signals[end.signal] ?? 0) : ExitCode.RunError)

/**
 * A child's end, listened for from its spawn: waiting for the children one after another must not miss one that ended
 * meanwhile (a child killed by a signal has no `exitCode` to check afterwards, only `signalCode`).
 */
const endOf = (child: ChildProcess): Promise<SegmentEnd> =>
  new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }))
    // never started (the entry cannot be run): no exit event comes
    child.once("error", () => resolve({ code: child.exitCode ?? ExitCode.RunError, signal: null }))
  })

export const runLocalSegments = (o: LocalSegmentsOptions): Effect.Effect<number> =>
  Effect.gen(function* () {
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    const id = `local-${process.pid}-${Date.now().toString(36)}`
    const outDir = o.outDir ?? defaultOutDir(`${basename(o.file).replace(/\.ya?ml$/i, "")}-segments`, new Date())
    const dirs = Array.from({ length: o.count }, (_, i) => join(outDir, `segment-${i + 1}`))
    err(`clustersim: ${o.count} segments as processes of this machine, meeting at rendezvous ${id}\n`)
    const children = dirs.map((dir, i) => {
      // its own process group: a terminal's Ctrl-C reaches this process only, which passes it on once (./ChildEntry.ts)
      const child = spawnEntry("cliEntry", ["run", o.file, ...o.args, "--segment", `${i + 1}/${o.count}`, "--rendezvous", id, "--out", dir], { pipeStderr: true, ownProcessGroup: true })
      const ended = endOf(child)
      const lines = prefixed(`[segment ${i + 1}/${o.count}] `, err)
      child.stderr!.on("data", lines.data)
      child.stderr!.on("end", lines.end)
      // a segment's summary is in its run.json; the merged one is printed below
      child.stdout!.resume()
      return { child, ended, running: true }
    })
    children.forEach((c, i) =>
      void c.ended.then((end) => {
        c.running = false
        // said when it happens: the others may run on (or wait at the rendezvous) for a while
        if (end.signal !== null && !existsSync(join(dirs[i]!, "run.json"))) err(`clustersim: segment ${i + 1}/${o.count} was killed (${end.signal}) before it wrote its artifact\n`)
      })
    )
    const ends = Effect.forEach(children, (c) => Effect.promise(() => c.ended))
    // a stop the user asked for (Ctrl-C, SIGTERM): every segment still running writes what it measured, and the merged
    // run is interrupted, not failed (docs/distributed.md "Locally")
    let stoppedBy: StopSignal | undefined
    const stop = Effect.flatMap(o.interrupt, (signal) =>
      Effect.sync(() => {
        stoppedBy = signal
        for (const c of children) if (c.running) c.child.kill(signal)
      })
    )
    const ended = yield* Effect.raceFirst(ends, Effect.zipRight(stop, ends))
    const codes = ended.map(exitCodeOfEnd)
    yield* removeRendezvousOf(o, id, err)
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
    return mergeCommand({ paths: written, outDir, ...(stoppedBy !== undefined ? { stoppedBy } : {}), ...(o.junit !== undefined ? { junit: o.junit } : {}), ...(o.stdout ? { stdout: o.stdout } : {}), stderr: err })
  })

/**
 * The namespace the segments meet in, as they read it: the scenario's `generator.rendezvous.namespace` after the
 * `--set` values, default `default` (undefined: the scenario does not load, and the segments said why).
 */
const rendezvousNamespace = (o: LocalSegmentsOptions): string | undefined => {
  const sets = parseSetOverrides(o.sets ?? [])
  if (Either.isLeft(sets)) return undefined
  let text: string
  try {
    text = readFileSync(o.file, "utf8")
  } catch {
    return undefined
  }
  const loaded = parseScenario(text, o.file, undefined, { sets: sets.right })
  return Either.isLeft(loaded) ? undefined : (loaded.right.scenario.generator?.rendezvous?.namespace ?? "default")
}

/** The run's rendezvous ConfigMap deleted once every segment ended; one that cannot be is said, and the run goes on. */
const removeRendezvousOf = (o: LocalSegmentsOptions, id: string, err: (s: string) => void): Effect.Effect<void> => {
  const namespace = o.target === undefined ? undefined : rendezvousNamespace(o)
  if (o.target === undefined || namespace === undefined) return Effect.void
  return removeRendezvous(id, namespace).pipe(
    Effect.provide(ApiClient.layerHttp(o.target)),
    Effect.catchAll((e) => Effect.sync(() => err(`clustersim: could not delete the rendezvous ConfigMap ${namespace}/${rendezvousName(id)}: ${e.message}\n`)))
  )
}
