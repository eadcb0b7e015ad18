/**
 * Node's process metrics (`process_*`, `nodejs_*`: prom-client's default metrics), made once per process and added to
 * every registry that exposes them (`serve`'s and the embedded server's `/metrics`, `run --metrics-addr`).
 * prom-client's `collectDefaultMetrics` starts a GC observer and an event-loop-delay monitor that nothing stops, and
 * they hold the registry they were given: called for each server, every server a process ever ran stayed reachable
 * with its whole store through its metrics' `collect`, and each added two monitors for the process's life, so a run
 * paid for every run before it in the same process. They measure the process, so one set serves every registry.
 */
import { collectDefaultMetrics, type Metric, Registry } from "prom-client"

/** Gauges named like counters, which `promtool check metrics` rejects; the other process metrics stay. */
const rejectedByPromtool = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]

let shared: ReadonlyArray<Metric> | undefined

/** The process metrics, collected from the first call on. */
const processMetrics = (): ReadonlyArray<Metric> => {
  if (shared === undefined) {
    const registry = new Registry()
    collectDefaultMetrics({ register: registry })
    for (const name of rejectedByPromtool) registry.removeSingleMetric(name)
    shared = registry.getMetricsAsArray().map((m) => registry.getSingleMetric(m.name)!)
  }
  return shared
}

/** Adds the process metrics to each of `registers` (a registry of either exposition format). */
export const addProcessMetrics = (registers: ReadonlyArray<Registry>): void => {
  for (const metric of processMetrics()) for (const registry of registers) registry.registerMetric(metric)
}
