/**
 * Whether an operation's failure means the request got no answer at all (refused, reset, timed out
 * before a status). The HTTP transport reports those as a 503 Status whose message starts with
 * `connection error:` (`src/client/HttpTransport.ts`); a 503 the server sent has another message.
 */
export const isConnectionFailure = (e: unknown): boolean => {
  if (typeof e !== "object" || e === null || !("status" in e)) return false
  const status = (e as { status?: { code?: unknown; message?: unknown } }).status
  return status?.code === 503 && typeof status.message === "string" && status.message.startsWith("connection error:")
}
