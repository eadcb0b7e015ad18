/**
 * How the reflector reads an API error (client-go `tools/cache/reflector.go`): which errors mean "the
 * resource version is gone" (relist), which mean "try the watch again later" (no relist).
 */
import type { Status } from "../api/Status.js"
import type { ClientError } from "../client/TransportError.js"

/** 410 Expired / Gone (`apierrors.IsResourceExpired || IsGone`). */
export const isExpiredStatus = (s: Pick<Status, "code" | "reason">): boolean =>
  s.code === 410 || s.reason === "Expired" || s.reason === "Gone"

export const isExpired = (e: ClientError): boolean => e._tag === "ApiError" && isExpiredStatus(e.status)

/** 504 "Too large resource version" (cause `ResourceVersionTooLarge`). */
export const isTooLargeResourceVersion = (e: ClientError): boolean =>
  e._tag === "ApiError" &&
  ((e.status.details?.causes ?? []).some((c) => c.reason === "ResourceVersionTooLarge") ||
    (e.status.message ?? "").includes("Too large resource version"))

/**
 * Connection refused or 429 when opening a watch: back off and watch again, keep the store (`reflector.go`:
 * `utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err)`).
 */
export const isRetriableWatchOpen = (e: ClientError): boolean => (e._tag === "TransportError" ? e.errorCode === "ECONNREFUSED" : e.code === 429)

/** Whether an in-stream ERROR event object is a Status. */
export const asStatus = (obj: unknown): Status | undefined =>
  typeof obj === "object" && obj !== null && (obj as { kind?: unknown }).kind === "Status" ? (obj as Status) : undefined
