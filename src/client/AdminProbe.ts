/**
 * Whether a URL target is a `clustersim serve --admin`: its `/clustersim/` hooks answer a GET with a 405
 * Status (they take POST only), where a server without them — another API server, or `serve` without
 * `--admin` — answers 404. The probe has no side effect.
 */
import { Effect } from "effect"
import { request } from "undici"

export const hasAdminHooks = (baseUrl: string, options?: { readonly token?: string | undefined }): Effect.Effect<boolean> =>
  Effect.tryPromise(async () => {
    const res = await request(baseUrl.replace(/\/$/, "") + "/clustersim/compact", {
      method: "GET",
      headers: options?.token ? { authorization: `Bearer ${options.token}` } : {},
      headersTimeout: 3000,
      bodyTimeout: 3000
    })
    const text = await res.body.text()
    if (res.statusCode !== 405) return false
    const body = JSON.parse(text) as { kind?: unknown; code?: unknown }
    return body.kind === "Status" && body.code === 405
  }).pipe(Effect.orElseSucceed(() => false))
