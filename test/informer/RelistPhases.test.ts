/** The relist phases as samples (docs/measurement.md). */
import { describe, expect, it } from "@effect/vitest"
import { relistPhases } from "../../src/informer/RelistPhases.js"

describe("relistPhases", () => {
  it("a relist: backoff, trigger, first response, pages, replace, total", () => {
    expect(relistPhases({ trigger: "watch-stream-410", startedAt: 1_000, list: { sentAt: 1_900, firstResponseAt: 1_950, lastPageAt: 2_300 }, syncedAt: 2_310 })).toEqual([
      { metric: "relist", operation: "backoff", from: 1_000, to: 1_900 },
      { metric: "relist_trigger", operation: "watch-stream-410", from: 1_000, to: 2_310 },
      { metric: "relist", operation: "first_response", from: 1_900, to: 1_950 },
      { metric: "relist", operation: "pages", from: 1_950, to: 2_300 },
      { metric: "relist", operation: "replace", from: 2_300, to: 2_310 },
      { metric: "relist", operation: "total", from: 1_000, to: 2_310 }
    ])
  })

  it("the initial list has no backoff or trigger", () => {
    expect(relistPhases({ trigger: undefined, startedAt: 0, list: { sentAt: 0, firstResponseAt: 40, lastPageAt: 40 }, syncedAt: 45 }).map((s) => `${s.metric} ${s.operation}`)).toEqual([
      "initial_list first_response",
      "initial_list pages",
      "initial_list replace",
      "initial_list total"
    ])
  })
})
