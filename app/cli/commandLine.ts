/**
 * The `clustersim` command line on `@effect/cli`: every subcommand has `--help`, flag errors name the flag,
 * and the shells' completions come from `--completions bash|zsh|fish|sh`. Exit codes (k6): 0 pass,
 * 99 thresholds or a `--fail-if` rule breached, 2 invalid input, 1 run error; 130 / 143 stopped by SIGINT / SIGTERM.
 * `scheduler` keeps its own upstream-compatible flag parser (`simulator/scheduler/SchedulerCommand.ts`).
 */
import { Args, CliConfig, Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect, HashMap, Layer, Option } from "effect"
import { fileURLToPath } from "node:url"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { wantsColor } from "./Color.js"
import { builtIns, cliConfig, commandProblem, FlagError, flagProblem, type FlagSpec, parseDurationFlag } from "./flags.js"
import { commandHelpOf, defaultsTo, type Example, renderCommandHelp, renderRootHelp, type Style, summaryOf } from "./Help.js"
import { describeTarget, resolveTarget, type TargetFlag } from "./target.js"
import { perSideArgs, sideOptions, sidesOf, targetArgsOf, targetFlagNames, targetOptions, type TargetOptionValues, targetValuesOf } from "./targetFlags.js"

import type { RunCommandOptions, RunCommandResult } from "./run.js"
import { decidedExitCode, durationFlag, exitWith, integerFlag, load, optionalText, resetExitCode, setOption, stderrLine, usageError, value } from "./CommandParts.js"
import { serve } from "./serveCommand.js"
import { collect, job, merge } from "./distributedCommands.js"
import { parseMetricsFlags } from "./MetricsFlags.js"
import { outFileProblem } from "./outDir.js"
import { compareServerSide, compareServerSideOptions, runServerSide, runServerSideOptions, serverSideArgsOf, serverSideFlagNames } from "./serverSideFlags.js"
import { parseSegment } from "../../src/loadgen/ExecutionSegment.js"
import { parseGoTime } from "../../src/api/go/Time.js"
import { replay, replayFlags } from "./replayCommand.js"
import { sweep } from "./sweepCommand.js"
import { RunEntry, stopSignal } from "./runEntry.js"

export { RunEntry } from "./runEntry.js"

// ---------------------------------------------------------------------------------------------
// run, start
// ---------------------------------------------------------------------------------------------

const runOptions = {
  ...targetOptions,
  out: optionalText("out", "Directory for run.json, latency.svg and report.html (default runs/<timestamp>-<name>/).", "DIR"),
  seed: integerFlag("seed", "Overrides the scenario's seed.").pipe(Options.optional),
  junit: optionalText("junit", "Also write the threshold results as JUnit XML to this file.", "FILE"),
  workers: integerFlag(
    "workers",
    "Generator processes sharing every action's rate (k6 execution segments; docs/scenarios.md \"Workers\"). Default: the scenario's generator.workers, else the cores less one for a local server."
  ).pipe(Options.optional),
  segment: optionalText(
    "segment",
    "Run only this execution segment of the scenario: i/n (the i-th of n), job/n (an Indexed Job's pod, from $JOB_COMPLETION_INDEX) or k6's from:to fractions; with --start-at or --rendezvous. Writes a segment artifact for clustersim merge (docs/distributed.md). Default: the whole run.",
    "i/n"
  ),
  segmentSequence: optionalText(
    "segment-sequence",
    "With --segment from:to: the points of every segment of the run (k6's --execution-segment-sequence, e.g. 0,1/4,3/4,1), the same for each. Default: 0, from, to, 1.",
    "r1,r2,…"
  ),
  startAt: optionalText(
    "start-at",
    "The instant (RFC 3339, e.g. 2026-11-29T12:00:00Z) every segment begins its measured phases; the first segment runs the setup before it. Default: now.",
    "TIME"
  ),
  segments: integerFlag(
    "segments",
    "Run the scenario as N segments, N processes of this machine meeting through the target (--target URL or a kubeconfig), and merge their artifacts into --out (docs/distributed.md \"Locally\")."
  ).pipe(Options.optional),
  rendezvous: optionalText(
    "rendezvous",
    "With --segment: the segments agree on their start through the target, in a ConfigMap named from this id (the same for every segment of the run; the scenario's generator.rendezvous sets its namespace, margin and timeout).",
    "ID"
  ),
  publish: optionalText(
    "publish",
    "With --segment: also store the segment artifact in the target (ConfigMaps in the rendezvous namespace) under this name, where clustersim collect NAME finds and merges the run's segments. For pods, whose files go with them.",
    "NAME"
  ),
  set: setOption,
  cleanup: Options.boolean("cleanup").pipe(
    Options.withDescription("A cluster scenario with a --target: delete the nodes, leases and pods the run owns (label clustersim.io/simulated=true) at its end or on Ctrl-C.")
  ),
  ...runServerSideOptions,
  metricsOut: optionalText(
    "metrics-out",
    "A run in virtual time: write its modelled metrics (API server, node agents, scheduler, the load's client side) to this file as OpenMetrics with virtual timestamps, for promtool tsdb create-blocks-from openmetrics (docs/metrics.md). Default: none.",
    "FILE"
  ),
  metricsInterval: durationFlag("metrics-interval", "15s", "Virtual time between two scrapes of --metrics-out, whole seconds."),
  metricsAddr: optionalText(
    "metrics-addr",
    "A load run or a cluster on the real clock: serve the load generator's metrics (rest_client_*, its per-action counters) on http://HOST:PORT/metrics during the run; PORT alone binds 127.0.0.1 (docs/metrics.md). Default: none.",
    "HOST:PORT"
  )
}

type RunFlags = TargetOptionValues & {
  set: Option.Option<Array<string>>
  out: Option.Option<string>
  seed: Option.Option<number>
  junit: Option.Option<string>
  cleanup: boolean
  workers: Option.Option<number>
  metricsOut: Option.Option<string>
  metricsInterval: string
  metricsAddr: Option.Option<string>
  prometheus: Option.Option<string>
  serverMetricsTimeout: string
  segment: Option.Option<string>
  segmentSequence: Option.Option<string>
  startAt: Option.Option<string>
  rendezvous: Option.Option<string>
  segments: Option.Option<number>
  publish: Option.Option<string>
}

/** `--metrics-out`, `--metrics-interval` and `--metrics-addr` as the run's options (./MetricsFlags.ts). */
const metricsFlags = (o: RunFlags) =>
  Effect.gen(function* () {
    const intervalMs = yield* parseDurationFlag("--metrics-interval", o.metricsInterval)
    const parsed = parseMetricsFlags({ out: value(o.metricsOut), intervalMs, addr: value(o.metricsAddr) })
    return yield* "error" in parsed ? Effect.fail(new FlagError(parsed.error)) : Effect.succeed(parsed.options)
  })

/** `--segment` and `--start-at` (docs/distributed.md): a segment of several needs the common start. */
const segmentFlags = (o: RunFlags): { readonly options: Pick<RunCommandOptions, "segment" | "startAt" | "rendezvous" | "publish"> } | { readonly error: string } => {
  let startAt: Date | undefined
  if (Option.isSome(o.startAt)) {
    const t = parseGoTime(o.startAt.value, "RFC3339")
    if ("error" in t) return { error: `--start-at: ${t.error} (an RFC 3339 time such as 2026-11-29T12:00:00Z)` }
    startAt = new Date(t.seconds * 1000 + Math.floor(t.nanos / 1e6))
  }
  const rendezvous = Option.getOrUndefined(o.rendezvous)
  if (rendezvous !== undefined && startAt !== undefined) return { error: "--rendezvous and --start-at: the start is either agreed or given, not both" }
  if (rendezvous !== undefined && Option.isNone(o.segment)) return { error: "--rendezvous: only segments meet (add --segment i/n)" }
  if (Option.isSome(o.publish) && Option.isNone(o.segment)) return { error: "--publish: only a segment's artifact is published (add --segment i/n)" }
  if (Option.isSome(o.segmentSequence) && Option.isNone(o.segment)) return { error: "--segment-sequence: give this process's part with --segment from:to" }
  if (Option.isNone(o.segment)) return { options: startAt ? { startAt } : {} }
  const parsed = parseSegment(o.segment.value, process.env.JOB_COMPLETION_INDEX, Option.getOrUndefined(o.segmentSequence))
  if ("error" in parsed) return { error: `--segment: ${parsed.error}` }
  if (parsed.segment.count > 1 && startAt === undefined && rendezvous === undefined) {
    return { error: `--segment ${o.segment.value}: the segments of a run need one start: give every segment the same --start-at, or --rendezvous ID` }
  }
  const publish = Option.getOrUndefined(o.publish)
  return { options: { segment: parsed.segment, ...(startAt ? { startAt } : {}), ...(rendezvous !== undefined ? { rendezvous } : {}), ...(publish !== undefined ? { publish } : {}) } }
}

/** `--segments N`: N local segment processes, then their merge (./LocalSegments.ts). */
const localSegments = (file: string, o: RunFlags, target: TargetFlag) =>
  Effect.gen(function* () {
    const count = Option.getOrThrow(o.segments)
    if (count < 1 || count > 64) return yield* usageError(`--segments: must be from 1 to 64, got ${count}`)
    for (const [flag, given] of [["--segment", Option.isSome(o.segment)], ["--segment-sequence", Option.isSome(o.segmentSequence)], ["--workers", Option.isSome(o.workers)], ["--start-at", Option.isSome(o.startAt)], ["--rendezvous", Option.isSome(o.rendezvous)]] as const) {
      if (given) return yield* usageError(`--segments with ${flag}: --segments starts each segment with its own ${flag === "--workers" ? "single process" : flag}`)
    }
    if (target._tag !== "url") {
      return yield* usageError(`--segments: the segments are processes of their own and meet through the target: give --target URL or a kubeconfig (clustersim serve starts a server), not ${target._tag}`)
    }
    const args = [
      ...targetArgsOf(o),
      ...Option.match(o.seed, { onNone: () => [], onSome: (s) => ["--seed", String(s)] }),
      ...Option.getOrElse(o.set, () => []).flatMap((s) => ["--set", s]),
      ...serverSideArgsOf(o),
      // a real-time cluster's segments each delete the nodes they own
      ...(o.cleanup ? ["--cleanup"] : [])
    ]
    // the merge writes it after every segment ran: checked now, as a single run checks it (./run.ts)
    const junitProblem = Option.isSome(o.junit) ? outFileProblem(o.junit.value) : undefined
    if (junitProblem !== undefined) return yield* usageError(`--junit ${Option.getOrThrow(o.junit)}: cannot write there: ${junitProblem}`)
    const { runLocalSegments } = yield* load(() => import("./LocalSegments.js"))
    const sets = Option.getOrElse(o.set, () => [])
    yield* exitWith(yield* runLocalSegments({ file, count, args, target: target.options, sets, ...(Option.isSome(o.out) ? { outDir: o.out.value } : {}), ...(Option.isSome(o.junit) ? { junit: o.junit.value } : {}), interrupt: stopSignal }))
  })

/** `ambient: false` (`start`): the embedded server unless a flag names another target. */
const runScenarioFile = (file: string, o: RunFlags, ambient = true) =>
  Effect.gen(function* () {
    const target = yield* Effect.either(resolveTarget(targetValuesOf(o), { ambient, warn: stderrLine }))
    if (target._tag === "Left") return yield* usageError(target.left.message)
    stderrLine(describeTarget(target.right))
    const metrics = yield* Effect.either(metricsFlags(o))
    if (metrics._tag === "Left") return yield* usageError(metrics.left.message)
    const serverSide = yield* Effect.either(runServerSide(o))
    if (serverSide._tag === "Left") return yield* usageError(serverSide.left.message)
    const options: RunCommandOptions = {
      ...metrics.right,
      serverSide: serverSide.right,
      file,
      target: target.right,
      interrupt: stopSignal,
      ...(Option.isSome(o.out) ? { outDir: o.out.value } : {}),
      ...(Option.isSome(o.seed) ? { seed: o.seed.value } : {}),
      ...(Option.isSome(o.junit) ? { junit: o.junit.value } : {}),
      ...(Option.isSome(o.workers) ? { workers: o.workers.value } : {}),
      ...(o.cleanup ? { cleanup: true } : {}),
      sets: Option.getOrElse(o.set, () => [])
    }
    if (options.workers !== undefined && options.workers < 1) return yield* usageError(`--workers: must be at least 1, got ${options.workers}`)
    if (Option.isSome(o.segments)) return yield* localSegments(file, o, target.right)
    const segmented = segmentFlags(o)
    if ("error" in segmented) return yield* usageError(segmented.error)
    const result = yield* (yield* RunEntry)({ ...options, ...segmented.options })
    yield* exitWith(result.exitCode)
  })

const run = Command.make("run", { scenario: Args.text({ name: "scenario.yaml" }).pipe(Args.withDescription("The scenario file (docs/scenarios.md).")), ...runOptions }, (o) =>
  runScenarioFile(o.scenario, o)
).pipe(
  Command.withDescription(
    "Run a scenario and print a summary. Writes run.json, latency.svg and report.html to --out; Ctrl-C or SIGTERM stops the run and still writes what it measured."
  )
)

/** The shipped quickstart, found from the installed package (dist/app/cli → the package root), not the cwd. */
const quickstart = fileURLToPath(new URL("../../../scenarios/quickstart.yaml", import.meta.url))

const start = Command.make("start", runOptions, (o) => runScenarioFile(quickstart, o, false)).pipe(
  Command.withDescription(
    "Run scenarios/quickstart.yaml (about 30 s), as npm start does. On the embedded server; a kubeconfig only with --kubeconfig or --context."
  )
)

// ---------------------------------------------------------------------------------------------
// validate, report, schema
// ---------------------------------------------------------------------------------------------

const validate = Command.make(
  "validate",
  { files: Args.text({ name: "file" }).pipe(Args.atLeast(1), Args.withDescription("Scenario or NodeAgentConfiguration files.")), set: setOption },
  (o) =>
    Effect.flatMap(load(() => import("./validate.js")), ({ validateFiles }) =>
      exitWith(validateFiles(o.files, (s) => process.stdout.write(s), (s) => process.stderr.write(s), { sets: Option.getOrElse(o.set, () => []) }))
    )
).pipe(Command.withDescription("Check Scenario and NodeAgentConfiguration files without running them. Errors print as file:line:col: field: message; exit 2 if any file is invalid."))

const report = Command.make(
  "report",
  {
    files: Args.text({ name: "run.json" }).pipe(Args.atLeast(1), Args.withDescription("A stored run artifact; two or more are compared (as compare does).")),
    html: Options.boolean("html").pipe(Options.withDescription("Write the HTML report (report.html, or compare.html for several runs, beside the first run.json; or --out FILE).")),
    out: optionalText("out", "Where --html writes the report.", "FILE"),
    junit: optionalText("junit", "Write the threshold results as JUnit XML to this file (one run).", "FILE")
  },
  (o) => Effect.flatMap(load(() => import("./report.js")), ({ reportRuns }) => Effect.flatMap(reportRuns({ files: o.files, html: o.html, out: value(o.out), junit: value(o.junit) }), exitWith))
).pipe(Command.withDescription(
    "Print the summary of a stored run.json again. Exits with the run's stored exit code, as its last line says (0 pass, 99 thresholds breached, 1 run error, 130 / 143 interrupted; the thresholds are not judged again). --html re-renders its HTML report; several runs print their comparison (and exit as compare does)."
  )
)

const schema = Command.make("schema", {}, () => Effect.flatMap(load(() => import("../scenario/jsonSchema.js")), ({ scenarioJsonSchema }) => Console.log(JSON.stringify(scenarioJsonSchema(), null, 2)))).pipe(
  Command.withDescription("Print the scenario JSON Schema (as scenarios/scenario.schema.json), for editors' completion and checks.")
)

// ---------------------------------------------------------------------------------------------
// compare
// ---------------------------------------------------------------------------------------------

const compare = Command.make(
  "compare",
  {
    inputs: Args.text({ name: "run.json|dir|scenario.yaml" }).pipe(
      Args.repeated,
      Args.withDescription("With --target: one scenario file. Otherwise: one argument per side — a run.json, a directory of rounds, or files joined by commas.")
    ),
    ...sideOptions,
    rounds: integerFlag("rounds", "Counted rounds per target (5 or more to judge p99); each round's order is balanced so drift cancels.").pipe(defaultsTo(3)),
    warmupRounds: integerFlag("warmup-rounds", "Rounds run first and not counted: a fresh server's first run pays for its JIT and caches.").pipe(defaultsTo(1)),
    out: optionalText("out", "Directory for the rounds' artifacts, compare.json and compare.html (default runs/compare/<timestamp>/).", "DIR"),
    failIf: Options.text("fail-if").pipe(
      Options.withPseudoName("RULE"),
      Options.repeated,
      Options.optional,
      Options.withDescription('Exit 99 when a rule holds for a series, e.g. "p99 ratio > 1.2" (significant ratios only).')
    ),
    select: optionalText("select", 'Only series with these tags, e.g. "operation:LIST,phase:steady" (default: all but setup).', "TAGS"),
    level: Options.float("level").pipe(Options.withPseudoName("P"), Options.withDescription("Confidence level of the intervals, between 0 and 1 (default 0.99)."), Options.optional),
    seed: integerFlag("seed", "Overrides the scenario's seed in every round.").pipe(Options.optional),
    allowDifferent: Options.boolean("allow-different").pipe(
      Options.withDescription(
        "Compare stored runs of different scenarios (a what-if: another file, --set, ${VAR}) and print the fields that differ. Default: off, such runs are refused with the differing fields named."
      )
    ),
    ...compareServerSideOptions
  },
  (flags) =>
    Effect.gen(function* () {
      const o = { ...flags, failIf: Option.getOrElse(flags.failIf, () => []) }
      const sides = sidesOf(o)
      if ("error" in sides) return yield* usageError(sides.error)
      const live = sides.sides.length > 0
      if (live && o.inputs.length !== 1) return yield* usageError(`compare with targets takes exactly one scenario file, got ${o.inputs.length} arguments`)
      const targets = []
      for (const [i, side] of sides.sides.entries()) {
        const parsed = yield* Effect.either(resolveTarget(side, { warn: stderrLine }))
        if (parsed._tag === "Left") return yield* usageError(`side ${String.fromCharCode(65 + i)}: ${parsed.left.message}`)
        stderrLine(`${String.fromCharCode(65 + i)}: ${describeTarget(parsed.right)}`)
        targets.push(parsed.right)
      }
      if (Option.isSome(o.level) && !(o.level.value > 0 && o.level.value < 1)) return yield* usageError(`--level: expected a number between 0 and 1, got ${o.level.value}`)
      const serverSide = yield* Effect.either(compareServerSide(o, targets.length))
      if (serverSide._tag === "Left") return yield* usageError(serverSide.left.message)
      const { renderComparisonHtml } = yield* Effect.promise(() => import("../../reports/html.js"))
      const { compareCommand } = yield* load(() => import("./compare.js"))
      const result = yield* compareCommand({
        ...(live ? { scenario: o.inputs[0]!, targets, rounds: o.rounds, warmupRounds: o.warmupRounds, serverSide: serverSide.right } : { stored: o.inputs }),
        failIf: o.failIf,
        html: renderComparisonHtml,
        ...(Option.isSome(o.out) ? { outDir: o.out.value } : {}),
        ...(Option.isSome(o.select) ? { select: o.select.value } : {}),
        ...(Option.isSome(o.level) ? { level: o.level.value } : {}),
        ...(Option.isSome(o.seed) ? { seed: o.seed.value } : {}),
        ...(o.allowDifferent ? { allowDifferent: true } : {})
      })
      yield* exitWith(result.exitCode)
    })
).pipe(
  Command.withDescription(
    "Compare one scenario on two or more targets, or stored runs. Live: interleaved rounds on each --target; stored: run.json files or directories of rounds. Prints per series p50/p90/p99/max, ratios with confidence intervals and a verdict (docs/compare.md)."
  )
)

// ---------------------------------------------------------------------------------------------
// calibrate
// ---------------------------------------------------------------------------------------------

const calibrate = Command.make(
  "calibrate",
  {
    ...targetOptions,
    out: optionalText("out", "Write the serviceTime block to this file (default: standard output).", "FILE"),
    step: durationFlag("step", "2s", "Wall time of each probe step, 100ms to 60s."),
    pace: durationFlag("pace", "50ms", "A step's requests start this far apart, one at a time; 0s sends them back to back."),
    allowRemote: Options.boolean("allow-remote").pipe(Options.withDescription("Probe a server that is not on this machine (the probe creates and deletes objects)."))
  },
  (o) =>
    Effect.gen(function* () {
      const stepMs = yield* parseDurationFlag("--step", o.step)
      const paceMs = yield* parseDurationFlag("--pace", o.pace)
      const { calibrateCommand } = yield* load(() => import("./calibrate.js"))
      const result = yield* calibrateCommand({ ...targetValuesOf(o), stepMs, paceMs, allowRemote: o.allowRemote, ...(Option.isSome(o.out) ? { out: o.out.value } : {}) })
      yield* exitWith(result.exitCode)
    }).pipe(Effect.catchIf((e): e is FlagError => e instanceof FlagError, (e) => usageError(e.message)))
).pipe(
  Command.withDescription(
    "Measure a server and write the cluster.serviceTime block that makes the simulation reproduce it. Probes GETs, LISTs of growing size, creates and watch starts, one request at a time, a few seconds per step (docs/calibration.md)."
  )
)

// ---------------------------------------------------------------------------------------------
// The root
// ---------------------------------------------------------------------------------------------

const schedulerNote = Command.make("scheduler", {}, () => Effect.void).pipe(
  Command.withDescription("Check a platform-scheduler (kube-scheduler) command line and configuration. clustersim scheduler --help lists the flags the simulated scheduler honours.")
)

const help = Command.make("help", {}, () => Effect.void).pipe(Command.withDescription("Show a command's help: clustersim help <command>."))

const description = "Simulate a Kubernetes-style control plane and generate load against it, or against any API server."
const version = "0.1.0"
const exitCodes =
  "Exit codes: 0 pass, 99 thresholds or --fail-if breached, 2 invalid input, 1 run error; 130 / 143 stopped by SIGINT / SIGTERM (partial artifact written)."

export const clustersim = Command.make("clustersim").pipe(
  Command.withDescription(description),
  Command.withSubcommands([run, start, sweep, serve, replay, validate, report, merge, job, collect, compare, calibrate, schema, schedulerNote, help])
)

export const cli = Command.run(clustersim, { name: "clustersim", version, executable: "clustersim", footer: HelpDoc.p(exitCodes) })

// ---------------------------------------------------------------------------------------------
// Help (./Help.ts lays it out)
// ---------------------------------------------------------------------------------------------

const subcommands = { run, start, sweep, serve, replay, validate, report, merge, job, collect, compare, calibrate, schema } as const
type Subcommand = keyof typeof subcommands
const isSubcommand = (name: string): name is Subcommand => Object.hasOwn(subcommands, name)
/** Every command, in the order help lists them. */
const commandNames = [...Object.keys(subcommands), "scheduler", "help"]

const examples: Record<Subcommand | "root", ReadonlyArray<Example>> = {
  root: [
    { comment: "A 30 s load run on the embedded server, then its HTML report", command: "clustersim run scenarios/quickstart.yaml" },
    { comment: "A simulated API server for kubectl on port 6443, with a few objects", command: "clustersim serve --demo" }
  ],
  run: [
    { comment: "The quickstart on the embedded server; artifacts in ./out", command: "clustersim run --out out scenarios/quickstart.yaml" },
    { comment: "The same load against a server from a kubeconfig context", command: "clustersim run --kubeconfig ~/.kube/config --context kind-kind scenarios/quickstart.yaml" }
  ],
  start: [{ comment: "The quickstart against a kind cluster", command: "clustersim start --context kind-kind" }],
  sweep: [
    { comment: "node-death at 50, 200 and 1000 nodes, with and without APF: 6 points, as many at once as there are cores", command: "clustersim sweep scenarios/cluster/node-death.yaml --vary cluster.nodes=50,200,1000 --vary cluster.serviceTime.apf=true,false" },
    { comment: "Two zone layouts (a comma inside [ ] belongs to the value), one point at a time", command: "clustersim sweep s.yaml --vary 'cluster.zones=[a,b],[a,b,c]' --workers 1 --out out/zones" }
  ],
  serve: [
    { comment: "A server for kubectl with a small demo cluster", command: "clustersim serve --demo" },
    { comment: "HTTPS with RBAC; prints the admin kubeconfig's path", command: "clustersim serve --tls --authorization-mode RBAC --port 0" }
  ],
  replay: [
    { comment: "An audit log at 10 times its speed against the embedded server", command: "clustersim replay --speed 10 audit.log" },
    {
      comment: "Two rotated logs, 3 copies of the traffic under r1-* namespaces, as the recorded users",
      command: "clustersim replay --target http://127.0.0.1:6443 --scale 3 --namespace-prefix r1 --impersonate audit-1.log.gz audit.log"
    }
  ],
  validate: [{ comment: "Check every shipped scenario", command: "clustersim validate scenarios/*.yaml" }],
  report: [
    { comment: "The summary of a stored run again", command: "clustersim report runs/2026-01-01T10-00-00Z-quickstart/run.json" },
    { comment: "Two stored runs compared, as an HTML page", command: "clustersim report --html before/run.json after/run.json" }
  ],
  merge: [
    { comment: "Segment 1 of 2 (segment 2/2 runs the same way on another machine)", command: "clustersim run --segment 1/2 --start-at 2026-11-29T12:00:00Z --out seg1 s.yaml" },
    { comment: "Both segments' artifacts as one run", command: "clustersim merge seg1 seg2" }
  ],
  job: [{ comment: "Four pods' worth of load on the cluster kubectl points at", command: "clustersim job scenarios/compare-list.yaml --segments 4 --image registry.example/clustersim:0.1.0 | kubectl apply -f -" }],
  collect: [{ comment: "The segments a Job stored in its namespace, merged", command: "clustersim collect list-load --namespace loadtest --context prod" }],
  compare: [
    {
      comment: "One scenario on two servers, 5 counted rounds each; exit 99 if p99 got 20 % worse",
      command: 'clustersim compare --target http://127.0.0.1:6443 --target http://127.0.0.1:6444 --rounds 5 --fail-if "p99 ratio > 1.2" scenarios/compare-list.yaml'
    },
    { comment: "Two stored runs", command: "clustersim compare before/run.json after/run.json" }
  ],
  calibrate: [{ comment: "Measure a kind cluster; write the block to a file", command: "clustersim calibrate --context kind-kind --out service-time.yaml" }],
  schema: [{ comment: "The schema for an editor", command: "clustersim schema > scenario.schema.json" }]
}

const descriptorOf = (name: string) => HashMap.unsafeGet(Command.getSubcommands(clustersim), name)

const style = (stream: { readonly isTTY?: boolean }): Style => ({ color: wantsColor(stream), width: 80 })

/** The help text of a command, or of clustersim when `command` is undefined. */
export const helpText = (command: Subcommand | undefined, s: Style): string => {
  if (command !== undefined)
    return renderCommandHelp(
      { executable: "clustersim", name: command, help: commandHelpOf(descriptorOf(command), cliConfig), examples: examples[command], footer: exitCodes },
      s
    )
  return renderRootHelp(
    {
      executable: "clustersim",
      version,
      description,
      commands: commandNames.map((name) => ({ name, summary: summaryOf(commandHelpOf(descriptorOf(name), cliConfig).description) })),
      examples: examples.root,
      flags: [
        { term: "-h, --help", text: ['Show help; for a command: clustersim <command> --help, or clustersim help <command>.'] },
        { term: "--version", text: ["Print the version."] },
        { term: "--completions bash|zsh|fish|sh", text: ["Print the shell's completion script."] }
      ],
      footer: `Run "clustersim help <command>" for a command's flags. ${exitCodes}`
    },
    s
  )
}

const printHelp = (command: Subcommand | undefined) => {
  process.stdout.write(helpText(command, style(process.stdout)))
  return Promise.resolve(ExitCode.Pass)
}

/** A usage error (exit 2): `clustersim<where>: <message>` and where to find the usage. */
const usageProblem = (line: string, helpCommand: string) => {
  process.stderr.write(`clustersim${line}\nRun "${helpCommand}" for usage.\n`)
  return Promise.resolve(ExitCode.InvalidInput)
}

/** `--help` or `-h` before `--`: the command's help instead of running it (cobra's rule). */
const asksForHelp = (args: ReadonlyArray<string>) => {
  const end = args.indexOf("--")
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h")
}

const runFlags: FlagSpec = {
  values: [
    ...targetFlagNames.values,
    "--out",
    "--seed",
    "--junit",
    "--workers",
    "--set",
    "--segment",
    "--segment-sequence",
    "--start-at",
    "--rendezvous",
    "--segments",
    "--publish",
    ...serverSideFlagNames,
    "--metrics-out",
    "--metrics-interval",
    "--metrics-addr"
  ],
  switches: [...targetFlagNames.switches, "--cleanup"],
  repeatable: ["--set"],
  aliases: targetFlagNames.aliases
}
const commandFlags: Record<string, FlagSpec> = {
  run: runFlags,
  start: runFlags,
  sweep: {
    values: [...targetFlagNames.values, "--vary", "--workers", "--set", "--seed", "--out"],
    switches: [...targetFlagNames.switches],
    repeatable: ["--vary", "--set"],
    aliases: targetFlagNames.aliases
  },
  serve: {
    values: [
      "--host",
      "--port",
      "--seed",
      "--history-window",
      "--bookmark-interval",
      "--request-timeout",
      "--max-connections",
      "--added-latency",
      "--watch-buffer-size",
      "--cert-dir",
      "--tls-cert-file",
      "--tls-private-key-file",
      "--client-ca-file",
      "--kubeconfig-auth",
      "--token-auth-file",
      "--anonymous-auth",
      "--authorization-mode",
      "--feature-gates",
      "--audit-log-path",
      "--audit-policy-file",
      "--audit-log-maxsize",
      "--audit-log-maxbackup",
      "--audit-log-maxage",
      "--nodes",
      "--cluster"
    ],
    switches: ["--admin", "--demo", "--no-metrics", "--tls", "--verbose", "-v"],
    aliases: { "-v": "--verbose" }
  },
  replay: replayFlags,
  validate: { values: ["--set"], switches: [], repeatable: ["--set"] },
  report: { values: ["--out", "--junit"], switches: ["--html"] },
  merge: { values: ["--out", "--junit"], switches: [] },
  collect: { values: [...targetFlagNames.values, "--namespace", "--out", "--junit"], switches: [...targetFlagNames.switches], aliases: targetFlagNames.aliases },
  job: { values: ["--segments", "--image", "--name", "--namespace"], switches: [] },
  compare: {
    values: [...targetFlagNames.values, "--rounds", "--warmup-rounds", "--out", "--fail-if", "--select", "--level", "--seed", ...serverSideFlagNames],
    switches: [...targetFlagNames.switches, "--allow-different"],
    // a target's flags once per side (./targetFlags.ts sidesOf)
    repeatable: [...targetFlagNames.values.map((f) => targetFlagNames.aliases[f] ?? f), "--fail-if", "--prometheus"],
    aliases: targetFlagNames.aliases
  },
  calibrate: { values: [...targetFlagNames.values, "--out", "--step", "--pace"], switches: [...targetFlagNames.switches, "--allow-remote"], aliases: targetFlagNames.aliases },
  schema: { values: [], switches: [] }
}

/** The command line on `args` (without node and the script), `run` and `start` handing their options to `RunEntry`; the exit code. */
export const commandLine = (args: ReadonlyArray<string>): Effect.Effect<number, unknown, RunEntry> =>
  Effect.suspend(() => {
    resetExitCode()
    const [first, ...rest] = args
    const done = (code: Promise<number>) => Effect.promise(() => code)
    if (first === undefined || first === "--help" || first === "-h") return done(printHelp(undefined))
    if (first === "help") {
      const topic = rest[0]
      if (topic === undefined) return done(printHelp(undefined))
      if (topic === "scheduler") return schedulerCommand(["--help"])
      if (isSubcommand(topic)) return done(printHelp(topic))
      if (topic === "help" || topic === "--help" || topic === "-h") return done(printHelp(undefined))
      return done(usageProblem(`: ${commandProblem(topic, commandNames)}`, "clustersim help"))
    }
    if (first === "scheduler") return schedulerCommand(rest)
    if (first.startsWith("-")) {
      const name = first.split("=")[0]!
      if (![...builtIns.values, ...builtIns.switches].includes(name)) return done(usageProblem(`: unknown flag "${name}"`, "clustersim help"))
    } else if (!isSubcommand(first)) return done(usageProblem(`: ${commandProblem(first, commandNames)}`, "clustersim help"))
    const spec = isSubcommand(first) ? commandFlags[first] : undefined
    const problem = spec ? flagProblem(first, rest, spec) : undefined
    if (problem !== undefined) return done(usageProblem(` ${problem}`, `clustersim ${first} --help`))
    if (isSubcommand(first) && asksForHelp(rest)) return done(printHelp(first))
    // compare's per-side flags keep their empty values (./targetFlags.ts perSideArgs)
    const given = first === "compare" ? [first, ...perSideArgs(rest, [...targetFlagNames.values, "--prometheus"])] : args
    return cli(["node", "clustersim", ...given]).pipe(
      Effect.provide(Layer.merge(NodeContext.layer, CliConfig.layer(cliConfig))),
      Effect.as(undefined as number | undefined),
      Effect.catchAll((e) =>
        // @effect/cli has printed the message (naming the flag or argument) already; where to read the usage follows
        ValidationError.isValidationError(e)
          ? Effect.sync(() => (process.stderr.write(`Run "${isSubcommand(first) ? `clustersim ${first} --help` : "clustersim help"}" for usage.\n`), ExitCode.InvalidInput))
          : Effect.fail(e)
      ),
      Effect.map((code) => code ?? decidedExitCode())
    )
  })

/** Runs the command line on `args` (without node and the script); resolves to the exit code. */
/** The scheduler command, loaded when asked for. */
const schedulerCommand = (args: ReadonlyArray<string>) =>
  Effect.flatMap(load(() => import("../../simulator/scheduler/SchedulerCommand.js")), (m) => m.schedulerCommand(args))

/** The run pipeline, loaded after the command line has been read (./run.ts). */
const runCommand = (options: RunCommandOptions): Effect.Effect<RunCommandResult> => Effect.flatMap(load(() => import("./run.js")), (m) => m.runCommand(options))

export const main = (args: ReadonlyArray<string>): Promise<number> => Effect.runPromise(Effect.provideService(commandLine(args), RunEntry, runCommand))
