/**
 * `/healthz`, `/livez`, `/readyz` and their per-check paths, as kube-apiserver's `server/healthz/healthz.go` answers
 * them: the root runs every check (`handleRootHealth`) and answers `ok`, or with `?verbose` one `[+]<check> ok` line
 * each and `<endpoint> check passed`; `?exclude=<check>` skips one (`[+]<check> excluded: ok`, and a warning naming
 * those that match no check); a failing check makes it a 500 listing `[-]<check> failed: reason withheld` (the
 * endpoint is public: the reason stays in the log) ending `<endpoint> check failed`. Each check answers alone at
 * `/<endpoint>/<check>` (`adaptCheckToHandler`). Pure: the server passes its checks in.
 */
import { goQuote } from "../../../src/api/go/Quote.js"

/** One named check: `undefined` when it passes, else why it fails (logged upstream, never answered). */
export interface HealthCheck {
  readonly name: string
  readonly check: () => string | undefined
}

export type HealthEndpoint = "healthz" | "livez" | "readyz"

/**
 * What this server checks. Upstream's `ping` always passes; `log` passes while the log is flushed (node writes
 * stderr synchronously, so always). There is no etcd to reach (the store is in memory), no post-start hooks, no
 * informers to sync and no shutdown grace in which readiness would fail first: the three endpoints have these two.
 */
export const serverHealthChecks: ReadonlyArray<HealthCheck> = [
  { name: "ping", check: () => undefined },
  { name: "log", check: () => undefined }
]

export interface HealthAnswer {
  readonly code: 200 | 404 | 500
  readonly body: string
}

/** Upstream's `formatQuoted`: each name as Go's `%q`, joined by `,`. */
const formatQuoted = (names: ReadonlyArray<string>): string => names.map(goQuote).join(",")

/** The answer to `GET /<endpoint>` (`check` undefined) or `GET /<endpoint>/<check>`. */
export const answerHealth = (
  endpoint: HealthEndpoint,
  check: string | undefined,
  query: URLSearchParams,
  checks: ReadonlyArray<HealthCheck> = serverHealthChecks
): HealthAnswer => {
  if (check !== undefined) {
    const one = checks.find((c) => c.name === check)
    if (one === undefined) return { code: 404, body: "404 page not found\n" }
    const failure = one.check()
    // `http.Error` ends its text with a newline
    return failure === undefined ? { code: 200, body: "ok" } : { code: 500, body: `internal server error: ${failure}\n` }
  }
  const excluded = new Set(query.getAll("exclude"))
  let lines = ""
  let failed = false
  for (const c of checks) {
    if (excluded.delete(c.name)) {
      lines += `[+]${c.name} excluded: ok\n`
      continue
    }
    if (c.check() === undefined) lines += `[+]${c.name} ok\n`
    else {
      lines += `[-]${c.name} failed: reason withheld\n`
      failed = true
    }
  }
  if (excluded.size > 0) lines += `warn: some health checks cannot be excluded: no matches for ${formatQuoted([...excluded].sort())}\n`
  // always verbose on failure
  if (failed) return { code: 500, body: `${lines}${endpoint} check failed\n` }
  return { code: 200, body: query.has("verbose") ? `${lines}${endpoint} check passed\n` : "ok" }
}
