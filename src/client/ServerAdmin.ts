/**
 * Failure hooks of the simulated server for scenarios: compact now (forces 410s), drop all watches (as a
 * restart would), pause answering, expire the tokens it issued. Over HTTP they use the `/clustersim/` endpoints that `serve --admin` enables;
 * in-process, `simulator/apiserver/InProcessClient.ts` (`layerAdmin`) calls the server. A real server has none.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { request } from "undici"
import * as Status from "../api/Status.js"
import { ApiError } from "../api/Status.js"

export interface ServerAdminService {
  /** Compacts history at the current revision; returns it. */
  readonly compact: Effect.Effect<number, ApiError>
  /** Closes every watch; returns how many were open. */
  readonly dropWatches: Effect.Effect<number, ApiError>
  /** Stops answering for the given time. */
  readonly pause: (duration: Duration.DurationInput) => Effect.Effect<void, ApiError>
  /** Expires every token the server issued (TokenRequest); returns how many. Absent where the server issues none. */
  readonly expireTokens?: Effect.Effect<number, ApiError>
}

export class ServerAdmin extends Context.Tag("clustersim/ServerAdmin")<ServerAdmin, ServerAdminService>() {
  static readonly layerHttp = (baseUrl: string): Layer.Layer<ServerAdmin> => {
    const post = <A>(path: string, pick: (body: Record<string, unknown>) => A) =>
      Effect.tryPromise({
        try: async () => {
          const res = await request(baseUrl.replace(/\/$/, "") + path, { method: "POST" })
          const text = await res.body.text()
          if (res.statusCode !== 200) throw new ApiError({ status: JSON.parse(text) as Status.Status })
          return pick(JSON.parse(text) as Record<string, unknown>)
        },
        catch: (e) =>
          e instanceof ApiError
            ? e
            : new ApiError({ status: Status.makeStatus({ code: 503, reason: "ServiceUnavailable", message: `admin endpoint ${path}: ${String(e)}` }) })
      })
    return Layer.succeed(ServerAdmin, {
      compact: post("/clustersim/compact", (b) => Number(b.compactedRevision)),
      dropWatches: post("/clustersim/drop-watches", (b) => Number(b.dropped)),
      pause: (duration) => Effect.asVoid(post(`/clustersim/pause?seconds=${Duration.toMillis(duration) / 1000}`, () => undefined)),
      expireTokens: post("/clustersim/expire-tokens", (b) => Number(b.expired))
    })
  }
}
