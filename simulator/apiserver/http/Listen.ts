/**
 * Listening on a host and port, for every listener of the command line (`serve`'s API server, `run --metrics-addr`):
 * node reports a failed listen as an `'error'` event that, unhandled, ends the process with a stack trace. Here it is
 * a `ListenError` whose message says the cause in words (the address in use, not this machine's, no such host), for
 * the command to print as a usage error naming its flag.
 */
import { Data, Effect } from "effect"
import type { Server } from "node:net"

/** `culprit`: the part of the address at fault, for the message to name its flag (the port in use, the host unknown). */
export class ListenError extends Data.TaggedError("ListenError")<{ readonly message: string; readonly culprit: "host" | "port" | "address" }> {}

/** `host:port` as an address is written (an IPv6 host in brackets). */
export const hostPort = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

/** Why listening on `host:port` failed, in words, and which part of the address is at fault. */
export const listenProblem = (e: NodeJS.ErrnoException, host: string, port: number): ListenError => {
  const address = hostPort(host, port)
  switch (e.code) {
    case "EADDRINUSE":
      return new ListenError({ message: `${address} is already in use (another server?)`, culprit: "port" })
    case "EACCES":
      return new ListenError({ message: `permission denied to listen on ${address} (a port below 1024 needs privileges)`, culprit: "port" })
    case "EADDRNOTAVAIL":
      return new ListenError({ message: `${host} is not an address of this machine`, culprit: "host" })
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return new ListenError({ message: `no such host: ${host}`, culprit: "host" })
    default:
      return new ListenError({ message: `cannot listen on ${address}: ${e.message}`, culprit: "address" })
  }
}

/** Listens on `host:port`; succeeds with the port listened on (the one picked for port 0). */
export const listen = (server: Server, host: string, port: number): Effect.Effect<number, ListenError> =>
  Effect.async<number, ListenError>((resume) => {
    const onError = (e: NodeJS.ErrnoException) => resume(Effect.fail(listenProblem(e, host, port)))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      resume(Effect.succeed((server.address() as { port: number }).port))
    })
  })
