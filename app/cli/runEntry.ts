/**
 * Where the commands that run a scenario (`run`, `start`, `replay`) hand it over, and the signals that stop it;
 * apart from ./commandLine.ts so a command's own module (./replayCommand.ts) can use them.
 */
import { Context, Effect } from "effect"
import type { StopSignal } from "./artifact.js"
import type { RunCommandOptions, RunCommandResult } from "./run.js"

/**
 * Where `run`, `start` and `replay` hand the options their flags made: the run pipeline (`runCommand`). A test
 * provides its own to see what the real parser made of a command line (test/cli/runFlags.test.ts).
 */
export class RunEntry extends Context.Tag("clustersim/cli/RunEntry")<RunEntry, (options: RunCommandOptions) => Effect.Effect<RunCommandResult>>() {}

/** Ctrl-C (SIGINT) or SIGTERM stops the run; the partial artifact is still written (exit 130 / 143). */
export const stopSignal = Effect.async<StopSignal>((resume) => {
  const onSigint = () => resume(Effect.succeed("SIGINT"))
  const onSigterm = () => resume(Effect.succeed("SIGTERM"))
  process.once("SIGINT", onSigint)
  process.once("SIGTERM", onSigterm)
  return Effect.sync(() => {
    process.off("SIGINT", onSigint)
    process.off("SIGTERM", onSigterm)
  })
})
