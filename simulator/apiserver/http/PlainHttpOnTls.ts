/**
 * Plain HTTP sent to the HTTPS port gets Go's answer, byte for byte (net/http `server.go`, `conn.serve`: a TLS
 * handshake whose first record header `tlsRecordHeaderLooksLikeHTTP` is answered on the raw connection, which is
 * then closed). Node's TLS server would close the connection without a byte, and a client would see only a reset.
 * Any other first bytes go on to the TLS handshake untouched.
 */
import type * as https from "node:https"
import type { Socket } from "node:net"
import { afterRealDelay } from "../../kernel/SimClock.js"
import { destroyAfterGrace } from "./Limits.js"

export const plainHttpAnswer = "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"

/** Go's `tlsRecordHeaderLooksLikeHTTP`: the only first five bytes answered instead of closed. */
export const looksLikeHttp = (head: Buffer): boolean => ["GET /", "HEAD ", "POST ", "PUT /", "OPTIO"].includes(head.toString("latin1", 0, 5))

/**
 * Puts a look at each connection's first five bytes in front of the HTTPS server's own handling (its `connection`
 * listeners, run once the bytes are back in the socket). A connection that sends fewer within `waitMs` is closed,
 * as Go's handshake timeout closes it. Call before adding other `connection` listeners: those run at once.
 */
export const answerPlainHttp = (server: https.Server, waitMs: number): void => {
  const tlsListeners = server.listeners("connection") as Array<(socket: Socket) => void>
  server.removeAllListeners("connection")
  server.on("connection", (socket: Socket) => {
    let head: Buffer = Buffer.alloc(0)
    const giveUp = afterRealDelay(waitMs, () => socket.destroy())
    // a reset before the TLS server has the socket must not be an unhandled error
    socket.on("error", () => socket.destroy())
    socket.once("close", giveUp)
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
      if (head.length < 5) return
      giveUp()
      socket.off("data", onData)
      socket.pause()
      if (looksLikeHttp(head)) {
        socket.end(plainHttpAnswer)
        destroyAfterGrace(socket)
        return
      }
      socket.unshift(head)
      for (const listener of tlsListeners) listener.call(server, socket)
    }
    socket.on("data", onData)
  })
}
