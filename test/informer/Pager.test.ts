/** client-go's pager (`tools/pager/pager.go`): the requests it makes and the full list on an expired continue. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { KList } from "../../src/api/Object.js"
import type { ListOptions } from "../../src/api/Requests.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import { listPages } from "../../src/informer/Pager.js"
import { listOf, obj } from "./scripted.js"

/** The text the API server answers an expired continue token with (`simulator/apiserver/Read.ts`). */
const continueTooOld = Status.expired(
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
)

const pages = (answers: ReadonlyArray<KList | ApiError>) => {
  const requests: Array<ListOptions> = []
  const queue = [...answers]
  const page = (options: ListOptions) =>
    Effect.suspend(() => {
      requests.push(options)
      const next = queue.shift()
      if (next === undefined) return Effect.dieMessage("unscripted page")
      return "status" in next ? Effect.fail(next) : Effect.succeed(next)
    })
  return { page, requests }
}

const shape = (requests: ReadonlyArray<ListOptions>) =>
  requests.map((o) => ({ rv: o.resourceVersion, limit: o.limit, continue: o.continue, labelSelector: o.labelSelector }))

describe("listPages", () => {
  it("follows continue tokens with the same limit and without the resourceVersion; keeps the last page's rv", () => {
    const { page, requests } = pages([listOf("7", [obj("a", "1"), obj("b", "2")], "c1"), listOf("7", [obj("c", "3"), obj("d", "4")], "c2"), listOf("7", [obj("e", "5")])])
    const result = Effect.runSync(listPages(page, { resourceVersion: "0", labelSelector: "app=x" }, 2))
    expect(shape(requests)).toEqual([
      { rv: "0", limit: 2, continue: undefined, labelSelector: "app=x" },
      { rv: undefined, limit: 2, continue: "c1", labelSelector: "app=x" },
      { rv: undefined, limit: 2, continue: "c2", labelSelector: "app=x" }
    ])
    expect(result.items.map((o) => o.metadata.name)).toEqual(["a", "b", "c", "d", "e"])
    expect(result).toMatchObject({ resourceVersion: "7", paginated: true, expiredContinue: false })
  })

  it("an expired continue token on page 2 → one unpaginated list at the requested resourceVersion, which is the result", () => {
    const { page, requests } = pages([listOf("7", [obj("a", "1")], "c1"), continueTooOld, listOf("9", [obj("a", "1"), obj("b", "8")])])
    const result = Effect.runSync(listPages(page, { resourceVersion: "0" }, 1))
    expect(shape(requests)).toEqual([
      { rv: "0", limit: 1, continue: undefined, labelSelector: undefined },
      { rv: undefined, limit: 1, continue: "c1", labelSelector: undefined },
      { rv: "0", limit: undefined, continue: undefined, labelSelector: undefined }
    ])
    expect(result.items.map((o) => o.metadata.name)).toEqual(["a", "b"])
    expect(result).toMatchObject({ resourceVersion: "9", paginated: true, expiredContinue: true })
  })

  it("a 410 on page 1 and any other error on a later page are the caller's", () => {
    const first = pages([Status.expired("too old resource version: 3 (5)")])
    const failedFirst = Effect.runSync(Effect.either(listPages(first.page, { resourceVersion: "3" }, 500)))
    expect(Either.isLeft(failedFirst) && failedFirst.left._tag === "ApiError" && failedFirst.left.status.code).toBe(410)
    expect(first.requests).toHaveLength(1)

    const later = pages([listOf("7", [obj("a", "1")], "c1"), Status.internal("boom")])
    const failedLater = Effect.runSync(Effect.either(listPages(later.page, { resourceVersion: "0" }, 1)))
    expect(Either.isLeft(failedLater) && failedLater.left._tag === "ApiError" && failedLater.left.status.code).toBe(500)
    expect(later.requests).toHaveLength(2)
  })

  it("page size 0 is one unpaginated request; one page is not paginated", () => {
    const { page, requests } = pages([listOf("7", [obj("a", "1")])])
    const result = Effect.runSync(listPages(page, { resourceVersion: "7" }, 0))
    expect(shape(requests)).toEqual([{ rv: "7", limit: undefined, continue: undefined, labelSelector: undefined }])
    expect(result).toMatchObject({ paginated: false, expiredContinue: false })
  })
})
