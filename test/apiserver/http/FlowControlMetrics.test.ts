/**
 * API Priority and Fairness on the HTTP server and its metrics (issue 38): `apiserver_flowcontrol_*` in kube-apiserver
 * 1.26's names, labels and buckets, fed by the filter's real decisions (a request past its level's seats waits in a
 * queue, then is answered 429 after the wait limit; a free seat goes to the flow fair queuing picks, not to the oldest
 * request), and `etcd_request_duration_seconds` for the store's operations;
 * `metrics: false` instruments nothing and serves no `/metrics`.
 */
import { connect, type Socket } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { httpServer } from "../../support/transports.js"
import { send, type Reply } from "../../support/wire.js"

const json = { "content-type": "application/json" }
const cms = "/api/v1/namespaces/default/configmaps"

const samples = (text: string, name: string, labels: Record<string, string> = {}): ReadonlyArray<string> =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
const value = (line: string | undefined) => Number(line?.slice(line.lastIndexOf(" ") + 1))

/** A POST whose body never completes: it executes (reading its body) until the socket closes. */
const stalledPost = (base: string, token: string): Promise<Socket> =>
  new Promise((resolve) => {
    const url = new URL(base)
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`POST ${cms} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":`)
      resolve(socket)
    })
    socket.on("error", () => {})
  })

describe("API Priority and Fairness metrics", () => {
  it.scoped("dispatched, executing, wait and execution durations, seats; the store's operations as etcd requests", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      expect((yield* send(base, "POST", cms, { body: JSON.stringify({ metadata: { name: "a" } }), headers: json })).code).toBe(201)
      expect((yield* send(base, "GET", `${cms}/a`)).code).toBe(200)
      expect((yield* send(base, "GET", cms)).code).toBe(200)
      expect((yield* send(base, "DELETE", `${cms}/a`)).code).toBe(200)
      const text = (yield* send(base, "GET", "/metrics")).text
      // anonymous requests (system:unauthenticated) are global-default's
      const gd = { priority_level: "global-default", flow_schema: "global-default" }
      // four requests and the scrape itself, which is executing while it is written
      expect(value(samples(text, "apiserver_flowcontrol_dispatched_requests_total", gd)[0])).toBe(5)
      expect(value(samples(text, "apiserver_flowcontrol_current_executing_requests", gd)[0])).toBe(1)
      expect(value(samples(text, "apiserver_flowcontrol_request_execution_seconds_count", { ...gd, type: "regular" })[0])).toBe(4)
      expect(value(samples(text, "apiserver_flowcontrol_request_wait_duration_seconds_count", { ...gd, execute: "true" })[0])).toBe(5)
      expect(samples(text, "apiserver_flowcontrol_request_wait_duration_seconds_bucket", gd).map((l) => /le="([^"]+)"/.exec(l)![1])).toEqual(
        ["0", "0.005", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "30", "+Inf"]
      )
      expect(samples(text, "apiserver_flowcontrol_nominal_limit_seats")).toEqual([
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="system"} 74',
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="node-high"} 98',
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="leader-election"} 25',
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-high"} 98',
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 245',
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="global-default"} 49',
        'apiserver_flowcontrol_nominal_limit_seats{priority_level="catch-all"} 13'
      ])
      expect(value(samples(text, "apiserver_flowcontrol_request_concurrency_limit", { priority_level: "global-default" })[0])).toBe(49)
      expect(text).toContain("# TYPE apiserver_flowcontrol_rejected_requests_total counter\n")
      expect(text).toContain("# TYPE apiserver_flowcontrol_current_inqueue_requests gauge\n")
      // the storage step: the create's write, the GET's read, the LIST's page, the delete
      const etcd = (operation: string, type: string) => value(samples(text, "etcd_request_duration_seconds_count", { operation, type })[0])
      expect(etcd("create", "*core.ConfigMap")).toBe(1)
      expect(etcd("get", "*core.ConfigMap")).toBeGreaterThanOrEqual(1)
      expect(etcd("list", "*core.ConfigMapList")).toBe(1)
      expect(etcd("delete", "*core.ConfigMap")).toBe(1)
      expect(samples(text, "etcd_request_duration_seconds_bucket", { operation: "create" })[0]).toContain('le="0.005"')
    })
  )

  it.scoped("a request past its level's seats waits in a queue, then gets upstream's 429 after the 15 s wait limit", () =>
    Effect.gen(function* () {
      const tokens = new Map([
        ["tok-alice", { name: "alice", uid: "1", groups: [] as string[] }],
        ["tok-admin", { name: "admin", uid: "2", groups: ["system:masters"] }]
      ])
      const base = yield* httpServer({ authentication: { anonymous: false, tokens } })
      // alice is global-default's: 49 seats, each held by a POST still reading its body
      const stalled = yield* Effect.promise(() => Promise.all(Array.from({ length: 49 }, () => stalledPost(base, "tok-alice"))))
      yield* Effect.addFinalizer(() => Effect.sync(() => stalled.forEach((s) => s.destroy())))
      const admin = { headers: { authorization: "Bearer tok-admin" } }
      const scrape = () => Effect.map(send(base, "GET", "/metrics", admin), (r) => r.text)
      const gd = { priority_level: "global-default", flow_schema: "global-default" }
      // wait until all 49 execute (their headers are in)
      let executing = 0
      for (let i = 0; i < 500 && executing < 49; i++) {
        executing = value(samples(yield* scrape(), "apiserver_flowcontrol_current_executing_requests", gd)[0])
        if (executing < 49) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
      }
      expect(executing).toBe(49)
      const queued = yield* Effect.fork(send(base, "GET", cms, { headers: { authorization: "Bearer tok-alice" } }))
      // one with a deadline of its own (`?timeout=5s`, docs/limits.md): its wait ends there, with the timeout's 504
      const hurried = yield* Effect.fork(send(base, "GET", `${cms}?timeout=5s`, { headers: { authorization: "Bearer tok-alice" } }))
      let inqueue = 0
      for (let i = 0; i < 500 && !(inqueue >= 2); i++) {
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
        inqueue = value(samples(yield* scrape(), "apiserver_flowcontrol_current_inqueue_requests", gd)[0])
      }
      expect(inqueue).toBe(2)
      // the exempt admin is not held up meanwhile
      expect((yield* send(base, "GET", cms, admin)).code).toBe(200)
      yield* TestClock.adjust("5 seconds")
      const timedOut = yield* hurried.await.pipe(Effect.flatten)
      expect([timedOut.code, timedOut.json]).toEqual([
        504,
        { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Timeout: request did not complete within requested timeout - context deadline exceeded", reason: "Timeout", details: {}, code: 504 }
      ])
      const cut = yield* scrape()
      expect(value(samples(cut, "apiserver_flowcontrol_rejected_requests_total", { ...gd, reason: "cancelled" })[0])).toBe(1)
      expect(value(samples(cut, "apiserver_request_terminations_total", { verb: "LIST", resource: "configmaps", code: "504" })[0])).toBe(1)
      expect(value(samples(cut, "apiserver_flowcontrol_current_inqueue_requests", gd)[0])).toBe(1)
      yield* TestClock.adjust("10 seconds")
      const answer = yield* queued.await.pipe(Effect.flatten)
      expect(answer.code).toBe(429)
      expect(answer.headers["retry-after"]).toBe("1")
      expect(answer.json).toMatchObject({ kind: "Status", reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } })
      const after = yield* scrape()
      expect(value(samples(after, "apiserver_flowcontrol_rejected_requests_total", { ...gd, reason: "time-out" })[0])).toBe(1)
      expect(value(samples(after, "apiserver_flowcontrol_current_inqueue_requests", gd)[0])).toBe(0)
      expect(value(samples(after, "apiserver_flowcontrol_request_wait_duration_seconds_bucket", { ...gd, execute: "false", le: "30" })[0])).toBe(2)
      expect(value(samples(after, "apiserver_request_total", { verb: "LIST", resource: "configmaps", code: "429" })[0])).toBe(1)
      // the stalled writers go away: their seats free, alice is served again
      stalled.forEach((s) => s.destroy())
      let code = 0
      for (let i = 0; i < 100 && code !== 200; i++) {
        code = (yield* send(base, "GET", cms, { headers: { authorization: "Bearer tok-alice" } })).code
        if (code !== 200) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
      }
      expect(code).toBe(200)
    })
  )

  it.scoped("one flow's backlog does not hold back another flow of its level: alice runs at the next free seat", () =>
    Effect.gen(function* () {
      const tokens = new Map([
        ["tok-alice", { name: "alice", uid: "1", groups: [] as string[] }],
        ["tok-mallory", { name: "mallory", uid: "2", groups: [] as string[] }],
        ["tok-admin", { name: "admin", uid: "3", groups: ["system:masters"] }]
      ])
      const base = yield* httpServer({ authentication: { anonymous: false, tokens } })
      const admin = { headers: { authorization: "Bearer tok-admin" } }
      const gd = { priority_level: "global-default", flow_schema: "global-default" }
      const gauges = () =>
        Effect.map(send(base, "GET", "/metrics", admin), (r) =>
          // a series not yet set (nothing queued so far) is 0
          ["executing", "inqueue"].map((g) => value(samples(r.text, `apiserver_flowcontrol_current_${g}_requests`, gd)[0]) || 0)
        )
      const until = (executing: number, inqueue: number) =>
        Effect.gen(function* () {
          let now = yield* gauges()
          for (let i = 0; i < 500 && !(now[0] === executing && now[1] === inqueue); i++) {
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
            now = yield* gauges()
          }
          expect(now).toEqual([executing, inqueue])
        })
      // mallory's POSTs whose bodies never complete: 49 hold global-default's seats, 60 more wait in her hand's queues
      const stalled = yield* Effect.promise(() => Promise.all(Array.from({ length: 49 }, () => stalledPost(base, "tok-mallory"))))
      yield* Effect.addFinalizer(() => Effect.sync(() => stalled.forEach((s) => s.destroy())))
      yield* until(49, 0)
      stalled.push(...(yield* Effect.promise(() => Promise.all(Array.from({ length: 60 }, () => stalledPost(base, "tok-mallory"))))))
      yield* until(49, 60)
      const alice = yield* Effect.fork(send(base, "GET", cms, { headers: { authorization: "Bearer tok-alice" } }))
      yield* until(49, 61)
      // 3 s later one of mallory's running POSTs goes away. Her queues are charged the 3 s only as their requests end
      // (upstream's queueset), alice's queue starts at R ≈ 0 and her request finishes first in virtual time: the seat
      // is hers. In arrival order it went to mallory's oldest waiting POST, and alice waited for 60 ends.
      yield* TestClock.adjust("3 seconds")
      stalled[0]!.destroy()
      let answer: Reply | undefined
      for (let i = 0; i < 250 && answer === undefined; i++) {
        const polled = yield* alice.poll
        if (Option.isSome(polled)) answer = yield* polled.value
        else yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
      }
      expect(answer?.code).toBe(200)
      // alice's seat went to mallory's next POST when she was answered
      yield* until(49, 59)
    })
  )

  it.scoped("metrics: false instruments nothing: no /metrics (404), the store untimed; requests are answered as before", () =>
    Effect.gen(function* () {
      const base = yield* Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false, metrics: false }), (s) => s.url).pipe(Effect.provide(ApiServer.layer({})))
      expect((yield* send(base, "POST", cms, { body: JSON.stringify({ metadata: { name: "a" } }), headers: json })).code).toBe(201)
      expect((yield* send(base, "GET", `${cms}/a`)).code).toBe(200)
      const scrape = yield* send(base, "GET", "/metrics")
      expect(scrape.code).toBe(404)
      expect(scrape.text).toBe("404 page not found\n")
    })
  )
})
