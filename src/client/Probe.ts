/**
 * Short requests made to a target before a run — its `/version`, whether it has admin hooks — over the
 * same connection settings as the client's transport: the kubeconfig's TLS material and token.
 */
import { Clock, Effect } from "effect"
import type { HttpClientOptions } from "./HttpClientOptions.js"

export type ProbeTarget = Pick<HttpClientOptions, "baseUrl" | "token" | "tls">

/** undici `connect` options for the TLS settings (CA, client certificate, skip-verify). */
export const tlsConnectOptions = (tls: HttpClientOptions["tls"]) =>
  tls ? { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecureSkipVerify } : undefined

/**
 * One request with a 3 s bound; its status, text and `Date` header. undici is loaded at the first probe: this
 * module comes with `ServerAdmin`'s tag into runs that speak no HTTP (`ApiClient.layerHttp` says why that matters).
 */
export const probe = async (
  target: ProbeTarget,
  path: string,
  method: "GET" | "POST" = "GET"
): Promise<{ readonly statusCode: number; readonly text: string; readonly date?: string }> => {
  const { Agent, request } = await import("undici")
  const agent = new Agent({ connect: tlsConnectOptions(target.tls) })
  return request(target.baseUrl.replace(/\/$/, "") + path, {
    method,
    dispatcher: agent,
    headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
    headersTimeout: 3000,
    bodyTimeout: 3000
  })
    .then(async (res) => {
      const date = res.headers.date
      return { statusCode: res.statusCode, text: await res.body.text(), ...(typeof date === "string" ? { date } : {}) }
    })
    .finally(() => agent.close())
}

/** `gitVersion` from the target's `/version`, or undefined when it cannot be had. */
export const fetchServerVersion = (target: ProbeTarget): Effect.Effect<string | undefined> =>
  Effect.tryPromise(async () => {
    const res = await probe(target, "/version")
    const body = JSON.parse(res.text) as { gitVersion?: unknown }
    return res.statusCode === 200 && typeof body.gitVersion === "string" ? body.gitVersion : undefined
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * `count` answers of `/version` with our send and receive times and their `Date` headers, `spacingMs` apart — spaced
 * so they fall at different phases of the target's second (src/loadgen/ClockSkew.ts). Answers without a `Date` are
 * left out; a target that does not answer gives none.
 */
export const dateSamples = (
  target: ProbeTarget,
  count = 5,
  spacingMs = 230
): Effect.Effect<ReadonlyArray<{ readonly sentMs: number; readonly receivedMs: number; readonly date: string }>> =>
  Effect.map(
    Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
      Effect.gen(function* () {
        if (i > 0) yield* Effect.sleep(spacingMs)
        const sentMs = yield* Clock.currentTimeMillis
        const res = yield* Effect.either(Effect.tryPromise(() => probe(target, "/version")))
        const receivedMs = yield* Clock.currentTimeMillis
        return res._tag === "Right" && res.right.date !== undefined ? [{ sentMs, receivedMs, date: res.right.date }] : []
      })
    ),
    (all) => all.flat()
  )
