/**
 * `clustersim replay LOG… [--target …]`: replays audit logs against a target (docs/replay.md). It writes the
 * one-action scenario that does it (`replay.yaml` in the out directory, so `clustersim run` repeats it and
 * `compare` runs it on several targets) and runs that through the run pipeline: seeding, the replay, the artifact,
 * the summary and the exit code are a run's.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseDuration } from "../../src/api/go/Duration.js"
import { DurationString } from "../../src/api/go/Schemas.js"
import { Replay } from "../scenario/Scenario.js"
import { defaultOutDir } from "../../src/loadgen/Artifact.js"
import { unreadableLog } from "../../src/replay/AuditLogFile.js"
import { withBoundedHeapGrowth } from "./HeapGrowth.js"
import { exitWith, integerFlag, numberFlag, optionalText, stderrLine, usageError } from "./CommandParts.js"
import { RunEntry, stopSignal } from "./runEntry.js"
import { describeTarget, resolveTarget, type TargetFlag } from "./target.js"
import { targetFlagNames, targetOptions, targetValuesOf } from "./targetFlags.js"

const repeatedText = (name: string, pseudo: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName(pseudo), Options.repeated, Options.withDescription(description))

const replayOptions = {
  ...targetOptions,
  speed: numberFlag("speed", "Time compression: a recorded second lasts 1/N s (default 1).").pipe(Options.withDefault(1)),
  scale: integerFlag("scale", "K copies of the traffic, each in its own copy of the namespaces (<ns>-1 …), spread over the same time (default 1).").pipe(Options.withDefault(1)),
  namespacePrefix: optionalText("namespace-prefix", "Replay namespace ns as P-ns, apart from the target's own objects.", "P"),
  impersonate: Options.boolean("impersonate").pipe(
    Options.withDescription("Send each request as its recorded user and groups (Impersonate-User, Impersonate-Group); the credential needs the impersonate permission. Default: the run's one credential for all.")
  ),
  noSeed: Options.boolean("no-seed").pipe(Options.withDescription("Do not create the objects and namespaces the log assumes exist before replaying it.")),
  user: repeatedText("user", "NAME", "Only requests of this user; repeatable."),
  verb: repeatedText("verb", "VERB", "Only requests of this verb (get, list, watch, create, update, patch, delete, …); repeatable."),
  resource: repeatedText("resource", "RESOURCE", "Only requests on this resource (pods, pods/status, cm, …); repeatable."),
  namespace: repeatedText("namespace", "NS", "Only requests in this namespace (as recorded); repeatable."),
  from: optionalText("from", "Only requests received at or after this time: RFC 3339, or a duration from the log's first request (10m).", "TIME"),
  to: optionalText("to", "Only requests received before this time: RFC 3339, or a duration from the log's first request.", "TIME"),
  loop: Options.boolean("loop").pipe(Options.withDescription("Replay the log again and again until --duration has passed.")),
  duration: optionalText("duration", "With --loop: how long to replay (at most 24h).", "DURATION"),
  reorderWindow: optionalText("reorder-window", "How far out of order the log's events may be, in log time (default 10s).", "DURATION"),
  maxInFlight: integerFlag("max-in-flight", "Requests in flight (watches apart); a start that finds this many is dropped and counted (default 10000).").pipe(Options.optional),
  keepResourceVersions: Options.boolean("keep-resource-versions").pipe(
    Options.withDescription("Send recorded resourceVersion and continue values as they are (default: a specific resourceVersion becomes 0, continue tokens are dropped; the target never had them).")
  ),
  allowRemote: Options.boolean("allow-remote").pipe(Options.withDescription("Replay against a target that is not a loopback address (a replayed log sends its deletes again).")),
  out: optionalText("out", "Directory for replay.yaml, run.json, latency.svg and report.html (default runs/<timestamp>-replay/).", "DIR"),
  junit: optionalText("junit", "Also write the threshold results as JUnit XML to this file.", "FILE")
}

/** The names `flagProblem` (./flags.ts) accepts. */
export const replayFlags = {
  values: [
    ...targetFlagNames.values,
    "--speed",
    "--scale",
    "--namespace-prefix",
    "--user",
    "--verb",
    "--resource",
    "--namespace",
    "--from",
    "--to",
    "--duration",
    "--reorder-window",
    "--max-in-flight",
    "--out",
    "--junit"
  ],
  switches: [...targetFlagNames.switches, "--impersonate", "--no-seed", "--loop", "--keep-resource-versions", "--allow-remote"],
  repeatable: ["--user", "--verb", "--resource", "--namespace"],
  aliases: targetFlagNames.aliases
}

const loopback = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/

/** The URL of a target that is not on this machine, if it is one. */
export const remoteTargetUrl = (t: TargetFlag): string | undefined => (t._tag === "url" && !loopback.test(t.options.baseUrl) ? t.options.baseUrl : undefined)

type OptionValue<O> = O extends Options.Options<infer A> ? A : never
type ReplayFlags = { readonly [K in keyof typeof replayOptions]: OptionValue<(typeof replayOptions)[K]> } & { readonly logs: ReadonlyArray<string> }

const timeOk = (t: string): boolean => Number.isFinite(Date.parse(t)) || Either.isRight(parseDuration(t))

/** The flag each field of the scenario's `replay` action comes from. */
const flagOfField: Readonly<Record<string, string>> = {
  logs: "LOG",
  speed: "--speed",
  scale: "--scale",
  namespacePrefix: "--namespace-prefix",
  users: "--user",
  verbs: "--verb",
  resources: "--resource",
  namespaces: "--namespace",
  from: "--from",
  to: "--to",
  reorderWindow: "--reorder-window",
  maxInFlight: "--max-in-flight"
}

const firstIssue = (e: ParseResult.ParseError): { readonly field: string; readonly message: string } => {
  const i = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
  return { field: String(i?.path[0] ?? ""), message: i?.message ?? e.message }
}

/**
 * What the scenario's schema refuses in the flags' values, named by the flag (`--reorder-window: duration must not be
 * negative`): checked before anything is written or started, not found in the generated replay.yaml later.
 */
export const replayFlagProblem = (o: ReplayFlags): string | undefined => {
  // the values as given, before JSON: 1e400 is Infinity here, and would be null in replay.yaml
  const action = Schema.decodeUnknownEither(Replay)(replayAction(o))
  if (Either.isLeft(action)) {
    const { field, message } = firstIssue(action.left)
    return `${flagOfField[field] ?? field}: ${message}`
  }
  if (Option.isNone(o.duration)) return undefined
  const duration = Schema.decodeUnknownEither(DurationString)(o.duration.value)
  return Either.isLeft(duration) ? `--duration: ${firstIssue(duration.left).message}` : undefined
}

/** The `replay` action of the flags' values. */
const replayAction = (o: ReplayFlags) => {
  const list = (xs: ReadonlyArray<string>) => (xs.length > 0 ? xs : undefined)
  return {
    type: "replay",
    name: "replay",
    logs: o.logs.map((l) => resolve(l)),
    speed: o.speed,
    scale: o.scale,
    namespacePrefix: Option.getOrUndefined(o.namespacePrefix),
    impersonate: o.impersonate || undefined,
    seed: o.noSeed ? false : undefined,
    users: list(o.user),
    verbs: list(o.verb),
    resources: list(o.resource),
    namespaces: list(o.namespace),
    from: Option.getOrUndefined(o.from),
    to: Option.getOrUndefined(o.to),
    loop: o.loop || undefined,
    reorderWindow: Option.getOrUndefined(o.reorderWindow),
    maxInFlight: Option.getOrUndefined(o.maxInFlight),
    keepResourceVersions: o.keepResourceVersions || undefined,
    allowRemote: o.allowRemote || undefined
  }
}

/** The scenario `replay` runs: one phase, one `replay` action with the flags' values (JSON, which YAML reads). */
export const replayScenario = (o: ReplayFlags): Record<string, unknown> => {
  const action = replayAction(o)
  return {
    apiVersion: "clustersim/v1",
    kind: "Scenario",
    metadata: { name: "replay", description: `clustersim replay ${o.logs.join(" ")}` },
    phases: [{ name: "replay", duration: o.loop ? Option.getOrElse(o.duration, () => "0s") : "0s", actions: [JSON.parse(JSON.stringify(action))] }]
  }
}

export const replay = Command.make(
  "replay",
  { logs: Args.text({ name: "LOG" }).pipe(Args.atLeast(1), Args.withDescription("audit.k8s.io/v1 audit logs: JSON lines (gzip or not) or EventList batches, oldest first.")), ...replayOptions },
  (o) =>
    Effect.gen(function* () {
      if (!(o.speed > 0)) return yield* usageError(`--speed: must be greater than 0, got ${o.speed}`)
      if (o.scale < 1) return yield* usageError(`--scale: must be at least 1, got ${o.scale}`)
      if (o.loop && Option.isNone(o.duration)) return yield* usageError("--loop: give --duration, how long to replay")
      for (const [flag, v] of [["--from", o.from], ["--to", o.to]] as const)
        if (Option.isSome(v) && !timeOk(v.value)) return yield* usageError(`${flag}: expected an RFC 3339 time or a duration, got "${v.value}"`)
      const problem = replayFlagProblem(o)
      if (problem !== undefined) return yield* usageError(problem)
      const scenario = replayScenario(o)
      // a log that cannot be read is named now, before the out directory, the target or a server
      for (const log of o.logs) {
        const why = unreadableLog(log)
        if (why !== undefined) return yield* usageError(`LOG ${log}: ${why}`)
      }
      const target = yield* Effect.either(resolveTarget(targetValuesOf(o), { ambient: true, warn: stderrLine }))
      if (target._tag === "Left") return yield* usageError(target.left.message)
      const remote = remoteTargetUrl(target.right)
      if (remote !== undefined && !o.allowRemote) {
        stderrLine(`clustersim replay: ${remote} is not a loopback address, and a replayed log sends its creates, updates and deletes again (a production log deletes what it deleted); pass --allow-remote to replay there anyway`)
        return yield* exitWith(2)
      }
      if (target.right._tag === "in-process") return yield* usageError("--target in-process: replay sends recorded requests as they are and needs an HTTP target (embedded or a URL)")
      stderrLine(describeTarget(target.right))
      const outDir = Option.getOrElse(o.out, () => defaultOutDir("replay", new Date()))
      const file = join(outDir, "replay.yaml")
      try {
        mkdirSync(outDir, { recursive: true })
        writeFileSync(file, JSON.stringify(scenario, null, 2) + "\n")
      } catch (e) {
        return yield* usageError(`--out ${outDir}: cannot write replay.yaml there: ${(e as Error).message}`)
      }
      const entry = yield* RunEntry
      // a replay promotes what it decodes: its old generation is kept near its live size (./HeapGrowth.ts)
      const result = yield* withBoundedHeapGrowth(
        entry({
          file,
          target: target.right,
          outDir,
          interrupt: stopSignal,
          // one generator: a log's requests are replayed once, not shared as a rate
          workers: 1,
          ...(Option.isSome(o.junit) ? { junit: o.junit.value } : {})
        })
      )
      yield* exitWith(result.exitCode)
    })
).pipe(
  Command.withDescription(
    "Replay audit.k8s.io/v1 audit logs against a target. Each request starts at its recorded offset over --speed, after seeding the objects the log assumes; the report compares codes and latency with the log (docs/replay.md)."
  )
)
