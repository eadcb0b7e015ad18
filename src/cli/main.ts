#!/usr/bin/env node
/** The `clustersim` command line. */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { parseArgs } from "node:util"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { runHttpServer } from "../../simulator/apiserver/HttpServer.js"
import { parseDurationFlag } from "./flags.js"
import { seedDemoCluster } from "./demo.js"

const usage = `clustersim — simulate a Kubernetes-style control plane and generate load against it

Usage:
  clustersim serve [--host 127.0.0.1] [--port 6443|0] [--seed N] [--admin] [--demo]
                   [--history-window 5m] [--bookmark-interval 1m]
  clustersim start          serve a seeded demo cluster on 127.0.0.1:6443 (npm start)
  clustersim help

serve       Runs the simulated API server on a real socket (HTTP). Prints
            "clustersim API server listening on http://HOST:PORT" first. Ctrl-C stops it.
  --admin   Enables POST /clustersim/compact, /clustersim/drop-watches, /clustersim/pause?seconds=N.
  --demo    Seeds a small demo cluster (nodes, pods, config maps).
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

const main = Effect.gen(function* () {
  const [command, ...rest] = process.argv.slice(2)
  switch (command) {
    case "serve":
      return yield* serve(rest, false)
    case "start":
      return yield* serve(rest, true)
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

NodeRuntime.runMain(main, { disableErrorReporting: false })
