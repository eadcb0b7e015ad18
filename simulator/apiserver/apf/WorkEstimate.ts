/**
 * How many seats a request occupies while it executes (1.26 work estimation,
 * `staging/src/k8s.io/apiserver/pkg/util/flowcontrol/request/`):
 * - LIST (`list_work_estimator.go`): from the objects it must process, 100 per seat, between 1 and 10 seats.
 *   Served from the watch cache (no `limit` with a continue, or `resourceVersion=0`) it processes every stored
 *   object of the type; from storage, `2 × limit` (or stored + limit with a selector).
 * - WATCH: one seat while it is initialised, none afterwards; with `sendInitialEvents` (1.27+) a LIST from the
 *   cache's seats while its initial events are produced (`watchSeats`).
 * - everything else: one seat (`mutating_work_estimator.go` adds seats for writes watched by many; not modelled).
 */

export const ObjectsPerSeat = 100
export const MinimumSeats = 1
export const MaximumSeats = 10

export interface ListShape {
  /** Objects of the type stored now (upstream's object count tracker). */
  readonly stored: number
  /** The page size asked for; 0 or undefined for none. */
  readonly limit: number | undefined
  /** True when the watch cache answers (resourceVersion "0", or no limit): every stored object is processed. */
  readonly fromCache: boolean
  readonly selector: boolean
}

const clamp = (seats: number): number => Math.min(MaximumSeats, Math.max(MinimumSeats, seats))

export const listSeats = (list: ListShape): number => {
  const limit = list.limit !== undefined && list.limit > 0 && list.limit < list.stored ? list.limit : list.stored
  const objects = list.fromCache ? list.stored : list.selector ? list.stored + limit : 2 * limit
  return clamp(Math.ceil(objects / ObjectsPerSeat))
}

/**
 * A WATCH (1.27+, `width.go` sends it to `list_work_estimator.go`): one that asks for its initial events
 * (`sendInitialEvents=true`, a WatchList) is estimated as a LIST from the watch cache — every stored object, 100 per
 * seat, 1 to 10 seats — held while the initial events are produced; any other watch takes the minimum.
 */
export const watchSeats = (watch: { readonly stored: number; readonly sendInitialEvents: boolean }): number =>
  watch.sendInitialEvents ? listSeats({ stored: watch.stored, limit: undefined, fromCache: true, selector: false }) : MinimumSeats
