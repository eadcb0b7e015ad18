/**
 * What a request records once it is over — answered, or its client gone: its Prometheus series (./ServerMetrics.ts)
 * and its httplog line (./RequestLog.ts, `serve -v`), both from one clock reading, as upstream's `WithLogging` and
 * `InstrumentHandlerFunc` wrap the handler. The request entry fills in the request's {@link Exchange} as it learns it;
 * with neither metrics nor the log on, nothing is timed or recorded.
 */
import type * as http from "node:http"
import type { Clock } from "effect"
import type { RequestInfo } from "../RequestInfo.js"
import { userAgentOf } from "./HeaderText.js"
import type { Value } from "./MetricSeries.js"
import { formatRequestLog } from "./RequestLog.js"
import type { ServerMetrics } from "./ServerMetrics.js"

/** What the request log and the metrics read of a request once it is over. */
export interface Exchange {
  /** When it arrived (the server's clock, ns), if anything is to be measured. */
  startNanos: bigint
  info: RequestInfo | undefined
  /** The authenticated user's name (absent when authentication failed). */
  user: string | undefined
  /** The in-flight (or long-running) count it is in until it is over (metrics only). */
  inflight: Value | undefined
  /** Time it waited in API Priority and Fairness's queues (0: it ran at once). */
  waitedSeconds: number
  /** It reached a handler the metrics count (`identified`). */
  instrumented: boolean
}

/** Go's `net.JoinHostPort`, as `http.Request.RemoteAddr` reads: an IPv6 address in brackets. */
const hostPort = (host: string, port: number) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`)

export class RequestRecording {
  private readonly recording: boolean

  constructor(
    private readonly clock: Clock.Clock,
    /** Undefined with `serve --no-metrics`. */
    private readonly metrics: ServerMetrics | undefined,
    /** `serve -v`: each request's httplog line. */
    private readonly requestLog: ((line: string) => void) | undefined,
    /** The server audits (`serve --audit-log-path`): the line carries the request's audit id. */
    private readonly audited: boolean
  ) {
    this.recording = metrics !== undefined || requestLog !== undefined
  }

  /** A request arrived: timed from now, and recorded when its response closes. */
  begin(req: http.IncomingMessage, res: http.ServerResponse): Exchange {
    const exchange: Exchange = { startNanos: 0n, info: undefined, user: undefined, inflight: undefined, waitedSeconds: 0, instrumented: false }
    if (this.recording) {
      exchange.startNanos = this.clock.unsafeCurrentTimeNanos()
      res.on("close", () => this.over(req, res, exchange))
    }
    return exchange
  }

  /**
   * Its URL is read and its user known (or refused): from now it counts as in flight (or long-running). Only an
   * `instrumented` one (routed to a handler upstream instruments, ./ServerMetrics.ts `isInstrumented`) is counted
   * in the per-request series.
   */
  identified(exchange: Exchange, req: http.IncomingMessage, info: RequestInfo, user: string | undefined, instrumented: boolean): void {
    exchange.info = info
    exchange.user = user
    exchange.instrumented = instrumented
    if (this.metrics !== undefined) exchange.inflight = this.metrics.started(info, req.method ?? "GET", req.headers["content-type"], instrumented)
  }

  /** The request is over: its metrics, then its log line. */
  private over(req: http.IncomingMessage, res: http.ServerResponse, exchange: Exchange): void {
    const latencyNanos = this.clock.unsafeCurrentTimeNanos() - exchange.startNanos
    const { info } = exchange
    const metrics = this.metrics
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
        waitedSeconds: exchange.waitedSeconds,
        instrumented: exchange.instrumented
      })
    }
    const requestLog = this.requestLog
    if (requestLog !== undefined)
      requestLog(
        formatRequestLog({
          startNanos: exchange.startNanos,
          method: req.method ?? "GET",
          uri: req.url ?? "/",
          info,
          contentType: req.headers["content-type"],
          user: exchange.user,
          userAgent: userAgentOf(req),
          auditID: this.audited ? (res.getHeader("audit-id") as string | undefined) : undefined,
          srcIP: hostPort(req.socket.remoteAddress ?? "", req.socket.remotePort ?? 0),
          status: res.statusCode,
          latencyNanos
        })
      )
  }
}
