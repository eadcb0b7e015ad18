import { Effect } from "effect"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { runCommand } from "../../app/cli/run.js"
import type { TargetFlag } from "../../app/cli/target.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { defaultErrorThreshold, outcomeChecks } from "../../app/scenario/Outcome.js"
import { answeringServer, closedPort, versionOnlyServer } from "../support/unreachable.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-outcome-"))
let n = 0
const file = (text: string): string => {
  const f = join(dir, `s${n++}.yaml`)
  writeFileSync(f, text)
  return f
}

const run = (f: string, target: TargetFlag) => {
  const stdout: Array<string> = []
  const outDir = join(dir, `out${n++}`)
  return Effect.runPromise(runCommand({ file: f, target, outDir, tty: false, stdout: (s) => void stdout.push(s), stderr: () => {} })).then((r) => ({
    ...r,
    stdout: stdout.join(""),
    artifact: JSON.parse(readFileSync(join(outDir, "run.json"), "utf8")) as RunArtifact
  }))
}


const missing = (extra = "") => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: missing }
setup:
  namespaces: [m]
  objects:
    - { name: cms, resource: configmaps, namespace: m, count: 3 }
phases:
  - name: p
    duration: 1s
    actions:
      - { type: closed, name: found, workers: 1, iterations: 3, request: { verb: get, objects: cms } }
      - { type: closed, name: absent, workers: 1, iterations: 6, request: { verb: get, resource: configmaps, namespace: m, name: nope } }
${extra}`

describe("honest outcomes", () => {
  it("6 of 9 requests answering 404 fail the run (exit 99) through the default error-rate threshold", async () => {
    const r = await run(file(missing()), { _tag: "embedded" })
    expect(r.exitCode).toBe(99)
    const t = r.artifact.thresholds.find((x) => x.threshold === "outcome:error-rate" && x.group.metric === "api_call")!
    expect(t.observed).toBeCloseTo(6 / 9, 5)
    expect(t.passed).toBe(false)
    expect(r.stdout).toContain("✗ outcome:error-rate [metric=api_call]: rate <= 0.1 (observed 0.667)")
    expect(r.stdout).toContain("FAIL: thresholds breached (exit 99)")
    // an answered 404 is a latency sample: the server did answer
    const absent = r.artifact.series.find((s) => s.key.name === "absent")!
    expect(absent).toMatchObject({ count: 6, errors: 6, connectionErrors: 0 })
    expect(absent.latency.count).toBe(6)
  }, 30_000)

  it("the scenario may opt out: outcome.maxErrorRate: 1 passes the same run", async () => {
    const r = await run(file(missing("outcome: { maxErrorRate: 1 }")), { _tag: "embedded" })
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain("✓ outcome:error-rate [metric=api_call]: rate <= 1 (observed 0.667)")
  }, 30_000)

  it("a target nobody listens on ends the run before it starts: exit 1, `connection refused: URL`, no artifact", async () => {
    const port = await closedPort()
    const f = file(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: unreachable }
phases:
  - name: p
    duration: 1m
    actions:
      - { type: constant-arrival-rate, name: get, rate: 20, request: { verb: get, resource: configmaps, namespace: default, name: x } }
`)
    const stderr: Array<string> = []
    const outDir = join(dir, `out${n++}`)
    const r = await Effect.runPromise(
      runCommand({ file: f, target: { _tag: "url", options: { baseUrl: `http://127.0.0.1:${port}` } }, outDir, tty: false, stdout: () => {}, stderr: (s) => void stderr.push(s) })
    )
    expect(r.exitCode).toBe(1)
    expect(stderr.join("")).toBe(`clustersim: cannot reach the target: connection refused: http://127.0.0.1:${port}\n`)
    expect(existsSync(join(outDir, "run.json"))).toBe(false)
  })

  it("a target that stops answering: connection errors are errors, never latency samples, said as what they are (no 503); an unsynced informer is reported", async () => {
    const server = await versionOnlyServer()
    const f = file(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: unreachable }
phases:
  - name: p
    duration: 1s
    actions:
      - { type: constant-arrival-rate, name: get, rate: 20, request: { verb: get, resource: configmaps, namespace: default, name: x } }
      - { type: informers, name: inf, resource: configmaps, count: 2 }
`)
    const r = await run(f, { _tag: "url", options: { baseUrl: server.url } }).finally(server.close)
    expect(r.exitCode).toBe(99)
    const get = r.artifact.series.find((s) => s.key.name === "get")!
    expect(get.key).toMatchObject({ metric: "api_call", operation: "GET", phase: "p", name: "get" })
    expect(get.count).toBeGreaterThanOrEqual(15)
    expect(get.connectionErrors).toBe(get.count)
    expect(get.errors).toBe(get.count)
    expect(get.latency.count).toBe(0)
    const inf = r.artifact.actions.find((a) => a.action === "inf")!.informers!
    expect(inf.listFailures).toBeGreaterThanOrEqual(2)
    const messages = new Map(r.artifact.errors.messages.map((m) => [m.message, m.count]))
    expect([...messages.keys()].sort()).toEqual([`inf: connection closed (other side closed): ${server.url}`, `p-get: connection closed (other side closed): ${server.url}`])
    expect(messages.get(`p-get: connection closed (other side closed): ${server.url}`)).toBe(get.count)
    // a LIST may still fail between the action's report and the informers' stop
    expect(messages.get(`inf: connection closed (other side closed): ${server.url}`)).toBeGreaterThanOrEqual(inf.listFailures)
    expect(r.artifact.errors.total).toBe(get.count + messages.get(`inf: connection closed (other side closed): ${server.url}`)!)
    const failed = r.artifact.thresholds.filter((t) => !t.passed).map((t) => `${t.threshold} ${t.condition} ${t.observed}`)
    expect(failed).toEqual([
      "outcome:error-rate rate <= 0.1 1",
      "outcome:informers-synced synced == 2 0",
      // the informers' LISTs, none answered
      "outcome:error-rate rate <= 0.1 1",
      "outcome:any-success successful requests > 0 0"
    ])
    expect(r.stdout).toContain("✗ outcome:informers-synced [phase=p,name=inf]: synced == 2 (observed 0)")
  }, 30_000)
})

/**
 * A target whose credential may list config maps but neither list nor watch nodes: upstream's RBAC answer for a
 * service account bound to `view` (which grants no nodes), `nodes is forbidden: … cannot list resource "nodes" …`.
 */
const nodesForbidden = () =>
  answeringServer((req) => {
    const url = new URL(req.url ?? "/", "http://x")
    if (url.pathname === "/version") return { status: 200, body: { major: "1", minor: "26", gitVersion: "v1.26.15" } }
    if (url.pathname === "/api") return { status: 200, body: { kind: "APIVersions", versions: ["v1"] } }
    if (url.pathname === "/api/v1/namespaces/default/configmaps")
      return { status: 200, body: { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "7" }, items: [] } }
    const verb = url.searchParams.get("watch") === "true" ? "watch" : "list"
    if (url.pathname === "/api/v1/nodes")
      return {
        status: 403,
        body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Forbidden", code: 403, details: { kind: "nodes" },
          message: `nodes is forbidden: User "system:serviceaccount:default:bot" cannot ${verb} resource "nodes" in API group "" at the cluster scope` }
      }
    return { status: 404, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "NotFound", code: 404, message: "the server could not find the requested resource" } }
  })

describe("failed watches and informer LISTs count as failed requests", () => {
  const scenario = (actions: string, extra = "") => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: watchfail }
phases:
  - name: p
    duration: 2s
    actions:
${actions}
      - { type: constant-arrival-rate, name: lists, rate: 20, request: { verb: list, resource: configmaps, namespace: default } }
${extra}`

  it.live("watchers whose every request is 403 fail the run (exit 99), although every other request succeeded", () =>
    Effect.gen(function* () {
      const server = yield* nodesForbidden()
      const r = yield* Effect.promise(() => run(file(scenario("      - { type: watch, name: watchers, resource: nodes, count: 3 }")), { _tag: "url", options: { baseUrl: server.url } }))
      expect(r.exitCode).toBe(99)
      expect(r.artifact.thresholds.find((t) => t.group.metric === "api_call")).toMatchObject({ threshold: "outcome:error-rate", observed: 0, passed: true })
      const watchers = r.artifact.actions.find((a) => a.action === "watchers")!
      expect(watchers.counts?.failedRequests).toBeGreaterThanOrEqual(3)
      expect(watchers.counts?.requests).toBe(watchers.counts?.failedRequests)
      expect(r.artifact.errors.total).toBe(watchers.counts?.failedRequests)
      expect(r.artifact.thresholds.find((t) => t.group.name === "watchers")).toMatchObject({ threshold: "outcome:error-rate", condition: "rate <= 0.1", observed: 1, passed: false })
      expect(r.stdout).toContain("✗ outcome:error-rate [phase=p,name=watchers]: rate <= 0.1 (observed 1)")
      expect(r.stdout).toContain("FAIL: thresholds breached (exit 99)")
      // a scenario that judges errors itself has no such row, and its artifact no counts of them (as before they were counted)
      const own = yield* Effect.promise(() =>
        run(file(scenario("      - { type: watch, name: watchers, resource: nodes, count: 3 }", 'thresholds: { "errors{metric:api_call}": ["rate < 0.5"] }')), { _tag: "url", options: { baseUrl: server.url } })
      )
      expect(own.exitCode).toBe(0)
      expect(own.artifact.thresholds.map((t) => t.threshold)).toEqual(["errors{metric:api_call}", "outcome:any-success"])
      expect(own.artifact.actions.find((a) => a.action === "watchers")!.counts).not.toHaveProperty("failedRequests")
    }).pipe(Effect.scoped),
    30_000
  )

  it.live("informers whose every LIST is 403 fail the error rate too; outcome.maxErrorRate: 1 is the opt-out", () =>
    Effect.gen(function* () {
      const server = yield* nodesForbidden()
      const actions = "      - { type: informers, name: infs, resource: nodes, count: 2 }"
      const target = { _tag: "url", options: { baseUrl: server.url } } as const
      const r = yield* Effect.promise(() => run(file(scenario(actions)), target))
      expect(r.exitCode).toBe(99)
      const infs = r.artifact.actions.find((a) => a.action === "infs")!.informers!
      expect(infs.failedRequests).toBe(infs.listFailures)
      expect(infs.requests).toBe(infs.listFailures)
      // they are the run's errors too: the total and the summary's messages name them (a LIST may still fail between
      // the action's report at the phase's end and the informers' stop, so the total may hold one more)
      expect(r.artifact.errors.messages).toEqual([{ message: expect.stringMatching(/^infs: 403 Forbidden: /), count: r.artifact.errors.total }])
      expect(r.artifact.errors.total).toBeGreaterThanOrEqual(infs.listFailures)
      expect(r.artifact.errors.total).toBeLessThanOrEqual(infs.listFailures + 2)
      expect(r.artifact.thresholds.find((t) => t.group.name === "infs" && t.threshold === "outcome:error-rate")).toMatchObject({ observed: 1, passed: false })
      const optedOut = yield* Effect.promise(() => run(file(scenario(actions, "outcome: { maxErrorRate: 1, requireInformerSync: false }")), target))
      expect(optedOut.exitCode).toBe(0)
      expect(optedOut.stdout).toContain("✓ outcome:error-rate [phase=p,name=infs]: rate <= 1 (observed 1)")
    }).pipe(Effect.scoped),
    30_000
  )

  it("a run whose watches all opened keeps its artifact: no counts of requests, no row (pure)", () => {
    const report = { phase: "p", action: "w", type: "watch", counts: { events: 3, rewatches: 0, relists: 0, expired: 0, watchErrors: 0 } }
    expect(outcomeChecks({ scenario: {}, series: [{ count: 5, errors: 0 }], actions: [report], errorsTotal: 0 })).toEqual([])
    const failed = { ...report, counts: { ...report.counts, requests: 20, failedRequests: 1 } }
    expect(outcomeChecks({ scenario: {}, series: [], actions: [failed], errorsTotal: 1 }).map((c) => [c.threshold, c.group, c.observed, c.passed])).toEqual([
      ["outcome:error-rate", { phase: "p", name: "w" }, 0.05, true],
      ["outcome:any-success", {}, 0, false]
    ])
    // a scenario that judges errors itself replaces outcome:error-rate, these rows too
    expect(outcomeChecks({ scenario: { thresholds: { "errors{metric:api_call}": ["rate < 0.5"] } }, series: [], actions: [failed], errorsTotal: 0 })).toEqual([])
  })
})

describe("informers cut short", () => {
  it("an informer that never synced fails the run also when the scenario's duration ends its phase", async () => {
    const server = await versionOnlyServer()
    const f = file(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: cut }
duration: 1s
phases:
  - name: p
    duration: 1m
    actions:
      - { type: informers, name: inf, resource: configmaps, count: 2 }
`)
    const r = await run(f, { _tag: "url", options: { baseUrl: server.url } }).finally(server.close)
    expect(r.exitCode).toBe(99)
    expect(r.stdout).toContain("✗ outcome:informers-synced [phase=p,name=inf]: synced == 2 (observed 0)")
  }, 30_000)
})

describe("setup must complete", () => {
  const setup = (extra = "") => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: setup }
setup:
  namespaces: [present]
  objects:
    - { name: ok, resource: configmaps, namespace: present, count: 27 }
    - { name: lost, resource: configmaps, namespace: absent, count: 3 }
phases:
  - name: p
    duration: 1s
    actions:
      - { type: closed, workers: 1, iterations: 5, request: { verb: get, objects: ok } }
${extra}`

  it("3 of 31 setup creates (a namespace, 30 objects) failing (404: no such namespace) abort the run before its phases, exit 1, although the error rate is within 10 %", async () => {
    const r = await run(file(setup()), { _tag: "in-process" })
    expect(r.exitCode).toBe(1)
    expect(r.artifact.outcome).toBe("run-error")
    expect(r.artifact.runError).toBe(
      `setup failed: 3 of 31 creates failed, the first: lost #${r.artifact.runError?.match(/lost #(\d)/)?.[1]}: 404 NotFound: namespaces "absent" not found; the phases did not run`
    )
    const setupSeries = r.artifact.series.filter((s) => s.key.metric === "setup")
    expect(setupSeries.reduce((n, s) => n + s.errors, 0)).toBe(3)
    // the phases did not run: no GET of the phase
    expect(r.artifact.series.filter((s) => s.key.metric === "api_call")).toEqual([])
    expect(r.stdout).toContain("✗ outcome:setup-complete: failed setup creates == 0 (observed 3)")
    expect(r.stdout).toContain("RUN ERROR: setup failed: 3 of 31 creates failed")
  }, 30_000)

  it("a setup stopped midway (Ctrl-C after ~300 of 3,000 creates) is not complete, though none of its creates failed", async () => {
    const f = file(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: setup-stopped }
setup:
  namespaces: [present]
  objects:
    - { name: many, resource: configmaps, namespace: present, count: 3000, rate: 200 }
phases:
  - name: p
    duration: 1s
    actions:
      - { type: closed, workers: 1, iterations: 5, request: { verb: get, objects: many } }
`)
    const stdout: Array<string> = []
    const outDir = join(dir, `out${n++}`)
    const r = await Effect.runPromise(
      runCommand({ file: f, target: { _tag: "in-process" }, outDir, tty: false, stdout: (s) => void stdout.push(s), stderr: () => {}, interrupt: Effect.sleep("1500 millis") })
    )
    expect(r.exitCode).toBe(130)
    const text = stdout.join("")
    const row = r.artifact!.thresholds.filter((t) => t.threshold === "outcome:setup-complete")
    expect(row.map((t) => [t.condition, t.passed])).toEqual([
      ["failed setup creates == 0", true],
      ["unfinished setup creates == 0", false]
    ])
    const created = r.artifact!.series.filter((s) => s.key.metric === "setup").reduce((n, s) => n + s.count, 0)
    expect(created).toBeGreaterThan(0)
    expect(row[1]!.observed).toBe(3000 - created)
    expect(text).toContain(`✗ outcome:setup-complete: unfinished setup creates == 0 (observed ${3000 - created})`)
    expect(text).toContain("INTERRUPTED: partial results")
  }, 30_000)

  it("outcome.requireSetup: false is the explicit opt-out", async () => {
    const r = await run(file(setup("outcome: { requireSetup: false }")), { _tag: "in-process" })
    expect(r.exitCode).toBe(0)
    expect(r.artifact.thresholds.some((t) => t.threshold === "outcome:setup-complete")).toBe(false)
  }, 30_000)
})

describe("outcome rules (pure)", () => {
  it("a scenario's own errors threshold replaces the default", () => {
    expect(defaultErrorThreshold({ thresholds: { "errors{metric:api_call}": ["rate < 0.5"] } })).toEqual([])
    expect(defaultErrorThreshold({ thresholds: { "latency": ["p(99) < 1s"] } }).map((t) => t.conditions[0]!.source)).toEqual(["rate <= 0.1"])
    expect(defaultErrorThreshold({ outcome: { maxErrorRate: 0.25 } }).map((t) => t.conditions[0]!.source)).toEqual(["rate <= 0.25"])
  })

  it("informer sync and any-success checks, and their opt-outs", () => {
    const actions = [{ phase: "p", action: "inf", type: "informers" as const, informers: { count: 3, synced: 1, relists: 0, expiredContinue: 0, expired: { watchHttp: 0, watchStream: 0, list: 0 }, rewatches: 0, events: 0, listFailures: 4, triggers: {} } }]
    const failing = outcomeChecks({ scenario: {}, series: [{ count: 5, errors: 5 }], actions, errorsTotal: 9 })
    expect(failing.map((c) => [c.threshold, c.passed])).toEqual([
      ["outcome:informers-synced", false],
      ["outcome:any-success", false]
    ])
    expect(outcomeChecks({ scenario: { outcome: { requireInformerSync: false, requireSuccess: false } }, series: [], actions, errorsTotal: 9 })).toEqual([])
    expect(outcomeChecks({ scenario: {}, series: [{ count: 5, errors: 1 }], actions: [], errorsTotal: 1 }).map((c) => c.passed)).toEqual([true])
  })

  it("setup: every create must succeed, namespaces included", () => {
    const setupSeries = [{ count: 3000, errors: 2636, key: { metric: "setup" } }]
    expect(outcomeChecks({ scenario: {}, series: setupSeries, actions: [], errorsTotal: 2636 }).map((c) => [c.threshold, c.observed, c.passed])).toEqual([
      ["outcome:setup-complete", 2636, false],
      ["outcome:any-success", 364, true]
    ])
    expect(outcomeChecks({ scenario: {}, series: [], actions: [], errorsTotal: 1, setupNamespaceErrors: 1 }).map((c) => [c.threshold, c.passed])).toEqual([
      ["outcome:setup-complete", false],
      ["outcome:any-success", false]
    ])
    expect(outcomeChecks({ scenario: { outcome: { requireSetup: false } }, series: setupSeries, actions: [], errorsTotal: 2636 }).map((c) => c.threshold)).toEqual([
      "outcome:any-success"
    ])
  })
})
