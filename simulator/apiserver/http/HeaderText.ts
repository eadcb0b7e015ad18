/**
 * Header values as the text a Go server reads: Go's `http.Header` holds a value's bytes, and a `string` of them is
 * UTF-8, so `Impersonate-User: josé` is the user `josé`. Node hands header values over as latin1 (each byte one
 * UTF-16 unit); read as UTF-8 again here, or `josé` would be `josÃ©`. Bytes that are not UTF-8 become U+FFFD,
 * as src/api/go/Quote.ts assumes of every string clustersim holds.
 */
import type * as http from "node:http"

const nonAscii = /[^\x00-\x7f]/

/** A header value (`req.headers[…]` or `req.rawHeaders[…]`) as the UTF-8 text its bytes spell. */
export const headerText = (value: string): string => (nonAscii.test(value) ? Buffer.from(value, "latin1").toString("utf8") : value)

/** The request's `User-Agent` as text (audit events, the request log, the field manager named after it). */
export const userAgentOf = (req: http.IncomingMessage): string | undefined => {
  const agent = req.headers["user-agent"]
  return agent === undefined ? undefined : headerText(agent)
}
