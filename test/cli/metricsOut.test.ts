/**
 * `run --metrics-out` of a small simulated cluster (test/support/smallCluster.ts with two scheduler replicas): the
 * OpenMetrics file is the seed's — two runs write the same bytes — and it says what the run's result says: the
 * lease renewals, the modelled API server's 429s under the patch flood, failed image pulls, the scheduler's binds,
 * API Priority and Fairness' dispatches, rejections and queues in serve's `apiserver_flowcontrol_*` series, scrapes
 * every 15 s of virtual time from the run's virtual start (2026-01-01T00:00:00Z).
 */
import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Registry } from "prom-client"
import { runCommand } from "../../app/cli/run.js"
import { FlowControlMetrics } from "../../simulator/apiserver/http/FlowControlMetrics.js"
import { smallCluster } from "../support/smallCluster.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-metrics-out-"))
const scheduler = `scheduler:
  replicas: 2
  batches:
    - { namePrefix: web, count: 6, rate: 2, cpu: 100m, memory: 64Mi }
`

const run = async (name: string, extra: { metricsIntervalMs?: number } = {}, withMetrics = true, scenario = smallCluster + scheduler) => {
  const file = join(dir, `${name}.yaml`)
  writeFileSync(file, scenario)
  const metricsOut = join(dir, `${name}.om`)
  const r = await Effect.runPromise(
    runCommand({ file, target: { _tag: "in-process" }, outDir: join(dir, name), tty: false, stdout: () => {}, stderr: () => {}, ...(withMetrics ? { metricsOut } : {}), ...extra })
  )
  return { exitCode: r.exitCode, text: withMetrics ? readFileSync(metricsOut, "utf8") : "", artifact: r.artifact as unknown as Record<string, any> }
}

let a: Awaited<ReturnType<typeof run>>
let b: Awaited<ReturnType<typeof run>>
beforeAll(async () => {
  a = await run("a")
  b = await run("b")
}, 120_000)

/** The value of `series` (name and labels as written) at its last scrape. */
const last = (text: string, series: string): number => {
  const lines = text.split("\n").filter((l) => l.startsWith(series + " "))
  expect(lines.length, series).toBeGreaterThan(0)
  return Number(lines[lines.length - 1]!.split(" ")[1])
}

describe("run --metrics-out", () => {
  it("writes the same file for the same seed", () => {
    expect(a.exitCode).toBe(b.exitCode)
    expect(a.text.length).toBeGreaterThan(10_000)
    expect(a.text).toBe(b.text)
  })

  it("is OpenMetrics: each family once, samples stamped every 15 s of virtual time, # EOF last", () => {
    const lines = a.text.split("\n")
    expect(lines.at(-2)).toBe("# EOF")
    expect(lines.at(-1)).toBe("")
    const types = lines.filter((l) => l.startsWith("# TYPE "))
    expect(new Set(types).size).toBe(types.length)
    const stamps = [...new Set(lines.filter((l) => l !== "" && !l.startsWith("#")).map((l) => Number(l.split(" ").at(-1))))].sort((x, y) => x - y)
    const start = Date.UTC(2026, 0, 1) / 1000
    // 0 s … 60 s, then where the run ended (the scheduler section reads its results after the minute)
    expect(stamps.slice(0, 5)).toEqual([start, start + 15, start + 30, start + 45, start + 60])
    expect(stamps.at(-1)! - start).toBeLessThanOrEqual(61)
    for (const family of [
      "apiserver_request counter",
      "apiserver_request_duration_seconds histogram",
      "apiserver_request_sli_duration_seconds histogram",
      "apiserver_storage_objects gauge",
      "clustersim_node_lease_renew_duration_seconds histogram",
      "clustersim_node_status_update_duration_seconds histogram",
      "kubelet_evictions counter",
      "kubelet_runtime_operations counter",
      "scheduler_schedule_attempts counter",
      "scheduler_pending_pods gauge",
      "leader_election_master_status gauge",
      "rest_client_requests counter",
      "rest_client_request_duration_seconds histogram",
      "clustersim_generator_operations counter",
      "apiserver_flowcontrol_dispatched_requests counter",
      "apiserver_flowcontrol_rejected_requests counter",
      "apiserver_flowcontrol_current_inqueue_requests gauge",
      "apiserver_flowcontrol_current_executing_requests gauge",
      "apiserver_flowcontrol_request_wait_duration_seconds histogram",
      "apiserver_flowcontrol_request_execution_seconds histogram",
      "apiserver_flowcontrol_request_concurrency_limit gauge",
      "apiserver_flowcontrol_nominal_limit_seats gauge"
    ])
      expect(types).toContain(`# TYPE ${family}`)
  })

  it("has one series per label set: every node's lease updates are one", () => {
    const at = ` ${Date.UTC(2026, 0, 1) / 1000 + 30}`
    const leaseUpdates = a.text.split("\n").filter((l) => l.startsWith("apiserver_request_duration_seconds_count{") && l.includes('verb="PUT"') && l.includes('resource="leases"') && l.endsWith(at))
    expect(leaseUpdates).toEqual([
      `apiserver_request_duration_seconds_count{verb="PUT",dry_run="",group="coordination.platform",version="v1",resource="leases",subresource="",scope="resource",component="apiserver"} ${leaseUpdates[0]?.split(" ")[1]}${at}`
    ])
    expect(Number(leaseUpdates[0]!.split(" ")[1])).toBeGreaterThan(4)
  })

  it("counts what the run's result counts", () => {
    const cluster = a.artifact.cluster
    const leaseWrites = (cluster.leaseTimeline.writes as Array<number>).reduce((x, y) => x + y, 0)
    expect(last(a.text, "clustersim_node_lease_renew_duration_seconds_count")).toBe(leaseWrites)
    // the patch flood on one seat per priority level: the modelled server answers 429s (and client-go retries them)
    expect(last(a.text, 'apiserver_request_total{verb="PATCH",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="429"}')).toBeGreaterThan(0)
    expect(last(a.text, 'apiserver_storage_objects{resource="nodes"}')).toBe(4)
    // the registry's credentials revoked at 5 s: failed pulls
    expect(last(a.text, 'kubelet_runtime_operations_errors_total{operation_type="pull_image"}')).toBe(cluster.images.events.byReason.Failed)
    const scheduler = a.artifact.sections.scheduler
    expect(last(a.text, 'scheduler_schedule_attempts_total{result="scheduled",profile="default-scheduler"}')).toBe(scheduler.binds)
    // one of the two replicas leads while the section runs; none once it ended (its leader released the lease)
    expect(a.text).toContain(`leader_election_master_status{name="platform-scheduler"} 1 ${Date.UTC(2026, 0, 1) / 1000 + 60}\n`)
    expect(last(a.text, 'leader_election_master_status{name="platform-scheduler"}')).toBe(0)
    const patches = a.artifact.series.find((s: { key: { name?: string } }) => s.key.name === "patches")
    const series = 'clustersim_generator_operations_total{phase="flood",action="patches",metric="api_call",operation="PATCH",resource="configmaps",outcome='
    expect(patches.errors).toBeGreaterThan(0)
    expect(last(a.text, `${series}"ok"}`)).toBe(patches.count - patches.errors)
    expect(last(a.text, `${series}"error"}`)).toBe(patches.errors)
  })

  it("has the modelled API Priority and Fairness series as serve exposes them, counting what the model decided", async () => {
    // serve's own exposition of the same families (the HTTP filter's metrics), fed one of each observation
    const serve = new Registry()
    serve.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as never)
    const fc = new FlowControlMetrics([serve])
    fc.limits([{ level: "global-default", seats: 1 }])
    fc.waiting("global-default", "global-default", 1)
    fc.executing("global-default", "global-default", 1)
    fc.waited("global-default", "global-default", true, 0)
    fc.dispatched("global-default", "global-default")
    fc.rejected("global-default", "global-default", "queue-full")
    fc.executed("global-default", "global-default", false, 0.05)
    const served = (await serve.metrics()).split("\n")
    const headers = served.filter((l) => l.startsWith("# HELP apiserver_flowcontrol_") || l.startsWith("# TYPE apiserver_flowcontrol_"))
    expect(headers.length).toBe(16)
    const lines = a.text.split("\n")
    for (const header of headers) expect(lines).toContain(header)
    // the same label names and buckets, series by series
    const labelsOf = (l: string) => [...l.matchAll(/([a-z_]+)="/g)].map((m) => m[1]!).sort().join(",")
    for (const sample of served.filter((l) => l.startsWith("apiserver_flowcontrol_"))) {
      const name = sample.slice(0, sample.indexOf("{"))
      const ours = lines.find((l) => l.startsWith(name + "{") && labelsOf(l) === labelsOf(sample))
      expect(ours, sample).toBeDefined()
    }
    const bucketsOf = (text: ReadonlyArray<string>) => [
      ...new Set(text.filter((l) => l.startsWith("apiserver_flowcontrol_request_wait_duration_seconds_bucket{")).map((l) => /le="([^"]+)"/.exec(l)![1]))
    ]
    expect(bucketsOf(lines)).toEqual(bucketsOf(served))
    expect(bucketsOf(lines)).toEqual(["0", "0.005", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "30", "+Inf"])

    // per priority level, the run's result (run.json serverModel.priorityLevels) counts the same at the last scrape
    const end = lines.filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.split(" ").at(-1)).at(-1)!
    const atEnd = (name: string, labels: Record<string, string>) =>
      lines
        .filter((l) => l.startsWith(name + "{") && l.endsWith(` ${end}`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
        .reduce((n, l) => n + Number(l.split(" ").at(-2)), 0)
    const levels = a.artifact.cluster.serverModel.priorityLevels as Record<string, { dispatched: number; rejectedBy: Record<string, number> }>
    for (const [level, m] of Object.entries(levels)) {
      const at = { priority_level: level }
      expect(atEnd("apiserver_flowcontrol_dispatched_requests_total", at), level).toBe(m.dispatched)
      for (const [reason, n] of Object.entries(m.rejectedBy)) expect(atEnd("apiserver_flowcontrol_rejected_requests_total", { ...at, reason }), `${level} ${reason}`).toBe(n)
      // every dispatched request waited (0 s for most) and executed
      expect(atEnd("apiserver_flowcontrol_request_wait_duration_seconds_count", { ...at, execute: "true" })).toBe(m.dispatched)
      expect(atEnd("apiserver_flowcontrol_request_execution_seconds_count", at)).toBe(m.dispatched)
    }
    // the patch flood (anonymous: global-default) on a level of one seat: thousands of queue-full 429s
    expect(levels["global-default"]!.dispatched).toBeGreaterThan(100)
    expect(levels["global-default"]!.rejectedBy["queue-full"]).toBeGreaterThan(1000)
    // the node agents' leases and status (system:nodes) in their own levels
    expect(atEnd("apiserver_flowcontrol_dispatched_requests_total", { priority_level: "node-high", flow_schema: "system-node-high" })).toBeGreaterThan(20)
    expect(atEnd("apiserver_flowcontrol_request_execution_seconds_count", { flow_schema: "global-default", type: "watch" })).toBeGreaterThan(0)
    // gauges at each scrape: the flood fills the flow's hand (6 queues × 50) at 15 s; one seat executes at most one
    const series = (name: string) => lines.filter((l) => l.startsWith(name + '{priority_level="global-default",flow_schema="global-default"} ')).map((l) => Number(l.split(" ")[1]))
    const start = Date.UTC(2026, 0, 1) / 1000
    expect(a.text).toContain(`apiserver_flowcontrol_current_inqueue_requests{priority_level="global-default",flow_schema="global-default"} 300 ${start + 15}\n`)
    expect(Math.max(...series("apiserver_flowcontrol_current_executing_requests"))).toBe(1)
    expect(series("apiserver_flowcontrol_current_inqueue_requests").at(-1)).toBe(0)
    // seats: ⌈(4 + 1) × shares ÷ 245⌉
    expect(last(a.text, 'apiserver_flowcontrol_nominal_limit_seats{priority_level="global-default"}')).toBe(1)
    expect(last(a.text, 'apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"}')).toBe(3)
    expect(last(a.text, 'apiserver_flowcontrol_request_concurrency_limit{priority_level="workload-low"}')).toBe(3)
  })

  it("changes nothing the run measures: the result is the same without --metrics-out", async () => {
    const plain = await run("plain", {}, false)
    const { wall: _a, ...withMetrics } = a.artifact.cluster
    const { wall: _b, ...without } = plain.artifact.cluster
    expect(withMetrics).toEqual(without)
    expect(a.artifact.series).toEqual(plain.artifact.series)
    expect(a.artifact.sections.scheduler).toEqual(plain.artifact.sections.scheduler)
  }, 60_000)

  it("scrapes at --metrics-interval", async () => {
    const c = await run("c", { metricsIntervalMs: 30_000 })
    const start = Date.UTC(2026, 0, 1) / 1000
    const stamps = [...new Set(c.text.split("\n").filter((l) => l.startsWith("clustersim_node_lease_renew_duration_seconds_count ")).map((l) => Number(l.split(" ")[2]) - start))]
    expect(stamps.slice(0, 3)).toEqual([0, 30, 60])
  }, 60_000)
})

/** The samples of `series` (name and labels as written): [seconds since the run's start, value]. */
const samples = (text: string, series: string): Array<[number, number]> =>
  text
    .split("\n")
    .filter((l) => l.startsWith(series + " "))
    .map((l) => {
      const [, value, at] = l.split(" ")
      return [Number(at) - Date.UTC(2026, 0, 1) / 1000, Number(value)]
    })

describe("run --metrics-out: leader failover", () => {
  const failover = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: failover }
seed: 5
duration: 1m
phases: []
scheduler:
  replicas: 2
  leaseDuration: 15s
  renewDeadline: 10s
  retryPeriod: 2s
  nodes: [{ count: 3, cpu: "8", memory: 32Gi }]
  batches:
    - { namePrefix: web, count: 100, rate: 2, cpu: 100m, memory: 64Mi }
    - { namePrefix: gpu, count: 1, cpu: "1", nodeSelector: { accelerator: gpu } }
  killLeaderAt: 20s
`
  it("counts a killed leader no more: 0 from the kill to the next leader, never two, its queues left out", async () => {
    const r = await run("failover", { metricsIntervalMs: 2_000 }, true, failover)
    const f = r.artifact.sections.scheduler.failover
    expect(f.killedAtMs).toBe(20_000)
    expect(f.newLeaderAtMs).toBeGreaterThan(30_000)
    const status = samples(r.text, 'leader_election_master_status{name="platform-scheduler"}')
    expect(status.length).toBeGreaterThan(20)
    const killed = f.killedAtMs / 1000
    for (const [at, value] of status) {
      // at the kill's own instant the scrape may come before or after it
      const expected = at < killed ? 1 : at === killed ? value : at < f.newLeaderAtMs / 1000 ? 0 : at < 60 ? 1 : value
      expect([at, value], "leader_election_master_status").toEqual([at, expected])
    }
    expect(status.some(([at]) => at > f.killedAtMs / 1000 && at < f.newLeaderAtMs / 1000)).toBe(true)
    // the unschedulable gpu pod is in the leader's queue only: the killed replica's copy is not summed with it
    const unschedulable = samples(r.text, 'scheduler_pending_pods{queue="unschedulable"}')
    for (const [at, value] of unschedulable) expect([at, value], "scheduler_pending_pods").toEqual([at, at > killed && at < f.newLeaderAtMs / 1000 ? 0 : Math.min(value, 1)])
  }, 60_000)
})

describe("run --metrics-out: evictions", () => {
  const evictionSection = `eviction:
  node: { name: eviction-node, memory: 2Gi }
  system: { memory: { base: 512Mi } }
  config:
    evictionHard: { memory.available: 100Mi }
  pods:
    - { name: hog, memoryRequest: 256Mi, memory: { base: 256Mi, steps: [{ at: 15s, add: 1300Mi }] } }
    - { name: quiet, priority: 1000, memoryRequest: 1Gi, memory: { base: 100Mi } }
`
  const alone = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: eviction-alone }
seed: 2
duration: 40s
phases: []
${evictionSection}`

  it("counts the eviction section's evictions, with no cluster section", async () => {
    const r = await run("eviction-alone", {}, true, alone)
    const evictions = r.artifact.sections.eviction.evictions as ReadonlyArray<{ atMs: number; signal: string }>
    expect(evictions.map((e) => e.signal)).toEqual(["memory.available"])
    expect(r.text).toContain("# TYPE kubelet_evictions counter\n")
    const counted = samples(r.text, 'kubelet_evictions_total{eviction_signal="memory.available"}')
    // none before the eviction (a labelled counter has no series until its first count), 1 from the first scrape after it
    expect(counted[0]![0]).toBe(Math.ceil(evictions[0]!.atMs / 15_000) * 15)
    expect(counted.every(([, v]) => v === 1)).toBe(true)
  }, 60_000)

  it("counts the eviction section's evictions beside the cluster's memory pressure", async () => {
    const pressure = "  podsPerNode: 3\n  memoryPressure: [{ nodes: [node-1], pod: 0, base: 100Mi, steps: [{ at: 20s, add: 40Gi }] }]\n"
    expect(smallCluster).toContain("  podsPerNode: 3\n")
    const r = await run("eviction-cluster", {}, true, smallCluster.replace("  podsPerNode: 3\n", pressure) + evictionSection)
    expect(r.artifact.sections.eviction.evictions.length).toBe(1)
    expect(r.artifact.cluster.evictions.length).toBe(1)
    expect(last(r.text, 'kubelet_evictions_total{eviction_signal="memory.available"}')).toBe(2)
  }, 60_000)
})
