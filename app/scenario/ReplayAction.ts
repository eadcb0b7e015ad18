/**
 * The scenario's `replay` action (Scenario.ts `Replay`) as the replay's configuration (src/replay/Replay.ts): its
 * defaults and its time window read. Log paths are read as given (relative ones from the working directory).
 */
import { Either } from "effect"
import { parseDuration } from "../../src/api/go/Duration.js"
import type { ReplayConfig } from "../../src/replay/Replay.js"
import type { ReplayFilter } from "../../src/replay/ReplayPlan.js"
import type { Replay } from "./Scenario.js"

export type ReplayAction = typeof Replay.Type

/** Default reorder window: upstream's log backend flushes batches within seconds; a slow request's event lags its receipt by its latency. */
export const DefaultReorderWindowMs = 10_000

const windowEnd = (t: string | undefined): { readonly ms?: number; readonly offsetMs?: number } => {
  if (t === undefined) return {}
  const d = parseDuration(t)
  return Either.isRight(d) ? { offsetMs: d.right } : { ms: Date.parse(t) }
}

export const replayConfigOf = (a: ReplayAction, phaseMs: number): ReplayConfig => {
  const from = windowEnd(a.from)
  const to = windowEnd(a.to)
  const filter: ReplayFilter = {
    ...(a.users ? { users: a.users } : {}),
    ...(a.verbs ? { verbs: a.verbs } : {}),
    ...(a.resources ? { resources: a.resources } : {}),
    ...(a.namespaces ? { namespaces: a.namespaces } : {}),
    ...(from.ms !== undefined ? { fromMs: from.ms } : {}),
    ...(from.offsetMs !== undefined ? { fromOffsetMs: from.offsetMs } : {}),
    ...(to.ms !== undefined ? { toMs: to.ms } : {}),
    ...(to.offsetMs !== undefined ? { toOffsetMs: to.offsetMs } : {})
  }
  const window = a.reorderWindow === undefined ? undefined : parseDuration(a.reorderWindow)
  return {
    logs: a.logs,
    filter,
    speed: a.speed ?? 1,
    scale: a.scale ?? 1,
    namespacePrefix: a.namespacePrefix,
    impersonate: a.impersonate ?? false,
    keepResourceVersions: a.keepResourceVersions ?? false,
    seed: a.seed ?? true,
    loop: a.loop ?? false,
    loopForMs: phaseMs,
    windowMs: window !== undefined && Either.isRight(window) ? window.right : DefaultReorderWindowMs,
    maxInFlight: a.maxInFlight ?? 10_000,
    allowRemote: a.allowRemote ?? false
  }
}
