/**
 * `OpenMetricsFile` (`run --metrics-out`'s writer): scrapes of a prom-client registry at given instants become one
 * OpenMetrics file — each family once (HELP, TYPE, then its samples in scrape order), every sample stamped with its
 * instant in seconds, counters' samples with `_total`, `# EOF` last — and the spool beside it is gone.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Counter, Gauge, Histogram, Registry } from "prom-client"
import { describe, expect, it } from "vitest"
import { BoundHistogram } from "../../src/loadgen/BoundHistogram.js"
import { OpenMetricsFile } from "../../src/loadgen/OpenMetricsFile.js"

describe("OpenMetricsFile", () => {
  it("writes each family once with timestamped samples and ends with # EOF", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-om-"))
    const path = join(dir, "metrics.om")
    const registry = new Registry()
    const requests = new Counter({ name: "demo_requests_total", help: "Requests.", labelNames: ["code"], registers: [registry] })
    const latency = new Histogram({ name: "demo_latency_seconds", help: "Latency.", buckets: [0.1, 1], registers: [registry] })
    const file = OpenMetricsFile.open(path, registry)
    await file.scrape(1_767_225_600_000)
    requests.inc({ code: "200" })
    latency.observe(0.5)
    await file.scrape(1_767_225_615_000)
    requests.inc({ code: "429" }, 2)
    await file.scrape(1_767_225_630_500)
    file.close()
    expect(readFileSync(path, "utf8")).toBe(
      [
        "# HELP demo_requests Requests.",
        "# TYPE demo_requests counter",
        'demo_requests_total{code="200"} 1 1767225615',
        'demo_requests_total{code="200"} 1 1767225630.5',
        'demo_requests_total{code="429"} 2 1767225630.5',
        "# HELP demo_latency_seconds Latency.",
        "# TYPE demo_latency_seconds histogram",
        'demo_latency_seconds_bucket{le="0.1"} 0 1767225600',
        'demo_latency_seconds_bucket{le="1"} 0 1767225600',
        'demo_latency_seconds_bucket{le="+Inf"} 0 1767225600',
        "demo_latency_seconds_sum 0 1767225600",
        "demo_latency_seconds_count 0 1767225600",
        'demo_latency_seconds_bucket{le="0.1"} 0 1767225615',
        'demo_latency_seconds_bucket{le="1"} 1 1767225615',
        'demo_latency_seconds_bucket{le="+Inf"} 1 1767225615',
        "demo_latency_seconds_sum 0.5 1767225615",
        "demo_latency_seconds_count 1 1767225615",
        'demo_latency_seconds_bucket{le="0.1"} 0 1767225630.5',
        'demo_latency_seconds_bucket{le="1"} 1 1767225630.5',
        'demo_latency_seconds_bucket{le="+Inf"} 1 1767225630.5',
        "demo_latency_seconds_sum 0.5 1767225630.5",
        "demo_latency_seconds_count 1 1767225630.5",
        "# EOF",
        ""
      ].join("\n")
    )
    expect(readdirSync(dir)).toEqual(["metrics.om"])
  })

  it("writes the lines prom-client's own OpenMetrics exposition writes, escapes and shared labels included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-om-"))
    const path = join(dir, "metrics.om")
    const registry = new Registry()
    const counter = new Counter({ name: "demo_ops_total", help: "Ops with a \\ and a\nnewline.", labelNames: ["path", "code"], registers: [registry] })
    const gauge = new Gauge({ name: "demo_level", help: "Level.", labelNames: ["name"], registers: [registry] })
    const histogram = new Histogram({ name: "demo_wait_seconds", help: "Wait.", labelNames: ["verb"], buckets: [0, 0.5, 2], registers: [registry] })
    const bound = new BoundHistogram({ name: "demo_bound_seconds", help: "Bound.", buckets: [0.005, 1], registers: [registry] })
    new Gauge({ name: "demo_empty", help: "Nothing yet.", registers: [registry] })
    counter.inc({ path: 'a "quoted" \\ path\nwith a newline', code: "200" }, 3)
    counter.inc({ path: "/plain", code: "429" })
    gauge.set({ name: "x" }, -Infinity)
    gauge.set({ name: "y" }, 0.1 + 0.2)
    histogram.observe({ verb: "GET" }, 0)
    histogram.observe({ verb: "PUT" }, 3)
    bound.observe(bound.cell({ verb: "LIST", scope: "cluster" }), 0.7)
    const file = OpenMetricsFile.open(path, registry)
    await file.scrape(1_767_225_615_000)
    file.close()
    // prom-client's text of the same registry (it is OpenMetrics now), each sample stamped
    const theirs = (await registry.metrics()).split("\n").map((l) => (l === "" || l.startsWith("#") ? l : `${l} 1767225615`))
    expect(readFileSync(path, "utf8").split("\n")).toEqual(theirs)
    expect(theirs).toContain('demo_ops_total{path="a \\"quoted\\" \\\\ path\\nwith a newline",code="200"} 3 1767225615')
    expect(theirs).toContain('demo_bound_seconds_bucket{le="1",verb="LIST",scope="cluster"} 1 1767225615')
  })

  it("writes a BoundHistogram's lines as prom-client writes them at every scrape, cells bound between scrapes included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-om-"))
    const path = join(dir, "metrics.om")
    const registry = new Registry()
    const bound = new BoundHistogram({ name: "demo_bound_seconds", help: "Bound.", buckets: [0.005, 0.1, 1, 2.5], registers: [registry] })
    bound.twin({ name: "demo_twin_seconds", help: "Twin.", registers: [registry] })
    const unlabelled = new BoundHistogram({ name: "demo_plain_seconds", help: "Plain.", buckets: [1], registers: [registry] })
    const plain = unlabelled.cell({})
    const file = OpenMetricsFile.open(path, registry)
    // each scrape's expected lines per family: prom-client's text of the registry at that instant, stamped
    const expected = new Map<string, Array<string>>()
    const scrape = async (t: number) => {
      let family = ""
      for (const line of (await registry.metrics()).split("\n")) {
        if (line === "" || line === "# EOF") continue
        if (line.startsWith("# HELP ")) family = line.split(" ")[2]!
        const lines = expected.get(family) ?? expected.set(family, []).get(family)!
        if (!line.startsWith("#")) lines.push(`${line} ${t / 1000}`)
        else if (lines.every((l) => l.startsWith("#"))) lines.push(line)
      }
      await file.scrape(t)
    }
    const get = bound.cell({ verb: "GET", code: "200" })
    await scrape(1_767_225_600_000)
    for (const v of [0.004, 0.7, 0.7, 3]) bound.observe(get, v)
    unlabelled.observe(plain, 0.25)
    // bound after the first scrape: written from the next one on
    const list = bound.cell({ verb: "LIST", path: 'a "quoted" \\ path' })
    bound.observe(list, 0.1)
    await scrape(1_767_225_615_000)
    bound.observe(get, 0.1 + 0.2)
    await scrape(1_767_225_630_500)
    file.close()
    const written = readFileSync(path, "utf8")
    expect(written).toBe([...[...expected.values()].flat(), "# EOF", ""].join("\n"))
    expect(written).toContain('demo_twin_seconds_bucket{le="1",verb="GET",code="200"} 4 1767225630.5')
    expect(written).toContain('demo_bound_seconds_sum{verb="GET",code="200"} 4.704 1767225630.5')
    expect(written.split("\n").filter((l) => l.startsWith("demo_bound_seconds_count"))).toHaveLength(5)
  })
})
