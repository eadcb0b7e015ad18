/**
 * API Priority and Fairness in a simulated run's summary and report: per priority level what it dispatched, rejected
 * (by reason) and how long requests queued, whose requests the level serves, and one line reading the rejections —
 * which levels, that clients retried them (client-go: `src/client/TooManyRequests.ts`), what was lost after the
 * retries and whether the run still met its thresholds (docs/apf.md).
 */
import type { LevelMetrics } from "../simulator/apiserver/apf/PriorityAndFairness.js"
import type { RunArtifact } from "../src/loadgen/Artifact.js"
import { formatMs, plural } from "./format.js"

/**
 * Whose requests each bootstrap priority level serves, after the flow schemas that name it
 * (simulator/apiserver/apf/Bootstrap.ts, upstream's `apis/flowcontrol/bootstrap/default.go`).
 */
export const levelClients: Readonly<Record<string, string>> = {
  exempt: "system:masters",
  system: "node agents' other requests: pod status, reads",
  "node-high": "node agents' Node and Lease requests",
  "leader-election": "controller-manager and scheduler leader election",
  "workload-high": "controller-manager and scheduler",
  "workload-low": "service accounts",
  "global-default": "every other user: the load, components without an identity of their own",
  "catch-all": "requests no other flow schema matches"
}

type Level = Pick<LevelMetrics, "seats" | "dispatched" | "rejected" | "queueWaitMs"> & { readonly rejectedBy?: Partial<LevelMetrics["rejectedBy"]> }

/** What the reading needs besides the levels: the load's errors, whether the thresholds passed. */
export interface ApfContext {
  /** The load's requests that failed with 429 after client-go's retries. */
  readonly workload429s: number
  /** Node-agent requests rejected on every retry (`serverModel.givenUp`). */
  readonly givenUp: number
  /** The run's verdict; absent: not known (a cluster result read alone). */
  readonly outcome?: RunArtifact["outcome"]
}

const rejectionText = (l: Level): string => {
  if (l.rejected === 0) return "0 rejected"
  const by = Object.entries(l.rejectedBy ?? {}).filter(([, n]) => (n ?? 0) > 0)
  const reasons: Record<string, string> = { "queue-full": "queue full", "time-out": "timed out in queue", "concurrency-limit": "no queue" }
  return `${l.rejected} rejected (429${by.length > 0 ? `: ${by.map(([r, n]) => `${n} ${reasons[r] ?? r}`).join(", ")}` : ""})`
}

/** A level's row: `global-default (other users: the scenario's load): 4 seats, 32180 dispatched, 324151 rejected (429: …), queue wait p99 4.66s`. */
export const levelLine = (name: string, l: Level): string => {
  const who = levelClients[name]
  const seats = typeof l.seats === "number" ? plural(l.seats, "seat") : `${l.seats} seats`
  return `${name}${who ? ` (${who})` : ""}: ${seats}, ${l.dispatched} dispatched, ${rejectionText(l)}, queue wait p99 ${formatMs(l.queueWaitMs.p99)}`
}

/** The 429s the load's requests ended with, after their retries (from the artifact's error messages). */
export const workloadTooManyRequests = (a: Pick<RunArtifact, "errors">): number =>
  a.errors.messages.reduce((n, e) => n + (/\b429\b/.test(e.message) ? e.count : 0), 0)

/**
 * One line reading the rejections; undefined when APF rejected nothing. Which levels, that every client retried,
 * what the retries did not save, and whether the leases' level was spared.
 */
export const apfReading = (levels: Readonly<Record<string, Level>>, c: ApfContext): string | undefined => {
  const rejecting = Object.entries(levels)
    .filter(([, l]) => l.rejected > 0)
    .sort(([, x], [, y]) => y.rejected - x.rejected)
  if (rejecting.length === 0) return undefined
  const total = rejecting.reduce((n, [, l]) => n + l.rejected, 0)
  const where = rejecting.map(([name, l]) => `${name} ${l.rejected}`).join(", ")
  const lost = [
    c.givenUp === 0 ? "no node-agent request was given up" : `${c.givenUp} node-agent requests were given up`,
    c.workload429s === 0 ? "no load request failed" : `${c.workload429s} load requests still failed with 429`
  ].join(", ")
  const leases = levels["node-high"]
  const spared = leases !== undefined && leases.rejected === 0 && leases.dispatched > 0 ? "; node leases (node-high) were never rejected" : ""
  const verdict =
    c.outcome === "pass"
      ? "; the run met its thresholds"
      : c.outcome === "thresholds-breached"
        ? "; the run breached its thresholds"
        : ""
  return `APF rejected ${total} requests with 429 (${where}); clients retried each after Retry-After (1 s, up to 10 times): ${lost}${spared}${verdict}`
}
