/**
 * Short requests made to a target before a run — its `/version`, whether it has admin hooks — over the
 * same connection settings as the client's transport: the kubeconfig's TLS material and token.
 */
import { Effect } from "effect"
import { Agent, request } from "undici"
import type { HttpClientOptions } from "./HttpClientOptions.js"

export type ProbeTarget = Pick<HttpClientOptions, "baseUrl" | "token" | "tls">

/** undici `connect` options for the TLS settings (CA, client certificate, skip-verify). */
export const tlsConnectOptions = (tls: HttpClientOptions["tls"]) =>
  tls ? { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: !tls.insecureSkipVerify } : undefined

/** One request with a 3 s bound; its status and text. */
export const probe = (target: ProbeTarget, path: string, method: "GET" | "POST" = "GET"): Promise<{ readonly statusCode: number; readonly text: string }> => {
  const agent = new Agent({ connect: tlsConnectOptions(target.tls) })
  return request(target.baseUrl.replace(/\/$/, "") + path, {
    method,
    dispatcher: agent,
    headers: target.token ? { authorization: `Bearer ${target.token}` } : {},
    headersTimeout: 3000,
    bodyTimeout: 3000
  })
    .then(async (res) => ({ statusCode: res.statusCode, text: await res.body.text() }))
    .finally(() => agent.close())
}

/** `gitVersion` from the target's `/version`, or undefined when it cannot be had. */
export const fetchServerVersion = (target: ProbeTarget): Effect.Effect<string | undefined> =>
  Effect.tryPromise(async () => {
    const res = await probe(target, "/version")
    const body = JSON.parse(res.text) as { gitVersion?: unknown }
    return res.statusCode === 200 && typeof body.gitVersion === "string" ? body.gitVersion : undefined
  }).pipe(Effect.orElseSucceed(() => undefined))
