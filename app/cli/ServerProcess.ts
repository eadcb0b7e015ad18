/**
 * The embedded target's server in a process of its own (`clustersim serve --port 0 --admin` on 127.0.0.1), so the
 * generator's event loop and the server's never share one queue: a run's latency is the server's, and the
 * generator's health is its own (issue 19). The port comes back on the child's stdout ("listening on URL"); the
 * child is stopped when the scope closes (the run ends, fails or is interrupted) and exits by itself if this process
 * dies (its IPC channel closes).
 */
import { Data, Effect, type Scope } from "effect"
import { spawnEntry } from "./ChildEntry.js"

export class ServerProcessError extends Data.TaggedError("ServerProcessError")<{ readonly message: string }> {}

export interface ServerProcessOptions {
  readonly seed: number
  readonly historyWindowMs?: number
  readonly bookmarkIntervalMs?: number
  readonly watchBufferSize?: number
  /** `--feature-gates` as serve takes it (`WatchList=true`), from the scenario's `server.featureGates`. */
  readonly featureGates?: string
}

const serveArgs = (o: ServerProcessOptions): Array<string> => [
  "--host",
  "127.0.0.1",
  "--port",
  "0",
  "--admin",
  "--seed",
  String(o.seed),
  ...(o.historyWindowMs !== undefined ? ["--history-window", `${o.historyWindowMs}ms`] : []),
  ...(o.bookmarkIntervalMs !== undefined ? ["--bookmark-interval", `${o.bookmarkIntervalMs}ms`] : []),
  ...(o.watchBufferSize !== undefined ? ["--watch-buffer-size", String(o.watchBufferSize)] : []),
  ...(o.featureGates !== undefined ? ["--feature-gates", o.featureGates] : [])
]

/** What the child said before it exited: its `clustersim: …` lines without the prefix, not where to read the usage. */
const childReason = (stderr: string, stdout: string): string => {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("Run \"clustersim"))
  const said = lines.map((l) => l.replace(/^clustersim( serve)?: /, "")).join("; ")
  return said !== "" ? said : stdout.trim()
}

/** Starts the server process; succeeds with its URL once it listens. */
export const startServerProcess = (o: ServerProcessOptions): Effect.Effect<{ readonly url: string; readonly pid: number | undefined }, ServerProcessError, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.async<{ url: string; child: ReturnType<typeof spawnEntry> }, ServerProcessError>((resume) => {
        // its stderr is held until it listens: a refusal (`--port …: … in use`) is the reason this run reports
        const child = spawnEntry("serveEntry", serveArgs(o), { pipeStderr: true })
        let out = ""
        let err = ""
        let done = false
        child.stderr!.on("data", (chunk: Buffer) => {
          if (done) process.stderr.write(chunk)
          else err += chunk.toString()
        })
        child.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString()
          const m = /listening on (https?:\/\/[^\s]+)/.exec(out)
          if (m && !done) {
            done = true
            if (err !== "") process.stderr.write(err)
            resume(Effect.succeed({ url: m[1]!, child }))
          }
        })
        child.once("error", (e) => {
          if (!done) (done = true), resume(Effect.fail(new ServerProcessError({ message: `starting the embedded server: ${e.message}` })))
        })
        child.once("exit", (code, signal) => {
          if (!done) (done = true), resume(Effect.fail(new ServerProcessError({ message: `the embedded server exited before listening (${signal ?? `exit ${code}`}): ${childReason(err, out)}` })))
        })
        return Effect.sync(() => void child.kill("SIGTERM"))
      }),
      ({ child }) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGTERM")
        })
    ),
    ({ url, child }) => ({ url, pid: child.pid })
  )
