/**
 * A GET whose answer is bounded in time and size: reading a target's `/metrics` or a Prometheus must not stall a run
 * (a server that answers slowly) or fill its memory (a server that answers without end). Over the same connection
 * settings as the client's transport (./Probe.ts): the kubeconfig's CA and client certificate, and the token.
 */
import { Data, Effect } from "effect"
import { Agent, request } from "undici"
import { type ProbeTarget, tlsConnectOptions } from "./Probe.js"

export class BoundedGetError extends Data.TaggedError("BoundedGetError")<{ readonly url: string; readonly reason: string }> {
  override get message(): string {
    return `GET ${this.url} ${this.reason}`
  }
}

export interface BoundedGetOptions {
  readonly timeoutMs: number
  readonly maxBytes: number
  readonly accept?: string
}

export interface Answer {
  readonly statusCode: number
  readonly text: string
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`)

/** `path` (with its query) on `target`: the status and the whole body, or why there is none. */
export const boundedGet = (target: ProbeTarget, path: string, o: BoundedGetOptions): Effect.Effect<Answer, BoundedGetError> => {
  const url = target.baseUrl.replace(/\/$/, "") + path
  const failed = (reason: string) => new BoundedGetError({ url, reason })
  return Effect.tryPromise({
    try: async (signal) => {
      const agent = new Agent({ connect: tlsConnectOptions(target.tls) })
      const deadline = AbortSignal.timeout(o.timeoutMs)
      const aborted = AbortSignal.any([signal, deadline])
      try {
        const res = await request(url, {
          method: "GET",
          dispatcher: agent,
          signal: aborted,
          headers: { ...(target.token ? { authorization: `Bearer ${target.token}` } : {}), ...(o.accept ? { accept: o.accept } : {}) }
        })
        const chunks: Array<Buffer> = []
        let size = 0
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length
          if (size > o.maxBytes) {
            res.body.destroy()
            throw failed(`answered more than ${Math.round(o.maxBytes / 1024 / 1024)} MiB`)
          }
          chunks.push(chunk as Buffer)
        }
        return { statusCode: res.statusCode, text: Buffer.concat(chunks).toString("utf8") }
      } catch (e) {
        if (e instanceof BoundedGetError) throw e
        if (deadline.aborted) throw failed(`did not answer within ${seconds(o.timeoutMs)}`)
        const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } }
        throw failed(`failed: ${err.cause?.code ?? err.code ?? err.cause?.message ?? err.message ?? String(e)}`)
      } finally {
        void agent.destroy().catch(() => {})
      }
    },
    catch: (e) => (e instanceof BoundedGetError ? e : failed(`failed: ${String(e)}`))
  })
}
