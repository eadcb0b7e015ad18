/**
 * Serves the `ApiServer` over HTTP with `node:http`: the server's assembly — the request entry in upstream's filter
 * order (request info, the request's deadline in http/RequestDeadline.ts, authentication and audit, API Priority and
 * Fairness in http/ApfAdmission.ts), then the route's handler. The URL layout is in http/Routes.ts, the health
 * endpoints in http/HealthChecks.ts, answers in http/Responder.ts, refusals before any handler in
 * http/Refusal.ts, the fast read path in http/ServeReadNow.ts, each verb of a resource in http/ServeResource.ts,
 * watches in http/ServeWatch.ts, the admin hooks in http/Admin.ts, what a finished request records in
 * http/RequestRecording.ts. Every failure is answered with a `Status`; nothing a client sends can take the server down.
 */
import * as http from "node:http"
import * as https from "node:https"
import type { Socket } from "node:net"
import { Cause, Effect, Either, Fiber, Option, Runtime, Scope } from "effect"
import { aggregatedDiscoveryVersion } from "../../src/api/MediaType.js"
import * as Status from "../../src/api/Status.js"
import { ApiError } from "../../src/api/Status.js"
import { ApiServer, type ApiServerImpl } from "./ApiServer.js"
import {
  answerClientError,
  capConnections,
  nodeServerOptions,
  requestTimedOut,
  resolveLimits,
  statusOnSocket,
  type ServerLimits
} from "./http/Limits.js"
import { isPrettyRequest } from "./http/QueryParams.js"
import { Responder } from "./http/Responder.js"
import { adminAction } from "./http/Admin.js"
import { serveAggregatedDiscovery } from "./http/ServeDiscovery.js"
import { serveResourceMetrics } from "./http/ServeResourceMetrics.js"
import { serveMetrics } from "./http/ServeMetrics.js"
import { routeOf, type Parsed } from "./http/Routes.js"
import { answerPlainHttp } from "./http/PlainHttpOnTls.js"
import { MalformedRequestTarget, parseRequest, UndeterminedRequest, type ParsedRequest } from "./RequestInfo.js"
import { tlsServerOptions } from "./http/Tls.js"
import { hostPort, listen, type ListenError } from "./http/Listen.js"
import { admitRequest } from "./http/RequestIdentity.js"
import { admitAudited, auditDeadlineRefusal } from "./http/AuditFilter.js"
import { Audit } from "./audit/Auditor.js"
import { isInstrumented, ServerMetrics } from "./http/ServerMetrics.js"
import { meteredCalls } from "./http/InProcessMetrics.js"
import type { CallObserver } from "./ObservedClient.js"
import { admitThroughApf, makeServerApf } from "./http/ApfAdmission.js"
import { malformedTarget, refuse, undeterminedRequest } from "./http/Refusal.js"
import { answerDefect } from "./http/RequestDefect.js"
import { RequestRecording, type Exchange } from "./http/RequestRecording.js"
import { serveReadNow } from "./http/ServeReadNow.js"
import { serveResource } from "./http/ServeResource.js"
import { requestDeadline } from "./http/RequestDeadline.js"
import { answerHealth } from "./http/HealthChecks.js"
import type { UserInfo } from "./auth/UserInfo.js"
import type { ServingTls } from "./auth/Certificates.js"
import { isOpenApiPath, serveOpenApi } from "./openapi/ServeOpenApi.js"

export interface HttpServerOptions {
  readonly host: string
  readonly port: number
  /** Serve the `/clustersim/` admin endpoints (compact, drop watches, pause). */
  readonly admin: boolean
  /** Timeouts, sizes and connection cap; unset ones take {@link defaultServerLimits} (docs/limits.md). */
  readonly limits?: Partial<ServerLimits>
  /** Wait this long before answering each request (`serve --added-latency`: a slower server or network). */
  readonly addedLatencyMs?: number
  /** Serve HTTPS with this certificate (and ask for client certificates of this CA); plain HTTP without. */
  readonly tls?: ServingTls
  /** A live cluster runs in this process (`serve --nodes`): `metrics.k8s.io` measures its nodes (docs/metrics.md "kubectl top"). */
  readonly liveCluster?: boolean
  /** Prometheus metrics (`GET /metrics`, docs/metrics.md); false (`serve --no-metrics`) instruments nothing. Default true. */
  readonly metrics?: boolean
  /** Called with each request's httplog line once it is answered or its client went away (`serve -v`). */
  readonly requestLog?: (line: string) => void
}

export interface RunningServer {
  readonly url: string
  readonly port: number
  readonly server: http.Server | https.Server
  /**
   * What an in-process client of this server, calling as `user`, reports its calls to (./ObservedClient.ts), so that
   * serve's live cluster counts in `/metrics` as the same requests over HTTP would (http/InProcessMetrics.ts);
   * undefined with `metrics: false`.
   */
  readonly inProcessCalls: ((user: UserInfo) => CallObserver) | undefined
}

/** Starts the HTTP server in the current scope; closes it (and every watch) when the scope ends. */
/** Fails with a `ListenError` when the address cannot be listened on (in use, not this machine's, no such host). */
export const serveHttp = (options: HttpServerOptions): Effect.Effect<RunningServer, ListenError, ApiServer | Scope.Scope> =>
  Effect.gen(function* () {
    const api = yield* ApiServer
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runFork(runtime)
    const limits = resolveLimits(options.limits)
    // upstream's TLS handshake timeout is its ReadHeaderTimeout (Go's tlsHandshakeTimeout)
    const server = options.tls
      ? https.createServer({ ...nodeServerOptions(limits), ...tlsServerOptions(options.tls), handshakeTimeout: limits.headersTimeoutMs })
      : http.createServer(nodeServerOptions(limits))
    if (server instanceof https.Server) answerPlainHttp(server, limits.headersTimeoutMs)
    const refused = capConnections(server, limits.maxConnections)
    let address = `${options.host}:${options.port}`
    const clock = yield* Effect.clock
    const onDefect = (req: http.IncomingMessage, res: http.ServerResponse, defect: unknown) => answerDefect(run, req, res, defect)
    // `metrics: false` (`serve --no-metrics`): no instrumentation at all, `/metrics` not served (docs/metrics.md)
    const metrics = options.metrics === false ? undefined : new ServerMetrics(api.state)
    // seconds from a fixed origin, read only for differences: a small bigint converts to a number ~2 times faster
    const origin = clock.unsafeCurrentTimeNanos()
    const nowSeconds = () => Number(clock.unsafeCurrentTimeNanos() - origin) / 1e9
    if (metrics !== undefined) {
      const store = api.state.store
      store.timing = metrics.storageTiming(nowSeconds)
      yield* Effect.addFinalizer(() => Effect.sync(() => void (store.timing = undefined)))
    }
    const apf = makeServerApf(run, nowSeconds, metrics?.flowControl)
    // `serve --audit-log-path`: each request through the audit filter (http/AuditFilter.ts)
    const auditor = Option.getOrUndefined(yield* Effect.serviceOption(Audit))
    const recording = new RequestRecording(clock, metrics, options.requestLog, auditor !== undefined)
    /** Serves an admitted request; `done` when it has executed (a watch: once started). */
    const serve = (req: http.IncomingMessage, res: http.ServerResponse, request: ParsedRequest, route: Parsed, deadline: number | undefined, user: UserInfo, done: () => void) => {
      try {
        const now = clock.unsafeCurrentTimeMillis()
        if (req.method === "GET" && serveReadNow(api, now, req, res, route, request)) return done()
        const remainingMs = deadline === undefined ? undefined : deadline - now
        const fiber = run(handle(api, req, res, options, limits, address, onDefect, user, request, route, remainingMs, metrics), { immediate: true })
        // Most requests finish synchronously. For the rest (watches, waits, body reads) the response closing
        // early means the client went away: stop the work.
        if (fiber.unsafePoll() !== null) return done()
        res.on("close", () => {
          if (!res.writableFinished) run(Fiber.interrupt(fiber))
        })
        // a watch holds its seat while it starts (upstream: until its initial events are out), then none
        if (request.info.verb === "watch") done()
        else fiber.addObserver(done)
      } catch (defect) {
        done()
        onDefect(req, res, defect)
      }
    }
    const answer = (req: http.IncomingMessage, res: http.ServerResponse, exchange: Exchange) => {
      try {
        // The one reading of the URL (RequestInfo.ts): authorization, routing and the handlers all read it.
        const request = parseRequest(req.method ?? "GET", req.url ?? "/")
        if (request instanceof MalformedRequestTarget) return malformedTarget(res)
        if (request instanceof UndeterminedRequest) return undeterminedRequest(req, res, request.message)
        const now = clock.unsafeCurrentTimeMillis()
        // `WithRequestDeadline` runs before authentication (http/RequestDeadline.ts)
        const timeout = requestDeadline(request.info, request.query, limits.requestTimeoutMs)
        if (Either.isLeft(timeout)) {
          if (auditor) auditDeadlineRefusal(auditor, req, res, request, clock.unsafeCurrentTimeNanos(), timeout.left)
          recording.identified(exchange, req, request.info, undefined, false)
          return refuse(req, res, request.query, timeout.left)
        }
        const deadline = timeout.right === undefined ? undefined : now + timeout.right
        const user = auditor
          ? admitAudited(auditor, api.access, req, res, request, now, clock.unsafeCurrentTimeNanos())
          : admitRequest(api.access, req, request.info, now)
        // The one routing of the request, once it is let through: the handlers read it, and the metrics count only
        // what reached an instrumented one (http/ServerMetrics.ts `isInstrumented`), with the route's labels.
        const route = Either.isRight(user) ? routeOf(request.info, address) : undefined
        recording.identified(exchange, req, request.info, Either.isRight(user) ? user.right.name : undefined, route !== undefined && isInstrumented(route))
        if (Either.isLeft(user)) return refuse(req, res, request.query, user.left)
        // API Priority and Fairness: run now, wait in a queue (until the deadline at most), or 429
        admitThroughApf(apf, api.state.store, req, res, request, user.right, deadline === undefined ? undefined : deadline - now, (admitted) => {
          exchange.waitedSeconds = admitted.waitedSeconds
          serve(req, res, request, route!, deadline, user.right, admitted.done)
        })
      } catch (defect) {
        onDefect(req, res, defect)
      }
    }
    const added = options.addedLatencyMs ?? 0
    server.on("request", (req, res) => {
      // answered 429 already; the socket closes when that answer is out (res.destroy() could cut it off over TLS)
      if (refused(req.socket)) return
      const exchange = recording.begin(req, res)
      if (added > 0) run(Effect.sleep(added).pipe(Effect.andThen(() => answer(req, res, exchange))))
      else answer(req, res, exchange)
    })
    // Upstream serves no CONNECT (405); node would drop the socket without an answer.
    server.on("connect", (_req, socket: Socket) => statusOnSocket(socket, Status.methodNotAllowed()))
    server.on("clientError", answerClientError)
    const port = yield* listen(server, options.host, options.port)
    address = `${options.host}:${port}`
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
    )
    return {
      url: `${options.tls ? "https" : "http"}://${hostPort(options.host, port)}`,
      port,
      server,
      inProcessCalls: metrics === undefined ? undefined : (user) => meteredCalls(metrics, api.access, user, () => clock.unsafeCurrentTimeNanos())
    }
  })

/** The route's handler for a served request; a failure is answered as its Status, a defect as a 500 (http/RequestDefect.ts). */
const handle = (
  api: ApiServerImpl,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: HttpServerOptions,
  limits: ServerLimits,
  address: string,
  onDefect: (req: http.IncomingMessage, res: http.ServerResponse, defect: unknown) => void,
  user: UserInfo,
  { info, query }: ParsedRequest,
  parsed: Parsed,
  /** Until the request's deadline (http/RequestDeadline.ts); undefined: none (watches, logs). */
  remainingMs: number | undefined,
  metrics: ServerMetrics | undefined
) =>
  Effect.suspend(() => {
    if (isOpenApiPath(info.path)) return serveOpenApi(info.path, query, req, res)
    const out = new Responder(req, res, isPrettyRequest(query, req.headers["user-agent"]))
    switch (parsed._tag) {
      case "text":
        return Effect.sync(() => out.text(parsed.code, parsed.body))
      case "health": {
        const health = answerHealth(parsed.endpoint, parsed.check, query)
        return Effect.sync(() => out.text(health.code, health.body))
      }
      case "error":
        return Effect.sync(() => out.error(parsed.error))
      case "document": {
        if (req.method !== "GET") return Effect.sync(() => out.error(Status.methodNotAllowed()))
        const aggregated = parsed.aggregated && aggregatedDiscoveryVersion(req.headers.accept)
        return Effect.sync(() => (aggregated ? serveAggregatedDiscovery(req, res, parsed.aggregated!, aggregated) : out.json(200, parsed.body)))
      }
      case "metrics":
        if (metrics === undefined) return Effect.sync(() => out.text(404, "404 page not found\n"))
        return serveMetrics(metrics, req, out)
      case "resourceMetrics":
        return serveResourceMetrics(
          api,
          { method: req.method ?? "GET", resource: parsed.resource, namespace: parsed.namespace, name: parsed.name, labelSelector: query.get("labelSelector") ?? undefined, live: options.liveCluster === true },
          out
        ).pipe(Effect.catchAll((error) => Effect.sync(() => out.error(error))))
      case "admin":
        return options.admin ? adminAction(api, parsed.action, query, req.method ?? "GET", out) : Effect.sync(() => out.text(404, "404 page not found\n"))
      case "resource": {
        // Watches are long-running; everything else is answered by its deadline (504 after).
        const served = serveResource(api, parsed.route, info, query, req, out, limits, onDefect, user, metrics)
        const bounded =
          remainingMs === undefined
            ? served
            : remainingMs <= 0
              ? Effect.fail(requestTimedOut())
              : Effect.timeoutFail(served, { duration: remainingMs, onTimeout: requestTimedOut })
        // Errors here are in the negotiated representation (protobuf clients get a protobuf Status). One sent
        // before the body is all in (the request timeout's 504 for a client that stopped sending) closes the
        // connection: the rest of the body would be read as a next request, and node would answer it 408 too.
        return bounded.pipe(
          Effect.catchAll((error) =>
            Effect.sync(() => {
              if (res.headersSent) return res.end()
              if (!req.complete) res.setHeader("Connection", "close")
              out.error(error)
            })
          )
        )
      }
    }
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        if (Cause.isInterruptedOnly(cause)) return
        const failure: Option.Option<unknown> = Cause.failureOption(cause)
        if (Option.isNone(failure) || !(failure.value instanceof ApiError)) return onDefect(req, res, Cause.squash(cause))
        if (!res.headersSent) new Responder(req, res, false).error(failure.value)
        else res.end()
      })
    )
  )


/** Runs an API server with an HTTP front end until interrupted (the `serve` command). */
export const runHttpServer = <R>(options: HttpServerOptions, onListening: (s: RunningServer) => Effect.Effect<void, never, R>) =>
  Effect.scoped(Effect.flatMap(serveHttp(options), (s) => Effect.zipRight(onListening(s), Effect.never)))
