/**
 * A real Prometheus (Debian's `prometheus`, on loopback with a generated config and a temporary data dir) scrapes
 * `clustersim serve` during load (issue 38): it ingests the exposition, and the CL2-style PromQL of the server-side
 * LIST p99 over `apiserver_request_sli_duration_seconds` answers; `promtool check metrics` accepts a scrape.
 */
import { execFile, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freePort, scratch } from "./scratch.js"

const { dir, children } = scratch("clustersim-prometheus-")

const serve = (): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "serve", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let out = ""
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)))
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const promtool = (input: string): Promise<{ code: number; output: string }> =>
  new Promise((resolve) => {
    const child = execFile("promtool", ["check", "metrics"], (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr })
    )
    child.stdin!.end(input)
  })

describe("Prometheus scrapes clustersim serve", () => {
  it("ingests /metrics; the server-side LIST p99 query answers; promtool accepts the exposition", async () => {
    const url = await serve()
    const target = new URL(url).host
    const promPort = await freePort()
    writeFileSync(join(dir, "prometheus.yml"), `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: clustersim\n    static_configs:\n      - targets: ["${target}"]\n`)
    const prom = spawn("prometheus", [`--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${promPort}`], {
      stdio: "ignore"
    })
    children.push(prom)
    // Load: LISTs of configmaps for ~6 s, while Prometheus scrapes every second.
    await fetch(`${url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ metadata: { name: "a" } }) })
    const until = Date.now() + 6_000
    let lists = 0
    while (Date.now() < until) {
      await (await fetch(`${url}/api/v1/namespaces/default/configmaps`)).text()
      lists++
      await sleep(20)
    }
    const query = "histogram_quantile(0.99, sum by (le, verb) (rate(apiserver_request_sli_duration_seconds_bucket[1m])))"
    let result: Array<{ metric: { verb: string }; value: [number, string] }> = []
    for (let i = 0; i < 60 && !result.some((r) => r.metric.verb === "LIST"); i++) {
      await sleep(1_000)
      try {
        const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(query)}`)
        result = ((await res.json()) as { data: { result: typeof result } }).data.result
      } catch {
        // Prometheus still starting
      }
    }
    const list = result.find((r) => r.metric.verb === "LIST")
    expect(list, `no LIST series after ${lists} LISTs`).toBeDefined()
    // Loopback LISTs of one object: all in the first bucket (≤ 50 ms), so the interpolated p99 lies within it.
    const p99 = Number(list!.value[1])
    expect(p99).toBeGreaterThan(0)
    expect(p99).toBeLessThanOrEqual(0.05)
    const up = await (await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=up`)).json() as { data: { result: Array<{ value: [number, string] }> } }
    expect(up.data.result[0]!.value[1]).toBe("1")
    const scrape = await (await fetch(`${url}/metrics`)).text()
    // API Priority and Fairness and the storage step are in the exposition promtool judges
    for (const family of ["apiserver_flowcontrol_dispatched_requests_total", "apiserver_flowcontrol_request_wait_duration_seconds", "apiserver_flowcontrol_nominal_limit_seats", "etcd_request_duration_seconds"])
      expect(scrape).toContain(`# TYPE ${family} `)
    const checked = await promtool(scrape)
    expect(checked.output).toBe("")
    expect(checked.code).toBe(0)
  }, 180_000)
})
