/**
 * A run's metrics outside clustersim (issue 38, docs/metrics.md):
 * - `run --metrics-out` of a small simulated cluster is accepted by `promtool tsdb create-blocks-from openmetrics`,
 *   and a real Prometheus on those blocks (loopback, generated config, temporary data dir) answers the run's lease-
 *   write rate: nodes ÷ the renew interval (a quarter of the 40 s lease), as the run's own lease timeline counts it,
 *   and the node agents' dispatch rate in API Priority and Fairness' node-high level as the file's own counts give it;
 *   `promtool check metrics` parses the file and finds nothing to lint but OpenMetrics' counter naming;
 * - `run --metrics-addr` serves the load generator's metrics during a load run: a GET mid-run is accepted by
 *   `promtool check metrics` and counts the run's requests; the listener is gone after the run.
 */
import { execFile, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freePort, scratch } from "./scratch.js"

const { dir, children } = scratch("clustersim-run-metrics-")

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const tool = (cmd: string, args: ReadonlyArray<string>, input?: string): Promise<{ code: number; output: string }> =>
  new Promise((resolve) => {
    const child = execFile(cmd, [...args], { maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr })
    )
    child.stdin!.end(input ?? "")
  })

/** `clustersim run …` as its own process; `onStderr` sees its stderr as it comes. */
const clustersim = (args: ReadonlyArray<string>, onStderr: (text: string) => void = () => {}): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "ignore", "pipe"] })
    children.push(child)
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
      onStderr(stderr)
    })
    child.on("exit", (code) => resolve({ code, stderr }))
  })

const nodes = 20
const cluster = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: lease-rate }
seed: 5
duration: 3m
cluster:
  nodes: ${nodes}
  nodeAgent: { config: { nodeLeaseDurationSeconds: 40 } }
phases: []
`

describe("a run's metrics in Prometheus", () => {
  it("--metrics-out: promtool makes blocks of it; Prometheus on them answers the lease-write rate the run counted", async () => {
    const scenario = join(dir, "cluster.yaml")
    writeFileSync(scenario, cluster)
    const file = join(dir, "cluster.om")
    const run = await clustersim(["run", "--metrics-out", file, "--out", join(dir, "cluster-run"), scenario])
    expect(run.code, run.stderr).toBe(0)
    const data = join(dir, "tsdb")
    const blocks = await tool("promtool", ["tsdb", "create-blocks-from", "openmetrics", file, data])
    expect(blocks.output).toContain("BLOCK ULID")
    expect(blocks.code, blocks.output).toBe(0)
    // check metrics reads the text format 0.0.4: OpenMetrics names a counter's family without `_total`, so each
    // counter's samples have "no help text" there (exit 3, lint); nothing else may be found, nor anything fail to parse
    const checked = await tool("promtool", ["check", "metrics"], readFileSync(file, "utf8"))
    const problems = checked.output.split("\n").filter((l) => l !== "")
    expect(problems).toContain("apiserver_flowcontrol_dispatched_requests_total no help text")
    expect(problems.filter((l) => !/^[a-z_]+_total no help text$/.test(l))).toEqual([])
    expect(checked.code).toBe(problems.length > 0 ? 3 : 0)

    const port = await freePort()
    writeFileSync(join(dir, "prometheus.yml"), "global:\n  scrape_interval: 15s\n")
    // the blocks are of the run's virtual time (2026-01-01): a retention long enough to keep them
    const prom = spawn(
      "prometheus",
      [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${data}`, "--storage.tsdb.retention.time=100y", `--web.listen-address=127.0.0.1:${port}`],
      { stdio: "ignore" }
    )
    children.push(prom)
    const start = Date.UTC(2026, 0, 1) / 1000
    // the minute before 2m30s of virtual time: every node renewing, long after registration
    const at = start + 150
    const query = "sum(rate(clustersim_node_lease_renew_duration_seconds_count[1m]))"
    const ask = async (promql: string): Promise<number | undefined> => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}&time=${at}`)
      const body = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } }
      return body.data.result.length > 0 ? Number(body.data.result[0]!.value[1]) : undefined
    }
    let rate: number | undefined
    for (let i = 0; i < 60 && rate === undefined; i++) {
      await sleep(1_000)
      try {
        rate = await ask(query)
      } catch {
        // Prometheus still starting
      }
    }
    expect(rate, "no lease-write rate from Prometheus").toBeDefined()
    // the run's own count: lease writes per 10 s interval (run.json's lease timeline), over the same minute
    const artifact = JSON.parse(readFileSync(join(dir, "cluster-run", "run.json"), "utf8")) as { cluster: { leaseTimeline: { writes: Array<number> } } }
    const writes = artifact.cluster.leaseTimeline.writes.slice(9, 15).reduce((a, b) => a + b, 0)
    const counted = writes / 60
    const expected = nodes / 10 // a renewal every quarter of the 40 s lease (upstream's renewInterval)
    expect(Math.abs(counted - expected) / expected).toBeLessThan(0.1)
    // rate() over four 15 s scrapes: within what 15 s steps resolve of a 60 s window
    expect(Math.abs(rate! - counted) / counted).toBeLessThan(0.15)

    // the node agents' requests (system:nodes' leases and nodes) go to API Priority and Fairness' node-high level
    const dispatched = await ask('sum(rate(apiserver_flowcontrol_dispatched_requests_total{priority_level="node-high",flow_schema="system-node-high"}[1m]))')
    expect(dispatched, "no node-high dispatch rate from Prometheus").toBeDefined()
    // the file's own counter: its increase over the minute's scrapes (90 s … 150 s)
    const om = readFileSync(file, "utf8")
    const sample = (t: number) =>
      Number(new RegExp(`^apiserver_flowcontrol_dispatched_requests_total\\{priority_level="node-high",flow_schema="system-node-high"\\} (\\d+) ${t}$`, "m").exec(om)![1])
    const fileRate = (sample(start + 150) - sample(start + 90)) / 60
    expect(Math.abs(dispatched! - fileRate) / fileRate).toBeLessThan(0.15)
    // each node renews its lease and reads its Node every 10 s: twice the lease-write rate
    expect(Math.abs(dispatched! - 2 * expected) / (2 * expected)).toBeLessThan(0.15)
    // with seats to spare, none of them waited: the wait histogram's 0 s bucket holds them all
    const unqueued = await ask(
      'sum(rate(apiserver_flowcontrol_request_wait_duration_seconds_bucket{priority_level="node-high",execute="true",le="0"}[1m])) / sum(rate(apiserver_flowcontrol_request_wait_duration_seconds_count{priority_level="node-high",execute="true"}[1m]))'
    )
    expect(unqueued).toBe(1)
  }, 300_000)

  it("--metrics-addr: the generator's metrics during a load run pass promtool and count its requests; gone after the run", async () => {
    const scenario = join(dir, "load.yaml")
    writeFileSync(
      scenario,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: live-metrics }
phases:
  - name: load
    duration: 12s
    actions:
      - { name: list-cms, type: constant-arrival-rate, rate: 20, request: { verb: list, resource: configmaps, namespace: default } }
`
    )
    let url: string | undefined
    const done = clustersim(["run", "--metrics-addr", "0", "--out", join(dir, "load-run"), scenario], (text) => {
      url ??= /^metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m.exec(text)?.[1]
    })
    for (let i = 0; i < 120 && url === undefined; i++) await sleep(500)
    expect(url, "no metrics: line on stderr").toBeDefined()
    await sleep(6_000)
    const res = await fetch(url!)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    const body = await res.text()
    const checked = await tool("promtool", ["check", "metrics"], body)
    expect(checked.output).toBe("")
    expect(checked.code).toBe(0)
    const requests = /^rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} (\d+)$/m.exec(body)
    expect(requests, body.slice(0, 2000)).not.toBeNull()
    expect(Number(requests![1])).toBeGreaterThan(20)
    expect(body).toMatch(/^clustersim_generator_operations_total\{phase="load",action="list-cms",metric="api_call",operation="LIST",resource="configmaps",outcome="ok"\} \d+$/m)
    expect((await fetch(url!.replace(/\/metrics$/, "/other"))).status).toBe(404)
    const run = await done
    expect(run.code, run.stderr).toBe(0)
    await expect(fetch(url!)).rejects.toThrow()
  }, 180_000)
})
