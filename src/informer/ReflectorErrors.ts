/**
 * How the reflector reads an API error (client-go `tools/cache/reflector.go`): which errors mean "the
 * resource version is gone" (relist), which mean "try the watch again later" (no relist).
 */
import type { ApiError, Status } from "../api/Status.js"

/** 410 Expired / Gone (`apierrors.IsResourceExpired || IsGone`). */
export const isExpiredStatus = (s: Pick<Status, "code" | "reason">): boolean =>
  s.code === 410 || s.reason === "Expired" || s.reason === "Gone"

export const isExpired = (e: ApiError): boolean => isExpiredStatus(e.status)

/** 504 "Too large resource version" (cause `ResourceVersionTooLarge`). */
export const isTooLargeResourceVersion = (e: ApiError): boolean =>
  (e.status.details?.causes ?? []).some((c) => c.reason === "ResourceVersionTooLarge") ||
  (e.status.message ?? "").includes("Too large resource version")

/** Connection refused or 429 when opening a watch: back off and watch again, keep the store (`reflector.go`). */
export const isRetriableWatchOpen = (e: ApiError): boolean =>
  e.code === 429 || (e.code === 503 && /ECONNREFUSED|connection refused/i.test(e.status.message ?? ""))

/** Whether an in-stream ERROR event object is a Status. */
export const asStatus = (obj: unknown): Status | undefined =>
  typeof obj === "object" && obj !== null && (obj as { kind?: unknown }).kind === "Status" ? (obj as Status) : undefined
