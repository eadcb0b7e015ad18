/** Targets that do not answer: a loopback port nobody listens on, and a listener that drops each connection. */
import { Effect } from "effect"
import * as http from "node:http"
import { createServer, type Socket } from "node:net"

/** A loopback port nobody listens on: bound, then closed. */
export const closedPort = (): Promise<number> =>
  new Promise<number>((resolve) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

/** A TCP listener whose connections `onRequest` ends (closed, reset) once a request arrives; its URL, closed with the scope. */
export const droppingServer = (onRequest: (socket: Socket) => void) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly close: () => void }>((resume) => {
      const sockets = new Set<Socket>()
      const server = createServer((socket) => {
        sockets.add(socket)
        socket.once("data", () => onRequest(socket))
        socket.once("close", () => sockets.delete(socket))
      })
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
            close: () => {
              for (const s of sockets) s.destroy()
              server.close()
            }
          })
        )
      )
    }),
    (s) => Effect.sync(() => s.close())
  )

/** An HTTP server answering every request with `status` and a JSON body; its URL, closed with the scope. */
export const answeringServer = (answer: (req: http.IncomingMessage) => { readonly status: number; readonly body: unknown }) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly server: http.Server }>((resume) => {
      const server = http.createServer((req, res) => {
        const a = answer(req)
        res.writeHead(a.status, { "content-type": "application/json" })
        res.end(JSON.stringify(a.body))
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })))
    }),
    ({ server }) => Effect.sync(() => (server.closeAllConnections(), server.close()))
  )

/**
 * An HTTP server (for tests outside Effect) that answers `/version` as an API server does and drops the connection of
 * every other request: a target that passes the probe, then stops answering. `close` stops it.
 */
export const versionOnlyServer = (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> =>
  new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      if (req.url !== "/version") return void req.socket.destroy()
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ major: "1", minor: "26", gitVersion: "v1.26.0" }))
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done())))
      })
    )
  })
