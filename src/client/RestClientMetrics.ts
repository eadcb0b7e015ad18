/**
 * client-go's request metrics (`component-base/metrics/prometheus/restclient/metrics.go`) for the load generator's
 * client (docs/metrics.md): `rest_client_request_duration_seconds{verb, host}` and
 * `rest_client_requests_total{code, method, host}`, `verb` and `method` the HTTP method, `code` the status or
 * `<error>` when no answer came (client-go's `request.go`). `instrumentedClient` wraps an `ApiClientService`; it times
 * a call on the `Clock` the call runs on (virtual in a simulation) and its fast paths with `now`.
 */
import { Cause, Clock, Effect, Exit, Option } from "effect"
import { Counter, Histogram, type Registry } from "prom-client"
import type { ApiClientService } from "./ApiClientService.js"
import { hasRawSender, hasVariants, isMeasuring, type DirectMeasure, type HttpClientService, type Measuring, type Variants } from "./Capabilities.js"
import { transform, type Verb } from "./Transform.js"
import type { ClientError } from "./TransportError.js"

/** `rest_client_request_duration_seconds`' buckets. */
const latencyBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]

export class RestClientMetrics {
  private readonly latency: Histogram<string>
  private readonly results: Counter<string>
  /** Label sets made once per method and code. */
  private readonly latencyLabels = new Map<string, Readonly<Record<string, string>>>()
  private readonly resultLabels = new Map<string, Readonly<Record<string, string>>>()

  /** `host`: the `host` label, the server's `host:port` (client-go's `url.Host`). */
  constructor(
    registers: ReadonlyArray<Registry>,
    readonly host: string
  ) {
    this.latency = new Histogram({
      name: "rest_client_request_duration_seconds",
      help: "Request latency in seconds. Broken down by verb, and host.",
      labelNames: ["verb", "host"],
      buckets: latencyBuckets,
      registers: [...registers]
    })
    this.results = new Counter({
      name: "rest_client_requests_total",
      help: "Number of HTTP requests, partitioned by status code, method, and host.",
      labelNames: ["code", "method", "host"],
      registers: [...registers]
    })
  }

  /** One request: its method, its answer's status code (`undefined`: no answer, `<error>`), its time in seconds. */
  observe(method: string, code: number | undefined, seconds: number): void {
    const codeText = code === undefined ? "<error>" : String(code)
    let latency = this.latencyLabels.get(method)
    if (latency === undefined) this.latencyLabels.set(method, (latency = { verb: method, host: this.host }))
    const key = `${method} ${codeText}`
    let result = this.resultLabels.get(key)
    if (result === undefined) this.resultLabels.set(key, (result = { code: codeText, method, host: this.host }))
    this.latency.observe(latency, seconds)
    this.results.inc(result)
  }
}

/** The status code of a failed call: the server's, or none when no answer came. */
const failureCode = (e: ClientError): number | undefined => (e._tag === "ApiError" ? (e.status.code ?? 500) : undefined)

const timedCall = <A>(metrics: RestClientMetrics, method: string, success: number, call: Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> =>
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.onExit(call, (exit) =>
      Effect.flatMap(Clock.currentTimeMillis, (end) =>
        Effect.sync(() => {
          if (Exit.isSuccess(exit)) return metrics.observe(method, success, (end - start) / 1000)
          const failure = Cause.failureOption(exit.cause)
          // an interrupted call (the run ended) got no answer and is not a request client-go would count
          if (Option.isSome(failure)) metrics.observe(method, failureCode(failure.value), (end - start) / 1000)
        })
      )
    )
  )

/** client-go's method and success code of each verb (a create answers 201). */
const methods: Record<Exclude<Verb, "watch">, readonly [string, number]> = {
  get: ["GET", 200],
  list: ["GET", 200],
  create: ["POST", 201],
  update: ["PUT", 200],
  patch: ["PATCH", 200],
  delete: ["DELETE", 200],
  deletecollection: ["DELETE", 200]
}

/**
 * `inner` with each call counted and timed as client-go counts its requests (`transform`, `Transform.ts`). `now` (ms)
 * times the fast paths (`directMeasure`), which run outside any Effect. Watches pass through uncounted (long-running:
 * client-go observes them when their stream ends). The HTTP transport's capabilities (`Capabilities.ts`) are kept,
 * counted too; the immediate view is the node agents', not the generator's: not carried.
 */
export function instrumentedClient(inner: HttpClientService, metrics: RestClientMetrics, now: () => number): HttpClientService
export function instrumentedClient(inner: ApiClientService, metrics: RestClientMetrics, now: () => number): ApiClientService
export function instrumentedClient(inner: ApiClientService, metrics: RestClientMetrics, now: () => number): ApiClientService {
  const counted = transform(inner, {
    request: (call, send) => {
      const [method, success] = methods[call.verb as Exclude<Verb, "watch">]
      return timedCall(metrics, method, success, send())
    }
  })
  const measuring: Partial<Measuring> = isMeasuring(inner)
    ? {
        measure: (verb, resource, name, opts) =>
          Effect.flatMap(Clock.currentTimeMillis, (start) =>
            Effect.tapBoth(inner.measure(verb, resource, name, opts), {
              onSuccess: (m) => Effect.map(Clock.currentTimeMillis, (end) => metrics.observe(verb, m.code, (end - start) / 1000)),
              onFailure: (e) => Effect.map(Clock.currentTimeMillis, (end) => metrics.observe(verb, failureCode(e), (end - start) / 1000))
            })
          ),
        directMeasure: (verb, resource, opts) =>
          Effect.map(inner.directMeasure(verb, resource, opts), (direct): DirectMeasure | undefined =>
            direct === undefined
              ? undefined
              : (name, done) => {
                  const start = now()
                  direct(name, (failure) => {
                    metrics.observe(verb, failure === undefined ? 200 : failureCode(failure), (now() - start) / 1000)
                    done(failure)
                  })
                }
          )
      }
    : {}
  const variants: Partial<Variants> = hasVariants(inner) ? { variant: (o) => instrumentedClient(inner.variant(o), metrics, now) } : {}
  // raw requests pass uncounted, as before this wrapper was built with transform (a replay counts its own answers)
  const raw = hasRawSender(inner) ? { raw: inner.raw } : {}
  return { ...counted, ...measuring, ...variants, ...raw }
}
