/**
 * A defect in one request — a bug, never the client's fault — becomes a 500 Status for that request alone,
 * logged with the request id its `Audit-Id` header carries; the server goes on.
 */
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import { Cause, Effect } from "effect"
import * as Status from "../../../src/api/Status.js"
import { auditOf } from "./AuditFilter.js"
import { Responder } from "./Responder.js"

export const answerDefect = (run: (effect: Effect.Effect<void>) => unknown, req: http.IncomingMessage, res: http.ServerResponse, defect: unknown): void => {
  const requestId = randomUUID()
  auditOf(res)?.panic(String(defect))
  run(Effect.logError(`request ${requestId} (${req.method} ${req.url?.slice(0, 200)}) failed with a defect`, Cause.die(defect)))
  try {
    if (res.headersSent) res.destroy()
    else new Responder(req, res, false).error(Status.internal(`Internal error occurred: request ${requestId} failed; see the server log`), { "Audit-Id": requestId })
  } catch {
    res.destroy()
  }
}
