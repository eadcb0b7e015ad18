/**
 * `run` against a real target reads its server-side latency (docs/metrics.md "Server-side figures"): from the
 * target's `/metrics` with the run's token, or from a Prometheus. And when the target's `/metrics` cannot be read —
 * 10 MiB of garbage, an answer slower than the bound, a 403 from the server's own RBAC — the run still completes,
 * says why in one warning line, measures its client side, and its report says the server-side figures are absent.
 * In this process: a clustersim HTTP server with token authentication, and in front of it small HTTP servers that
 * pass every request through but answer `/metrics` (or a Prometheus query) their own way.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { createServer, request, type Server } from "node:http"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { runCommand } from "../../app/cli/run.js"
import { compareCommand } from "../../app/cli/compare.js"
import type { ServerSideFlags } from "../../app/cli/drivers/Driver.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-server-side-"))
const scope = Effect.runSync(Scope.make())
const fronts: Array<Server> = []
let target = ""

const root = "tok-root"
const loader = "tok-loader"

beforeAll(async () => {
  const tokens = new Map([
    [root, { name: "root", uid: "0", groups: ["system:masters"] }],
    [loader, { name: "loader", uid: "1", groups: [] as Array<string> }]
  ])
  target = await Effect.runPromise(
    serveHttp({ host: "127.0.0.1", port: 0, admin: false }).pipe(
      Effect.map((s) => s.url),
      Effect.provide(ApiServer.layer({ seed: 1, authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })),
      Scope.extend(scope)
    )
  )
  // `loader` may make the scenario's namespace and config maps, and nothing else: not /metrics
  const post = (path: string, body: unknown) =>
    fetch(`${target}${path}`, { method: "POST", headers: { authorization: `Bearer ${root}`, "content-type": "application/json" }, body: JSON.stringify(body) })
  const role = await post("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
    metadata: { name: "loader" },
    rules: [
      { apiGroups: [""], resources: ["namespaces"], verbs: ["create", "get", "list"] },
      { apiGroups: [""], resources: ["configmaps"], verbs: ["*"] }
    ]
  })
  expect(role.status).toBe(201)
  const binding = await post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    metadata: { name: "loader" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "loader" },
    subjects: [{ kind: "User", name: "loader" }]
  })
  expect(binding.status).toBe(201)
})

afterAll(async () => {
  for (const f of fronts) {
    f.closeAllConnections()
    await new Promise((r) => f.close(r))
  }
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** An HTTP server that answers the paths under `path` with `answer` and passes everything else to the target. */
const front = (path: string, answer: (res: import("node:http").ServerResponse, url: URL) => void): Promise<string> =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x")
      if (url.pathname.startsWith(path)) return answer(res, url)
      const upstream = new URL(target)
      const out = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      })
      req.pipe(out)
    })
    fronts.push(server)
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`))
  })

const scenario = join(dir, "s.yaml")
writeFileSync(
  scenario,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: server-side }
setup:
  namespaces: [ss]
  objects: [{ name: cms, resource: configmaps, namespace: ss, count: 3 }]
phases:
  - name: steady
    duration: 400ms
    actions:
      - { type: constant-arrival-rate, name: list, rate: 25, request: { verb: list, resource: configmaps, namespace: ss } }
`
)

const twoPhases = join(dir, "two-phases.yaml")
writeFileSync(
  twoPhases,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: server-side-two-phases }
setup:
  namespaces: [ss2]
phases:
  - name: short
    duration: 400ms
    actions:
      - { type: constant-arrival-rate, name: list-short, rate: 10, request: { verb: list, resource: configmaps, namespace: ss2 } }
  - name: long
    duration: 2500ms
    actions:
      - { type: constant-arrival-rate, name: list, rate: 10, request: { verb: list, resource: configmaps, namespace: ss2 } }
`
)

const run = async (url: string, token: string, serverSide: ServerSideFlags, name: string, file = scenario) => {
  const out: Array<string> = []
  const err: Array<string> = []
  const outDir = join(dir, name)
  const r = await Effect.runPromise(
    runCommand({
      file,
      target: { _tag: "url", options: { baseUrl: url, token } },
      outDir,
      workers: 1,
      serverSide,
      tty: false,
      stdout: (s) => void out.push(s),
      stderr: (s) => void err.push(s)
    })
  )
  const artifact = JSON.parse(readFileSync(join(outDir, "run.json"), "utf8")) as RunArtifact
  const html = readFileSync(join(outDir, "report.html"), "utf8")
  return { code: r.exitCode, out: out.join(""), err: err.join(""), artifact, html }
}

const clientLists = (a: RunArtifact) => a.series.find((s) => s.key.operation === "LIST" && s.key.phase === "steady")!

describe("run reads a real target's server-side latency", () => {
  it("from its /metrics with the run's token: per verb, resource and scope, beside the client's figures", async () => {
    const r = await run(target, root, { timeoutMs: 5_000 }, "direct")
    expect(r.code).toBe(0)
    expect(r.err).not.toContain("warning")
    const server = r.artifact.server!
    expect(server).toMatchObject({ source: "metrics", url: `${target}/metrics`, metric: "apiserver_request_sli_duration_seconds" })
    expect(server.absent).toBeUndefined()
    expect(server.phases.map((p) => p.phase)).toEqual(["steady"])
    const calls = server.phases[0]!.calls
    // the phase's LISTs only: the setup's creates were before its first reading
    expect(calls.map((c) => [c.verb, c.resource, c.scope])).toEqual([["LIST", "configmaps", "namespace"]])
    const list = calls[0]!
    expect(list.count).toBe(clientLists(r.artifact).count)
    expect(list.buckets.bounds[0]).toBe(0.05)
    // loopback LISTs of three objects: every one in the first bucket, (0, 50ms]
    expect(list.p99).toEqual({ ms: 50 * 0.99, bucketMs: [0, 50] })
    expect(r.out).toContain(`server-side (apiserver_request_sli_duration_seconds from ${target}/metrics, read before and after each phase):`)
    expect(r.out).toMatch(/steady {2}LIST configmaps namespace +\d+ +25ms +45ms +49\.5ms +\(0, 50ms\] +\S+/)
    expect(r.out).toContain("server quantiles come from the histogram's buckets (histogram_quantile: linear interpolation within the bucket holding the rank)")
    expect(r.html).toContain('<section id="server-side"><h2>Server side</h2>')
    expect(r.html).toContain("<td>LIST configmaps namespace</td>")
  }, 60_000)

  it("from a Prometheus: the increase of the buckets over the phase's window", async () => {
    const queries: Array<URLSearchParams> = []
    const prometheus = await front("/api/v1/query", (res, url) => {
      queries.push(url.searchParams)
      const query = url.searchParams.get("query") ?? ""
      const labels = { verb: "LIST", resource: "configmaps", subresource: "", scope: "namespace" }
      const result = query.includes("_bucket")
        ? [
            { metric: { ...labels, le: "0.05" }, value: [0, "7.5"] },
            { metric: { ...labels, le: "0.1" }, value: [0, "10"] },
            { metric: { ...labels, le: "+Inf" }, value: [0, "10"] }
          ]
        : [{ metric: labels, value: [0, "0.4"] }]
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ status: "success", data: { resultType: "vector", result } }))
    })
    const r = await run(target, root, { timeoutMs: 5_000, prometheus }, "prometheus")
    expect(r.code).toBe(0)
    expect(r.artifact.server).toMatchObject({ source: "prometheus", url: prometheus, metric: "apiserver_request_sli_duration_seconds" })
    const list = r.artifact.server!.phases[0]!.calls[0]!
    expect(list).toMatchObject({ verb: "LIST", count: 10, p50: { bucketMs: [0, 50] } })
    // p50: rank 5 of the first bucket's 7.5
    expect(list.p50!.ms).toBeCloseTo(50 * (5 / 7.5), 9)
    // p99: rank 9.9, the second bucket holds 7.5–10 → 50 + 50 × 2.4 / 2.5
    expect(list.p99!.ms).toBeCloseTo(98, 9)
    const window = Math.round((Date.parse(r.artifact.server!.phases[0]!.endedAt) - Date.parse(r.artifact.server!.phases[0]!.startedAt)) / 1000)
    expect(queries.map((q) => q.get("query"))).toEqual([
      `sum by (le, verb, resource, subresource, scope) (increase(apiserver_request_sli_duration_seconds_bucket[${Math.max(1, window)}s]))`,
      `sum by (verb, resource, subresource, scope) (increase(apiserver_request_sli_duration_seconds_sum[${Math.max(1, window)}s]))`
    ])
    expect(Number(queries[0]!.get("time")) * 1000).toBeCloseTo(Date.parse(r.artifact.server!.phases[0]!.endedAt), -1)
    expect(r.out).toContain(`server-side (apiserver_request_sli_duration_seconds from Prometheus ${prometheus}, the increase over each phase):`)
  }, 60_000)
})

/** A Prometheus' increase over a window: none in a 1 s one (one scrape or none in it), 25 fast LISTs in a longer one. */
const increaseOver2s = (query: string) => {
  const labels = { verb: "LIST", resource: "configmaps", subresource: "", scope: "namespace" }
  if (query.includes("[1s]")) return []
  return query.includes("_bucket")
    ? [{ metric: { ...labels, le: "0.05" }, value: [0, "25"] }, { metric: { ...labels, le: "+Inf" }, value: [0, "25"] }]
    : [{ metric: labels, value: [0, "0.25"] }]
}

describe("a phase too short for Prometheus' scrapes", () => {
  it("goes without figures, said for that phase with the target's scrape interval; the other phases keep theirs", async () => {
    const queries: Array<string> = []
    const apiserver = { job: "apiserver", instance: "10.0.0.1:443" }
    const prometheus = await front("/api/v1/", (res, url) => {
      res.writeHead(200, { "content-type": "application/json" })
      if (url.pathname === "/api/v1/targets") {
        queries.push(`targets ${url.searchParams.get("state")}`)
        const activeTargets = [
          { labels: { job: "node", instance: "10.0.0.2:9100" }, scrapeInterval: "1m" },
          { labels: apiserver, scrapeInterval: "1s" }
        ]
        return res.end(JSON.stringify({ status: "success", data: { activeTargets } }))
      }
      const query = url.searchParams.get("query") ?? ""
      queries.push(query)
      // the family is scraped all the same
      const result = query.startsWith("count by (job, instance)") ? [{ metric: apiserver, value: [0, "40"] }] : increaseOver2s(query)
      res.end(JSON.stringify({ status: "success", data: { resultType: "vector", result } }))
    })
    const r = await run(target, root, { timeoutMs: 5_000, prometheus }, "prom-short-phase", twoPhases)
    expect(r.code).toBe(0)
    const [short, long] = r.artifact.server!.phases
    const note = "its window of 1s is shorter than two of the target's scrape intervals in Prometheus (1s each), and increase() needs two samples in the window: a phase of at least 2s is read"
    expect(r.artifact.server!.absent).toBeUndefined()
    expect(short).toMatchObject({ phase: "short", calls: [], unread: note })
    expect(long!.phase).toBe("long")
    expect(long!.unread).toBeUndefined()
    expect(long!.calls[0]).toMatchObject({ verb: "LIST", resource: "configmaps", count: 25 })
    expect(r.err.split("\n").filter((l) => l.includes("warning"))).toEqual([`clustersim: warning: no server-side figures for phase short: ${note}`])
    // the short phase's SLI increase, then why: the family is scraped, every 1 s
    expect(queries.slice(0, 6)).toEqual([
      "sum by (le, verb, resource, subresource, scope) (increase(apiserver_request_sli_duration_seconds_bucket[1s]))",
      "sum by (verb, resource, subresource, scope) (increase(apiserver_request_sli_duration_seconds_sum[1s]))",
      "sum by (le, verb, resource, subresource, scope) (increase(apiserver_request_duration_seconds_bucket[1s]))",
      "sum by (verb, resource, subresource, scope) (increase(apiserver_request_duration_seconds_sum[1s]))",
      "count by (job, instance) (apiserver_request_sli_duration_seconds_count)",
      "targets active"
    ])
    expect(r.out).toContain(`  phase short: not read — ${note}\n`)
    expect(r.out).toMatch(/\n {2}long +LIST configmaps/)
    expect(r.html).toContain("<p class=\"fail\">Phase short not read: its window of 1s is shorter than two of the target&#39;s scrape intervals")
  }, 60_000)
})

describe("a new server's first phase, before Prometheus has its histograms' series", () => {
  it("goes without figures, said once a later phase finds the series; the later phase keeps its figures", async () => {
    let counts = 0
    const prometheus = await front("/api/v1/", (res, url) => {
      res.writeHead(200, { "content-type": "application/json" })
      const query = url.searchParams.get("query") ?? ""
      // at the short phase's end neither family has a series yet (the server's first requests are not scraped)
      const result = query.startsWith("count by (job, instance)") ? (counts++, []) : increaseOver2s(query)
      res.end(JSON.stringify({ status: "success", data: { resultType: "vector", result } }))
    })
    const r = await run(target, root, { timeoutMs: 5_000, prometheus }, "prom-new-server", twoPhases)
    expect(r.code).toBe(0)
    expect(counts).toBe(2)
    const note = `Prometheus ${prometheus} had no apiserver_request_sli_duration_seconds or apiserver_request_duration_seconds series yet at its end: a new server's histograms have none before its first requests, and Prometheus sees them at its next scrape`
    const [short, long] = r.artifact.server!.phases
    expect(r.artifact.server!.absent).toBeUndefined()
    expect(short).toMatchObject({ phase: "short", calls: [], unread: note })
    expect(long!.calls[0]).toMatchObject({ verb: "LIST", count: 25 })
    expect(r.err.split("\n").filter((l) => l.includes("warning"))).toEqual([`clustersim: warning: no server-side figures for phase short: ${note}`])
  }, 60_000)
})

/** The run completed, measured its client side, warned once, and its reports say the server side is absent. */
const expectAbsent = (r: Awaited<ReturnType<typeof run>>, reason: string, source: "metrics" | "prometheus" = "metrics") => {
  expect(r.code).toBe(0)
  expect(clientLists(r.artifact).count).toBeGreaterThan(0)
  const warnings = r.err.split("\n").filter((l) => l.includes("warning"))
  expect(warnings).toEqual([`clustersim: warning: no server-side figures: ${reason}; the client side is measured as usual`])
  expect(r.artifact.server).toEqual({
    source,
    url: source === "metrics" ? expect.stringMatching(/\/metrics$/) : expect.stringMatching(/^http:/),
    method: "histogram_quantile: linear interpolation within the bucket holding the rank (Prometheus promql/quantile.go)",
    phases: [],
    absent: reason
  })
  expect(r.out).toContain(`server-side figures: absent — ${reason}\n`)
  expect(r.html).toContain(`Server-side figures absent: ${reason.replace(/"/g, "&quot;").replace(/'/g, "&#39;")}. The client-side figures above are measured as usual.`)
}

describe("a target whose /metrics cannot be read: the run completes, says why once, reports the server side absent", () => {
  it("10 MiB of garbage", async () => {
    const garbage = Buffer.alloc(10 * 1024 * 1024, "\u0007not a metric{{{\n")
    const url = await front("/metrics", (res) => {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" })
      res.end(garbage)
    })
    const r = await run(url, root, { timeoutMs: 5_000 }, "garbage")
    expectAbsent(r, `GET ${url}/metrics: malformed exposition at line 1: expected a metric name, got "\\u0007not a metric{{{"`)
  }, 60_000)

  it("an answer slower than the bound (30 s against --server-metrics-timeout 300ms)", async () => {
    const url = await front("/metrics", (res) => {
      const t = setTimeout(() => res.end("up 1\n"), 30_000)
      res.on("close", () => clearTimeout(t))
    })
    const started = Date.now()
    const r = await run(url, root, { timeoutMs: 300 }, "slow")
    expectAbsent(r, `GET ${url}/metrics did not answer within 300ms`)
    // one reading timed out and none was tried after it: the run did not wait out the 30 s
    expect(Date.now() - started).toBeLessThan(20_000)
  }, 60_000)

  it("no /metrics at all (404)", async () => {
    const url = await front("/metrics", (res) => {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" })
      res.end("404 page not found\n")
    })
    const r = await run(url, root, { timeoutMs: 5_000 }, "missing")
    expectAbsent(r, `GET ${url}/metrics answered 404: 404 page not found`)
  }, 60_000)

  it("a Prometheus that refuses the query, or has no such series", async () => {
    const refusing = await front("/api/v1/query", (res) => {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(JSON.stringify({ status: "error", errorType: "bad_data", error: "invalid parameter \"query\"" }))
    })
    const refused = await run(target, root, { timeoutMs: 5_000, prometheus: refusing }, "prom-refusing")
    // the window is the phase's length in whole seconds: 1 s, or more on a busy machine
    const window = /\[(\d+s)\]/.exec(refused.err)?.[1]
    expect(window).toMatch(/^\d+s$/)
    expectAbsent(
      refused,
      `Prometheus ${refusing} answered 400 to the query sum by (le, verb, resource, subresource, scope) (increase(apiserver_request_sli_duration_seconds_bucket[${window}])): invalid parameter "query"`,
      "prometheus"
    )
    const empty = await front("/api/v1/query", (res) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ status: "success", data: { resultType: "vector", result: [] } }))
    })
    const none = await run(target, root, { timeoutMs: 5_000, prometheus: empty }, "prom-empty")
    expectAbsent(
      none,
      `Prometheus ${empty} has no apiserver_request_sli_duration_seconds or apiserver_request_duration_seconds series over phase steady (does it scrape the target's API server?)`,
      "prometheus"
    )
  }, 60_000)

  it("a 403 from the target's own RBAC: the run's user may not read /metrics", async () => {
    const r = await run(target, loader, { timeoutMs: 5_000 }, "forbidden")
    expectAbsent(r, `GET ${target}/metrics answered 403: forbidden: User "loader" cannot get path "/metrics"`)
  }, 60_000)
})

describe("compare reads each target's server-side latency", () => {
  it("puts the sides' figures side by side, and says which side has none and why", async () => {
    const garbage = await front("/metrics", (res) => {
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("<html>sign in</html>\n")
    })
    const out: Array<string> = []
    const err: Array<string> = []
    const r = await Effect.runPromise(
      compareCommand({
        scenario,
        targets: [
          { _tag: "url", options: { baseUrl: target, token: root } },
          { _tag: "url", options: { baseUrl: garbage, token: root } }
        ],
        serverSide: [{ timeoutMs: 5_000 }, { timeoutMs: 5_000 }],
        rounds: 1,
        warmupRounds: 0,
        outDir: join(dir, "compare"),
        stdout: (x) => void out.push(x),
        stderr: (x) => void err.push(x)
      })
    )
    expect(r.exitCode).toBe(0)
    const server = r.comparison!.pairs[0]!.server!
    expect(server.metric).toBe("apiserver_request_sli_duration_seconds")
    expect(server.otherAbsent).toBe(`GET ${garbage}/metrics: malformed exposition at line 1: expected a metric name, got "<html>sign in</html>"`)
    expect(server.calls.map((c) => [c.phase, c.call, c.baseline?.count !== undefined, c.other])).toEqual([["steady", "LIST configmaps namespace", true, undefined]])
    const text = out.join("")
    expect(text).toContain("  server side (apiserver_request_sli_duration_seconds):\n")
    expect(text).toContain(`    B: server-side figures absent — GET ${garbage}/metrics: malformed exposition at line 1`)
    expect(text).toMatch(/ {4}steady LIST configmaps namespace\n {6}A +\d+ +25ms +45ms +49\.5ms +\(0, 50ms\]\n {6}B +0 +- +- +- +-\n/)
    // one warning: B's first round
    expect(err.join("").split("\n").filter((l) => l.includes("warning"))).toHaveLength(1)
  }, 60_000)
})
