/**
 * Node's process metrics are one set per process (src/loadgen/ProcessMetrics.ts): a server closed in a process that
 * goes on (a run on the embedded target, `compare`'s sides, a test file) is not kept alive by them, so the next run
 * in that process does not carry it; every server's `/metrics` still has them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Registry } from "prom-client"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { ServerMetrics } from "../../simulator/apiserver/http/ServerMetrics.js"
import { defaultConfig, ServerState } from "../../simulator/apiserver/ServerState.js"
import { addProcessMetrics } from "../../src/loadgen/ProcessMetrics.js"

/** A full collection on demand (as `node --expose-gc` gives `gc`). */
const collectGarbage = (): void => {
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as () => void
  gc()
  gc()
}

/** Waits a few turns for the collector: a WeakRef is cleared only after the turn that last read it. */
const collected = async (ref: WeakRef<object>): Promise<boolean> => {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    collectGarbage()
    if (ref.deref() === undefined) return true
  }
  return false
}

describe("process metrics, one set per process", () => {
  it("a server's metrics do not keep its state alive once it is dropped", async () => {
    const ref = (() => {
      const state = new ServerState(defaultConfig, 0)
      new ServerMetrics(state)
      return new WeakRef(state)
    })()
    expect(await collected(ref)).toBe(true)
  })

  it("an HTTP server closed with its scope leaves nothing of its API server behind", async () => {
    const ref = await Effect.runPromise(
      Effect.scoped(Effect.gen(function* () {
        const api = yield* ApiServer
        yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false })
        return new WeakRef(api.state)
      })).pipe(Effect.provide(Layer.fresh(ApiServer.layer({ seed: 3 }))))
    )
    expect(await collected(ref)).toBe(true)
  })

  it("every registry gets the same process metrics, promtool's rejected gauges left out", async () => {
    const a = new Registry()
    const b = new Registry()
    addProcessMetrics([a])
    addProcessMetrics([b])
    const names = (r: Registry) => r.getMetricsAsArray().map((m) => m.name)
    expect(names(a)).toEqual(names(b))
    expect(names(a)).toEqual(expect.arrayContaining(["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_gc_duration_seconds", "nodejs_eventloop_lag_seconds"]))
    expect(names(a).filter((n) => n.startsWith("nodejs_active_") && n.endsWith("_total"))).toEqual([])
    expect(a.getSingleMetric("nodejs_gc_duration_seconds")).toBe(b.getSingleMetric("nodejs_gc_duration_seconds"))
    expect(await a.metrics()).toContain("# TYPE process_cpu_seconds_total counter\n")
  })
})
