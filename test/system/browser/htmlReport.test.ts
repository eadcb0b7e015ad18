import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { chromium, type Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { renderComparisonHtml } from "../../../reports/html.js"
import { runCommand } from "../../../app/cli/run.js"
import { compareSides } from "../../../src/compare/Compare.js"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { smallCluster } from "../../support/smallCluster.js"
import { syntheticRun } from "../../support/syntheticRun.js"
import { renderSweepHtml } from "../../../reports/sweepHtml.js"
import { result as sweepResult } from "../../support/sweepResult.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-html-"))
let browser: Browser
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update"] })
}, 60_000)
afterAll(async () => {
  await browser?.close()
})

interface PlotInfo {
  readonly id: string
  readonly title: string
  /** "own", or the chart whose legend it uses ("latency"). */
  readonly legend: string
  readonly series: ReadonlyArray<string>
  readonly points: ReadonlyArray<number>
  /** The x scale's range as drawn. */
  readonly x: readonly [number, number]
}

/** Opens a file with the network blocked; returns console errors, failed requests and the plots drawn. */
const open = async (file: string, screenshot?: string) => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
  const problems: Array<string> = []
  page.on("console", (m) => void (m.type() === "error" && problems.push(`console: ${m.text()}`)))
  page.on("pageerror", (e) => void problems.push(`page error: ${e.message}`))
  await page.route(/^(?!file:)/, (route) => {
    problems.push(`network: ${route.request().url()}`)
    return route.abort()
  })
  await page.goto(pathToFileURL(file).href)
  await page.waitForSelector("body[data-plots]")
  const plots = (await page.evaluate("window.clustersimPlots")) as ReadonlyArray<PlotInfo>
  const canvases = await page.locator(".uplot canvas").count()
  // per chart: its canvases, drawn size, and the labels of the legend drawn under it (none: it uses another's)
  const charts = (await page.evaluate(`[...document.querySelectorAll("div.plot")].map((el) => ({
    id: el.id,
    canvases: el.querySelectorAll("canvas").length,
    drawn: [...el.querySelectorAll("canvas")].some((c) => c.width > 0 && c.height > 0),
    legends: el.querySelectorAll(".u-legend").length,
    legendLabels: [...el.querySelectorAll(".u-legend .u-series")].filter((r) => r.style.display !== "none").map((r) => r.querySelector(".u-label").textContent)
  }))`)) as ReadonlyArray<{ id: string; canvases: number; drawn: boolean; legends: number; legendLabels: ReadonlyArray<string> }>
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true })
  await page.close()
  return { problems, plots, canvases, charts }
}

describe("HTML report in Chromium", () => {
  it("a run's report: no console errors, no network, latency/throughput/errors/spectrum plots with every series", async () => {
    const f = join(dir, "s.yaml")
    writeFileSync(
      f,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: html }
setup:
  namespaces: [h]
  objects: [{ name: cms, resource: configmaps, namespace: h, count: 10 }]
phases:
  - name: warmup
    duration: 1s
    actions:
      - { type: constant-arrival-rate, name: get, rate: 20, request: { verb: get, objects: cms } }
  - name: steady
    duration: 2s
    actions:
      - { type: constant-arrival-rate, name: list-a, rate: 10, request: { verb: list, resource: configmaps, namespace: h } }
      - { type: constant-arrival-rate, name: list-b, rate: 10, request: { verb: list, resource: configmaps, namespace: h, limit: 5 } }
      - { type: drop-watches, name: drop, at: 1s }
`
    )
    const outDir = join(dir, "run")
    const r = await Effect.runPromise(runCommand({ file: f, target: { _tag: "in-process" }, outDir, tty: false, stdout: () => {}, stderr: () => {} }))
    expect(r.exitCode).toBe(0)
    const html = readFileSync(join(outDir, "report.html"), "utf8")
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/)
    const { problems, plots, canvases, charts } = await open(join(outDir, "report.html"), process.env.CLUSTERSIM_SCREENSHOT)
    expect(problems).toEqual([])
    expect(plots.map((p) => p.id)).toEqual(["latency", "throughput", "errors", "spectrum"])
    expect(canvases).toBe(4)
    // one legend per chart: throughput and spectrum show the latency chart's series and use its legend
    expect(plots.map((p) => p.legend)).toEqual(["own", "latency", "own", "latency"])
    expect(charts.map((c) => [c.id, c.legends])).toEqual([["latency", 1], ["throughput", 0], ["errors", 1], ["spectrum", 0]])
    const legendLabels = charts.flatMap((c) => c.legendLabels).filter((l) => l !== "t (s)" && l !== "percentile")
    expect(new Set(legendLabels).size).toBe(legendLabels.length)
    const expected = [
      "api_call GET configmaps resource warmup/get",
      "api_call LIST configmaps namespace steady/list-a",
      "api_call LIST configmaps namespace steady/list-b",
      "setup POST configmaps resource setup/cms"
    ]
    const latency = plots.find((p) => p.id === "latency")!
    expect(latency.series).toEqual(expected)
    expect(latency.points.every((n) => n >= 1)).toBe(true)
    expect(plots.find((p) => p.id === "spectrum")!.series).toEqual(expected)
    expect(plots.find((p) => p.id === "errors")!.series).toEqual(["errors", "dropped iterations"])
  }, 60_000)

  it("a comparison's report overlays the sides' spectra per series", async () => {
    const key = { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase: "steady", name: "list" }
    const side = (label: string, median: number, seed: number) => ({
      label,
      rounds: [0, 1, 2].map((r) => syntheticRun({ seed: seed + r, series: [{ key, medianMs: median, samples: 300 }] }))
    })
    const sides = [side("A", 10, 1), side("B", 20, 100)]
    const result = compareSides(sides, { paired: true })
    if (result._tag !== "Compared") throw new Error(result.reason)
    const file = join(dir, "compare.html")
    writeFileSync(file, renderComparisonHtml(result.comparison, sides))
    const { problems, plots } = await open(file)
    expect(problems).toEqual([])
    expect(plots).toHaveLength(2)
    expect(plots[0]!.title).toBe("api_call LIST configmaps namespace steady/list: latency by percentile, sides overlaid")
    expect(plots[0]!.series).toEqual(["A (3 rounds)", "B (3 rounds)"])
    expect(plots[1]!.title).toBe("api_call LIST configmaps namespace steady/list: p50 (solid) and p99 (dashed) of each round, the values the intervals come from")
    expect(plots[1]!.series).toEqual(["A p50", "A p99", "B p50", "B p99"])
    expect(plots[1]!.points).toEqual([3, 3, 3, 3])
    expect(readFileSync(file, "utf8")).toContain("B slower, p50 ×")
  }, 60_000)

  it("a cluster run's report: lease renew latency, lease writes and Ready nodes drawn, one legend per chart, no console errors", async () => {
    const f = join(dir, "small-cluster.yaml")
    writeFileSync(f, smallCluster)
    const outDir = join(dir, "cluster-run")
    const r = await Effect.runPromise(runCommand({ file: f, target: { _tag: "in-process" }, outDir, tty: false, stdout: () => {}, stderr: () => {} }))
    expect(r.exitCode).toBe(0)
    const { problems, plots, charts } = await open(join(outDir, "report.html"))
    expect(problems).toEqual([])
    expect(plots.map((p) => p.id)).toEqual(["latency", "throughput", "errors", "spectrum", "lease-latency", "lease-writes", "ready-nodes", "timeline"])
    const byId = Object.fromEntries(plots.map((p) => [p.id, p]))
    expect(byId["lease-latency"]!.series).toEqual(["renew p99", "renew p50"])
    expect(byId["lease-latency"]!.points).toEqual([6, 6])
    expect(byId["lease-writes"]!.series).toEqual(["lease writes/s", "failed lease requests/s"])
    expect(byId["ready-nodes"]!.series).toEqual(["Ready nodes"])
    expect(byId["ready-nodes"]!.points[0]).toBeGreaterThanOrEqual(3)
    for (const id of ["lease-latency", "lease-writes", "ready-nodes"]) {
      const c = charts.find((x) => x.id === id)!
      expect([id, c.canvases, c.drawn, c.legends]).toEqual([id, 1, true, 1])
    }
    // the spectrum lists only the pod start-up series (no line over time); the others are in the latency chart's legend
    expect(byId["spectrum"]!.legend).toBe("partial")
    expect(charts.find((c) => c.id === "spectrum")!.legendLabels).toEqual(["percentile", "pod_startup start pods namespace with-image-pulls", "pod_startup start pods namespace without-image-pulls"])
    // every chart has at most one legend, and no series is listed in two
    expect(charts.every((c) => c.legends <= 1)).toBe(true)
    const labels = charts.flatMap((c) => c.legendLabels).filter((l) => l !== "t (s)" && l !== "percentile")
    expect(new Set(labels).size).toBe(labels.length)
  }, 60_000)

  it("a simulated cluster's report has its timeline", async () => {
    const base = syntheticRun({ seed: 1, series: [] }) as RunArtifact
    const a: RunArtifact = {
      ...base,
      target: { kind: "simulated-cluster" },
      cluster: {
        nodes: 1,
        pods: 1,
        durationMs: 400_000,
        heartbeats: { leaseWrites: 40, perSecond: 0.1, failedAttempts: 0 },
        nodeStatus: { checks: 40, patches: 2 },
        leaseRenewLatency: { p50: 1, p99: 2 },
        readyTimeline: { "node-1": [[0, "True", "KubeletReady"], [50_000, "Unknown", "NodeStatusUnknown"]] },
        taints: [{ t: 50_000, node: "node-1", op: "add", key: "node.kubernetes.io/unreachable", effect: "NoExecute" }],
        podDeletions: [{ t: 350_000, pod: "p-1", node: "node-1" }],
        evictions: [],
        events: { byReason: { LeaderElection: 1 }, list: [{ t: 1000, reason: "LeaderElection", object: "kube-scheduler", note: "became leader" }] },
        faults: [{ type: "node-stop", at: 10_000, nodes: ["node-1"] }]
      }
    }
    const file = join(dir, "cluster.html")
    const { renderRunHtml } = await import("../../../reports/html.js")
    writeFileSync(file, renderRunHtml(a))
    const { problems, plots } = await open(file)
    expect(problems).toEqual([])
    const timeline = plots.find((p) => p.id === "timeline")!
    expect(timeline.series).toEqual(["Ready changes", "taints", "pod deletions", "evictions", "leader changes", "faults"])
    expect(timeline.points).toEqual([1, 1, 1, 0, 1, 1])
    // the run's whole span (its cluster ran 400 s), not only its events' (1–350 s)
    expect(timeline.x).toEqual([0, 400])
  }, 60_000)

  it("a short run with long names: its axis spans its 1 s, each legend row stays on one line, a phase's label is drawn right of its marker", async () => {
    const phase = "a-phase-name-long-enough-to-reach-well-into-the-chart-and-beyond"
    const action = "list-configmaps-in-namespace-h-with-an-action-name-long-enough-to-wrap-the-legend"
    const f = join(dir, "short.yaml")
    writeFileSync(
      f,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: short }
setup:
  namespaces: [h]
phases:
  - name: ${phase}
    duration: 800ms
    actions:
      - { type: constant-arrival-rate, name: ${action}, rate: 20, request: { verb: list, resource: configmaps, namespace: h } }
`
    )
    const outDir = join(dir, "short-run")
    const r = await Effect.runPromise(runCommand({ file: f, target: { _tag: "in-process" }, outDir, tty: false, stdout: () => {}, stderr: () => {} }))
    expect(r.exitCode).toBe(0)
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
    // every text drawn on a canvas, with its alignment and where it starts and ends
    await page.addInitScript(() => {
      const drawn: Array<{ text: string; align: string; left: number; right: number; canvasWidth: number }> = []
      ;(window as unknown as { drawnTexts: typeof drawn }).drawnTexts = drawn
      const fillText = CanvasRenderingContext2D.prototype.fillText
      CanvasRenderingContext2D.prototype.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, maxWidth?: number) {
        const width = this.measureText(text).width
        const left = this.textAlign === "right" || this.textAlign === "end" ? x - width : this.textAlign === "center" ? x - width / 2 : x
        drawn.push({ text, align: this.textAlign, left, right: left + width, canvasWidth: this.canvas.width })
        return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth)
      }
    })
    await page.goto(pathToFileURL(join(outDir, "report.html")).href)
    await page.waitForSelector("body[data-plots]")
    const plots = (await page.evaluate("window.clustersimPlots")) as ReadonlyArray<PlotInfo>
    for (const id of ["latency", "throughput", "errors"]) expect([id, plots.find((p) => p.id === id)!.x]).toEqual([id, [0, 1]])
    // the legend row of the long series: marker, label, ":" and value side by side, on the label's band
    const row = (await page.evaluate(`(() => {
      const tr = [...document.querySelectorAll("#latency .u-legend .u-series")].find((r) => r.textContent.includes("${action}"));
      const box = (el) => { const b = el.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom }; };
      return { marker: box(tr.querySelector(".u-marker")), label: box(tr.querySelector(".u-label")), value: box(tr.querySelector(".u-value")) };
    })()`)) as Record<"marker" | "label" | "value", { left: number; right: number; top: number; bottom: number }>
    const within = (b: { top: number; bottom: number }) => b.top >= row.label.top - 1 && b.bottom <= row.label.bottom + 1
    expect([within(row.marker), within(row.value), row.marker.right <= row.label.left, row.value.left >= row.label.right]).toEqual([true, true, true, true])
    // the phase marker's label: left-aligned at the marker, cut to the chart's width, not drawn over the y axis's ticks
    const texts = (await page.evaluate("window.drawnTexts")) as ReadonlyArray<{ text: string; align: string; left: number; right: number; canvasWidth: number }>
    const labels = texts.filter((t) => t.text.startsWith(phase.slice(0, 10)))
    expect(labels.length).toBeGreaterThanOrEqual(3)
    for (const l of labels) expect([l.align, l.left > 0, l.right <= l.canvasWidth]).toEqual(["left", true, true])
    const yTicks = texts.filter((t) => /^\d+(ms|µs|s)$/.test(t.text) && t.align === "right")
    for (const l of labels) for (const t of yTicks) expect(l.left).toBeGreaterThanOrEqual(t.right)
    if (process.env.CLUSTERSIM_SCREENSHOT) await page.screenshot({ path: process.env.CLUSTERSIM_SCREENSHOT.replace(/\.png$/, "-short.png"), fullPage: true })
    await page.close()
  }, 60_000)

  it("a simulated run's report marks its latencies as modelled and shows the server model's parameters and APF levels", async () => {
    const latencies = syntheticRun({ seed: 2, series: [{ key: { metric: "api_call", operation: "LIST", resource: "pods", scope: "cluster" }, medianMs: 151, samples: 50 }] }) as RunArtifact
    const serverModel = {
      modelled: true,
      parameters: { readBaseMs: 1, writeBaseMs: 20, perObjectMs: 0.005, perKiBMs: 0.01, maxRequestsInflight: 40, maxMutatingRequestsInflight: 4, apf: true },
      priorityLevels: {
        "node-high": { seats: 8, dispatched: 35244, rejected: 0, rejectedBy: { "queue-full": 0, "time-out": 0, "concurrency-limit": 0 }, queueWaitMs: { count: 1, p50: 1, p90: 1, p99: 1140, max: 1200, mean: 1 } },
        "global-default": { seats: 4, dispatched: 32180, rejected: 324151, rejectedBy: { "queue-full": 324151, "time-out": 0, "concurrency-limit": 0 }, queueWaitMs: { count: 1, p50: 1, p90: 1, p99: 4660, max: 5000, mean: 1 } }
      }
    }
    const cluster = {
      nodes: 1, pods: 0, durationMs: 60_000, heartbeats: { leaseWrites: 6, perSecond: 0.1, failedAttempts: 0 }, nodeStatus: { checks: 6, patches: 0 },
      leaseRenewLatency: { p50: 20, p99: 20 }, readyTimeline: {}, taints: [], podDeletions: [], evictions: [], events: { byReason: {}, list: [] }, faults: []
    }
    const { renderRunHtml } = await import("../../../reports/html.js")
    const render = async (a: RunArtifact, name: string) => {
      const file = join(dir, name)
      writeFileSync(file, renderRunHtml(a))
      const page = await browser.newPage()
      await page.goto(pathToFileURL(file).href)
      await page.waitForSelector("body[data-plots]")
      const shown = {
        section: (await page.locator("#server-model").count()) > 0 ? await page.locator("#server-model").innerText() : undefined,
        parameters: await page.locator("#server-model-parameters tr[data-parameter]").evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-parameter"), (r.lastElementChild as HTMLElement).innerText])),
        levels: await page.locator("#priority-levels tr[data-level]").evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c as HTMLElement).innerText))),
        seriesHeading: await page.locator("h2", { hasText: "Series" }).innerText(),
        titles: ((await page.evaluate("window.clustersimPlots")) as ReadonlyArray<PlotInfo>).map((p) => p.title)
      }
      await page.close()
      return shown
    }
    const modelled = await render({ ...latencies, target: { kind: "simulated-cluster" }, cluster: { ...cluster, serverModel } }, "modelled.html")
    expect(modelled.section).toContain("Latencies in this report are modelled")
    expect(modelled.parameters).toEqual([
      ["readBaseMs", "1 ms"],
      ["writeBaseMs", "20 ms"],
      ["perObjectMs", "0.005 ms"],
      ["perKiBMs", "0.01 ms"],
      ["maxRequestsInflight", "40"],
      ["maxMutatingRequestsInflight", "4"],
      ["apf", "on"]
    ])
    expect(modelled.levels).toEqual([
      ["node-high", "8", "35244", "0", "1.14s", "node agents' Node and Lease requests"],
      ["global-default", "4", "32180", "324151", "4.66s", "every other user: the load, components without an identity of their own"]
    ])
    expect(modelled.section).toContain(
      "APF rejected 324151 requests with 429 (global-default 324151); clients retried each after Retry-After (1 s, up to 10 times): no node-agent request was given up, no load request failed; node leases (node-high) were never rejected; the run met its thresholds"
    )
    expect(modelled.seriesHeading).toContain("modelled")
    const latencyTitles = modelled.titles.filter((t) => /^Latency/.test(t))
    expect(latencyTitles).toHaveLength(2)
    for (const t of latencyTitles) expect(t).toContain("modelled")

    const noApf = await render({ ...latencies, target: { kind: "simulated-cluster" }, cluster: { ...cluster, serverModel: { modelled: true, parameters: { ...serverModel.parameters, apf: false } } } }, "no-apf.html")
    expect(noApf.parameters.at(-1)).toEqual(["apf", "off"])
    expect(noApf.levels).toEqual([])

    // a run against a real server measured its latencies: no model, no marks
    const measured = await render(latencies, "measured.html")
    expect(measured.section).toBeUndefined()
    expect(measured.seriesHeading).toBe("Series")
    for (const t of measured.titles) expect(t).not.toContain("modelled")
  }, 60_000)

  it("a sweep's page: one plot per headline figure, a line per value of the other parameter, no console errors", async () => {
    const file = join(dir, "sweep.html")
    writeFileSync(file, renderSweepHtml(sweepResult))
    const { problems, plots, charts } = await open(file)
    expect(problems).toEqual([])
    expect(plots.map((p) => p.id)).toEqual(sweepResult.headline.map((_, i) => `sweep-${i}`))
    expect(plots.map((p) => p.title)).toEqual(sweepResult.headline.map((h) => `${h} against cluster.nodes`))
    for (const p of plots) expect(p.series).toEqual(["cluster.serviceTime.apf=true", "cluster.serviceTime.apf=false"])
    expect(plots[0]!.points).toEqual([2, 1])
    expect(charts.every((c) => c.drawn)).toBe(true)
    expect(readFileSync(file, "utf8")).toContain(`<a href="3-nodes=500_apf=true/report.html">3</a>`)
  }, 60_000)
})
