/** Raw HTTP requests for wire-level tests: status, headers, text and the JSON body when there is one. */
import { Effect } from "effect"
import { request } from "undici"

export interface Reply {
  readonly code: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly json: any
}

export const send = (base: string, method: string, path: string, opts: { body?: string | Buffer; headers?: Record<string, string> } = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const res = await request(base + path, { method: method as "GET", body: opts.body, headers: opts.headers })
    const text = await res.body.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { code: res.statusCode, headers: res.headers, text, json }
  })
