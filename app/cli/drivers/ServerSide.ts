/**
 * Which server-side figures a run reads (docs/metrics.md "Server-side figures"): with `--prometheus URL`, that
 * Prometheus; else a target named by URL or kubeconfig, its own `/metrics` with the run's credentials and TLS. The
 * targets this program starts itself (embedded, in-process) are the simulator: their figures are not read.
 */
import { Effect } from "effect"
import { makeServerSideReader, type ServerSideReader } from "../../../src/loadgen/ServerSideReader.js"
import type { TargetFlag } from "../target.js"
import { probeTargetOf, type Target } from "../TargetLayer.js"
import type { ServerSideFlags } from "./Driver.js"

/** A reading waits this long for the target (or the Prometheus) before the run goes on without server figures. */
export const DefaultServerMetricsTimeoutMs = 10_000

export const serverSideReaderFor = (
  flags: ServerSideFlags | undefined,
  target: TargetFlag,
  resolved: Target["Type"],
  warn: (line: string) => void
): Effect.Effect<ServerSideReader | undefined> => {
  const options = { timeoutMs: flags?.timeoutMs ?? DefaultServerMetricsTimeoutMs }
  const line = (s: string) => warn(`${s}\n`)
  if (flags?.prometheus !== undefined) return makeServerSideReader({ _tag: "prometheus", url: flags.prometheus }, options, line)
  if (target._tag !== "url") return Effect.succeed(undefined)
  const source = { _tag: "metrics" as const, url: target.options.baseUrl, target: probeTargetOf(target.options, resolved.credentials) }
  return makeServerSideReader(source, options, line)
}
