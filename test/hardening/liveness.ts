/** After an attack: the server answers `/healthz` at once (the wall-clock time of one local round trip). */
import { Effect } from "effect"
import { send, type Reply } from "../support/wire.js"

export const healthz = (base: string) =>
  Effect.gen(function* () {
    const started = performance.now()
    const reply = yield* send(base, "GET", "/healthz")
    return { code: reply.code, fast: performance.now() - started < 100 }
  })

/** A Status answer's parts the attack tests compare. */
export const statusOf = (r: Reply) => ({ code: r.code, kind: r.json?.kind, reason: r.json?.reason, message: r.json?.message })
