/**
 * Whether a URL target is a `clustersim serve --admin`: its `/clustersim/` hooks answer a GET with a 405
 * Status (they take POST only), where a server without them — another API server, or `serve` without
 * `--admin` — answers 404. The probe has no side effect.
 */
import { Effect } from "effect"
import { probe, type ProbeTarget } from "./Probe.js"

export const hasAdminHooks = (baseUrl: string, options?: Omit<ProbeTarget, "baseUrl">): Effect.Effect<boolean> =>
  Effect.tryPromise(async () => {
    const res = await probe({ ...options, baseUrl }, "/clustersim/compact")
    const text = res.text
    if (res.statusCode !== 405) return false
    const body = JSON.parse(text) as { kind?: unknown; code?: unknown }
    return body.kind === "Status" && body.code === 405
  }).pipe(Effect.orElseSucceed(() => false))
