/**
 * The HTTP server's limits, with kube-apiserver's values where it has them (`apiserver/pkg/server`
 * `secure_serving.go`, `options/server_run_options.go`, docs/limits.md), and the raw answers given on a
 * socket that never reaches a request handler (over-limit connection, header overflow, CONNECT).
 */
import type * as http from "node:http"
import * as https from "node:https"
import type { Socket } from "node:net"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { afterRealDelay } from "../../kernel/SimClock.js"

export interface ServerLimits {
  /** Time to receive a request's headers; a slow sender (slowloris) is cut off. Upstream `ReadHeaderTimeout`. */
  readonly headersTimeoutMs: number
  /**
   * Time to receive a whole request and to answer it, watches excepted (upstream `--request-timeout`,
   * 504 after it). 0: no limit — the header timeout still applies.
   */
  readonly requestTimeoutMs: number
  /** An idle keep-alive connection is closed after this. Upstream `IdleTimeout`. */
  readonly idleTimeoutMs: number
  /** Open connections; one more is answered 429 and closed, so a flood cannot use up the descriptors. */
  readonly maxConnections: number
  /** Request line plus headers. Upstream `MaxHeaderBytes`; above it: 431. */
  readonly maxHeaderBytes: number
  /** A request body; above it: 413 (upstream's 3 MiB `MaxRequestBodyBytes`). */
  readonly maxBodyBytes: number
  /**
   * Bytes a watch may have queued for a client that does not read; past them (or past the server's
   * `watchBufferSize` events) the watch is closed. Bounds the memory of a stalled watcher.
   */
  readonly watchBufferBytes: number
}

export const defaultServerLimits: ServerLimits = {
  headersTimeoutMs: 32_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 90_000,
  maxConnections: 4_096,
  maxHeaderBytes: 1024 * 1024,
  maxBodyBytes: 3 * 1024 * 1024,
  watchBufferBytes: 1024 * 1024
}

/** The limits with `overrides` applied; each must be a whole number ≥ 0 (timeouts) or ≥ 1 (sizes, counts). */
export const resolveLimits = (overrides: Partial<ServerLimits> = {}): ServerLimits => {
  const limits = { ...defaultServerLimits, ...overrides }
  for (const [name, value] of Object.entries(limits)) {
    const least = name.endsWith("TimeoutMs") && name !== "headersTimeoutMs" ? 0 : 1
    if (!Number.isSafeInteger(value) || value < least) throw new RangeError(`server limit ${name} must be a whole number ≥ ${least}, got ${value}`)
  }
  return limits
}

/**
 * `node:http` server options for the limits. Node refuses a header timeout above a non-zero request
 * timeout; with the request timeout off (0) the header timeout keeps guarding against slow senders.
 */
export const nodeServerOptions = (limits: ServerLimits): http.ServerOptions => ({
  maxHeaderSize: limits.maxHeaderBytes,
  headersTimeout: limits.requestTimeoutMs > 0 ? Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) : limits.headersTimeoutMs,
  // Node's own cut-off (a bare 408) only backs up the request timeout's 504 Status, so it comes a second later:
  // at the same instant the two raced, and a loaded event loop let node's 408 win.
  requestTimeout: limits.requestTimeoutMs > 0 ? limits.requestTimeoutMs + 1_000 : 0,
  keepAliveTimeout: limits.idleTimeoutMs,
  // How often node looks for connections past the header or request timeout.
  connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)))
})

const isTls = (server: http.Server | https.Server): server is https.Server => server instanceof https.Server

/** Upstream's timeout filter answer (`apiserver/pkg/server/filters/timeout.go`). */
export const requestTimedOut = (): ApiError =>
  Status.timeout("request did not complete within requested timeout - context deadline exceeded")

/** Upstream's max-in-flight answer (`apiserver/pkg/server/filters/maxinflight.go`), here for connections. */
export const tooManyConnections = (): ApiError => Status.tooManyRequests("Too many requests, please try again later.", 1)

const reasonPhrases: Readonly<Record<number, string>> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large"
}

/**
 * How long (wall clock) a connection the server is closing may take to go: a socket answered on the spot whose
 * client does not close its side, or an HTTPS connection past the cap that does not finish its handshake. A
 * client that never reads would otherwise hold the descriptor for good.
 */
export const closingGraceMs = 1_000

/** Destroys `socket` if it is still open `closingGraceMs` of real time from now. */
export const destroyAfterGrace = (socket: Socket): void => {
  const cancel = afterRealDelay(closingGraceMs, () => socket.destroy())
  socket.once("close", cancel)
}

/** A complete HTTP/1.1 answer written on a bare socket, then the connection closed. */
export const answerOnSocket = (socket: Socket, code: number, body: string, contentType: string, extra: Record<string, string> = {}): void => {
  if (!socket.writable) return void socket.destroy()
  const headers = { "Content-Type": contentType, "Content-Length": String(Buffer.byteLength(body)), Connection: "close", ...extra }
  const head = `HTTP/1.1 ${code} ${reasonPhrases[code] ?? "Error"}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`
  socket.end(head + body)
  destroyAfterGrace(socket)
}

/** A Status as JSON on a bare socket. */
export const statusOnSocket = (socket: Socket, error: ApiError): void => {
  const retry = error.status.details?.retryAfterSeconds
  answerOnSocket(socket, error.code, JSON.stringify(error.status) + "\n", "application/json", retry ? { "Retry-After": String(retry) } : {})
}

/** A request line Go's `parseRequestLine` takes: a token method, a target and a version. */
const wellFormedRequestLine = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ [^ ]+ HTTP\/\d\.\d$/

/**
 * The answer to a request node's parser refused before any handler ran (`clientError`), as Go's server
 * (net/http `conn.serve`) answers it: a well-formed request line with a method node does not know reaches
 * the API server in Go, whose answer is the 405 Status; a malformed one (`GARBAGE`) is Go's plain 400;
 * oversized headers 431; headers not done within the header timeout are a read timeout, which Go answers
 * with nothing (`isCommonNetReadError`): the connection is closed.
 */
export const answerClientError = (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket): void => {
  switch (error.code) {
    case "HPE_INVALID_METHOD": {
      const line = error.rawPacket?.toString("latin1").split("\r\n", 1)[0] ?? ""
      if (wellFormedRequestLine.test(line)) return statusOnSocket(socket, Status.methodNotAllowed())
      return answerOnSocket(socket, 400, "400 Bad Request", "text/plain; charset=utf-8")
    }
    case "HPE_HEADER_OVERFLOW":
      return answerOnSocket(socket, 431, "431 Request Header Fields Too Large", "text/plain; charset=utf-8")
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return void socket.destroy()
    default:
      return answerOnSocket(socket, 400, "400 Bad Request", "text/plain; charset=utf-8")
  }
}

/**
 * Counts open connections; past `max` a new one is answered 429 and closed. Returns whether a socket was
 * refused, for the request handler to leave alone. Over TLS every TCP connection counts from its start, so idle
 * connections that never finish a handshake count too; the answer goes on the encrypted socket once the
 * handshake is done, and a connection past the cap that does not finish it soon is closed without one.
 */
export const capConnections = (server: http.Server | https.Server, max: number): ((socket: Socket) => boolean) => {
  let open = 0
  const refused = new WeakSet<Socket>()
  // TLS sockets past the cap, by remote address (the TLS socket is a new object over the TCP one)
  const overCap = new Set<string>()
  const tls = isTls(server)
  server.on("connection", (socket: Socket) => {
    open++
    const key = `${socket.remoteAddress}|${socket.remotePort}`
    socket.once("close", () => {
      open--
      overCap.delete(key)
    })
    if (open <= max) return
    if (!tls) {
      refused.add(socket)
      return statusOnSocket(socket, tooManyConnections())
    }
    overCap.add(key)
    destroyAfterGrace(socket)
  })
  if (tls)
    server.on("secureConnection", (socket: Socket) => {
      if (!overCap.has(`${socket.remoteAddress}|${socket.remotePort}`)) return
      refused.add(socket)
      statusOnSocket(socket, tooManyConnections())
    })
  return (socket) => refused.has(socket)
}
