/**
 * `run --metrics-addr HOST:PORT` (docs/metrics.md): while a load run or a real-time cluster runs, the load generator's
 * metrics — client-go's `rest_client_*` (`src/client/RestClientMetrics.ts`), its per-action counters
 * (`src/loadgen/GeneratorMetrics.ts`) and the process' own — are served on `/metrics` in the Prometheus text format
 * 0.0.4 (prom-client), for a Prometheus to scrape a long run as it goes. The listener closes with the run.
 */
import { Data, Effect, type Scope } from "effect"
import { createServer } from "node:http"
import { Registry } from "prom-client"
import { ApiClient } from "../../src/client/ApiClient.js"
import { instrumentedClient, RestClientMetrics } from "../../src/client/RestClientMetrics.js"
import { GeneratorMetrics, tappedRecorder } from "../../src/loadgen/GeneratorMetrics.js"
import { addProcessMetrics } from "../../src/loadgen/ProcessMetrics.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { hostPort, listen } from "../../simulator/apiserver/http/Listen.js"

export class MetricsListenError extends Data.TaggedError("MetricsListenError")<{ readonly message: string }> {}

/** The listener's metrics, and how a run's load is instrumented for them. */
export interface LiveMetrics {
  readonly url: string
  /** `load` with its client counted (`rest_client_*`) and its samples counted per action. */
  readonly instrument: <A, E, R>(load: Effect.Effect<A, E, R>, recorder: LatencyRecorder["Type"]) => Effect.Effect<A, E, ApiClient | Exclude<R, LatencyRecorder>>
}

/**
 * Listens on `addr` for the scope's life; `host` is the `host` label of the client's metrics (the target's
 * `host:port`). Fails when the address cannot be listened on (in use, not this machine's).
 */
export const serveLiveMetrics = (addr: { readonly host: string; readonly port: number }, host: string): Effect.Effect<LiveMetrics, MetricsListenError, Scope.Scope> =>
  Effect.gen(function* () {
    const registry = new Registry()
    // the process's own, shared with every other registry of this process (src/loadgen/ProcessMetrics.ts)
    addProcessMetrics([registry])
    const rest = new RestClientMetrics([registry], host)
    const generator = new GeneratorMetrics([registry])
    const server = createServer((req, res) => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n")
        return
      }
      registry.metrics().then(
        (body) => res.writeHead(200, { "content-type": registry.contentType }).end(body),
        (e: unknown) => res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`${String(e)}\n`)
      )
    })
    const port = yield* Effect.acquireRelease(listen(server, addr.host, addr.port), () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))).pipe(
      Effect.mapError((e) => new MetricsListenError({ message: `--metrics-addr ${hostPort(addr.host, addr.port)}: ${e.message}` }))
    )
    return {
      url: `http://${hostPort(addr.host, port)}/metrics`,
      instrument: (load, recorder) =>
        load.pipe(
          Effect.provideService(LatencyRecorder, tappedRecorder(recorder, generator)),
          Effect.updateService(ApiClient, (client) => instrumentedClient(client, rest, () => performance.now()))
        )
    }
  })
