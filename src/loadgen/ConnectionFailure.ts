/**
 * Whether an operation's failure means the request got no answer at all (refused, reset, timed out before a
 * status, no credential to send): the client's `TransportError` (src/client/TransportError.ts). A 503 a server
 * sent is an answer, and counts as one.
 */
import { isTransportError } from "../client/TransportError.js"

export const isConnectionFailure = (e: unknown): boolean => isTransportError(e)
