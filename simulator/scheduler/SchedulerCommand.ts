/**
 * `clustersim scheduler …` (the CLI owner wires it): `--help` prints `schedulerHelp()` (the flags the simulation
 * honours; the others are accepted with a warning), `--write-config-to`
 * writes the effective configuration and exits 0, bad flags or configuration print `Error: <message>` and exit 1
 * (upstream cobra's `RunE` error path). Running the scheduler for real needs an API server: it runs inside the
 * cluster simulator (a scenario's `scheduler:` section, app/scenario/Simulated.ts), so a plain invocation only validates.
 */
import { Effect, Either } from "effect"
import { readFile, writeFile } from "node:fs/promises"
import {
  notHonouredWarnings,
  parseSchedulerFlags,
  renderConfiguration,
  schedulerHelp,
  validateSchedulerOptions,
  withConfigFile
} from "./options/index.js"

export interface CommandIO {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly readFile: (path: string) => Promise<string>
  readonly writeFile: (path: string, text: string) => Promise<void>
}

const processIO: CommandIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  readFile: (p) => readFile(p, "utf8"),
  writeFile: (p, t) => writeFile(p, t, "utf8")
}

/** Runs the command; the value is the process exit code. */
export const schedulerCommand = (argv: ReadonlyArray<string>, io: CommandIO = processIO): Effect.Effect<number> =>
  Effect.gen(function* () {
    const fail = (message: string) => Effect.sync(() => (io.stderr(`Error: ${message}\n`), 1))
    const parsed = parseSchedulerFlags(argv)
    if (Either.isLeft(parsed)) return yield* fail(parsed.left.message)
    let opts = parsed.right
    if (opts.helpRequested) {
      io.stdout(schedulerHelp())
      return 0
    }
    if (opts.flags.config !== "") {
      const path = opts.flags.config
      const text = yield* Effect.either(Effect.tryPromise(() => io.readFile(path)))
      if (Either.isLeft(text)) return yield* fail(`open ${path}: no such file or directory`)
      const loaded = withConfigFile(opts, text.right)
      if (Either.isLeft(loaded)) return yield* fail(loaded.left.message)
      opts = loaded.right
    }
    for (const w of [...opts.warnings, ...notHonouredWarnings(opts)]) io.stderr(`${w}\n`)
    const valid = validateSchedulerOptions(opts)
    if (Either.isLeft(valid)) return yield* fail(valid.left.message)
    if (opts.flags.writeConfigTo !== "") {
      const path = opts.flags.writeConfigTo
      const written = yield* Effect.either(Effect.tryPromise(() => io.writeFile(path, renderConfiguration(opts))))
      if (Either.isLeft(written)) return yield* fail(`unable to write configuration to ${path}`)
      io.stdout(`Wrote configuration to: ${path}\n`)
      return 0
    }
    io.stderr("platform-scheduler: configuration is valid; the scheduler runs inside the cluster simulator (clustersim run <scenario>)\n")
    return 0
  })
