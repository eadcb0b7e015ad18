/**
 * What the real command line (`@effect/cli`, app/cli/commandLine.ts) makes of a `run` command line: the options
 * it hands the run pipeline, caught at `RunEntry` instead of running the scenario.
 */
import { Effect, Option, Ref } from "effect"
import { commandLine, RunEntry } from "../../app/cli/commandLine.js"
import type { RunCommandOptions } from "../../app/cli/run.js"

export const parsedRun = (args: ReadonlyArray<string>): Effect.Effect<{ readonly exitCode: number; readonly options: Option.Option<RunCommandOptions> }, unknown> =>
  Effect.gen(function* () {
    const seen = yield* Ref.make(Option.none<RunCommandOptions>())
    const entry = (options: RunCommandOptions) => Effect.as(Ref.set(seen, Option.some(options)), { exitCode: 0 })
    const exitCode = yield* Effect.provideService(commandLine(["run", ...args]), RunEntry, entry)
    return { exitCode, options: yield* Ref.get(seen) }
  })

/** The options of a command line the parser accepts. */
export const runOptionsOf = (args: ReadonlyArray<string>): Effect.Effect<RunCommandOptions, unknown> =>
  Effect.flatMap(parsedRun(args), (r) => (Option.isSome(r.options) ? Effect.succeed(r.options.value) : Effect.dieMessage(`run ${args.join(" ")}: exit ${r.exitCode}, not run`)))
