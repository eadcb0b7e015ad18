#!/usr/bin/env node
/** The `clustersim` command line. */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { runHttpServer } from "../../simulator/apiserver/HttpServer.js"
import { schedulerCommand } from "../../simulator/scheduler/SchedulerCommand.js"
import { parseDurationFlag } from "./flags.js"
import { seedDemoCluster } from "./demo.js"
import { scenarioJsonSchema } from "../scenario/jsonSchema.js"
import { parseRunFlags, renderArtifactFile, runCommand, RunUsageError, validateFiles } from "./run.js"

const usage = `clustersim — simulate a Kubernetes-style control plane and generate load against it

Usage:
  clustersim serve [--host 127.0.0.1] [--port 6443|0] [--seed N] [--admin] [--demo]
                   [--history-window 5m] [--bookmark-interval 1m]
  clustersim run SCENARIO.yaml [--target embedded|in-process|URL] [--kubeconfig FILE [--context C]]
                   [--out DIR] [--seed N]
  clustersim validate FILE...
  clustersim report RUN.json
  clustersim schema         print the scenario JSON Schema (scenarios/scenario.schema.json)
  clustersim start          run scenarios/quickstart.yaml on the embedded server (npm start)
  clustersim scheduler [FLAGS]  the simulated scheduler's command line (--help lists every flag,
                            --write-config-to FILE writes the effective configuration)
  clustersim help

serve       Runs the simulated API server on a real socket (HTTP). Prints
            "clustersim API server listening on http://HOST:PORT" first. Ctrl-C stops it.
  --admin   Enables POST /clustersim/compact, /clustersim/drop-watches, /clustersim/pause?seconds=N.
  --demo    Seeds a small demo cluster (nodes, pods, config maps).

run         Runs a scenario (docs/scenarios.md) and prints a summary; writes run.json and latency.svg to
            --out (default reports/runs/<timestamp>-<name>/). Ctrl-C writes the partial artifact.
  --target  embedded (default): the simulated server on a free loopback port, over HTTP, real time;
            in-process: direct calls; http(s)://HOST:PORT: any API server (client-side failure steps only).
  --kubeconfig FILE [--context C]: a real server from a kubeconfig (token, client certificates, CA).
  --seed N  Overrides the scenario's seed.
  Exit codes: 0 pass, 99 thresholds breached, 2 invalid input, 1 run error or interrupted.
validate    Checks Scenario and NodeAgentConfiguration files; errors as file:line:col: field: message.
report      Prints the summary of a stored run.json again.
`

class UsageError extends Error {}

const serve = (argv: string[], demoDefault: boolean) =>
  Effect.gen(function* () {
    const { values } = yield* Effect.try({
      try: () =>
        parseArgs({
          args: argv,
          options: {
            host: { type: "string", default: "127.0.0.1" },
            port: { type: "string", default: "6443" },
            seed: { type: "string", default: "1" },
            admin: { type: "boolean", default: false },
            demo: { type: "boolean", default: demoDefault },
            "history-window": { type: "string", default: "5m" },
            "bookmark-interval": { type: "string", default: "1m" }
          },
          strict: true
        }),
      catch: (e) => new UsageError((e as Error).message)
    })
    const port = Number(values.port)
    if (!Number.isInteger(port) || port < 0 || port > 65535) return yield* Effect.fail(new UsageError(`--port: invalid port "${values.port}"`))
    const seed = Number(values.seed)
    if (!Number.isInteger(seed)) return yield* Effect.fail(new UsageError(`--seed: not an integer: "${values.seed}"`))
    const historyWindowMs = yield* parseDurationFlag("--history-window", values["history-window"]!)
    const bookmarkIntervalMs = yield* parseDurationFlag("--bookmark-interval", values["bookmark-interval"]!)
    const server = ApiServer.layer({ seed, historyWindowMs, bookmarkIntervalMs })
    return yield* runHttpServer({ host: values.host!, port, admin: values.admin! }, (s) =>
      Effect.gen(function* () {
        yield* Console.log(`clustersim API server listening on ${s.url}`)
        if (values.demo) {
          const summary = yield* seedDemoCluster
          yield* Console.log(summary)
          yield* Console.log(`Try: kubectl --server ${s.url} get pods -A`)
        }
      })
    ).pipe(Effect.provide(server))
  })

/** `run` and friends finish with an exit code; Ctrl-C stops the run and still writes the artifact. */
const runToExitCode = (argv: string[]) =>
  Effect.gen(function* () {
    const flags = yield* parseRunFlags(argv)
    const interrupt = Effect.async<void>((resume) => {
      const onSigint = () => resume(Effect.void)
      process.once("SIGINT", onSigint)
      return Effect.sync(() => void process.off("SIGINT", onSigint))
    })
    return (yield* runCommand({ ...flags, interrupt })).exitCode
  }).pipe(
    Effect.catchAll((e) =>
      Effect.sync(() => {
        process.stderr.write(`clustersim: ${e.message}\nRun "clustersim help" for usage.\n`)
        return 2
      })
    )
  )

const exitWith = (code: Promise<number>) =>
  code.then(
    (c) => process.exit(c),
    (e) => {
      process.stderr.write(`clustersim: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      process.exit(1)
    }
  )

const [firstCommand, ...firstRest] = process.argv.slice(2)

/** The shipped quickstart, found from the installed package (dist/src/cli → the package root), not the cwd. */
const quickstart = fileURLToPath(new URL("../../../scenarios/quickstart.yaml", import.meta.url))

const main = Effect.gen(function* () {
  const [command, ...rest] = process.argv.slice(2)
  switch (command) {
    case "serve":
      return yield* serve(rest, false)
    case undefined:
    case "help":
    case "--help":
    case "-h":
      return yield* Console.log(usage)
    default:
      return yield* Effect.fail(new UsageError(`unknown command "${command}"`))
  }
}).pipe(
  Effect.catchAll((e) =>
    Effect.sync(() => {
      process.stderr.write(`clustersim: ${e instanceof Error ? e.message : String(e)}\n`)
      if (e instanceof UsageError) process.stderr.write(`Run "clustersim help" for usage.\n`)
      process.exitCode = 2
    })
  )
)

if (firstCommand === "run") exitWith(Effect.runPromise(runToExitCode(firstRest)))
else if (firstCommand === "start") exitWith(Effect.runPromise(runToExitCode([quickstart, ...firstRest])))
else if (firstCommand === "scheduler") exitWith(Effect.runPromise(schedulerCommand(firstRest)))
else if (firstCommand === "validate") exitWith(Promise.resolve(validateFiles(firstRest, (s) => process.stdout.write(s), (s) => process.stderr.write(s))))
else if (firstCommand === "schema") exitWith(Promise.resolve(process.stdout.write(JSON.stringify(scenarioJsonSchema(), null, 2) + "\n")).then(() => 0))
else if (firstCommand === "report") {
  exitWith(
    Promise.resolve().then(() => {
      if (firstRest.length !== 1) throw new RunUsageError("report takes one run.json file")
      process.stdout.write(renderArtifactFile(firstRest[0]!) + "\n")
      return 0
    })
  )
} else NodeRuntime.runMain(main, { disableErrorReporting: false })
