import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { closestMatch, editDistance, reaches, type SeriesPattern, unreachableReason } from "../../src/loadgen/SeriesPattern.js"
import { parseThreshold } from "../../src/loadgen/Thresholds.js"

const patterns: ReadonlyArray<SeriesPattern> = [
  { metric: ["api_call"], operation: ["GET"], resource: ["configmaps"], scope: ["resource"], name: ["get"], phase: ["steady"] },
  { metric: ["api_call"], operation: ["LIST"], resource: ["configmaps"], scope: ["namespace"], name: ["list"], phase: ["steady"] },
  { metric: ["watch_event"], operation: ["WATCH"], resource: ["configmaps"], scope: ["namespace"], name: ["watchers"], phase: ["steady"] },
  // a tag left out may take any value
  { metric: ["token_recovery"], operation: ["AUTH"], resource: ["credentials"], scope: ["client"] }
]
const reason = (name: string) => unreachableReason(Either.getOrThrow(parseThreshold(name, "p(99) < 1s")), patterns)

describe("closest match", () => {
  it("edit distance counts inserts, deletes and substitutions, ignoring case", () => {
    expect(editDistance("api_cal", "api_call")).toBe(1)
    expect(editDistance("GETT", "get")).toBe(1)
    expect(editDistance("kitten", "sitting")).toBe(3)
    expect(editDistance("", "abc")).toBe(3)
  })

  it("suggests only a near candidate (a typo), the first in order on a tie", () => {
    expect(closestMatch("api_cal", ["watch_event", "api_call", "setup"])).toBe("api_call")
    expect(closestMatch("LSIT", ["GET", "LIST"])).toBe("LIST")
    expect(closestMatch("pod_startup", ["api_call", "setup"])).toBeUndefined()
  })
})

describe("whether a selector can reach a series", () => {
  it("matches values case-insensitively, any of `a|b`, and a left-out tag as any value", () => {
    const sel = (name: string) => Either.getOrThrow(parseThreshold(name, "p(99) < 1s")).selector
    expect(reaches(sel("latency{metric:API_CALL,operation:get}"), patterns[0]!)).toBe(true)
    expect(reaches(sel("latency{operation:POST|GET}"), patterns[0]!)).toBe(true)
    expect(reaches(sel("latency{operation:POST}"), patterns[0]!)).toBe(false)
    expect(reaches(sel("latency{metric:token_recovery,name:anything,phase:whatever}"), patterns[3]!)).toBe(true)
    // `*` judges each value: it selects nothing out
    expect(reaches(sel("latency{metric:api_call,resource:*}"), patterns[0]!)).toBe(true)
  })

  it("names the first tag, in the order written, that no series has, with the closest value", () => {
    expect(reason("latency{metric:api_call,operation:GET}")).toBeUndefined()
    expect(reason("latency{metric:api_cal,operation:GET}")).toBe('no series has metric "api_cal"; did you mean "api_call"?')
    expect(reason("latency{operation:GETT,metric:api_cal}")).toBe('no series has operation "GETT"; did you mean "GET"?')
    expect(reason("latency{metric:api_call,operation:WATCH}")).toBe('no series with metric "api_call" has operation "WATCH" (operation is one of "GET", "LIST")')
    expect(reason("latency{metric:api_call|watch_event,scope:cluster}")).toBe(
      'no series with metric "api_call" or "watch_event" has scope "cluster" (scope is one of "namespace", "resource")'
    )
    expect(reason("latency{metric:pod_startup}")).toBe('no series has metric "pod_startup" (metric is one of "api_call", "token_recovery", "watch_event")')
  })

  it("never rejects what a left-out tag could match", () => {
    expect(reason("latency{name:nosuch}")).toBeUndefined()
    expect(reason("latency{phase:nosuch,scope:client}")).toBeUndefined()
    expect(reason("latency{name:nosuch,scope:namespace}")).toBe('no series with name "nosuch" has scope "namespace" (scope is "client")')
  })

  it("a scenario without series reaches nothing", () => {
    expect(unreachableReason(Either.getOrThrow(parseThreshold("latency", "p(99) < 1s")), [])).toBe("the scenario produces no series")
  })
})
