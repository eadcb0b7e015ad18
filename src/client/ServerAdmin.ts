/**
 * Failure hooks of the simulated server for scenarios: compact now (forces 410s), drop all watches (as a
 * restart would), pause answering, expire the tokens it issued. Over HTTP they use the `/clustersim/` endpoints that `serve --admin` enables;
 * in-process, `simulator/apiserver/InProcessClient.ts` (`layerAdmin`) calls the server. A real server has none.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { tlsConnectOptions, type ProbeTarget } from "./Probe.js"
import type * as Status from "../api/Status.js"
import { ApiError } from "../api/Status.js"
import { type ClientError, transportFailure } from "./TransportError.js"

export interface ServerAdminService {
  /** Compacts history at the current revision; returns it. */
  readonly compact: Effect.Effect<number, ClientError>
  /** Closes every watch; returns how many were open. */
  readonly dropWatches: Effect.Effect<number, ClientError>
  /** Stops answering for the given time. */
  readonly pause: (duration: Duration.DurationInput) => Effect.Effect<void, ClientError>
  /**
   * Expires every token the server issued (TokenRequest), and with `dropWatches` closes every watch in the same
   * step (no request comes between them); how many of each. Absent where the server issues none.
   */
  readonly expireTokens?: (dropWatches: boolean) => Effect.Effect<{ readonly expired: number; readonly dropped: number }, ClientError>
}

export class ServerAdmin extends Context.Tag("clustersim/ServerAdmin")<ServerAdmin, ServerAdminService>() {
  /**
   * The `/clustersim/` endpoints of `baseUrl`, with the target's TLS material and token (`serve --tls --admin`).
   * undici is loaded when the layer is built: the tag alone comes into runs that speak no HTTP (`ApiClient.layerHttp`).
   */
  static readonly layerHttp = (baseUrl: string, options: Omit<ProbeTarget, "baseUrl"> = {}): Layer.Layer<ServerAdmin> =>
    Layer.unwrapEffect(Effect.map(Effect.promise(() => import("undici")), (undici) => adminOverHttp(undici, baseUrl, options)))
}

const adminOverHttp = (
  { Agent, request }: typeof import("undici"),
  baseUrl: string,
  options: Omit<ProbeTarget, "baseUrl">
): Layer.Layer<ServerAdmin> => {
  const dispatcher = options.tls ? new Agent({ connect: tlsConnectOptions(options.tls) }) : undefined
  const headers = options.token ? { authorization: `Bearer ${options.token}` } : {}
  const post = <A>(path: string, pick: (body: Record<string, unknown>) => A) =>
    Effect.tryPromise({
      try: async () => {
        const res = await request(baseUrl.replace(/\/$/, "") + path, { method: "POST", headers, ...(dispatcher ? { dispatcher } : {}) })
        const text = await res.body.text()
        if (res.statusCode !== 200) throw new ApiError({ status: JSON.parse(text) as Status.Status })
        return pick(JSON.parse(text) as Record<string, unknown>)
      },
      // no answer from the endpoint is the transport's error (TransportError.ts), not a 503 nobody sent
      catch: (e): ClientError => (e instanceof ApiError ? e : transportFailure(baseUrl, e))
    })
  return Layer.succeed(ServerAdmin, {
    compact: post("/clustersim/compact", (b) => Number(b.compactedRevision)),
    dropWatches: post("/clustersim/drop-watches", (b) => Number(b.dropped)),
    pause: (duration) => Effect.asVoid(post(`/clustersim/pause?seconds=${Duration.toMillis(duration) / 1000}`, () => undefined)),
    expireTokens: (dropWatches) =>
      post(`/clustersim/expire-tokens${dropWatches ? "?dropWatches=true" : ""}`, (b) => ({ expired: Number(b.expired), dropped: Number(b.dropped ?? 0) }))
  })
}
