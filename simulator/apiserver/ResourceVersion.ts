/**
 * Resource-version semantics of get, list and watch (spec 000 "Reading with resource versions",
 * upstream `storage/cacher/cacher.go`, `etcd3/store.go`): which revision a request reads at, and which requests are
 * invalid. Pure: decides, the server carries out.
 */
import { Either } from "effect"
import { forbidden, notSupported, type FieldError } from "../../src/api/FieldError.js"
import { goQuote } from "../../src/api/go/Quote.js"
import { rangeError, syntaxError } from "../../src/api/go/Strconv.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"

export interface ReadOptions {
  readonly resourceVersion?: string | undefined
  readonly resourceVersionMatch?: string | undefined
  readonly limit?: number | undefined
  readonly continue?: string | undefined
  readonly sendInitialEvents?: boolean | undefined
}

/** How a read is served. */
export type ReadPlan =
  /** Consistent read at the latest revision (quorum read; paged). */
  | { readonly _tag: "Latest"; readonly paged: boolean }
  /** Any state, newest preferred: the watch cache, unpaged. */
  | { readonly _tag: "Any" }
  /** Wait (≤ 3 s) until the server has seen `revision`, then the latest state, unpaged. */
  | { readonly _tag: "NotOlderThanCached"; readonly revision: number }
  /** Storage read at the latest revision; fails at once if `revision` is in the future. */
  | { readonly _tag: "NotOlderThanStorage"; readonly revision: number }
  /** Storage read at exactly `revision` (410 when compacted). */
  | { readonly _tag: "Exact"; readonly revision: number }
  /** Continue a paged list from a token. */
  | { readonly _tag: "Continue"; readonly token: string }

const parseUintMessage = (rv: string, error = syntaxError("ParseUint", rv)) => `resourceVersion: Invalid value: ${goQuote(rv)}: ${error}`
const maxUint64 = (1n << 64n) - 1n

/** Parses an explicit resource version; the error is the 500 the watch cache gives (or 400 for storage lists). */
export const parseResourceVersion = (rv: string, storage = false): Either.Either<number, ApiError> => {
  const refused = (message: string) => Either.left(storage ? Status.badRequest(`invalid resource version: ${message}`) : Status.internal(message))
  if (!/^\d+$/.test(rv)) return refused(parseUintMessage(rv))
  // `strconv.ParseUint(rv, 10, 64)`: past uint64 is a range error.
  if (rv.length >= 20 && BigInt(rv) > maxUint64) return refused(parseUintMessage(rv, rangeError("ParseUint", rv)))
  return Either.right(Number(rv))
}

/**
 * ListOptions validation as upstream's `apis/meta/internalversion/validation` (1.27+, which knows WatchList):
 * 422 `ListOptions.meta.platform "" is invalid: …` with every problem found, in upstream's order.
 */
export const validateListOptions = (opts: ReadOptions, watch: boolean, watchListEnabled = false): ApiError | undefined => {
  const errors = watch ? watchOptionErrors(opts, watchListEnabled) : listOptionErrors(opts)
  return errors.length > 0 ? Status.invalidOptions("ListOptions", errors) : undefined
}

const listOptionErrors = (opts: ReadOptions): FieldError[] => {
  const match = opts.resourceVersionMatch ?? ""
  const errors: FieldError[] = []
  if (match !== "") {
    if (!opts.resourceVersion) errors.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
    if (opts.continue) errors.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
    if (match !== "Exact" && match !== "NotOlderThan") errors.push(notSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
    if (match === "Exact" && opts.resourceVersion === "0")
      errors.push(forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
  }
  if (opts.sendInitialEvents !== undefined) errors.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
  return errors
}

const watchOptionErrors = (opts: ReadOptions, watchListEnabled: boolean): FieldError[] => {
  const match = opts.resourceVersionMatch ?? ""
  const errors: FieldError[] = []
  if (opts.sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan") errors.push(forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
    if (!watchListEnabled) errors.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
  }
  if (match !== "") {
    if (opts.sendInitialEvents === undefined) errors.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
    if (match !== "NotOlderThan") errors.push(notSupported("resourceVersionMatch", match, ["NotOlderThan"]))
    if (opts.continue) errors.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
  }
  return errors
}

/** The list table of the spec, given whether the type has a watch cache (Events do not). */
export const planList = (opts: ReadOptions, watchCached: boolean): Either.Either<ReadPlan, ApiError> => {
  const invalid = validateListOptions(opts, false)
  if (invalid) return Either.left(invalid)
  const rv = opts.resourceVersion ?? ""
  const match = opts.resourceVersionMatch ?? ""
  const paged = opts.limit !== undefined && opts.limit > 0
  if (opts.continue) {
    if (rv !== "" && rv !== "0") return Either.left(Status.badRequest("specifying resource version is not allowed when using continue"))
    return Either.right({ _tag: "Continue", token: opts.continue })
  }
  if (rv === "") return Either.right({ _tag: "Latest", paged })
  if (rv === "0") return Either.right(watchCached ? { _tag: "Any" } : { _tag: "Latest", paged })
  const storage = match === "Exact" || (paged && match === "") || (paged && match === "NotOlderThan") || !watchCached
  return Either.map(parseResourceVersion(rv, storage), (revision): ReadPlan => {
    if (match === "Exact" || (match === "" && paged)) return { _tag: "Exact", revision }
    return watchCached && !paged ? { _tag: "NotOlderThanCached", revision } : { _tag: "NotOlderThanStorage", revision }
  })
}

/** The get table: unset → Most Recent, `0` → Any, N → Not older than (cache wait). */
export const planGet = (rv: string | undefined, watchCached: boolean): Either.Either<ReadPlan, ApiError> => {
  if (!rv) return Either.right({ _tag: "Latest", paged: false })
  if (rv === "0") return Either.right({ _tag: "Any" })
  return Either.map(parseResourceVersion(rv), (revision): ReadPlan =>
    watchCached ? { _tag: "NotOlderThanCached", revision } : { _tag: "NotOlderThanStorage", revision }
  )
}
