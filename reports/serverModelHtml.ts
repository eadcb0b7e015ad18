/**
 * The HTML report's account of a simulated run's server model: every latency of such a run is modelled virtual time
 * from the service-time model (`cluster.serviceTime`, simulator/apiserver/ServiceTime.ts; docs/apf.md), not time
 * measured on the host, so the report says so next to the latencies and shows the parameters that produced them.
 */
import type { ServerModelReport } from "../simulator/cluster/ClusterResult.js"
import type { RunArtifact } from "../src/loadgen/Artifact.js"
import { apfReading, type ApfContext, levelClients } from "./apfReading.js"
import { formatMs } from "./format.js"

/** The run's server model, when its latencies are modelled (a simulated cluster's `serverModel`). */
export const serverModelOf = (a: RunArtifact): ServerModelReport | undefined => {
  const model = (a.cluster as { serverModel?: ServerModelReport } | undefined)?.serverModel
  return model?.modelled === true ? model : undefined
}

/** What the latency plots and tables add to their titles when the run's latencies are modelled. */
export const modelledNote = "modelled: the server's service-time model in virtual time, not measured"

const parameterRows: ReadonlyArray<readonly [keyof ServerModelReport["parameters"], string, (v: number) => string]> = [
  ["readBaseMs", "GET / LIST base cost", (v) => `${v} ms`],
  ["writeBaseMs", "write base cost", (v) => `${v} ms`],
  ["perObjectMs", "per object listed", (v) => `${v} ms`],
  ["perKiBMs", "per KiB of body", (v) => `${v} ms`],
  ["maxRequestsInflight", "max-requests-inflight", String],
  ["maxMutatingRequestsInflight", "max-mutating-requests-inflight", String],
  // shown only when a scenario sets them (docs/calibration.md)
  ["readDispersion", "read p99 ÷ p50 (log-normal spread)", String],
  ["writeDispersion", "write p99 ÷ p50 (log-normal spread)", String],
  ["sharedSeats", "one pool of seats for reads and writes", String]
]

const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** The "Server model" section: the notice, the `serviceTime` parameters, APF on or off, its priority levels and a reading of their 429s. */
export const serverModelSection = (model: ServerModelReport, context?: Omit<ApfContext, "givenUp">): string => {
  const p = model.parameters
  const params = parameterRows
    .filter(([key]) => p[key] !== undefined)
    .map(([key, label, fmt]) => `<tr data-parameter="${key}"><td>${escape(label)} (<code>${key}</code>)</td><td>${escape(fmt(p[key] as number))}</td></tr>`)
    .join("")
  const apfRow = `<tr data-parameter="apf"><td>API Priority and Fairness (<code>apf</code>)</td><td>${p.apf ? "on" : "off"}</td></tr>`
  const levels = Object.entries(model.priorityLevels ?? {})
  const levelTable =
    levels.length === 0
      ? ""
      : `<h3>Priority levels</h3><table id="priority-levels"><tr><th>level</th><th>seats</th><th>dispatched</th><th>rejected (429)</th><th>queue wait p99 (modelled)</th><th>whose requests</th></tr>${levels
          .map(
            ([name, l]) =>
              `<tr data-level="${escape(name)}"><td>${escape(name)}</td><td>${l.seats}</td><td>${l.dispatched}</td><td>${l.rejected}</td><td>${formatMs(l.queueWaitMs.p99)}</td><td>${escape(levelClients[name] ?? "")}</td></tr>`
          )
          .join("")}</table>`
  const reading = apfReading(model.priorityLevels ?? {}, { workload429s: context?.workload429s ?? 0, givenUp: model.givenUp ?? 0, ...(context?.outcome ? { outcome: context.outcome } : {}) })
  return (
    `<section id="server-model"><h2>Server model</h2>` +
    `<p class="modelled"><b>Latencies in this report are modelled</b> (virtual time from the simulated server's service-time model, ` +
    `<code>cluster.serviceTime</code>), not measured on this host: a request costs its base cost plus its objects and bytes, ` +
    `and waits for a seat${p.apf ? " of its priority level" : ""}.</p>` +
    `<table id="server-model-parameters"><tr><th>parameter</th><th>value</th></tr>${params}${apfRow}</table>${levelTable}` +
    (reading !== undefined ? `<p id="apf-reading">${escape(reading)}</p>` : "") +
    (model.relistMemory !== undefined
      ? `<p id="relist-memory">Relist server memory (modelled, docs/watchlist.md): peak ${(model.relistMemory.peakBytes / 1048576).toFixed(1)} MiB at ${formatMs(model.relistMemory.peakAtMs)} ` +
        `(${model.relistMemory.atPeak.lists} LISTs, ${model.relistMemory.atPeak.watchLists} WatchLists in flight); ${model.relistMemory.lists.count} LISTs, ${model.relistMemory.watchLists.count} WatchLists in the run.</p>`
      : "") +
    `</section>`
  )
}
