/**
 * What `run` reports as a real target's server-side p99 agrees with Prometheus (issue 38): a real Prometheus
 * (Debian's, on loopback with a generated config and a temporary data dir) scrapes `clustersim serve` every second
 * while `clustersim run --target URL` loads it with LISTs; after the run, ClusterLoader2's PromQL
 * `histogram_quantile(0.99, sum by (le, verb) (rate(apiserver_request_sli_duration_seconds_bucket[1m])))` at the
 * end of the phase gives the LIST p99 within the bucket `run` says its own p99 lies in (both are bucket estimates).
 * The server waits 70 ms before each answer (`--added-latency`), so the LISTs fall in the (50 ms, 100 ms] bucket.
 * And `run --prometheus` against a Prometheus scraping every 2 s: a 1 s phase goes unread (increase() needs two samples
 * in its window), said for that phase with the interval Prometheus' targets API gives; the 6 s phase is read.
 */
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freePort, scratch } from "./scratch.js"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"

const { dir, children } = scratch("clustersim-server-side-prom-")

const cli = (args: ReadonlyArray<string>) => spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })

const serve = (port: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = cli(["serve", "--port", String(port), "--added-latency", "70ms"])
    children.push(child)
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)))
  })

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Vector = Array<{ metric: Record<string, string>; value: [number, string] }>

const query = async (prom: string, q: string, time?: number): Promise<Vector> => {
  const res = await fetch(`${prom}/api/v1/query?query=${encodeURIComponent(q)}${time !== undefined ? `&time=${time}` : ""}`)
  return ((await res.json()) as { data: { result: Vector } }).data.result
}

/** `serve` and a Prometheus scraping it every `interval`, once Prometheus has scraped it. */
const scrapedServe = async (interval: string): Promise<{ readonly prom: string; readonly url: string }> => {
  // the server and Prometheus start together: Prometheus retries its target until the server listens
  const servePort = await freePort()
  const promPort = await freePort()
  const prom = `http://127.0.0.1:${promPort}`
  const config = join(dir, `prometheus-${interval}.yml`)
  writeFileSync(config, `global:\n  scrape_interval: ${interval}\nscrape_configs:\n  - job_name: clustersim\n    static_configs:\n      - targets: ["127.0.0.1:${servePort}"]\n`)
  children.push(spawn("prometheus", [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, `data-${interval}`)}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: "ignore" }))
  const url = await serve(servePort)
  let up: Vector = []
  for (let i = 0; i < 60 && up[0]?.value[1] !== "1"; i++) {
    await sleep(1_000)
    up = await query(prom, "up").catch(() => [])
  }
  expect(up[0]?.value[1]).toBe("1")
  return { prom, url }
}

describe("server-side p99: run and Prometheus agree", () => {
  it("histogram_quantile over Prometheus' scrapes gives the LIST p99 run reports, within its bucket", async () => {
    const { prom, url } = await scrapedServe("1s")

    writeFileSync(
      join(dir, "s.yaml"),
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: agree }
setup:
  namespaces: [agree]
  objects: [{ name: cms, resource: configmaps, namespace: agree, count: 5 }]
phases:
  - name: steady
    duration: 10s
    actions:
      - { type: constant-arrival-rate, name: list, rate: 20, request: { verb: list, resource: configmaps, namespace: agree } }
`
    )
    const out = join(dir, "run")
    const run = cli(["run", join(dir, "s.yaml"), "--target", url, "--out", out, "--workers", "1"])
    let stdout = ""
    run.stdout!.on("data", (d: Buffer) => void (stdout += d.toString()))
    const code = await new Promise<number | null>((resolve) => run.on("exit", resolve))
    expect(code, stdout).toBe(0)
    const artifact = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact
    const phase = artifact.server!.phases.find((p) => p.phase === "steady")!
    const list = phase.calls.find((c) => c.verb === "LIST")!
    expect(list.count).toBeGreaterThan(150)
    const [lower, upper] = list.p99!.bucketMs
    expect(upper).not.toBeNull()

    // the phase's last scrape is in: evaluate at the end of the phase plus two scrape intervals
    const endSeconds = Date.parse(phase.endedAt) / 1000 + 2
    while (Date.now() / 1000 < endSeconds + 1) await sleep(250)
    const result = await query(prom, "histogram_quantile(0.99, sum by (le, verb) (rate(apiserver_request_sli_duration_seconds_bucket[1m])))", endSeconds)
    const promList = result.find((r) => r.metric.verb === "LIST")
    expect(promList, JSON.stringify(result)).toBeDefined()
    const promMs = Number(promList!.value[1]) * 1000
    // within bucket resolution: the PromQL answer lies in the bucket run's p99 lies in
    expect(promMs).toBeGreaterThan(lower)
    expect(promMs).toBeLessThanOrEqual(upper!)
    expect(Math.abs(promMs - list.p99!.ms)).toBeLessThanOrEqual(upper! - lower)
    expect(stdout).toContain(`steady  LIST configmaps namespace`)
  }, 180_000)

  it("run --prometheus: a phase shorter than two scrape intervals goes unread, said why; the longer phase keeps its figures", async () => {
    // Prometheus scrapes serve every 2 s; the scenario's phases last 1 s and 6 s (compare-list.yaml's shape)
    const { prom, url } = await scrapedServe("2s")
    // the server's histograms have series once it answered a request, and Prometheus has them a scrape later: else the
    // first phase would go unread as a new server's (ServerSideReader.ts), not as a short one
    expect((await fetch(`${url}/api/v1/namespaces`)).status).toBe(200)
    let seen: Vector = []
    for (let i = 0; i < 30 && seen.length === 0; i++) {
      await sleep(1_000)
      seen = await query(prom, "count(apiserver_request_sli_duration_seconds_count)").catch(() => [])
    }
    expect(seen.length).toBe(1)
    writeFileSync(
      join(dir, "short.yaml"),
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: short-phase }
setup:
  namespaces: [short]
phases:
  - name: warmup
    duration: 1s
    actions:
      - { type: constant-arrival-rate, name: list-warmup, rate: 10, request: { verb: list, resource: configmaps, namespace: short } }
  - name: steady
    duration: 6s
    actions:
      - { type: constant-arrival-rate, name: list, rate: 10, request: { verb: list, resource: configmaps, namespace: short } }
`
    )
    const out = join(dir, "run-short")
    const run = cli(["run", join(dir, "short.yaml"), "--target", url, "--prometheus", prom, "--out", out, "--workers", "1"])
    let stdout = ""
    let stderr = ""
    run.stdout!.on("data", (d: Buffer) => void (stdout += d.toString()))
    run.stderr!.on("data", (d: Buffer) => void (stderr += d.toString()))
    const code = await new Promise<number | null>((resolve) => run.on("exit", resolve))
    expect(code, stdout + stderr).toBe(0)
    const server = (JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact).server!
    expect(server.absent, stderr).toBeUndefined()
    const [warmup, steady] = server.phases
    const note = "its window of 1s is shorter than two of the target's scrape intervals in Prometheus (2s each), and increase() needs two samples in the window: a phase of at least 4s is read"
    expect(warmup).toMatchObject({ phase: "warmup", calls: [], unread: note })
    expect(stderr).toContain(`clustersim: warning: no server-side figures for phase warmup: ${note}\n`)
    expect(steady!.unread, stderr).toBeUndefined()
    // Prometheus' increase over the 6 s window (its scrapes in it, extrapolated): about the 60 LISTs sent
    expect(steady!.calls.find((c) => c.verb === "LIST")!.count).toBeGreaterThan(20)
    expect(stdout).toContain(`  phase warmup: not read — ${note}\n`)
  }, 180_000)
})
