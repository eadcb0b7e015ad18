/**
 * Reads that cost what they must (issue 20): the `spec.nodeName` index of pods answers LISTs and watches pinned to a
 * node exactly as a scan would, at the current and at older revisions; a paged list's remainingItemCount stays
 * exact when later pages take it from the page before.
 */
import { describe, expect, it } from "@effect/vitest"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import { ConfigMaps, Pods } from "../../src/api/Resources.js"
import { pinnedIndexValue } from "../../simulator/apiserver/FieldIndex.js"
import { selectorsOf } from "../../simulator/apiserver/Read.js"
import { objectKey, Store, type PageRequest } from "../../simulator/apiserver/Store.js"
import { WatchHub, type Watcher } from "../../simulator/apiserver/WatchHub.js"
import { Either } from "effect"

const pod = (name: string, nodeName: string | undefined): KObject =>
  ({ metadata: { name, namespace: "default" }, spec: nodeName === undefined ? {} : { nodeName } }) as unknown as KObject

const putPod = (store: Store, name: string, nodeName: string | undefined) => store.put(Pods, objectKey("default", name), pod(name, nodeName), 0)

const onNode = (nodeName: string) => {
  const selectors = Either.getOrThrow(selectorsOf(Pods, { fieldSelector: `spec.nodeName=${nodeName}` }))
  return { matches: selectors.matches, indexValue: pinnedIndexValue(Pods, selectors.fields) }
}

const names = (items: ReadonlyArray<KObject>) => items.map((o) => o.metadata.name ?? "")

const read = (store: Store, revision: number, nodeName: string, indexed: boolean): ReadonlyArray<string> => {
  const { matches, indexValue } = onNode(nodeName)
  const req: PageRequest = { resource: Pods, revision, prefix: "", start: "", limit: undefined, matches, countRemaining: false, ...(indexed ? { indexValue } : {}) }
  return names(store.page(req).items)
}

describe("FieldIndex", () => {
  it("pins only an `=` term of spec.nodeName on pods", () => {
    const fields = (s: string, resource = Pods) => Either.getOrThrow(selectorsOf(resource, { fieldSelector: s })).fields
    expect(pinnedIndexValue(Pods, fields("spec.nodeName=n1,status.phase=Running"))).toBe("n1")
    expect(pinnedIndexValue(Pods, fields("spec.nodeName=="))).toBe("")
    expect(pinnedIndexValue(Pods, fields("spec.nodeName!=n1"))).toBeUndefined()
    expect(pinnedIndexValue(Pods, fields("metadata.name=x"))).toBeUndefined()
    expect(pinnedIndexValue(ConfigMaps, fields("metadata.name=x", ConfigMaps))).toBeUndefined()
  })

  it("a LIST through the index gives what a scan gives, now and at a revision before a pod was bound", () => {
    const store = new Store()
    putPod(store, "a", "n1")
    putPod(store, "b", "n2")
    putPod(store, "c", undefined)
    putPod(store, "d", "n1")
    const before = store.revision
    putPod(store, "c", "n1") // bound after `before`
    store.remove(Pods, objectKey("default", "a"), 0)
    putPod(store, "e", "n1")
    for (const [revision, node, expected] of [
      [store.revision, "n1", ["c", "d", "e"]],
      [store.revision, "", []],
      [before, "n1", ["a", "d"]],
      [before, "", ["c"]],
      [before, "n2", ["b"]]
    ] as const) {
      expect(read(store, revision, node, true)).toEqual(expected)
      expect(read(store, revision, node, false)).toEqual(expected)
    }
  })

  it("a pinned watcher sees binding to its node as ADDED; the unbound watcher sees it leave as DELETED", () => {
    const store = new Store()
    const hub = new WatchHub()
    store.subscribe((c) => hub.publish(c))
    const seen: Array<string> = []
    const watcher = (label: string, nodeName: string): Watcher => ({
      resource: Pods,
      prefix: "",
      startRevision: 0,
      ...onNode(nodeName),
      sink: { offer: (e: WatchEvent) => (seen.push(`${label} ${e.type} ${e.object.metadata.name}`), true), close: () => {}, isClosed: () => false }
    })
    hub.add(watcher("n1", "n1"))
    hub.add(watcher("n2", "n2"))
    hub.add(watcher("unbound", ""))
    putPod(store, "p", undefined)
    putPod(store, "p", "n1")
    putPod(store, "q", "n2")
    store.remove(Pods, objectKey("default", "p"), 0)
    expect(seen).toEqual(["unbound ADDED p", "n1 ADDED p", "unbound DELETED p", "n2 ADDED q", "n1 DELETED p"])
    expect(hub.size).toBe(3)
    expect(hub.closeAll()).toBe(3)
    expect(hub.size).toBe(0)
  })
})

describe("Store.changesAfter with an index value", () => {
  const nodeOf = (o: KObject) => (o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ""
  const replayed = (store: Store, revision: number, nodeName: string) =>
    [...store.changesAfter(Pods, revision, nodeName)].map((c) => `${c.revision} ${c.type} ${c.object.metadata.name}`)
  /** What a scan of every change keeps: those whose object or previous state is on the node. */
  const scanned = (store: Store, revision: number, nodeName: string) =>
    [...store.changesAfter(Pods, revision)]
      .filter((c) => nodeOf(c.object) === nodeName || (c.previous !== undefined && nodeOf(c.previous) === nodeName))
      .map((c) => `${c.revision} ${c.type} ${c.object.metadata.name}`)

  it("replays the changes a watch pinned to a node can see — bound, moved away, deleted — as a scan of all would", () => {
    const store = new Store()
    putPod(store, "a", "n1") // 1
    putPod(store, "b", undefined) // 2
    putPod(store, "b", "n1") // 3: bound to n1
    putPod(store, "a", "n2") // 4: moved away from n1
    putPod(store, "c", "n2") // 5
    store.remove(Pods, objectKey("default", "b"), 0) // 6
    expect(replayed(store, 0, "n1")).toEqual(["1 ADDED a", "3 MODIFIED b", "4 MODIFIED a", "6 DELETED b"])
    expect(replayed(store, 3, "n1")).toEqual(["4 MODIFIED a", "6 DELETED b"])
    expect(replayed(store, 0, "")).toEqual(["2 ADDED b", "3 MODIFIED b"])
    expect(replayed(store, 6, "n1")).toEqual([])
    expect(replayed(store, 0, "n9")).toEqual([])
    for (const node of ["n1", "n2", ""]) for (let r = 0; r <= 6; r++) expect(replayed(store, r, node)).toEqual(scanned(store, r, node))
  })

  it("stays right when compaction drops changes and cuts the log", () => {
    const store = new Store()
    // 3,000 changes at times 0…2,999 over 7 nodes, then everything before time 2,500 dropped (the log is cut)
    for (let i = 0; i < 3_000; i++) store.put(Pods, objectKey("default", `p${i % 50}`), pod(`p${i % 50}`, `n${i % 7}`), i)
    store.compactBefore(2_500)
    const oldest = store.compactedRevision
    expect(oldest).toBe(2_500)
    for (let i = 3_000; i < 3_100; i++) store.put(Pods, objectKey("default", `p${i % 50}`), pod(`p${i % 50}`, `n${i % 7}`), i)
    for (const revision of [oldest, oldest + 1, 2_777, 3_050, 3_100]) {
      for (const node of ["n0", "n3", "n6"]) {
        const got = replayed(store, revision, node)
        expect(got).toEqual(scanned(store, revision, node))
        if (revision < 3_000) expect(got.length).toBeGreaterThan(0)
      }
    }
  })
})

describe("Store.page remainingItemCount", () => {
  it("is exact on every page of a paged list read at its first page's revision, while writes go on", () => {
    const store = new Store()
    for (let i = 0; i < 23; i++) putPod(store, `p${String(i).padStart(2, "0")}`, "n1")
    const revision = store.revision
    const pageOf = (start: string) =>
      store.page({ resource: Pods, revision, prefix: "default/", start, limit: 5, matches: () => true, countRemaining: true })
    let start = "default/"
    const remaining: Array<number> = []
    const listed: Array<string> = []
    for (;;) {
      const page = pageOf(start)
      listed.push(...names(page.items))
      remaining.push(page.remaining)
      // writes between pages: a new pod, a deleted one (both after `revision`: the list does not see them)
      putPod(store, `new${remaining.length}`, "n1")
      if (remaining.length === 2) store.remove(Pods, objectKey("default", "p20"), 0)
      if (page.lastKey === undefined) break
      start = page.lastKey + "\u0000"
    }
    expect(remaining).toEqual([18, 13, 8, 3, 0])
    expect(listed).toHaveLength(23)
    expect(listed[22]).toBe("p22")
  })
})
