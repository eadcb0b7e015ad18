/**
 * Field errors as the API server reports them in 422 Invalid responses
 * (apimachinery `pkg/util/validation/field/errors.go`): `field: Body`, aggregated as `[e1, e2]`.
 */
import { goQuote } from "./go/Quote.js"

export type FieldErrorType =
  | "Required"
  | "Invalid"
  | "NotSupported"
  | "Forbidden"
  | "TooLong"
  | "Duplicate"
  | "NotFound"
  | "TooMany"

/** A uint64 is printed Go-style as hex (`0x0`). */
export class GoUint {
  constructor(readonly value: number) {}
}

/** A Go `time.Time` printed with `%v` (`2022-09-06 10:09:25.301316 +0000 UTC`). */
export class GoTime {
  constructor(readonly iso: string) {}
}

/** A value already in Go's `%v` form (a struct such as `rbac.RoleRef{…}`), printed as it is. */
export class GoPrinted {
  constructor(readonly text: string) {}
}

export type GoValue = string | number | boolean | null | undefined | GoUint | GoTime | GoPrinted | ReadonlyArray<string>

export interface FieldError {
  readonly type: FieldErrorType
  readonly field: string
  readonly value?: GoValue
  readonly detail?: string
}

/** No errors, one shared list: the checks that every write runs (names, options, a lease's spec) mostly find none. */
export const noFieldErrors: ReadonlyArray<FieldError> = Object.freeze([])

const causeReasons: Record<FieldErrorType, string> = {
  Required: "FieldValueRequired",
  Invalid: "FieldValueInvalid",
  NotSupported: "FieldValueNotSupported",
  Forbidden: "FieldValueForbidden",
  TooLong: "FieldValueTooLong",
  Duplicate: "FieldValueDuplicate",
  NotFound: "FieldValueNotFound",
  TooMany: "FieldValueTooMany"
}

export const required = (field: string, detail?: string): FieldError => ({ type: "Required", field, detail })
export const invalid = (field: string, value: GoValue, detail?: string): FieldError => ({ type: "Invalid", field, value, detail })
export const forbidden = (field: string, detail?: string): FieldError => ({ type: "Forbidden", field, detail })
export const tooLong = (field: string, maxBytes: number): FieldError => ({
  type: "TooLong",
  field,
  detail: `must have at most ${maxBytes} bytes`
})
export const notSupported = (field: string, value: GoValue, supported: ReadonlyArray<string>): FieldError => ({
  type: "NotSupported",
  field,
  value,
  detail: supported.length > 0 ? `supported values: ${supported.map(goQuote).join(", ")}` : undefined
})
export const duplicate = (field: string, value: GoValue): FieldError => ({ type: "Duplicate", field, value })


const goTime = (iso: string): string => {
  // 2022-09-06T10:09:25.301316Z -> 2022-09-06 10:09:25.301316 +0000 UTC (trailing zeros trimmed like Go)
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(iso)
  if (!m) return iso
  const frac = (m[3] ?? "").replace(/0+$/, "")
  return `${m[1]} ${m[2]}${frac ? "." + frac : ""} +0000 UTC`
}

export const formatGoValue = (v: GoValue): string => {
  if (v instanceof GoUint) return `0x${v.value.toString(16)}`
  if (v instanceof GoTime) return goTime(v.iso)
  if (v instanceof GoPrinted) return v.text
  if (typeof v === "string") return goQuote(v)
  if (Array.isArray(v)) return `[]string{${v.map(goQuote).join(", ")}}`
  if (v === null || v === undefined) return "<nil>"
  return String(v)
}

/** The part after `field: ` — also the `message` of a Status cause. */
export const errorBody = (e: FieldError): string => {
  switch (e.type) {
    case "Required":
      return e.detail ? `Required value: ${e.detail}` : "Required value"
    case "Forbidden":
      return e.detail ? `Forbidden: ${e.detail}` : "Forbidden"
    case "TooLong":
      return e.detail ? `Too long: ${e.detail}` : "Too long"
    case "TooMany":
      return e.detail ? `Too many: ${formatGoValue(e.value)}: ${e.detail}` : `Too many: ${formatGoValue(e.value)}`
    case "Invalid":
      return `Invalid value: ${formatGoValue(e.value)}${e.detail ? ": " + e.detail : ""}`
    case "NotSupported":
      return `Unsupported value: ${formatGoValue(e.value)}${e.detail ? ": " + e.detail : ""}`
    case "Duplicate":
      return `Duplicate value: ${formatGoValue(e.value)}`
    case "NotFound":
      return `Not found: ${formatGoValue(e.value)}`
  }
}

export const formatFieldError = (e: FieldError): string => (e.field ? `${e.field}: ${errorBody(e)}` : errorBody(e))

/** One error prints alone; several print as `[a, b]` with identical strings removed. */
export const aggregate = (errors: ReadonlyArray<FieldError>): string => {
  const texts = [...new Set(errors.map(formatFieldError))]
  return texts.length === 1 ? texts[0]! : `[${texts.join(", ")}]`
}

export const toCause = (e: FieldError) => ({ reason: causeReasons[e.type], message: errorBody(e), field: e.field })
