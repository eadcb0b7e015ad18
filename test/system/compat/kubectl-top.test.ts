/**
 * `kubectl top` and `kubectl get --raw /metrics` (issue 38), every kubectl on the machine, against one `clustersim
 * serve --demo` (its own process: 3 simulated nodes and a Deployment "web" of 3 pods): `top nodes` has a row per
 * node with CPU and memory and their percentages; `top pods -A` a row per running pod; `top pod NAME -n default`
 * that pod, a missing one metrics-server's NotFound; `get --raw /metrics` the request, flowcontrol and etcd families,
 * the live cluster's own requests and watches, no series for a path no route serves, and `promtool check metrics`
 * accepts it; `get --raw` of the health endpoints (`/livez?verbose`, `/readyz/ping`) and upstream's 400 for a
 * malformed `timeout`. Fails when no kubectl is installed.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, findKubectls, run } from "./support/clients.js"

const kubectls = findKubectls()
const viteNode = "node_modules/.bin/vite-node"
let serve: ChildProcess | undefined
let url = ""
let pods: ReadonlyArray<string> = []

const until = async (what: () => Promise<boolean> | boolean, ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await what()) return true
    await new Promise((r) => setTimeout(r, 200))
  }
  return false
}

const promtool = (input: string): Promise<{ code: number; output: string }> =>
  new Promise((resolve) => {
    const child = execFile("promtool", ["check", "metrics"], (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr })
    )
    child.stdin!.end(input)
  })

beforeAll(async () => {
  const child = spawn(viteNode, ["test/support/cliProcess.ts", "serve", "--port", "0", "--demo"], { stdio: ["ignore", "pipe", "pipe"] })
  serve = child
  let out = ""
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(out)
      if (listening) {
        url = listening[1]!
        resolve()
      }
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${out} ${stderr}`)))
  })
  // the metrics API measures Ready nodes and running pods: wait for the demo's three of each
  const measured = await until(async () => {
    const nodes = await call(url, "GET", "/apis/metrics.k8s.io/v1beta1/nodes")
    const podMetrics = await call(url, "GET", "/apis/metrics.k8s.io/v1beta1/pods")
    pods = podMetrics.items.map((p: { metadata: { name: string } }) => p.metadata.name).sort()
    return nodes.items.length === 3 && pods.length === 3
  }, 60_000)
  expect(measured).toBe(true)
}, 120_000)

afterAll(() => {
  serve?.kill("SIGINT")
})

describe("kubectl top against serve --demo", () => {
  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  describe.concurrent.each(kubectls)("kubectl $version", ({ path }) => {
    const kubectl = (...args: ReadonlyArray<string>) => run(path, ["--server", url, ...args], 60_000)

    it("top nodes: a row per simulated node, CPU in millicores and memory in Mi with their percentages", async () => {
      const top = await kubectl("top", "nodes")
      expect([top.code, top.stderr]).toEqual([0, ""])
      const [header, ...rows] = top.stdout.trim().split("\n")
      // 1.27 heads CPU% and MEMORY%, later ones CPU(%) and MEMORY(%)
      expect(header!.trim().split(/\s+/)).toEqual(expect.arrayContaining(["NAME", "CPU(cores)", "MEMORY(bytes)"]))
      expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(["node-0", "node-1", "node-2"])
      for (const row of rows) expect(row).toMatch(/^node-\d\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$/)
    })

    it("top pods -A: a row per running pod of the demo's Deployment", async () => {
      const top = await kubectl("top", "pods", "-A")
      expect([top.code, top.stderr]).toEqual([0, ""])
      const [header, ...rows] = top.stdout.trim().split("\n")
      expect(header!.trim().split(/\s+/)).toEqual(["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"])
      expect(rows.map((r) => r.split(/\s+/).slice(0, 2).join("/")).sort()).toEqual(pods.map((p) => `default/${p}`))
      for (const row of rows) expect(row).toMatch(/^default\s+web-\S+\s+\d+m\s+\d+Mi\s*$/)
    })

    it("top pod NAME -n default: that pod; a missing one is metrics-server's NotFound", async () => {
      const top = await kubectl("top", "pod", pods[0]!, "-n", "default")
      expect([top.code, top.stderr]).toEqual([0, ""])
      const rows = top.stdout.trim().split("\n")
      expect(rows[0]!.trim().split(/\s+/)).toEqual(["NAME", "CPU(cores)", "MEMORY(bytes)"])
      expect(rows.slice(1).map((r) => r.split(/\s+/)[0])).toEqual([pods[0]])
      const missing = await kubectl("top", "pod", "nope", "-n", "default")
      expect(missing.code).toBe(1)
      expect(missing.stderr).toBe('Error from server (NotFound): podmetrics.metrics.k8s.io "default/nope" not found\n')
    })

    it("get --raw of the health endpoints: the verbose checks, one check, an unknown one; a malformed timeout is upstream's 400", async () => {
      for (const endpoint of ["livez", "readyz", "healthz"]) {
        const verbose = await kubectl("get", "--raw", `/${endpoint}?verbose`)
        expect([verbose.code, verbose.stdout, verbose.stderr]).toEqual([0, `[+]ping ok\n[+]log ok\n${endpoint} check passed\n`, ""])
      }
      const ping = await kubectl("get", "--raw", "/readyz/ping")
      expect([ping.code, ping.stdout]).toEqual([0, "ok"])
      const excluded = await kubectl("get", "--raw", "/livez?verbose&exclude=log")
      expect(excluded.stdout).toBe("[+]ping ok\n[+]log excluded: ok\nlivez check passed\n")
      const unknown = await kubectl("get", "--raw", "/healthz/etcd")
      expect([unknown.code, unknown.stderr]).toEqual([1, "Error from server (NotFound): the server could not find the requested resource\n"])
      const timeout = await kubectl("get", "--raw", "/api/v1/namespaces/default/configmaps?timeout=abc")
      expect([timeout.code, timeout.stderr]).toEqual([1, 'Error from server (BadRequest): invalid timeout specified in the request URL - time: invalid duration "abc"\n'])
    })

    it("get --raw /metrics: request, flowcontrol and etcd families; promtool accepts it", async () => {
      // a path no route serves makes no series (docs/metrics.md "Which requests count")
      await kubectl("get", "--raw", "/apis/g7.evil/v7/r7/x")
      const raw = await kubectl("get", "--raw", "/metrics")
      expect(raw.code).toBe(0)
      for (const family of [
        "apiserver_request_total",
        "apiserver_flowcontrol_dispatched_requests_total",
        "apiserver_flowcontrol_current_executing_requests",
        "apiserver_flowcontrol_request_wait_duration_seconds",
        "apiserver_flowcontrol_request_execution_seconds",
        "apiserver_flowcontrol_nominal_limit_seats",
        "etcd_request_duration_seconds",
        "process_cpu_seconds_total"
      ])
        expect(raw.stdout).toContain(`# TYPE ${family} `)
      // kubectl's own requests are counted (system:unauthenticated: global-default)
      expect(raw.stdout).toMatch(/apiserver_flowcontrol_dispatched_requests_total\{priority_level="global-default",flow_schema="global-default"\} [1-9]/)
      expect(raw.stdout).not.toContain("evil")
      // the live cluster's own traffic, in-process, counted as over HTTP: the node agents registered their Nodes and
      // Leases, the scheduler bound the demo's pods, the informers list and watch
      const total = (labels: string) => Number(new RegExp(`^apiserver_request_total\\{${labels}\\} (\\d+)$`, "m").exec(raw.stdout)?.[1] ?? 0)
      expect(total('verb="POST",dry_run="",group="",version="v1",resource="nodes",subresource="",scope="resource",component="apiserver",code="201"')).toBe(3)
      expect(total('verb="POST",dry_run="",group="",version="v1",resource="pods",subresource="binding",scope="resource",component="apiserver",code="201"')).toBe(3)
      expect(total('verb="POST",dry_run="",group="coordination.platform",version="v1",resource="leases",subresource="",scope="resource",component="apiserver",code="201"')).toBeGreaterThanOrEqual(3)
      expect(raw.stdout).toMatch(/^apiserver_longrunning_requests\{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver"\} [1-9]/m)
      const checked = await promtool(raw.stdout)
      expect([checked.code, checked.output]).toEqual([0, ""])
    })
  })
})
