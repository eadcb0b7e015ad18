/**
 * `GET /metrics` (issue 38): kube-apiserver 1.26's request, watch and storage metrics with upstream's labels,
 * the text format by default and OpenMetrics when asked, readable as upstream's `system:monitoring` allows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { cleanScope } from "../../../simulator/apiserver/http/ServerMetrics.js"
import { parseRequest, type ParsedRequest } from "../../../simulator/apiserver/RequestInfo.js"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"
import { gunzipSync } from "node:zlib"
import { request } from "undici"

const json = { "content-type": "application/json" }
const cms = "/api/v1/namespaces/default/configmaps"

/** The samples of one metric family whose labels include `labels`, as `{labels} value` lines. */
const samples = (text: string, name: string, labels: Record<string, string> = {}): ReadonlyArray<string> =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))

const value = (line: string | undefined) => Number(line?.slice(line.lastIndexOf(" ") + 1))

describe("cleanScope (1.26)", () => {
  const scope = (method: string, path: string) => cleanScope((parseRequest(method, path) as ParsedRequest).info)
  it("a named object or a create is resource, then namespace, then cluster; non-resource paths none", () => {
    expect(scope("GET", "/api/v1/namespaces/default/pods/p")).toBe("resource")
    expect(scope("POST", "/api/v1/namespaces/default/pods")).toBe("resource")
    expect(scope("GET", "/api/v1/namespaces/default/pods")).toBe("namespace")
    expect(scope("GET", "/api/v1/pods")).toBe("cluster")
    expect(scope("GET", "/api/v1/nodes/n1")).toBe("resource")
    expect(scope("GET", "/healthz")).toBe("")
  })
})

describe("GET /metrics", () => {
  it.scoped("counts each answered request with upstream's verb, scope, code and dry_run; durations and sizes beside", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      expect((yield* send(base, "POST", cms, { body: JSON.stringify({ metadata: { name: "a" } }), headers: json })).code).toBe(201)
      expect((yield* send(base, "POST", `${cms}?dryRun=All`, { body: JSON.stringify({ metadata: { name: "b" } }), headers: json })).code).toBe(201)
      expect((yield* send(base, "GET", cms)).code).toBe(200)
      expect((yield* send(base, "GET", `${cms}/missing`)).code).toBe(404)
      expect((yield* send(base, "PATCH", `${cms}/a?fieldManager=m`, { body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } }), headers: { "content-type": "application/apply-patch+yaml" } })).code).toBe(200)
      yield* send(base, "GET", "/healthz")
      const scrape = yield* send(base, "GET", "/metrics")
      expect(scrape.code).toBe(200)
      expect(scrape.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8")
      const text = scrape.text
      const total = (labels: Record<string, string>) => value(samples(text, "apiserver_request_total", labels)[0])
      const cm = { group: "", version: "v1", resource: "configmaps", component: "apiserver" }
      expect(total({ ...cm, verb: "POST", scope: "resource", dry_run: "", code: "201" })).toBe(1)
      expect(total({ ...cm, verb: "POST", scope: "resource", dry_run: "All", code: "201" })).toBe(1)
      expect(total({ ...cm, verb: "LIST", scope: "namespace", code: "200" })).toBe(1)
      expect(total({ ...cm, verb: "GET", scope: "resource", code: "404" })).toBe(1)
      expect(total({ ...cm, verb: "APPLY", scope: "resource", code: "200" })).toBe(1)
      expect(total({ verb: "GET", subresource: "/healthz", component: "", code: "200" })).toBe(1)
      // The buckets of 1.26: `_sli_` from 0.05 s, the duration histogram from 5 ms.
      expect(samples(text, "apiserver_request_sli_duration_seconds_bucket", { ...cm, verb: "LIST" }).map((l) => /le="([^"]+)"/.exec(l)![1]).slice(0, 3)).toEqual(["0.05", "0.1", "0.2"])
      expect(samples(text, "apiserver_request_duration_seconds_bucket", { ...cm, verb: "LIST" })[0]).toContain('le="0.005"')
      expect(value(samples(text, "apiserver_request_slo_duration_seconds_count", { ...cm, verb: "GET" })[0])).toBe(1)
      // Response sizes only for reads; the LIST's body size lands in a bucket of 1000 × 10^k.
      expect(value(samples(text, "apiserver_response_sizes_count", { ...cm, verb: "LIST" })[0])).toBe(1)
      expect(samples(text, "apiserver_response_sizes_count", { ...cm, verb: "POST" })).toEqual([])
      expect(value(samples(text, "apiserver_storage_objects", { resource: "configmaps" })[0])).toBe(1)
      expect(samples(text, "process_resident_memory_bytes")).toHaveLength(1)
    }))

  it.scoped("watches: long-running while open, registered per kind, each event counted and sized", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* send(base, "POST", cms, { body: JSON.stringify({ metadata: { name: "a" } }), headers: json })
      const controller = new AbortController()
      const res = yield* Effect.promise(() => fetch(`${base}${cms}?watch=true`, { signal: controller.signal }))
      const reader = res.body!.getReader()
      yield* Effect.promise(() => reader.read())
      const open = (yield* send(base, "GET", "/metrics")).text
      expect(value(samples(open, "apiserver_longrunning_requests", { verb: "WATCH", resource: "configmaps", scope: "namespace" })[0])).toBe(1)
      expect(value(samples(open, "apiserver_registered_watchers", { group: "", version: "v1", kind: "ConfigMap" })[0])).toBe(1)
      expect(value(samples(open, "apiserver_watch_events_total", { kind: "ConfigMap" })[0])).toBe(1)
      expect(value(samples(open, "apiserver_watch_events_sizes_count", { kind: "ConfigMap" })[0])).toBe(1)
      controller.abort()
      yield* Effect.promise(() => reader.cancel().catch(() => undefined))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      const closed = (yield* send(base, "GET", "/metrics")).text
      expect(value(samples(closed, "apiserver_longrunning_requests", { verb: "WATCH", resource: "configmaps" })[0])).toBe(0)
      expect(value(samples(closed, "apiserver_request_total", { verb: "WATCH", resource: "configmaps" })[0])).toBe(1)
    }))

  it.scoped("OpenMetrics when the Accept header asks for it; any method but DELETE is answered", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const om = yield* send(base, "GET", "/metrics", { headers: { accept: "application/openmetrics-text;version=1.0.0,text/plain;q=0.5" } })
      expect(om.headers["content-type"]).toBe("application/openmetrics-text; version=1.0.0; charset=utf-8")
      expect(om.text.trimEnd().endsWith("# EOF")).toBe(true)
      expect(om.text).toContain("# TYPE apiserver_request counter\n")
      // The text format after an OpenMetrics scrape still names counters with `_total` (prom-client shares them).
      const text = (yield* send(base, "GET", "/metrics")).text
      expect(text).toContain("# TYPE apiserver_request_total counter\n")
      expect(text).toContain("# TYPE process_cpu_seconds_total counter\n")
      // promhttp ignores the method (kube-apiserver's handler is on the non-GoRestful mux): POST and HEAD are answered
      const posted = yield* send(base, "POST", "/metrics", { body: "{}", headers: json })
      expect(posted.code).toBe(200)
      expect(posted.text).toContain("# TYPE apiserver_request_total counter\n")
      const head = yield* send(base, "HEAD", "/metrics")
      expect([head.code, head.headers["content-type"], head.text]).toEqual([200, "text/plain; version=0.0.4; charset=utf-8", ""])
      // DELETE resets upstream's registry (with profiling on); refused here
      expect((yield* send(base, "DELETE", "/metrics")).code).toBe(405)
    }))

  it.scoped("negotiates as expfmt.NegotiateIncludingOpenMetrics: by q, a q=0 clause not acceptable, unknown versions skipped", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const typeFor = (accept: string) => Effect.map(send(base, "GET", "/metrics", { headers: { accept } }), (r) => String(r.headers["content-type"]).split(";")[0])
      expect(yield* typeFor("text/plain;q=0.1,application/openmetrics-text;q=0")).toBe("text/plain")
      expect(yield* typeFor("application/openmetrics-text;q=0")).toBe("text/plain")
      expect(yield* typeFor("text/plain;q=0.4,application/openmetrics-text;q=0.5")).toBe("application/openmetrics-text")
      expect(yield* typeFor("text/plain,application/openmetrics-text")).toBe("text/plain")
      expect(yield* typeFor("application/openmetrics-text;version=2.0.0,text/plain;q=0.1")).toBe("text/plain")
      // Prometheus 2.42's scrape
      expect(yield* typeFor("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")).toBe(
        "application/openmetrics-text"
      )
    }))

  it.scoped("gzip when Accept-Encoding names it (promhttp's gzipAccepted), as Prometheus asks; the same exposition", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const raw = (encoding: string) =>
        Effect.promise(async () => {
          const res = await request(`${base}/metrics`, { headers: { "accept-encoding": encoding } })
          return { headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) }
        })
      const zipped = yield* raw("gzip")
      expect(zipped.headers["content-encoding"]).toBe("gzip")
      expect(Number(zipped.headers["content-length"])).toBe(zipped.bytes.length)
      const text = gunzipSync(zipped.bytes).toString()
      expect(text).toContain("# TYPE apiserver_request_total counter\n")
      expect((yield* raw("deflate, gzip;q=1.0, *;q=0.5")).headers["content-encoding"]).toBe("gzip")
      const plain = yield* raw("identity")
      expect(plain.headers["content-encoding"]).toBeUndefined()
      expect(plain.bytes.toString()).toContain("# TYPE apiserver_request_total counter\n")
      // an API answer is never compressed
      const api = yield* Effect.promise(() => request(`${base}/api/v1/namespaces`, { headers: { "accept-encoding": "gzip" } }).then(async (r) => ({ h: r.headers, t: await r.body.text() })))
      expect(api.h["content-encoding"]).toBeUndefined()
      expect(api.t).toContain('"kind":"NamespaceList"')
    }))

  it.scoped("only instrumented routes count: unknown groups, versions, resources and subresources, refused requests, per-check health paths add no series; dryRun and methods are cleaned", () =>
    Effect.gen(function* () {
      const tokens = new Map([["tok-admin", { name: "admin", uid: "1", groups: ["system:masters"] }]])
      const base = yield* httpServer({ authorizationMode: "RBAC", authentication: { anonymous: true, tokens } })
      const admin = { authorization: "Bearer tok-admin" }
      const as = (headers: Record<string, string> = {}) => ({ headers: { ...admin, ...headers } })
      // none of these reaches a handler upstream instruments (installer.go's routes, healthz.go's roots)
      for (const [path, code] of [
        ["/apis/g7.evil/v7/r7/x", 404],
        ["/apis/apps/v7/deployments", 404],
        ["/api/v1/namespaces/qa/zzrandom", 404],
        ["/api/v1/namespaces/qa/pods/p/zzsub", 404],
        ["/api/v1/nodes/n1/nosuch", 404],
        ["/apis/metrics.k8s.io/v1beta1/zz", 404],
        ["/livez/ping", 200],
        ["/readyz/nosuch", 404],
        ["/nosuch", 404]
      ] as const)
        expect([path, (yield* send(base, "GET", path, as())).code]).toEqual([path, code])
      // anonymous: refused by authorization before routing, an existing resource or not (not counted upstream either)
      expect((yield* send(base, "GET", cms)).code).toBe(403)
      expect((yield* send(base, "GET", "/apis/g8.evil/v8/r8")).code).toBe(403)
      // a malformed `timeout` is refused before authentication and routing (filters/request_deadline.go): 400, not 403
      expect((yield* send(base, "GET", `${cms}?timeout=abc`)).code).toBe(400)
      // counted, with the route's labels: a dryRun value other than All is `invalid`; a method upstream does not name is `other`
      expect((yield* send(base, "POST", `${cms}?dryRun=evil1`, { body: JSON.stringify({ metadata: { name: "a" } }), headers: { ...admin, ...json } })).code).toBe(422)
      expect((yield* send(base, "POST", `${cms}?dryRun=All&dryRun=All`, { body: JSON.stringify({ metadata: { name: "b" } }), headers: { ...admin, ...json } })).code).toBe(201)
      expect((yield* send(base, "PROPFIND", cms, as())).code).toBe(405)
      expect((yield* send(base, "GET", `${cms}/missing`, as())).code).toBe(404)
      expect((yield* send(base, "GET", "/livez?verbose", as())).code).toBe(200)
      const text = (yield* send(base, "GET", "/metrics", as())).text
      const labelsOf = (name: string) => samples(text, name).map((l) => l.slice(name.length, l.lastIndexOf(" ")))
      const cm = 'group="",version="v1",resource="configmaps",subresource=""'
      expect(labelsOf("apiserver_request_total").sort()).toEqual(
        [
          `{verb="POST",dry_run="invalid",${cm},scope="resource",component="apiserver",code="422"}`,
          `{verb="POST",dry_run="All",${cm},scope="resource",component="apiserver",code="201"}`,
          `{verb="other",dry_run="",${cm},scope="namespace",component="apiserver",code="405"}`,
          `{verb="GET",dry_run="",${cm},scope="resource",component="apiserver",code="404"}`,
          '{verb="GET",dry_run="",group="",version="",resource="",subresource="/livez",scope="",component="",code="200"}'
        ].sort()
      )
      // the histograms have the same series, less the code (and the SLI's, the dry run value)
      expect(labelsOf("apiserver_request_duration_seconds_count")).toHaveLength(5)
      expect(labelsOf("apiserver_request_sli_duration_seconds_count")).toHaveLength(4)
      expect(text).not.toMatch(/evil|zz|nosuch|v7|PROPFIND/)
    }))

  it.scoped("RBAC: system:monitoring may read it, others get upstream's 403 for the path", () =>
    Effect.gen(function* () {
      const tokens = new Map([
        ["tok-prom", { name: "prometheus", uid: "1", groups: ["system:monitoring"] }],
        ["tok-alice", { name: "alice", uid: "2", groups: [] as string[] }]
      ])
      const base = yield* httpServer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })
      expect((yield* send(base, "GET", "/metrics", { headers: { authorization: "Bearer tok-prom" } })).code).toBe(200)
      const denied = yield* send(base, "GET", "/metrics", { headers: { authorization: "Bearer tok-alice" } })
      expect(denied.code).toBe(403)
      expect((denied.json as { message: string }).message).toBe('forbidden: User "alice" cannot get path "/metrics"')
      // a POST is judged as its own verb (RequestInfo's lowercased method): system:monitoring may only get
      const posted = yield* send(base, "POST", "/metrics", { body: "{}", headers: { authorization: "Bearer tok-prom", "content-type": "application/json" } })
      expect([posted.code, (posted.json as { message: string }).message]).toEqual([403, 'forbidden: User "prometheus" cannot post path "/metrics"'])
    }))
})
