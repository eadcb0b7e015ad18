/**
 * Results remembered for the inputs of the last call (`src/api/internal/LastCall.ts`) are given again only for the
 * very same inputs, and a merge, decode check or comparison that takes one gives what it gives on copies of its
 * inputs (which match nothing remembered).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { compare } from "../../../src/api/apply/TypedFields.js"
import { LastCall, LastCalls } from "../../../src/api/internal/LastCall.js"
import { decodesCleanly } from "../../../src/api/kinds/FieldSchema.js"
import { applyPatch } from "../../../src/api/Patch.js"
import { ConfigMaps, Nodes, Pods } from "../../../src/api/Resources.js"

const podSchema = Pods.rules.schema!

describe("LastCall", () => {
  it("gives the last result for the same objects only", () => {
    const slot = new LastCall<string>()
    const a = {}
    const b = {}
    expect(slot.get(a, b, undefined)).toBeUndefined()
    expect(slot.set(a, b, undefined, "r")).toBe("r")
    expect(slot.get(a, b, undefined)).toBe("r")
    expect(slot.get(a, {}, undefined)).toBeUndefined()
    expect(slot.get({}, b, undefined)).toBeUndefined()
    expect(slot.get(a, b, podSchema)).toBeUndefined()
    slot.set(a, {}, undefined, "s")
    expect(slot.get(a, b, undefined)).toBeUndefined()
  })

  it("keeps one slot per key", () => {
    const slots = new LastCalls<string>()
    expect(slots.of(Pods)).toBe(slots.of(Pods))
    expect(slots.of(Pods)).not.toBe(slots.of(Nodes))
    expect(slots.of(undefined)).toBe(slots.of(undefined))
  })
})

/** Deep copies: nothing remembered matches them. */
const copy = <A>(a: A): A => structuredClone(a)

describe("remembered merges, decode checks and comparisons", () => {
  const status = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null }] }
  const spec = { schedulerName: "a", containers: [{ name: "app", image: "x" }] }
  const pod = (name: string, s: object = spec) => ({ metadata: { name, namespace: "default" }, spec: s, status })
  const running = { status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }], startTime: "2026-01-01T00:00:00Z" } }

  it("a merge patch repeated onto the same part gives what it gives onto copies", () => {
    const first = Either.getOrThrow(applyPatch(pod("a"), "merge", running))
    const second = Either.getOrThrow(applyPatch(pod("b"), "merge", running))
    // the part made once, shared
    expect((second as { status: unknown }).status).toBe((first as { status: unknown }).status)
    expect(second).toEqual(Either.getOrThrow(applyPatch(copy(pod("b")), "merge", copy(running))))
    // another body onto the same part: its own result
    const failed = { status: { ...running.status, phase: "Failed" } }
    expect(Either.getOrThrow(applyPatch(pod("c"), "merge", failed))).toEqual(Either.getOrThrow(applyPatch(copy(pod("c")), "merge", copy(failed))))
    expect((Either.getOrThrow(applyPatch(pod("c"), "merge", failed)) as { status: { phase: string } }).status.phase).toBe("Failed")
  })

  it("a part found to decode is not taken for another", () => {
    const stored = pod("a")
    const good = Either.getOrThrow(applyPatch(stored, "merge", running)) as Record<string, unknown>
    expect(decodesCleanly(podSchema, good, stored)).toBe(true)
    expect(decodesCleanly(podSchema, good, stored)).toBe(true)
    const bad = Either.getOrThrow(applyPatch(stored, "merge", { status: { ...running.status, startTime: 5 } })) as Record<string, unknown>
    expect(decodesCleanly(podSchema, bad, stored)).toBe(false)
    const unknown = Either.getOrThrow(applyPatch(stored, "merge", { status: { ...running.status, bogus: 1 } })) as Record<string, unknown>
    expect(decodesCleanly(podSchema, unknown, stored)).toBe(false)
  })

  it("a comparison that finds the same differences below some fields and others elsewhere gives what copies give", () => {
    const merged = Either.getOrThrow(applyPatch(pod("a"), "merge", running)) as { status: unknown }
    // before and after share their metadata and spec, as a status patch's do
    const change = (name: string, s: object = spec): [object, object] => {
      const before = pod(name)
      return [before, { ...before, spec: s === spec ? before.spec : s, status: merged.status }]
    }
    const cases: Array<[object, object]> = [
      // the same status change twice: the second takes the first's result
      change("a"),
      change("b"),
      // the same status change with a spec field modified beside it (the same additions, other modifications)
      change("c", { ...spec, schedulerName: "b" }),
      // ... with a spec field removed beside it
      change("d", { containers: spec.containers }),
      // ... with a spec field added beside it
      change("e", { ...spec, priority: 5 }),
      // the same again after the others
      change("f")
    ]
    const results = cases.map(([before, after]) => compare(before, after, podSchema))
    const ofCopies = cases.map(([before, after]) => compare(copy(before), copy(after), podSchema))
    expect(results.map((r) => JSON.stringify(r))).toEqual(ofCopies.map((r) => JSON.stringify(r)))
    // the repeats took the result remembered
    expect(results[1]).toBe(results[0])
    expect(results[2]).not.toBe(results[1])
  })

  it("a comparison that finds the same differences below a field and a leaf changed beside it gives what copies give", () => {
    const schema = ConfigMaps.rules.schema!
    const data = { a: "1" }
    const changed = { a: "2", b: "3" }
    const change = (name: string, leaf: Record<string, unknown>, leafAfter: Record<string, unknown>): [object, object] => {
      const metadata = { name, namespace: "default" }
      return [{ metadata, data, ...leaf }, { metadata, data: changed, ...leafAfter }]
    }
    const cases: Array<[object, object]> = [
      change("a", {}, {}),
      change("b", { immutable: false }, { immutable: false }),
      // the same additions below data, a leaf modified, added or removed beside them
      change("c", { immutable: false }, { immutable: true }),
      change("d", {}, { immutable: true }),
      change("e", { immutable: false }, {}),
      change("f", {}, {})
    ]
    const results = cases.map(([before, after]) => compare(before, after, schema))
    const ofCopies = cases.map(([before, after]) => compare(copy(before), copy(after), schema))
    expect(results.map((r) => JSON.stringify(r))).toEqual(ofCopies.map((r) => JSON.stringify(r)))
    expect(results[1]).toBe(results[0])
  })
})
