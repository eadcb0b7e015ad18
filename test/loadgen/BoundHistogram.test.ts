/**
 * `BoundHistogram` (the modelled server's hot-path histogram) exposes what prom-client's own `Histogram` exposes for
 * the same observations: the same lines, in both formats, bucket bounds inclusive.
 */
import { Histogram, Registry } from "prom-client"
import { describe, expect, it } from "vitest"
import { BoundHistogram } from "../../src/loadgen/BoundHistogram.js"

describe("BoundHistogram", () => {
  it("writes prom-client's Histogram lines for the same observations", async () => {
    for (const contentType of [Registry.PROMETHEUS_CONTENT_TYPE, Registry.OPENMETRICS_CONTENT_TYPE]) {
      const theirs = new Registry()
      const ours = new Registry()
      theirs.setContentType(contentType as never)
      ours.setContentType(contentType as never)
      const config = { name: "demo_seconds", help: "Demo.", buckets: [0.005, 0.1, 1, 2.5] }
      const reference = new Histogram({ ...config, labelNames: ["verb", "code"], registers: [theirs] })
      const bound = new BoundHistogram({ ...config, registers: [ours] })
      const get = bound.cell({ verb: "GET", code: "200" })
      const put = bound.cell({ verb: "PUT", code: "409" })
      for (const v of [0.005, 0.004, 0.1, 0.7, 3, 1]) {
        reference.observe({ verb: "GET", code: "200" }, v)
        bound.observe(get, v)
      }
      reference.observe({ verb: "PUT", code: "409" }, 2.5)
      bound.observe(put, 2.5)
      expect(await ours.metrics()).toBe(await theirs.metrics())
    }
  })

  it("a twin writes the same cells under its own name: observed once, exposed by both", async () => {
    const theirs = new Registry()
    const ours = new Registry()
    const config = { buckets: [0.05, 0.5] }
    const sli = { ...config, name: "demo_sli_seconds", help: "SLI." }
    const slo = { ...config, name: "demo_slo_seconds", help: "SLO (deprecated)." }
    const references = [sli, slo].map((c) => new Histogram({ ...c, labelNames: ["verb"], registers: [theirs] }))
    const bound = new BoundHistogram({ ...sli, registers: [ours] })
    bound.twin({ ...slo, registers: [ours] })
    const get = bound.cell({ verb: "GET" })
    for (const v of [0.01, 0.3, 7]) {
      for (const h of references) h.observe({ verb: "GET" }, v)
      bound.observe(get, v)
    }
    // a cell bound after the twin was made is the twin's too
    const list = bound.cell({ verb: "LIST" })
    for (const h of references) h.observe({ verb: "LIST" }, 0.5)
    bound.observe(list, 0.5)
    expect(await ours.metrics()).toBe(await theirs.metrics())
  })
})
