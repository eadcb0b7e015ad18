/**
 * Serves the `ApiServer` over HTTP with `node:http`: the request entry, the fast read path and each verb's
 * dispatch. The URL layout is in http/Routes.ts, answers in http/Responder.ts, bodies in http/RequestBody.ts,
 * watches in http/ServeWatch.ts, the admin hooks in http/Admin.ts. Every failure is answered with a `Status`;
 * nothing a client sends can take the server down.
 */
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo, Socket } from "node:net"
import { Cause, Clock, Effect, Either, Fiber, Option, Runtime, Scope } from "effect"
import { depthOverflowInText, maxBodyNestingDepth } from "../../src/api/JsonDepth.js"
import { aggregatedDiscoveryVersion, negotiate, requestBodyFormat, type Representation } from "../../src/api/MediaType.js"
import type { KObject } from "../../src/api/Object.js"
import { patchTypeOf } from "../../src/api/Patch.js"
import type { DeleteOptions, ListOptions } from "../../src/api/Requests.js"
import { bodyToStore, renameFieldLabels, type ResourceView } from "../../src/api/ServedNames.js"
import * as Status from "../../src/api/Status.js"
import { ApiError } from "../../src/api/Status.js"
import { ApiServer, WaitFor, type ApiServerImpl, type Body } from "./ApiServer.js"
import { checkDeleteOptionsBody } from "./Decode.js"
import { decodeDeleteOptions, decodeProtobufBody, tableRequest } from "./http/Representation.js"
import {
  answerClientError,
  capConnections,
  nodeServerOptions,
  requestTimedOut,
  resolveLimits,
  statusOnSocket,
  type ServerLimits
} from "./http/Limits.js"
import { isPrettyRequest, queryBool, queryInt } from "./http/QueryParams.js"
import { warningHeaders } from "./http/WarningHeader.js"
import { parseJsonBody, readApplyBody, readBody } from "./http/RequestBody.js"
import { Responder } from "./http/Responder.js"
import { adminAction } from "./http/Admin.js"
import { serveWatch } from "./http/ServeWatch.js"
import { servePodLog } from "./http/ServePodLog.js"
import { serveAggregatedDiscovery } from "./http/ServeDiscovery.js"
import { serveResourceMetrics } from "./http/ServeResourceMetrics.js"
import { connectSubresources, connectTarget, proxyFailure } from "./PodConnect.js"
import { patchScale, scaleType, updateScale, getScale } from "./Scale.js"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { routeOf, type Parsed, type Route } from "./http/Routes.js"
import { answerPlainHttp } from "./http/PlainHttpOnTls.js"
import { MalformedRequestTarget, parseRequest, UndeterminedRequest, type ParsedRequest, type RequestInfo } from "./RequestInfo.js"
import { tlsServerOptions } from "./http/Tls.js"
import { admitRequest } from "./http/RequestIdentity.js"
import { admitAudited, auditOf } from "./http/AuditFilter.js"
import { Audit } from "./audit/Auditor.js"
import { formatRequestLog } from "./http/RequestLog.js"
import { ServerMetrics } from "./http/ServerMetrics.js"
import type { Value } from "./http/MetricSeries.js"
import { RealTimeApf } from "./apf/RealTimeApf.js"
import { attributesOf as apfAttributes, rejectedByApf, seatsOf, serverConcurrencyLimit, skipsFilter } from "./http/PriorityAndFairnessFilter.js"
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
}

const intParam = queryInt

/** Starts the HTTP server in the current scope; closes it (and every watch) when the scope ends. */
export const serveHttp = (options: HttpServerOptions): Effect.Effect<RunningServer, never, ApiServer | Scope.Scope> =>
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
    const apf = new RealTimeApf(
      serverConcurrencyLimit,
      {
        nowSeconds,
        after: (ms, f) => {
          const timer = run(Effect.delay(Effect.sync(f), ms))
          return () => void run(Fiber.interrupt(timer))
        }
      },
      metrics?.flowControl
    )
    metrics?.flowControl.limits(apf.nominalSeats())
    // `serve --audit-log-path`: each request through the audit filter (http/AuditFilter.ts)
    const auditor = Option.getOrUndefined(yield* Effect.serviceOption(Audit))
    /** Serves an admitted request; `done` when it has executed (a watch: once started). */
    const serve = (req: http.IncomingMessage, res: http.ServerResponse, request: ParsedRequest, user: UserInfo, done: () => void) => {
      try {
        if (req.method === "GET" && serveReadNow(api, clock.unsafeCurrentTimeMillis(), req, res, address, request)) return done()
        const fiber = run(handle(api, req, res, options, limits, address, onDefect, user, request, metrics), { immediate: true })
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
        const user = auditor
          ? admitAudited(auditor, api.access, req, res, request, now, clock.unsafeCurrentTimeNanos())
          : admitRequest(api.access, req, request.info, now)
        exchange.info = request.info
        if (Either.isRight(user)) exchange.user = user.right.name
        if (metrics !== undefined) exchange.inflight = metrics.started(request.info, req.method ?? "GET", req.headers["content-type"])
        if (Either.isLeft(user)) return refuse(req, res, request.query, user.left)
        if (skipsFilter(request.info)) return serve(req, res, request, user.right, () => {})
        // API Priority and Fairness (http/PriorityAndFairnessFilter.ts): run now, wait in a queue, or 429
        const cancel = apf.enter(
          {
            attributes: apfAttributes(request.info, user.right),
            seats: seatsOf(request.info, request.query, api.state.store),
            watch: request.info.verb === "watch",
            execute: (admitted) => {
              exchange.waitedSeconds = admitted.waitedSeconds
              serve(req, res, request, user.right, admitted.done)
            },
            reject: () => {
              if (!res.headersSent && !res.destroyed) refuse(req, res, request.query, rejectedByApf())
            }
          },
          request.info.path
        )
        if (cancel !== undefined) res.once("close", cancel)
      } catch (defect) {
        onDefect(req, res, defect)
      }
    }
    const added = options.addedLatencyMs ?? 0
    const requestLog = options.requestLog
    /** The request is over (answered, or its client went away): its metrics, then its log line, from one clock reading. */
    const over = (req: http.IncomingMessage, res: http.ServerResponse, exchange: Exchange) => {
      const latencyNanos = clock.unsafeCurrentTimeNanos() - exchange.startNanos
      const { info } = exchange
      if (metrics !== undefined) {
        exchange.inflight?.dec()
        const url = req.url ?? "/"
        metrics.finished({
          method: req.method ?? "GET",
          info,
          contentType: req.headers["content-type"],
          query: url.includes("?") ? url.slice(url.indexOf("?") + 1) : "",
          code: res.statusCode,
          seconds: Number(latencyNanos) / 1e9,
          responseBytes: Number(res.getHeader("content-length") ?? 0),
          waitedSeconds: exchange.waitedSeconds
        })
      }
      if (requestLog !== undefined)
        requestLog(
          formatRequestLog({
            startNanos: exchange.startNanos,
            method: req.method ?? "GET",
            uri: req.url ?? "/",
            info,
            contentType: req.headers["content-type"],
            user: exchange.user,
            userAgent: req.headers["user-agent"],
            auditID: auditor ? (res.getHeader("audit-id") as string | undefined) : undefined,
            srcIP: hostPort(req.socket.remoteAddress ?? "", req.socket.remotePort ?? 0),
            status: res.statusCode,
            latencyNanos
          })
        )
    }
    server.on("request", (req, res) => {
      // answered 429 already; the socket closes when that answer is out (res.destroy() could cut it off over TLS)
      if (refused(req.socket)) return
      const exchange: Exchange = { startNanos: 0n, info: undefined, user: undefined, inflight: undefined, waitedSeconds: 0 }
      if (metrics !== undefined || requestLog !== undefined) {
        exchange.startNanos = clock.unsafeCurrentTimeNanos()
        res.on("close", () => over(req, res, exchange))
      }
      if (added > 0) run(Effect.sleep(added).pipe(Effect.andThen(() => answer(req, res, exchange))))
      else answer(req, res, exchange)
    })
    // Upstream serves no CONNECT (405); node would drop the socket without an answer.
    server.on("connect", (_req, socket: Socket) => statusOnSocket(socket, Status.methodNotAllowed()))
    server.on("clientError", answerClientError)
    yield* Effect.async<void>((resume) => {
      server.listen(options.port, options.host, () => resume(Effect.void))
    })
    const port = (server.address() as AddressInfo).port
    address = `${options.host}:${port}`
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
    )
    return { url: `${options.tls ? "https" : "http"}://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`, port, server }
  })

/** What the request log and the metrics read of a request once it is over; `answer` fills it in as it learns it. */
interface Exchange {
  /** When it arrived (the server's clock, ns), if anything is to be measured. */
  startNanos: bigint
  info: RequestInfo | undefined
  /** The authenticated user's name (absent when authentication failed). */
  user: string | undefined
  /** The in-flight (or long-running) count it is in until it is over (metrics only). */
  inflight: Value | undefined
  /** Time it waited in API Priority and Fairness's queues (0: it ran at once). */
  waitedSeconds: number
}

/** Go's `net.JoinHostPort`, as `http.Request.RemoteAddr` reads: an IPv6 address in brackets. */
const hostPort = (host: string, port: number) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`)

/**
 * A defect in one request — a bug, never the client's fault — becomes a 500 Status for that request alone,
 * logged with the request id its `Audit-Id` header carries; the server goes on.
 */
const answerDefect = (run: (effect: Effect.Effect<void>) => unknown, req: http.IncomingMessage, res: http.ServerResponse, defect: unknown): void => {
  const requestId = randomUUID()
  auditOf(res)?.panic(String(defect))
  run(Effect.logError(`request ${requestId} (${req.method} ${req.url?.slice(0, 200)}) failed with a defect`, Cause.die(defect)))
  try {
    if (res.headersSent) res.destroy()
    else new Responder(req, res, false).error(Status.internal(`Internal error occurred: request ${requestId} failed; see the server log`), { "Audit-Id": requestId })
  } catch {
    res.destroy()
  }
}

/**
 * A request target Go's `url.ParseRequestURI` refuses (a malformed escape such as `%ZZ`): Go's server answers it
 * before any handler, so before authentication, with this plain text, and closes the connection (`net/http`
 * `conn.serve`).
 */
const malformedTarget = (res: http.ServerResponse): void => {
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", Connection: "close", "Content-Length": "15" })
  res.end("400 Bad Request")
}

/**
 * `/api/v1/watch` with nothing after: upstream's `WithRequestInfo` filter fails before authentication and answers
 * with `responsewriters.InternalError` (`http.Error`: plain text, the URL quoted and HTML-escaped).
 */
const undeterminedRequest = (req: http.IncomingMessage, res: http.ServerResponse, message: string): void => {
  const text = `Internal Server Error: ${JSON.stringify(req.url ?? "/")}: ${message}`.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  const bytes = Buffer.from(`${text}\n`)
  res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", "Content-Length": String(bytes.length) })
  res.end(bytes)
}

/** A 401 or 403 before any routing (upstream's filters run first), in the representation the client accepts. */
const refuse = (req: http.IncomingMessage, res: http.ServerResponse, query: URLSearchParams, error: ApiError): void => {
  const out = new Responder(req, res, isPretty(req, query))
  const negotiated = req.headers.accept === undefined ? undefined : negotiate(req.headers.accept, { watch: false })
  if (negotiated !== undefined && Either.isRight(negotiated) && typeof negotiated.right === "string") out.representation = negotiated.right
  out.error(error)
}

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
  metrics: ServerMetrics | undefined
) =>
  Effect.suspend(() => {
    if (isOpenApiPath(info.path)) return serveOpenApi(info.path, query, req, res)
    const out = new Responder(req, res, isPretty(req, query))
    const parsed: Parsed = routeOf(info, address)
    switch (parsed._tag) {
      case "text":
        return Effect.sync(() => out.text(parsed.code, parsed.body))
      case "error":
        return Effect.sync(() => out.error(parsed.error))
      case "document": {
        if (req.method !== "GET") return Effect.sync(() => out.error(Status.methodNotAllowed()))
        const aggregated = parsed.aggregated && aggregatedDiscoveryVersion(req.headers.accept)
        return Effect.sync(() => (aggregated ? serveAggregatedDiscovery(req, res, parsed.aggregated!, aggregated) : out.json(200, parsed.body)))
      }
      case "metrics":
        if (metrics === undefined) return Effect.sync(() => out.text(404, "404 page not found\n"))
        return req.method === "GET"
          ? Effect.promise(() => metrics.exposition(req.headers.accept)).pipe(Effect.map((m) => out.raw(200, m.contentType, m.body)))
          : Effect.sync(() => out.error(Status.methodNotAllowed()))
      case "resourceMetrics":
        return serveResourceMetrics(
          api,
          { method: req.method ?? "GET", resource: parsed.resource, namespace: parsed.namespace, name: parsed.name, labelSelector: query.get("labelSelector") ?? undefined, live: options.liveCluster === true },
          out
        ).pipe(Effect.catchAll((error) => Effect.sync(() => out.error(error))))
      case "admin":
        return options.admin ? adminAction(api, parsed.action, query, req.method ?? "GET", out) : Effect.sync(() => out.text(404, "404 page not found\n"))
      case "resource": {
        // Watches are long-running; everything else is answered within the request timeout (504 after).
        const served = serveResource(api, parsed.route, info, query, req, out, limits, onDefect, user, metrics)
        const bounded = limits.requestTimeoutMs > 0 && !isWatchRequest(req, info) && !longRunningSubresources.has(parsed.route.subresource ?? "")
          ? Effect.timeoutFail(served, { duration: limits.requestTimeoutMs, onTimeout: requestTimedOut })
          : served
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

const write = (r: Effect.Effect<{ code: number; object: KObject; warnings: ReadonlyArray<string> }, ApiError>, out: Responder) =>
  Effect.map(r, (result) =>
    out.body(result.code, result.object, result.warnings.length > 0 ? { Warning: warningHeaders(result.warnings) } : {})
  )

/** The field selector in the stored type's spelling (a view may name fields otherwise). */
const fieldSelectorOf = (query: URLSearchParams, view: ResourceView | undefined): string | undefined => {
  const text = query.get("fieldSelector") ?? undefined
  return text === undefined || view === undefined ? text : renameFieldLabels(text, view.fieldLabel)
}

const listOptionsOf = (query: URLSearchParams, namespace: string | undefined, limit: number | undefined, view?: ResourceView): ListOptions => ({
  namespace,
  labelSelector: query.get("labelSelector") ?? undefined,
  fieldSelector: fieldSelectorOf(query, view),
  limit,
  continue: query.get("continue") ?? undefined,
  resourceVersion: query.get("resourceVersion") ?? undefined,
  resourceVersionMatch: query.get("resourceVersionMatch") ?? undefined,
  sendInitialEvents: queryBool(query, "sendInitialEvents")
})

const isPretty = (req: http.IncomingMessage, query: URLSearchParams): boolean => isPrettyRequest(query, req.headers["user-agent"])

/**
 * Plain GETs and LISTs answered on the spot, without a fiber: they are most of a load test's traffic and
 * need no waiting. Anything else — watches, waits for a newer revision, a paused server, other media
 * types — returns false and takes the general path.
 */
const serveReadNow = (api: ApiServerImpl, now: number, req: http.IncomingMessage, res: http.ServerResponse, address: string, { info, query }: ParsedRequest): boolean => {
  const accept = req.headers.accept
  let representation: Representation = "json"
  if (accept !== undefined && accept !== "application/json" && accept !== "*/*") {
    const negotiated = negotiate(accept, { watch: false })
    if (Either.isLeft(negotiated) || typeof negotiated.right !== "string") return false
    representation = negotiated.right
  }
  if (query.has("watch")) return false
  const parsed = routeOf(info, address)
  if (parsed._tag !== "resource" || parsed.route.subresource !== undefined || parsed.route.view || parsed.route.watch || parsed.route.resource.virtual) return false
  const limit = intParam(query, "limit")
  if (Either.isLeft(limit)) return false
  const { resource, name, namespace } = parsed.route
  // The request entry every transport goes through (false while paused: the general path waits).
  if (!api.admission.enterNow(now)) return false
  const out = new Responder(req, res, isPretty(req, query))
  out.representation = representation
  if (name === undefined) {
    const list = api.listNow(resource, listOptionsOf(query, namespace, limit.right))
    if (list instanceof WaitFor) return false
    if (Either.isLeft(list)) out.error(list.left)
    else out.body(200, list.right)
    return true
  }
  const obj = api.getNow(resource, name, { namespace, resourceVersion: query.get("resourceVersion") ?? undefined })
  if (obj instanceof WaitFor) return false
  if (Either.isLeft(obj)) out.error(obj.left)
  else out.object(obj.right)
  return true
}

/** Upstream's `BasicLongRunningRequestCheck` subresources: no request timeout (a followed log runs for as long as it is read). */
const longRunningSubresources: ReadonlySet<string> = new Set(["attach", "exec", "log", "portforward"])

/** Subresources a GET reads; the others (binding, eviction, token, finalize) have no getter: 405. */
const readableSubresources: ReadonlySet<string> = new Set(["status", "scale", "log", "exec", "attach", "portforward"])

/**
 * exec, attach, port-forward (PodConnect.ts): the pod, its container and node checked as upstream's
 * `streamLocation`, then the failure a missing kubelet gives — 400 without an upgrade, 500 with one.
 */
const connectPod = (api: ApiServerImpl, route: Route, query: URLSearchParams, req: http.IncomingMessage): Effect.Effect<never, ApiError> =>
  Effect.gen(function* () {
    const pod = yield* api.get(Pods, route.name!, { namespace: route.namespace })
    const target = connectTarget(pod, route.subresource!, query.get("container") ?? undefined)
    if (target instanceof ApiError) return yield* Effect.fail(target)
    const node = yield* api.get(Nodes, target.nodeName, {})
    const upgrade = (req.headers.connection ?? "").toLowerCase().split(/\s*,\s*/).includes("upgrade") && (req.headers.upgrade ?? "") !== ""
    return yield* Effect.fail(proxyFailure(upgrade, node))
  })

/** A watch: a GET whose RequestInfo verb is `watch` (`?watch=true` on a collection, or a legacy `/watch/` path). */
const isWatchRequest = (req: http.IncomingMessage, info: RequestInfo): boolean => req.method === "GET" && info.verb === "watch"

const serveResource = (
  api: ApiServerImpl,
  route: Route,
  info: RequestInfo,
  query: URLSearchParams,
  req: http.IncomingMessage,
  out: Responder,
  limits: ServerLimits,
  onDefect: (req: http.IncomingMessage, res: http.ServerResponse, defect: unknown) => void,
  user: UserInfo,
  metrics: ServerMetrics | undefined
): Effect.Effect<void, ApiError> =>
  Effect.gen(function* () {
    const method = req.method ?? "GET"
    const { resource, name, subresource, view } = route
    const namespace = route.namespace
    out.view = view
    // A namespaced type's path without a namespace is the all-namespaces collection: list and watch only.
    if (resource.namespaced && namespace === undefined && method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
    // A legacy `/watch/` path serves GET only: its verb (what was authorized) is `watch`, whatever the method.
    if (route.watch === true && method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
    // Upstream's verb, which authorization saw: `?watch=true` on a named object's path is a plain get.
    const isWatch = isWatchRequest(req, info)
    if (view?.readOnly && method !== "GET" && method !== "DELETE") return yield* Effect.fail(Status.methodNotAllowed())
    if (resource.virtual && (method !== "POST" || name !== undefined)) return yield* Effect.fail(Status.methodNotAllowed())
    if (subresource !== undefined && name !== undefined) {
      // A subresource's REST has only some verbs (upstream registers a handler per verb it implements): 405 for the rest.
      if (method === "GET" && !readableSubresources.has(subresource)) return yield* Effect.fail(Status.methodNotAllowed())
      if (subresource === "log") {
        if (method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
        return yield* servePodLog(api, name, namespace, query, out.res)
      }
      if (connectSubresources.has(subresource)) {
        if (method !== "GET" && method !== "POST") return yield* Effect.fail(Status.methodNotAllowed())
        return yield* connectPod(api, route, query, req)
      }
    }
    const accept = req.headers.accept
    if (accept !== undefined && accept !== "application/json" && accept !== "*/*")
      out.representation = yield* negotiate(accept, { watch: isWatch, collection: name === undefined })
    out.table = yield* tableRequest(out.representation, resource, query.get("includeObject"), yield* Clock.currentTimeMillis, view?.toWire)
    const limit = yield* intParam(query, "limit")
    const timeoutSeconds = yield* intParam(query, "timeoutSeconds")
    const str = (k: string) => query.get(k) ?? undefined
    const selectors = { labelSelector: str("labelSelector"), fieldSelector: fieldSelectorOf(query, view) }
    const dryRun = query.has("dryRun") ? query.getAll("dryRun") : undefined
    const writeOptions = {
      namespace,
      dryRun,
      fieldValidation: str("fieldValidation"),
      fieldManager: str("fieldManager"),
      subresource,
      force: queryBool(query, "force"),
      userAgent: req.headers["user-agent"],
      // RBAC's escalation check compares a role or binding with what this user holds (auth/RoleEscalation.ts).
      caller: user
    }
    const readBodyJson = (what: string) =>
      Effect.flatMap(
        Effect.promise(() => readBody(req, limits.maxBodyBytes)),
        (bytes) => Effect.flatMap(bytes, (b) => parseJsonBody(b.toString("utf8"), what))
      )
    /** A POST or PUT body in the format its Content-Type names. */
    const readObjectBody = Effect.gen(function* () {
      const format = yield* requestBodyFormat(req.headers["content-type"])
      const body: Body =
        format === "json"
          ? yield* readBodyJson("couldn't get version/kind")
          : { value: yield* decodeProtobufBody(yield* Effect.flatMap(Effect.promise(() => readBody(req, limits.maxBodyBytes)), (b) => b), resource, view?.apiVersion) }
      return view ? { ...body, value: yield* bodyToStore(view, body.value) } : body
    })
    switch (method) {
      case "GET": {
        if (isWatch) {
          if (subresource) return yield* Effect.fail(Status.methodNotAllowed())
          return yield* serveWatch(api, resource, name, {
            namespace,
            ...selectors,
            resourceVersion: str("resourceVersion"),
            resourceVersionMatch: str("resourceVersionMatch"),
            allowWatchBookmarks: queryBool(query, "allowWatchBookmarks"),
            sendInitialEvents: queryBool(query, "sendInitialEvents"),
            timeoutSeconds
          }, out, limits, (defect) => onDefect(req, out.res, defect), view, (bytes) => metrics?.watchEventSent(resource, bytes))
        }
        if (name === undefined) {
          const list = yield* api.list(resource, listOptionsOf(query, namespace, limit, view))
          return out.body(200, list)
        }
        if (subresource === "scale") return out.body(200, yield* getScale(api, resource, name, namespace))
        const obj = yield* api.get(resource, name, { namespace, resourceVersion: str("resourceVersion") })
        return out.object(obj)
      }
      case "POST": {
        if (name !== undefined && subresource === undefined) return yield* Effect.fail(Status.methodNotAllowed())
        if (subresource !== undefined && subresource !== "binding" && subresource !== "eviction" && subresource !== "token") return yield* Effect.fail(Status.methodNotAllowed())
        const body = yield* readObjectBody
        auditOf(out.res)?.requestBody(body.value)
        if (resource.virtual) return yield* write(api.review(resource, body.value, user), out)
        if (subresource !== undefined) {
          const value = body.value as Record<string, unknown>
          const meta = (value?.metadata ?? {}) as Record<string, unknown>
          // BindingREST.Create (pkg/registry/core/pod/storage/storage.go): the body names the pod of the URL.
          if (subresource === "binding" && meta.name !== undefined && meta.name !== name)
            return yield* Effect.fail(Status.badRequest("name in URL does not match name in Binding object"))
          return yield* write(api.create(resource, { value: { ...value, metadata: { ...meta, name: meta.name ?? name } } }, writeOptions), out)
        }
        return yield* write(api.create(resource, body, writeOptions), out)
      }
      case "PUT": {
        if (name === undefined) return yield* Effect.fail(Status.methodNotAllowed())
        if (subresource === "scale") {
          const format = yield* requestBodyFormat(req.headers["content-type"])
          const body: Body =
            format === "json"
              ? yield* readBodyJson("couldn't get version/kind")
              : { value: yield* decodeProtobufBody(yield* Effect.flatMap(Effect.promise(() => readBody(req, limits.maxBodyBytes)), (b) => b), scaleType) }
          auditOf(out.res)?.requestBody(body.value)
          return yield* write(updateScale(api, resource, name, body, writeOptions), out)
        }
        const body = yield* readObjectBody
        auditOf(out.res)?.requestBody(body.value)
        return yield* write(api.update(resource, name, body, writeOptions), out)
      }
      case "PATCH": {
        if (name === undefined) return yield* Effect.fail(Status.methodNotAllowed())
        const patchType = patchTypeOf(req.headers["content-type"] ?? "")
        if (patchType === undefined) return yield* Effect.fail(Status.unsupportedMediaType("415: Unsupported Media Type", true))
        const body = patchType === "apply" ? yield* readApplyBody(req, limits.maxBodyBytes) : yield* readBodyJson("error decoding patch")
        auditOf(out.res)?.requestPatch(body.value)
        if (body.raw !== undefined && depthOverflowInText(body.raw, maxBodyNestingDepth) !== undefined)
          return yield* Effect.fail(Status.badRequest(`error decoding patch: exceeded max depth of ${maxBodyNestingDepth}`))
        if (subresource === "scale") {
          // Server-side apply of a Scale is not modelled (docs/stock-clients.md "Scale").
          if (patchType === "apply") return yield* Effect.fail(Status.unsupportedMediaType("415: Unsupported Media Type", true))
          return yield* write(patchScale(api, resource, name, patchType, body, writeOptions), out)
        }
        return yield* write(api.patch(resource, name, patchType, body, writeOptions), out)
      }
      case "DELETE": {
        const bytes = yield* Effect.flatMap(Effect.promise(() => readBody(req, limits.maxBodyBytes)), (t) => t)
        const text = bytes.toString("utf8")
        // client-go's protobuf clients send DeleteOptions as protobuf.
        const protobufBody = bytes.length > 0 && Either.getOrUndefined(requestBodyFormat(req.headers["content-type"])) === "protobuf"
        const fromBody = protobufBody
          ? { value: yield* decodeDeleteOptions(bytes) }
          : text.trim() === ""
            ? undefined
            : yield* parseJsonBody(text, "couldn't get version/kind")
        const badOptions = fromBody && checkDeleteOptionsBody(fromBody.value)
        if (badOptions) return yield* Effect.fail(badOptions)
        const opts: DeleteOptions = fromBody
          ? deleteOptionsFromBody(fromBody.value, namespace)
          : {
              namespace,
              dryRun,
              propagationPolicy: str("propagationPolicy"),
              orphanDependents: queryBool(query, "orphanDependents"),
              gracePeriodSeconds: (yield* intParam(query, "gracePeriodSeconds")) ?? undefined
            }
        auditOf(out.res)?.requestBody(deleteOptionsObject(opts, route.resource))
        if (name === undefined) {
          const list = yield* api.deleteCollection(resource, { ...opts, ...selectors })
          return out.body(200, list)
        }
        if (subresource !== undefined) return yield* Effect.fail(Status.methodNotAllowed())
        const result = yield* api.delete(resource, name, opts)
        return out.body(result.code, result.object ?? result.status ?? {})
      }
      default:
        return yield* Effect.fail(Status.methodNotAllowed())
    }
  })

/** The DeleteOptions a delete was read with, as upstream's delete handler records them (`LogRequestObject`). */
const deleteOptionsObject = (opts: DeleteOptions, resource: { readonly group: string; readonly version: string }): object => {
  const { namespace: _namespace, ...fields } = opts
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  return { kind: "DeleteOptions", apiVersion: resource.group === "" ? resource.version : `${resource.group}/${resource.version}`, ...defined }
}

const deleteOptionsFromBody = (value: unknown, namespace: string | undefined): DeleteOptions => {
  const v = (value ?? {}) as Record<string, unknown>
  const pre = v.preconditions as Record<string, unknown> | undefined
  return {
    namespace,
    dryRun: Array.isArray(v.dryRun) ? (v.dryRun as string[]) : undefined,
    propagationPolicy: typeof v.propagationPolicy === "string" ? v.propagationPolicy : undefined,
    orphanDependents: typeof v.orphanDependents === "boolean" ? v.orphanDependents : undefined,
    gracePeriodSeconds: typeof v.gracePeriodSeconds === "number" ? v.gracePeriodSeconds : undefined,
    preconditions: pre ? { uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined } : undefined
  }
}

/** Runs an API server with an HTTP front end until interrupted (the `serve` command). */
export const runHttpServer = <R>(options: HttpServerOptions, onListening: (s: RunningServer) => Effect.Effect<void, never, R>) =>
  Effect.scoped(Effect.flatMap(serveHttp(options), (s) => Effect.zipRight(onListening(s), Effect.never)))

