/** `jsonLength` is `JSON.stringify(value).length` exactly, for everything the service-time model measures. */
import { describe, expect, it } from "@effect/vitest"
import { jsonLength, rememberTypedCopy, sliceOfStored, storedItemsLength, storedJsonLength } from "../../simulator/apiserver/JsonLength.js"
import { Pods } from "../../src/api/Resources.js"
import { typedStored } from "../../simulator/apiserver/TypeMeta.js"

const cases: ReadonlyArray<[string, unknown]> = [
  ["empty object", {}],
  ["empty array", []],
  ["scalars", { a: 1, b: -2.5e-7, c: true, d: false, e: null, f: "x", g: 1e21, h: 0 }],
  ["non-finite numbers", [Number.NaN, Number.POSITIVE_INFINITY, -0]],
  ["whole numbers", [0, 9, 10, 99, 100, 12345, -1, -10, -999, 2 ** 53, -(2 ** 53) - 2, 1e20, 999999999999999999999, 1e21, -1e21, 1.5, -0.001]],
  ["inherited members left out", Object.assign(Object.create({ inherited: 1 }), { own: 2 })],
  ["no prototype", Object.assign(Object.create(null), { a: 1, b: "x" })],
  ["escapes", { q: 'say "hi"', b: "a\\b", n: "l1\nl2\tt\r\b\f", c: "\u0001\u001f", u: "é ü 日本" }],
  ["lone and paired surrogates", ["\ud800", "x\udfffy", "😀", "\ud83d\ude00\ud800"]],
  ["left-out members", { a: undefined, b: () => 1, c: Symbol("s"), d: 1 }],
  ["only left-out members", { a: undefined }],
  ["array holes and left-outs", [undefined, () => 1, 1, , 2]], // eslint-disable-line no-sparse-arrays
  ["toJSON", { when: new Date(0), nested: { toJSON: () => ({ x: "y" }) } }],
  ["odd keys", { "": 1, 'k"ey': 2, "\n": 3, __proto__x: 4 }],
  [
    "a pod",
    {
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: "node-1-pod-2", namespace: "default", resourceVersion: "123", labels: { app: "web" }, creationTimestamp: "2026-11-26T10:00:00Z" },
      spec: { nodeName: "node-1", containers: [{ name: "c", image: "registry.example/app:1", resources: { requests: { cpu: "100m" } } }] },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }], podIP: "10.0.0.1" }
    }
  ]
]

describe("jsonLength", () => {
  it.each(cases)("equals JSON.stringify(value).length: %s", (_, value) => {
    expect(jsonLength(value)).toBe(JSON.stringify(value).length)
  })

  it("is 0 where JSON.stringify gives undefined; top-level scalars as stringified", () => {
    expect(jsonLength(undefined)).toBe(0)
    expect(jsonLength(() => 1)).toBe(0)
    expect(jsonLength("a\"b")).toBe(6)
    expect(jsonLength(12.5)).toBe(4)
    expect(jsonLength(null)).toBe(4)
  })

  it("storedJsonLength measures a stored version once: the same object is not walked again", () => {
    const version: { metadata: { name: string }; spec: { nodeName: string } } = { metadata: { name: "p" }, spec: { nodeName: "node-1" } }
    expect(storedJsonLength(version)).toBe(JSON.stringify(version).length)
    // stored versions never change; were one changed, the size of the version first measured would still be given
    version.spec.nodeName = "node-12345"
    expect(storedJsonLength(version)).toBe(JSON.stringify({ metadata: { name: "p" }, spec: { nodeName: "node-1" } }).length)
    expect(storedJsonLength({ ...version })).toBe(JSON.stringify(version).length)
  })

  it("storedJsonLength measures a managedFields list once, whichever stored versions share it", () => {
    const entry = (manager: string) => ({ manager, operation: "Update", apiVersion: "v1", time: "2026-11-27T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:nodeName": {} } } })
    const shared = [entry("kube-scheduler"), entry("kubelet")]
    const pod = (name: string, extra: Record<string, unknown> = {}) => ({ kind: "Pod", metadata: { name, namespace: "default", managedFields: shared, ...extra }, spec: { nodeName: "n" } })
    const first = pod("a")
    expect(storedJsonLength(first)).toBe(JSON.stringify(first).length)
    // the list's length is kept from the first object that had it: a list is never changed once stored
    shared.push(entry("kubectl"))
    const second = pod("bb", { labels: { app: "web" } })
    expect(storedJsonLength(second)).toBe(JSON.stringify(second).length - JSON.stringify(entry("kubectl")).length - 1)
    // only metadata's managedFields is a shared list; others, and metadata of other shapes, are measured as they are
    for (const odd of [{ metadata: null }, { metadata: [1, 2] }, { spec: { managedFields: shared } }, { metadata: { managedFields: "x" } }])
      expect(storedJsonLength(odd)).toBe(JSON.stringify(odd).length)
  })

  it("storedJsonLength measures the parts below a stored object's members once, whichever stored objects share them", () => {
    const containers = [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m" } } }]
    const conditions = [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: "2026-01-01T00:00:00Z" }]
    const labels = { app: "sim" }
    const status = { phase: "Pending", conditions }
    const seeded = (i: number) => ({
      metadata: { name: `node-${i}-pod-0`, namespace: "default", uid: `u-${i}`, labels, resourceVersion: String(i) },
      spec: { nodeName: `node-${i}`, containers, tolerations: [], priority: i },
      status
    })
    const first = seeded(1)
    expect(storedJsonLength(first)).toBe(JSON.stringify(first).length)
    const pods = Array.from({ length: 20 }, (_, i) => seeded(i + 2))
    expect(storedItemsLength(pods)).toBe(pods.reduce((n, p) => n + JSON.stringify(p).length, 0))
    // stored parts never change; were a shared list or map changed, its first length would still be given
    ;(containers as Array<object>).push({ name: "side" })
    ;(labels as Record<string, string>).extra = "x"
    const later = seeded(99)
    expect(storedJsonLength(later)).toBe(JSON.stringify(later).length - JSON.stringify({ name: "side" }).length - 1 - JSON.stringify({ extra: "x" }).length + 1)
    // the members themselves are walked: a new member of a shared status object shows, and so does one of a spec
    ;(status as Record<string, unknown>).reason = "r"
    const again = { ...later, metadata: { ...later.metadata, resourceVersion: "98" } }
    expect(storedJsonLength(again)).toBe(storedJsonLength(later) + ',"reason":"r"'.length)
  })

  it("a GET's typed copy of a stored version measures as the copy, from its stored version's length", () => {
    const stored = { metadata: { name: "p", namespace: "default", resourceVersion: "7" }, spec: { nodeName: "node-1" } }
    const typed = typedStored(stored, Pods)
    expect(typed).not.toBe(stored)
    expect(storedJsonLength(typed)).toBe(JSON.stringify(typed).length)
    expect(storedJsonLength(stored)).toBe(JSON.stringify(stored).length)
    // measured from the stored version's remembered length: a later change of the stored version shows in neither
    const other = { metadata: { name: "q" } }
    const otherTyped = { kind: "Pod", apiVersion: "v1", ...other }
    rememberTypedCopy(otherTyped, other)
    expect(storedJsonLength(other)).toBe(JSON.stringify(other).length)
    other.metadata.name = "a-much-longer-name"
    expect(storedJsonLength(otherTyped)).toBe(JSON.stringify({ kind: "Pod", apiVersion: "v1", metadata: { name: "q" } }).length)
    // an empty stored object (no comma joins), and stored objects with a member of their own or a left-out one
    for (const odd of [{}, { kind: "Other" }, { apiVersion: "v2", a: 1 }, { a: undefined }, { a: undefined, b: 1 }] as Array<Record<string, unknown>>) {
      const copy = { kind: "Pod", apiVersion: "v1", ...odd }
      rememberTypedCopy(copy, odd)
      expect(storedJsonLength(copy)).toBe(JSON.stringify(copy).length)
    }
    const noVersion = {}
    const copy = { kind: "Pod", apiVersion: undefined, ...noVersion }
    rememberTypedCopy(copy, noVersion)
    expect(storedJsonLength(copy)).toBe(JSON.stringify(copy).length)
  })

  it("storedItemsLength sums the stored lengths of a list's items, slices of one run from its prefix sums", () => {
    const run = Array.from({ length: 50 }, (_, i) => ({ metadata: { name: `pod-${i}`, labels: i % 3 === 0 ? { app: "x".repeat(i) } : {} } }))
    const sum = (items: ReadonlyArray<object>) => items.reduce((n, o) => n + JSON.stringify(o).length, 0)
    for (const [from, to] of [[0, 50], [0, 0], [10, 20], [49, 50], [17, 17], [3, 41]] as const) {
      const items = sliceOfStored(run, from, to)
      expect(items).toEqual(run.slice(from, to))
      expect(storedItemsLength(items)).toBe(sum(run.slice(from, to)))
    }
    // a list not sliced from a run is summed item by item
    expect(storedItemsLength([run[3]!, run[1]!])).toBe(sum([run[3]!, run[1]!]))
    expect(storedItemsLength([])).toBe(0)
  })
})
