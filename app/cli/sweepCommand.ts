/**
 * `clustersim sweep`'s command line (docs/sweep.md): the flags, the refusals that need the target (a real server's
 * points run one at a time), then ./sweep.ts, loaded when the command runs.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { exitWith, integerFlag, load, optionalText, setOption, stderrLine, usageError } from "./CommandParts.js"
import { stopSignal } from "./runEntry.js"
import { describeTarget, resolveTarget } from "./target.js"
import { targetArgsOf, targetOptions, targetValuesOf } from "./targetFlags.js"


export const sweep = Command.make(
  "sweep",
  {
    scenario: Args.text({ name: "scenario.yaml" }).pipe(Args.withDescription("The scenario file (docs/scenarios.md).")),
    ...targetOptions,
    vary: Options.text("vary").pipe(
      Options.withPseudoName("path=v1,v2"),
      Options.repeated,
      Options.optional,
      Options.withDescription(
        "A scenario field and the values it takes, e.g. cluster.nodes=50,500,5000; each value is checked as --set path=value would be. Repeatable: the points are every combination, the first --vary outermost. A comma inside [ ] or { } belongs to the value (cluster.zones=[a,b],[c] is two values). At most 256 points (docs/sweep.md)."
      )
    ),
    workers: integerFlag(
      "workers",
      "Points run at once, each a process of its own. Default: the machine's cores (os.availableParallelism()) in virtual time; 1 for a load scenario (the real clock: points side by side would share the cores) and against a real server (--target URL or a kubeconfig), whose points would share it."
    ).pipe(Options.optional),
    set: setOption,
    seed: integerFlag("seed", "Overrides the scenario's seed, the same for every point.").pipe(Options.optional),
    out: optionalText("out", "Directory for sweep.json, sweep.html and one directory per point (default runs/<timestamp>-<name>-sweep/).", "DIR")
  },
  (o) =>
    Effect.gen(function* () {
      const target = yield* Effect.either(resolveTarget(targetValuesOf(o), { warn: stderrLine }))
      if (target._tag === "Left") return yield* usageError(target.left.message)
      const given = Option.getOrUndefined(o.workers)
      if (given !== undefined && given < 1) return yield* usageError(`--workers: must be at least 1, got ${given}`)
      // a real server is one for every point: side by side they would disturb each other's figures
      const shared = target.right._tag === "url"
      if (shared && given !== undefined && given > 1)
        return yield* usageError(`--workers ${given}: a sweep against a real server (${describeTarget(target.right).replace(/^target: /, "")}) runs its points one at a time, since they would share it`)
      if (shared) stderrLine(`${describeTarget(target.right)}: the points run one at a time`)
      const { sweepCommand } = yield* load(() => import("./sweep.js"))
      const code = yield* sweepCommand({
        file: o.scenario,
        varies: Option.getOrElse(o.vary, () => []),
        sets: Option.getOrElse(o.set, () => []),
        ...(Option.isSome(o.seed) ? { seed: o.seed.value } : {}),
        ...(shared ? { workers: 1 } : given !== undefined ? { workers: given } : {}),
        targetArgs: targetArgsOf(o),
        ...(Option.isSome(o.out) ? { outDir: o.out.value } : {}),
        interrupt: stopSignal
      })
      yield* exitWith(code)
    })
).pipe(
  Command.withDescription(
    "Run a scenario at every point of a parameter sweep, several points at once. Each point is the run of run --set PATH=V, a process of its own, --workers at a time; the sweep prints one row per point with its verdict, headline figures and result fingerprint, and writes sweep.json and sweep.html (docs/sweep.md)."
  )
)
