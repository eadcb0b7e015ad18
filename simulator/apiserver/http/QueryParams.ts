/**
 * Query parameters read as upstream reads them. Boolean options go through apimachinery's
 * `Convert_Slice_string_To_bool`: absent is false (here `undefined`, so an option can tell "not given"), the
 * first value `0` or any-case `false` is false, anything else — `""`, `True`, `yes` — is true. So the Python
 * client's `watch=True` is a watch.
 */
import { Either } from "effect"
import { parseGoInt } from "../../../src/api/go/Strconv.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"

export const queryBool = (query: URLSearchParams, name: string): boolean | undefined => {
  const v = query.get(name)
  if (v === null) return undefined
  return !(v === "0" || v.toLowerCase() === "false")
}

/** Go's `strconv.ParseBool`: the only spellings it takes, else an error. */
const parseBool = (v: string): boolean | undefined =>
  ["1", "t", "T", "TRUE", "true", "True"].includes(v) ? true : ["0", "f", "F", "FALSE", "false", "False"].includes(v) ? false : undefined

const prettyAgents = /^(curl|Wget|Mozilla\/5\.0)/

/**
 * `negotiation.isPrettyPrint`: a non-empty `pretty` decides by `strconv.ParseBool` (unparsable is false);
 * otherwise browsers and command-line HTTP tools get indented JSON.
 */
export const isPrettyRequest = (query: URLSearchParams, userAgent: string | undefined): boolean => {
  const v = query.get("pretty")
  if (v !== null && v !== "") return parseBool(v) ?? false
  return prettyAgents.test(userAgent ?? "")
}

/**
 * An integer parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`): empty is absent, else
 * `strconv.ParseInt(v, 10, 64)`, whose syntax and range errors are the 400's text.
 */
export const queryInt = (query: URLSearchParams, name: string): Either.Either<number | undefined, ApiError> => {
  const v = query.get(name)
  if (v === null || v === "") return Either.right(undefined)
  // Short decimals (every client's) are in range: no BigInt needed.
  if (/^[+-]?\d{1,15}$/.test(v)) return Either.right(Number(v))
  return Either.mapBoth(parseGoInt(v, 10, 64), { onLeft: (error) => Status.badRequest(`${name}: ${error}`), onRight: (n) => n })
}
