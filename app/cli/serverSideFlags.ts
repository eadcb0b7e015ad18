/**
 * The flags of `run` and `compare` that say where a real target's server-side latency is read from
 * (docs/metrics.md "Server-side figures"; app/cli/drivers/ServerSide.ts reads it).
 */
import { Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { durationFlag, optionalText } from "./CommandParts.js"
import type { ServerSideFlags } from "./drivers/Driver.js"
import { FlagError, parseDurationFlag } from "./flags.js"
import { isUnsetForSide } from "./targetFlags.js"

const prometheusHelp =
  "Read the target's server-side latency from this Prometheus (PromQL increase over each phase's window) instead of the target's /metrics, e.g. for a managed cluster. Default: a --target URL's or kubeconfig's own /metrics, with the run's credentials (docs/metrics.md \"Server-side figures\")."

const timeoutFlag = durationFlag(
  "server-metrics-timeout",
  "10s",
  "Bound on each reading of the target's /metrics (or the Prometheus) around a phase; past it the run goes on without server-side figures."
)

export const runServerSideOptions = { prometheus: optionalText("prometheus", prometheusHelp, "URL"), serverMetricsTimeout: timeoutFlag }

export const compareServerSideOptions = {
  prometheus: Options.text("prometheus").pipe(
    Options.withPseudoName("URL"),
    Options.repeated,
    Options.optional,
    Options.withDescription(`${prometheusHelp} With compare: one per --target, in order; "" for a side that reads its target's own /metrics.`)
  ),
  serverMetricsTimeout: timeoutFlag
}

export const serverSideFlagNames: ReadonlyArray<string> = ["--prometheus", "--server-metrics-timeout"]

const prometheusUrl = (text: string): Effect.Effect<string, FlagError> =>
  URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)
    ? Effect.succeed(text.replace(/\/$/, ""))
    : Effect.fail(new FlagError(`--prometheus: not an http(s) URL: "${text}"`))

/** `run`'s flags as the driver takes them. */
export const runServerSide = (o: { readonly prometheus: Option.Option<string>; readonly serverMetricsTimeout: string }): Effect.Effect<ServerSideFlags, FlagError> =>
  Effect.gen(function* () {
    const timeoutMs = yield* parseDurationFlag("--server-metrics-timeout", o.serverMetricsTimeout)
    if (timeoutMs <= 0) return yield* Effect.fail(new FlagError(`--server-metrics-timeout: must be more than 0, got ${o.serverMetricsTimeout}`))
    return { timeoutMs, ...(Option.isSome(o.prometheus) ? { prometheus: yield* prometheusUrl(o.prometheus.value) } : {}) }
  })

/** `compare`'s flags: one `ServerSideFlags` per target. */
export const compareServerSide = (
  o: { readonly prometheus: Option.Option<ReadonlyArray<string>>; readonly serverMetricsTimeout: string },
  targets: number
): Effect.Effect<ReadonlyArray<ServerSideFlags>, FlagError> =>
  Effect.gen(function* () {
    const urls = Option.getOrElse(o.prometheus, () => [] as ReadonlyArray<string>)
    if (urls.length > 0 && urls.length !== targets) {
      return yield* Effect.fail(new FlagError(`--prometheus: give one per --target (in order), got ${urls.length} for ${targets} targets`))
    }
    const timeoutMs = yield* parseDurationFlag("--server-metrics-timeout", o.serverMetricsTimeout)
    if (timeoutMs <= 0) return yield* Effect.fail(new FlagError(`--server-metrics-timeout: must be more than 0, got ${o.serverMetricsTimeout}`))
    const out: Array<ServerSideFlags> = []
    // an empty value: that side reads its target's own /metrics (./targetFlags.ts isUnsetForSide)
    for (let i = 0; i < targets; i++) out.push({ timeoutMs, ...(urls[i] !== undefined && !isUnsetForSide(urls[i]!) ? { prometheus: yield* prometheusUrl(urls[i]!) } : {}) })
    return out
  })

/** The flags again, for a process this one starts (`run --segments N`). */
export const serverSideArgsOf = (o: { readonly prometheus: Option.Option<string>; readonly serverMetricsTimeout: string }): ReadonlyArray<string> => [
  ...Option.match(o.prometheus, { onNone: () => [], onSome: (p) => ["--prometheus", p] }),
  "--server-metrics-timeout",
  o.serverMetricsTimeout
]
