/**
 * The HTTP server's API Priority and Fairness filter (kube-apiserver's `server/filters/priority-and-fairness.go`):
 * what an HTTP request is to ../apf/RealTimeApf.ts — its user, verb, resource and namespace for the FlowSchemas, the
 * seats it takes (a LIST's work estimate, ../apf/WorkEstimate.ts; one otherwise), whether it is a watch (its seat is
 * held only while it starts) — and which requests skip the filter: long-running ones other than watches, as upstream.
 * A rejected request is answered 429 with upstream's text and `Retry-After: 1`.
 */
import { findResource } from "../../../src/api/Resources.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { RequestAttributes } from "../apf/Bootstrap.js"
import { listSeats } from "../apf/WorkEstimate.js"
import type { UserInfo } from "../auth/UserInfo.js"
import type { RequestInfo } from "../RequestInfo.js"
import type { Store } from "../Store.js"

/** kube-apiserver's server concurrency limit with APF on: `--max-requests-inflight` 400 + `--max-mutating-requests-inflight` 200. */
export const serverConcurrencyLimit = 400 + 200

/** Upstream skips the filter for long-running requests other than watches (logs, exec, attach, port-forward, proxy). */
export const skipsFilter = (info: RequestInfo): boolean => info.isResourceRequest && ["log", "exec", "attach", "portforward", "proxy"].includes(info.subresource)

export const attributesOf = (info: RequestInfo, user: UserInfo): RequestAttributes => ({
  user: user.name,
  groups: user.groups,
  verb: info.verb,
  resource: info.subresource ? `${info.resource}/${info.subresource}` : info.resource,
  namespace: info.namespace === "" ? undefined : info.namespace
})

/** Seats of the request: a LIST's from the objects it processes, as `list_work_estimator.go`; one otherwise. */
export const seatsOf = (info: RequestInfo, query: URLSearchParams, store: Store): number => {
  if (info.verb !== "list") return 1
  const resource = findResource(info.apiGroup, info.apiVersion, info.resource)
  if (resource === undefined) return 1
  const limit = Number(query.get("limit") ?? "")
  const hasLimit = Number.isSafeInteger(limit) && limit > 0
  return listSeats({
    stored: store.count(resource),
    limit: hasLimit ? limit : undefined,
    fromCache: query.get("resourceVersion") === "0" || !hasLimit,
    selector: Boolean(query.get("labelSelector") || query.get("fieldSelector"))
  })
}

/** Upstream's answer to a rejected request (`tooManyRequests` in the filter). */
export const rejectedByApf = (): ApiError => Status.tooManyRequests("Too many requests, please try again later.", 1)
