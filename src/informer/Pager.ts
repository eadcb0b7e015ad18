/**
 * client-go's list pager (`tools/pager/pager.go`, `ListPager.list` with `FullListIfExpired`):
 * - every request carries `limit = pageSize` (0 = unpaginated); the first carries the requested resourceVersion,
 *   the following ones only the continue token (the server refuses a resourceVersion beside a continue token);
 * - the result is "paginated" as soon as a page carried a continue token;
 * - an expired continue token (410, "The provided continue parameter is too old …") on page 2 or later is
 *   answered by one unpaginated list at the requested resourceVersion; an error on page 1 is the caller's.
 */
import { Effect } from "effect"
import type { KList, KObject } from "../api/Object.js"
import type { ListOptions } from "../api/Requests.js"
import { isExpired } from "./ReflectorErrors.js"
import type { ClientError } from "../client/TransportError.js"

/** One LIST call (client-go `SimplePageFunc`). */
export type PageFn = (options: ListOptions) => Effect.Effect<KList, ClientError>

export interface PagedList {
  readonly items: ReadonlyArray<KObject>
  readonly resourceVersion: string
  /** A page carried a continue token (client-go's `paginatedResult`). */
  readonly paginated: boolean
  /** The continue token expired mid-way and the full list answered instead. */
  readonly expiredContinue: boolean
}

export const listPages = (page: PageFn, options: ListOptions, pageSize: number): Effect.Effect<PagedList, ClientError> =>
  Effect.gen(function* () {
    const limit = pageSize > 0 ? pageSize : undefined
    const first = yield* page({ ...options, limit })
    if (!first.metadata.continue) return { items: first.items, resourceVersion: first.metadata.resourceVersion, paginated: false, expiredContinue: false }
    // Pages are appended one by one: a spread of a large page would overflow the argument stack.
    const items: Array<KObject> = []
    for (const item of first.items) items.push(item)
    let token: string | undefined = first.metadata.continue
    let last = first
    while (token) {
      const next = yield* Effect.either(page({ ...options, resourceVersion: undefined, resourceVersionMatch: undefined, continue: token, limit }))
      if (next._tag === "Left") {
        if (!isExpired(next.left)) return yield* Effect.fail(next.left)
        const full = yield* page({ ...options, limit: undefined, continue: undefined })
        return { items: full.items, resourceVersion: full.metadata.resourceVersion, paginated: true, expiredContinue: true }
      }
      last = next.right
      for (const item of last.items) items.push(item)
      token = last.metadata.continue
    }
    return { items, resourceVersion: last.metadata.resourceVersion, paginated: true, expiredContinue: false }
  })
