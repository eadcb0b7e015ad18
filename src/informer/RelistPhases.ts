/**
 * The phases of one (re)list, as the reflector times them (docs/measurement.md), turned into
 * samples: `relist` / `initial_list` with operation = phase — `backoff` (trigger → first LIST request sent; none
 * for the initial list), `first_response` (sent → first page answered), `pages` (first page → last page),
 * `replace` (last page → store replaced and synced), `total` (trigger → synced) — and `relist_trigger` with
 * operation = the trigger kind (trigger → synced). Pure: the reflector passes the times it read.
 */

/** Why a relist happened: each is a label of its own (docs/measurement.md). */
export const RelistTriggers = ["watch-http-410", "watch-stream-410", "watch-error", "short-watch", "list-error"] as const
export type RelistTrigger = (typeof RelistTriggers)[number]

/** The operations `relistPhases` records for an initial list and for a relist (`backoff` only for a relist). */
export const ListPhaseNames = { initial_list: ["first_response", "pages", "replace", "total"], relist: ["backoff", "first_response", "pages", "replace", "total"] } as const

/** Clock times (ms) of one list's requests; filled as the pages arrive. */
export interface ListTiming {
  sentAt?: number
  firstResponseAt?: number
  lastPageAt?: number
}

/** One completed (re)list: what started it and when, its requests' times, when the store was replaced. */
export interface SyncTiming {
  /** Undefined for the initial list. */
  readonly trigger: RelistTrigger | undefined
  /** The trigger's time, or the reflector's start for the initial list. */
  readonly startedAt: number
  readonly list: ListTiming
  readonly syncedAt: number
}

export interface PhaseSample {
  readonly metric: "initial_list" | "relist" | "relist_trigger"
  /** The phase, or the trigger kind for `relist_trigger`. */
  readonly operation: string
  readonly from: number
  readonly to: number
}

export const relistPhases = (sync: SyncTiming): ReadonlyArray<PhaseSample> => {
  const metric = sync.trigger === undefined ? "initial_list" : "relist"
  const sentAt = sync.list.sentAt ?? sync.startedAt
  const firstAt = sync.list.firstResponseAt ?? sentAt
  const lastAt = sync.list.lastPageAt ?? firstAt
  const samples: Array<PhaseSample> = []
  if (sync.trigger !== undefined) {
    samples.push({ metric, operation: "backoff", from: sync.startedAt, to: sentAt })
    samples.push({ metric: "relist_trigger", operation: sync.trigger, from: sync.startedAt, to: sync.syncedAt })
  }
  samples.push(
    { metric, operation: "first_response", from: sentAt, to: firstAt },
    { metric, operation: "pages", from: firstAt, to: lastAt },
    { metric, operation: "replace", from: lastAt, to: sync.syncedAt },
    { metric, operation: "total", from: sync.startedAt, to: sync.syncedAt }
  )
  return samples
}
