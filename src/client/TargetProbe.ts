/**
 * Whether a target answers at all, asked once before a run's first phase: `GET /version`, then discovery
 * (`GET /api`) when `/version` gives no version. A target nobody listens on fails at once with the transport's
 * error (`connection refused: URL`, a TLS or DNS failure) instead of a run of its full length whose every request
 * fails (kubectl does the same check first: `The connection to the server … was refused`). Any HTTP answer means
 * the target is reachable — a 401 or 403 too: the credentials are the run's to use (an exec plugin's token is not
 * fetched for a probe); only a target where neither path exists (404 and 404) is no API server.
 */
import { Data, Effect } from "effect"
import { Agent, request } from "undici"
import { tlsConnectOptions, type ProbeTarget } from "./Probe.js"
import { type TransportError, transportFailure } from "./TransportError.js"

/** The bound of each probe request: connecting, and waiting for the answer's headers (ms). */
export const ProbeTimeoutMs = 3000

/** The target answered, but neither `/version` nor `/api` exists there: not a Kubernetes API server (or a wrong path). */
export class NotAnApiServer extends Data.TaggedError("NotAnApiServer")<{ readonly url: string; readonly answers: string }> {
  override get message(): string {
    return `${this.url} is not a Kubernetes API server: ${this.answers}`
  }
}

export interface Reachable {
  /** `gitVersion` of `/version`, when it answered one. */
  readonly version?: string
}

const get = (target: ProbeTarget, path: string): Effect.Effect<{ readonly statusCode: number; readonly text: string }, TransportError> =>
  Effect.tryPromise({
    try: async () => {
      const agent = new Agent({ connect: { ...tlsConnectOptions(target.tls), timeout: ProbeTimeoutMs } })
      try {
        const res = await request(target.baseUrl.replace(/\/$/, "") + path, {
          dispatcher: agent,
          headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
          headersTimeout: ProbeTimeoutMs,
          bodyTimeout: ProbeTimeoutMs
        })
        return { statusCode: res.statusCode, text: await res.body.text() }
      } finally {
        void agent.close()
      }
    },
    catch: (e) => transportFailure(target.baseUrl, e)
  })

const versionOf = (text: string): string | undefined => {
  try {
    const v = (JSON.parse(text) as { gitVersion?: unknown }).gitVersion
    return typeof v === "string" ? v : undefined
  } catch {
    return undefined
  }
}

/** Reachable (with its version when it says one), or why not. */
export const probeTarget = (target: ProbeTarget): Effect.Effect<Reachable, TransportError | NotAnApiServer> =>
  Effect.gen(function* () {
    const version = yield* get(target, "/version")
    const gitVersion = version.statusCode === 200 ? versionOf(version.text) : undefined
    if (gitVersion !== undefined) return { version: gitVersion }
    const discovery = yield* get(target, "/api")
    if (version.statusCode === 404 && discovery.statusCode === 404)
      return yield* Effect.fail(new NotAnApiServer({ url: target.baseUrl, answers: "GET /version and GET /api answered 404" }))
    return {}
  })
