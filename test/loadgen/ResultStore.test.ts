/**
 * Segment artifacts stored in the target (src/loadgen/ResultStore.ts): split under the object limit, read back whole,
 * a Job's latest run chosen, a segment with a part missing reported, not decoded.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { ConfigMaps } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { assembleArtifacts, labelValue, listResults, PartBytes, publishArtifact, splitArtifact } from "../../src/loadgen/ResultStore.js"
import { clientLayer } from "../support/transports.js"

// incompressible: random bytes as hex, so the gzipped artifact needs several parts
const big = JSON.stringify({ format: "clustersim/run-v2", noise: randomBytes(1_200_000).toString("hex") })

describe("segment artifacts in the target", () => {
  it("a large artifact is split under the limit and read back whole", () => {
    const parts = splitArtifact(big)
    expect(parts.length).toBeGreaterThan(1)
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(PartBytes)
  })

  it.live("published by two segments, collected by the Job's name; a retried pod replaces its parts; the latest run wins", () =>
    Effect.gen(function* () {
      const ns = { namespace: "default" }
      yield* publishArtifact({ run: "uid-old", job: "list-load", namespace: "default", segment: { index: 0, count: 2 }, runJson: '{"old":true}' })
      yield* Effect.sleep(1100)
      yield* publishArtifact({ run: "uid-new", job: "list-load", namespace: "default", segment: { index: 0, count: 2 }, runJson: big })
      yield* publishArtifact({ run: "uid-new", job: "list-load", namespace: "default", segment: { index: 1, count: 2 }, runJson: '{"first":1}' })
      yield* publishArtifact({ run: "uid-new", job: "list-load", namespace: "default", segment: { index: 1, count: 2 }, runJson: '{"retried":2}' })
      const items = yield* listResults({ namespace: "default", job: "list-load" })
      expect(new Set(items.map((i) => i.metadata.labels?.["clustersim.io/run"]))).toEqual(new Set([labelValue("uid-new")]))
      expect(assembleArtifacts(items)).toEqual([
        { segment: 1, runJson: big },
        { segment: 2, runJson: '{"retried":2}' }
      ])
      // a part lost: the segment is reported, not decoded
      const api = yield* ApiClient
      const part1 = items.find((i) => i.metadata.labels?.["clustersim.io/segment"] === "1" && (i.metadata.name ?? "").endsWith("-1"))!
      yield* api.delete(ConfigMaps, part1.metadata.name!, ns)
      const again = assembleArtifacts(yield* listResults({ namespace: "default", run: "uid-new" }))
      expect(again[0]).toEqual({ segment: 1, problem: `segment 1: part 1 of ${splitArtifact(big).length} missing` })
    }).pipe(Effect.provide(clientLayer("in-process")))
  )
})
