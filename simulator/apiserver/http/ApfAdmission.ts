/**
 * API Priority and Fairness admission of one HTTP request (kube-apiserver's `server/filters/priority-and-fairness.go`
 * `WithPriorityAndFairness`): after authentication, a request runs now, waits in its level's queue, or is answered
 * 429 — decided by ../apf/RealTimeApf.ts from what ./PriorityAndFairnessFilter.ts reads of the request. Requests the
 * filter skips run at once; one whose client goes away while it waits leaves its queue (`cancelled`).
 */
import type * as http from "node:http"
import { Effect, Fiber } from "effect"
import { RealTimeApf, type Admitted } from "../apf/RealTimeApf.js"
import type { UserInfo } from "../auth/UserInfo.js"
import type { ParsedRequest } from "../RequestInfo.js"
import type { Store } from "../Store.js"
import type { FlowControlMetrics } from "./FlowControlMetrics.js"
import { attributesOf, rejectedByApf, seatsOf, serverConcurrencyLimit, skipsFilter } from "./PriorityAndFairnessFilter.js"
import { requestTimedOut } from "./Limits.js"
import { refuse } from "./Refusal.js"

/** The filter's state for one server: its levels at the server's concurrency limit, its queues' time-outs on the runtime's timers. */
export const makeServerApf = (
  run: <A>(effect: Effect.Effect<A>) => Fiber.RuntimeFiber<A>,
  nowSeconds: () => number,
  metrics: FlowControlMetrics | undefined
): RealTimeApf => {
  const apf = new RealTimeApf(
    serverConcurrencyLimit,
    {
      nowSeconds,
      after: (ms, f) => {
        const timer = run(Effect.delay(Effect.sync(f), ms))
        return () => void run(Fiber.interrupt(timer))
      }
    },
    metrics
  )
  metrics?.limits(apf.nominalSeats())
  return apf
}

/** What a skipped request is told: it waited for nothing, and holds no seat. */
const unfiltered: Pick<Admitted, "waitedSeconds" | "done"> = { waitedSeconds: 0, done: () => {} }

/** Calls `execute` once the request may run (at once, or when a seat frees), or answers it 429. */
export const admitThroughApf = (
  apf: RealTimeApf,
  store: Store,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  request: ParsedRequest,
  user: UserInfo,
  /** Time left until the request's deadline (./RequestDeadline.ts), which ends a wait in a queue too. */
  remainingMs: number | undefined,
  execute: (admitted: Pick<Admitted, "waitedSeconds" | "done">) => void
): void => {
  if (skipsFilter(request.info)) return execute(unfiltered)
  const cancel = apf.enter(
    {
      attributes: attributesOf(request.info, user),
      seats: seatsOf(request.info, request.query, store),
      watch: request.info.verb === "watch",
      waitLimitMs: remainingMs,
      execute,
      // A wait cut short by the deadline (`cancelled` with the client still there) is the timeout filter's 504, as
      // upstream's outer `WithTimeoutForNonLongRunningRequests` answers while the queue sees its context done.
      reject: (reason) => {
        if (!res.headersSent && !res.destroyed) refuse(req, res, request.query, reason === "cancelled" ? requestTimedOut() : rejectedByApf())
      }
    },
    request.info.path
  )
  if (cancel !== undefined) res.once("close", cancel)
}
