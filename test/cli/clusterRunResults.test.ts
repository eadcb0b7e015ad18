/**
 * A small cluster run read as its user reads it: the summary's image-pull and APF lines, the files named at the end,
 * and report.html with the charts the cluster's thresholds judge, one legend per chart. Virtual time: every figure
 * is the seed's (the wall-clock part of the first line aside).
 */
import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { runCommand } from "../../app/cli/run.js"
import { smallCluster } from "../support/smallCluster.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-results-"))


let stdout = ""
let outDir = ""
let exitCode = -1
beforeAll(async () => {
  const file = join(dir, "small-cluster.yaml")
  writeFileSync(file, smallCluster)
  outDir = join(dir, "out")
  const out: Array<string> = []
  const r = await Effect.runPromise(runCommand({ file, target: { _tag: "in-process" }, outDir, tty: false, stdout: (s) => void out.push(s), stderr: () => {} }))
  stdout = out.join("")
  exitCode = r.exitCode
}, 60_000)

describe("a small cluster run's summary", () => {
  it("shows the image pulls by registry and outcome, the pull events and the credential plugin", () => {
    expect(exitCode).toBe(0)
    const lines = stdout.split("\n")
    const at = lines.findIndex((l) => l.startsWith("  image pulls:"))
    expect(lines.slice(at, at + 4)).toEqual([
      "  image pulls: 11 pods started, 7 of them after pulling; last pull failure at 41s",
      "    registry.example: 8 served, 4 unauthorized (401)",
      "    pull events: Pulling 12, Pulled 12, Failed 4, BackOff 2",
      "    credential plugin: 6 execs, 0 failures, 6 cache hits"
    ])
  })

  it("shows APF per priority level with whose requests it serves, and reads the rejections", () => {
    expect(stdout).toContain(
      [
        "    system (node agents' other requests: pod status, reads): 1 seat, 15 dispatched, 0 rejected, queue wait p99 48ms",
        "    node-high (node agents' Node and Lease requests): 1 seat, 50 dispatched, 0 rejected, queue wait p99 39ms",
        "    global-default (every other user: the load, components without an identity of their own): 1 seat, 510 dispatched, 501 rejected (429: 501 timed out in queue), queue wait p99 15s",
        "  APF rejected 501 requests with 429 (global-default 501); clients retried each after Retry-After (1 s, up to 10 times): no node-agent request was given up, no load request failed; node leases (node-high) were never rejected; the run met its thresholds"
      ].join("\n")
    )
  })

  it("counts the nodes and pods in words that fit: started pods, Ready nodes", () => {
    expect(stdout).toMatch(/^simulated cluster: 4 nodes, 12 pods, 11 started, 1m00s of virtual time in /m)
    expect(stdout).toContain("\n  Ready nodes: 4 of 4 at the end, no node left Ready\n")
  })

  it("ends naming report.html and run.json", () => {
    expect(stdout.endsWith(`PASS (exit 0)\nreport: ${join(outDir, "report.html")}\nartifact: ${join(outDir, "run.json")}\n`)).toBe(true)
  })
})

describe("a small cluster run's report.html", () => {
  const html = () => readFileSync(join(outDir, "report.html"), "utf8")
  const charts = () => [...html().matchAll(/<div id="([^"]+)" class="plot" data-legend="([^"]+)"><\/div>/g)].map((m) => [m[1], m[2]] as const)
  const data = () => JSON.parse(/<script id="clustersim-data" type="application\/json">(.*?)<\/script>/s.exec(html())![1]!) as Record<string, any>

  it("has the lease renew latency, lease writes and Ready-node charts, with their data over the run", () => {
    expect(charts().map(([id]) => id)).toEqual(["latency", "throughput", "errors", "spectrum", "lease-latency", "lease-writes", "ready-nodes", "timeline"])
    const cc = data().clusterCharts
    // 1 minute in 10 s intervals; 23 lease writes in all, as the summary counts
    expect(cc.lease.x).toEqual([0, 10, 20, 30, 40, 50])
    expect(cc.lease.writesPerSecond.reduce((a: number, b: number) => a + b, 0) * 10).toBeCloseTo(23, 6)
    expect(cc.lease.renewP99.every((v: number | null) => v === null || (v > 0 && v < 100))).toBe(true)
    expect(cc.ready.y[cc.ready.y.length - 1]).toBe(4)
    expect(cc.ready.x[cc.ready.x.length - 1]).toBe(60)
    expect(cc.markers).toEqual([{ t: 5, label: "expire-registry-credentials", kind: "fault" }])
  })

  it("one legend per chart: the throughput chart uses the latency chart's, the spectrum lists only the series that has not", () => {
    const legends = Object.fromEntries(charts())
    expect(legends).toEqual({ latency: "own", throughput: "latency", errors: "own", spectrum: "partial", "lease-latency": "own", "lease-writes": "own", "ready-nodes": "own", timeline: "own" })
    // the spectrum has the pod start-up series, which have no line over time: its legend lists those
    expect(data().spectrum.series.map((s: { label: string }) => s.label)).toContain("pod_startup start pods namespace with-image-pulls")
    expect(data().legends).toEqual({ throughput: "latency", spectrum: "partial" })
  })

  it("has the image pulls by registry and outcome, and the APF reading beside the priority levels", () => {
    expect(html()).toContain(
      `<tr data-registry="registry.example"><td>registry.example</td><td>8</td><td>4</td><td>0</td><td>0</td><td>0</td></tr></table><p>Pull events: Pulling 12, Pulled 12, Failed 4, BackOff 2. Credential plugin: 6 execs, 0 failures, 6 cache hits.</p>`
    )
    expect(html()).toContain(
      `<tr data-level="global-default"><td>global-default</td><td>1</td><td>510</td><td>501</td><td>15s</td><td>every other user: the load, components without an identity of their own</td></tr>`
    )
    expect(html()).toMatch(/<p id="apf-reading">APF rejected 501 requests with 429 \(global-default 501\); clients retried each after Retry-After/)
  })

  it("gives every series its own colour-and-dash style", () => {
    const styles = Object.values(data().styles as Record<string, { color: string; dash: ReadonlyArray<number> }>).map((s) => `${s.color} ${s.dash.join(",")}`)
    expect(styles.length).toBeGreaterThan(3)
    expect(new Set(styles).size).toBe(styles.length)
  })
})
