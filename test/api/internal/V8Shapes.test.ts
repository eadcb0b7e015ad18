/**
 * The V8-aware helpers of src/api/internal/V8Shapes.ts: they make the same objects and strings the plain forms
 * would, and objects built in bulk through them share V8 hidden classes. On Node 20, a spread that adds keys gives
 * every result a class of its own: ~10× the cost to build, and every later read of such an object misses the inline
 * caches. 150,000 pods and 5,000 nodes notice, so these tests pin the paths they go through. They hold in a process
 * whose transitions from `{}` are not saturated, so this file runs first, in a fork of its own (vitest.config.ts
 * `FAST_FIRST`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import v8 from "node:v8"
import { extendable, flatString, shallowCopy } from "../../../src/api/internal/V8Shapes.js"
import type { KObject } from "../../../src/api/Object.js"
import { ConfigMaps, Pods } from "../../../src/api/Resources.js"
import { inProcessClient } from "../../../simulator/apiserver/InProcessClient.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { makeNode } from "../../../simulator/nodeagent/SimulatedNode.js"


describe("shallowCopy", () => {
  it("copies own keys in order and shares their values", () => {
    const spec = { containers: [{ name: "c" }] }
    const obj = { metadata: { name: "a" }, spec }
    const copy = shallowCopy(obj)
    expect(copy).not.toBe(obj)
    expect(Object.keys(copy)).toEqual(["metadata", "spec"])
    expect(copy.spec).toBe(spec)
  })

  it("keeps an own __proto__ key (as JSON makes it) a data key, not the prototype", () => {
    const parsed = JSON.parse('{"a": 1, "__proto__": {"polluted": true}}') as Record<string, unknown>
    const copy = shallowCopy(parsed)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(["a", "__proto__"])
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined()
  })
})

describe("extendable", () => {
  it("spread first, it leaves the copy as a plain spread makes it", () => {
    const meta = { name: "a", uid: "u" }
    const copy = { ...extendable, ...meta, resourceVersion: "2" }
    expect(Object.keys(copy)).toEqual(["name", "uid", "resourceVersion"])
    expect(copy).toEqual({ ...meta, resourceVersion: "2" })
    expect(Object.isFrozen(copy)).toBe(false)
  })
})

describe("flatString", () => {
  it("joins its parts", () => {
    expect(flatString("2026-01-01T00:00:00", ".123000Z")).toBe("2026-01-01T00:00:00.123000Z")
    expect(flatString()).toBe("")
  })
})

// V8's own check, compiled after allowing its syntax (the flag changes nothing else).
v8.setFlagsFromString("--allow-natives-syntax")
const sameClass = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: unknown, b: unknown) => boolean

/** How many of `objects` have a class of their own: V8's inline caches need one class for all of them. */
const classesBeyondFirst = (objects: ReadonlyArray<unknown>): number => objects.filter((o) => !sameClass(o, objects[0])).length

const inDefault = { namespace: "default" }
const count = 40

const answered = <A, E>(result: Effect.Effect<A, E>): A => Either.getOrThrow(result as unknown as Either.Either<A, E>)

describe("hidden classes of objects built in bulk", () => {
  it("sanity: the check tells objects of one class from objects of another", () => {
    const built = Array.from({ length: count }, (_, i) => ({ phase: "Pending", conditions: [], startTime: `t${i}` }))
    expect(classesBeyondFirst(built)).toBe(0)
    expect(sameClass(built[0], { conditions: [], phase: "Pending", startTime: "t" })).toBe(false)
  })

  it.effect("created objects' metadata, merge-patched maps and bound pods' specs share one class each", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = inProcessClient(server).at!(0)!
      const metas: unknown[] = []
      const data: unknown[] = []
      const specs: unknown[] = []
      for (let i = 0; i < count; i++) {
        // Bodies built by literals, as clients build them: classes without spare slots.
        const created = answered(client.create(ConfigMaps, { metadata: { name: `cm-${i}` }, data: { k: "1" } }, inDefault))
        metas.push(created.object.metadata)
        const patched = answered(client.patch(ConfigMaps, `cm-${i}`, "merge", { data: { added: "2" } }, inDefault))
        data.push(patched.object.data)
        answered(client.create(Pods, { metadata: { name: `p-${i}` }, spec: { containers: [{ name: "c", image: "i" }] } }, inDefault))
        answered(client.create(Pods, { metadata: { name: `p-${i}` }, target: { kind: "Node", name: "node-0" } } as KObject, { ...inDefault, subresource: "binding" }))
        specs.push(server.store.lookup(Pods, "default", `p-${i}`)!.obj.spec)
      }
      expect(data[0]).toEqual({ k: "1", added: "2" })
      expect((specs[0] as { nodeName: string }).nodeName).toBe("node-0")
      expect(classesBeyondFirst(metas)).toBe(0)
      expect(classesBeyondFirst(data)).toBe(0)
      expect(classesBeyondFirst(specs)).toBe(0)
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it("simulated nodes share one class", () => {
    const nodes = Array.from({ length: count }, (_, i) =>
      makeNode({ name: `node-${i}`, zone: "zone-a", region: "region-1", cpu: "4", memory: "16Gi", pods: 110, startAt: i })
    )
    expect(nodes[0]!.partitions).toEqual([])
    expect(classesBeyondFirst(nodes)).toBe(0)
  })
})
