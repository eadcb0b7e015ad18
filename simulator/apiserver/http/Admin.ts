/** The admin endpoints a `serve --admin` server answers under `/clustersim/`: failure hooks for tests and scenarios. */
import { Effect } from "effect"
import * as Status from "../../../src/api/Status.js"
import type { ApiServerImpl } from "../ApiServer.js"
import type { Responder } from "./Responder.js"

/** The longest `/clustersim/pause` (one hour). */
const maxPauseSeconds = 3600

/** `POST /clustersim/<action>` (`serve --admin`): compact, drop-watches, pause?seconds=N, expire-tokens[?dropWatches=true] (docs/limits.md). */
export const adminAction = (api: ApiServerImpl, action: string, query: URLSearchParams, method: string, out: Responder): Effect.Effect<void> => {
  if (method !== "POST") return Effect.sync(() => out.error(Status.methodNotAllowed()))
  switch (action) {
    case "compact":
      return api.compact().pipe(Effect.map((revision) => out.json(200, { compactedRevision: revision })))
    case "drop-watches":
      return api.dropWatches().pipe(Effect.map((dropped) => out.json(200, { dropped })))
    case "expire-tokens":
      return api.expireTokens(query.get("dropWatches") === "true").pipe(Effect.map((r) => out.json(200, r)))
    case "pause": {
      const raw = query.get("seconds") ?? ""
      const seconds = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN
      // A pause longer than the request timeout's upper bound would only wedge every client.
      if (!(seconds > 0 && seconds <= maxPauseSeconds))
        return Effect.sync(() => out.error(Status.badRequest(`seconds: must be a number of seconds in (0, ${maxPauseSeconds}], got "${raw.slice(0, 64)}"`)))
      return api.pause(seconds * 1000).pipe(Effect.map(() => out.json(200, { pausedSeconds: seconds })))
    }
    default:
      return Effect.sync(() => out.error(Status.resourceNotFound()))
  }
}
