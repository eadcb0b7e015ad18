/**
 * The change log's ring (slots reused as changes are dropped, doubled when full, shrunk once mostly empty) answers as a
 * plain list of the retained changes would: replay after a revision, pinned to an indexed value or not, and newest
 * first; a renewal's compact versions, kept as numbers in columns made with the first of them, are made again as they
 * were through growth and shrinking.
 */
import { describe, expect, it } from "@effect/vitest"
import { PCGRandom } from "effect/Utils"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps, Leases, Pods } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { ChangeLog } from "../../simulator/apiserver/ChangeLog.js"
import { secondOf } from "../../simulator/apiserver/CompactMicroTime.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { RenewedVersion } from "../../simulator/apiserver/RenewedVersion.js"
import type { Change, ChangeType } from "../../simulator/apiserver/Store.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"

const pod = (name: string, node: string): KObject => ({ metadata: { name, namespace: "default" }, spec: { nodeName: node } })
const nodeOf = (obj: KObject | undefined): string | undefined => (obj?.spec as { nodeName?: string } | undefined)?.nodeName

/**
 * `toEqual` of two lists of changes, without walking every object when each field is the same value or the same
 * object (the log keeps the objects it was given): a deep compare of thousands of changes per probe made this
 * file take half a minute.
 */
const expectChanges = (actual: ReadonlyArray<Change>, expected: ReadonlyArray<Change>) => {
  const same = (a: Change, b: Change) =>
    a.revision === b.revision && a.type === b.type && a.resource === b.resource && a.key === b.key && a.object === b.object && a.previous === b.previous && a.time === b.time
  if (actual.length !== expected.length || actual.some((a, i) => !same(a, expected[i]!))) expect(actual).toEqual(expected)
}

/** Random pushes and drops on a log and on a list of the changes it should retain; their answers compared. */
const exercise = (seed: number, steps: number) => {
  const random = new PCGRandom(seed)
  const log = new ChangeLog(Pods)
  let kept: Change[] = []
  const latest = new Map<string, KObject>()
  let revision = 0
  let time = 0
  const check = () => {
    const probes = [0, revision, ...Array.from({ length: 4 }, () => random.integer(revision + 2))]
    for (const at of probes) {
      expectChanges([...log.after(at)], kept.filter((c) => c.revision > at))
      expectChanges([...log.newestAfter(at)], kept.filter((c) => c.revision > at).reverse())
      for (const node of ["n0", "n1", "n2"])
        expectChanges([...log.after(at, node)], kept.filter((c) => c.revision > at && (nodeOf(c.object) === node || nodeOf(c.previous) === node)))
    }
  }
  for (let step = 0; step < steps; step++) {
    const action = random.integer(100)
    if (action < 80) {
      // a burst of writes, long enough to fill and double the ring now and then
      for (let n = random.integer(400); n >= 0; n--) {
        const name = `p${random.integer(40)}`
        const previous = latest.get(name)
        const type: ChangeType = previous === undefined ? "ADDED" : random.integer(10) === 0 ? "DELETED" : "MODIFIED"
        const object = pod(name, `n${random.integer(3)}`)
        const change: Change = { revision: ++revision, type, resource: Pods, key: `default/${name}`, object, previous, time: time++ }
        if (type === "DELETED") latest.delete(name)
        else latest.set(name, object)
        log.push(change)
        kept.push(change)
      }
    } else if (action < 97) {
      const before = time - random.integer(1_500)
      const dropped = kept.filter((c) => c.time < before)
      expect(log.dropBefore(before)).toBe(dropped.length > 0 ? dropped[dropped.length - 1]!.revision : 0)
      kept = kept.filter((c) => c.time >= before)
    } else {
      expect(log.dropAll()).toBe(kept.length > 0 ? kept[kept.length - 1]!.revision : 0)
      kept = []
    }
    check()
  }
}

const start = Date.UTC(2026, 0, 1)

/** A stored lease, as the general path writes it (its managed fields built by the server). */
const storedLease = (name: string): KObject => {
  const server = new ApiServerImpl(defaultConfig, start)
  const namespace = "platform-node-lease"
  inProcessClient(server).at!(start)!.create(Leases, { metadata: { name, namespace }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(start) } }, { namespace })
  return server.store.get(Leases, `${namespace}/${name}`)!
}

describe("ChangeLog", () => {
  it("shrinks once mostly empty and grows again, a renewal's compact versions made again as they were kept", () => {
    const base = storedLease("a")
    const log = new ChangeLog(Leases)
    // each change's object and previous state as JSON, as the store would have stored them
    const expected = new Map<number, { object: string; previous: string | undefined }>()
    let revision = 0
    let previous: { kept: KObject | RenewedVersion; json: string } | undefined
    const write = (compact: boolean) => {
      const time = start + revision * 1_000.5
      revision++
      let kept: KObject | RenewedVersion
      let json: string
      if (compact) {
        const version = new RenewedVersion().set(base, 0, microTime(time - 3.25), secondOf(microTime(time - 3.25)), undefined, "", undefined)
        version.written(revision, time)
        expect(version.compact).toBe(true)
        kept = version
        json = JSON.stringify(version.materialise(Leases))
      } else {
        kept = { ...base, metadata: { ...base.metadata, resourceVersion: String(revision) } }
        json = JSON.stringify(kept)
      }
      const object = JSON.parse(json) as KObject
      log.push({ revision, type: "MODIFIED", resource: Leases, key: "platform-node-lease/a", object, previous: undefined, time }, kept, previous?.kept)
      expected.set(revision, { object: json, previous: previous?.json })
      previous = { kept, json }
    }
    const check = () => {
      for (const change of log.after(0)) {
        expect(JSON.stringify(change.object)).toBe(expected.get(change.revision)!.object)
        expect(change.previous === undefined ? undefined : JSON.stringify(change.previous)).toBe(expected.get(change.revision)!.previous)
      }
    }
    // full versions only (no renewal columns yet), then compact ones among them: the ring grows to 8,192 slots
    for (let i = 0; i < 3_000; i++) write(false)
    for (let i = 0; i < 3_000; i++) write(i % 7 === 3)
    expect(log.slots).toBe(8_192)
    check()
    // all but 700 dropped: 700 ≤ 8,192 / 8, so the ring shrinks to room for 4 × 700
    log.dropBefore(start + (revision - 700) * 1_000.5)
    expect([...log.after(0)].length).toBe(700)
    expect(log.slots).toBe(4_096)
    check()
    // positions wrap around the smaller ring, then it grows again
    for (let i = 0; i < 5_000; i++) write(i % 3 !== 0)
    expect(log.slots).toBe(8_192)
    check()
    log.dropBefore(start + (revision - 10) * 1_000.5)
    expect(log.slots).toBe(1_024)
    check()
    expect(log.dropAll()).toBe(revision)
    expect(log.slots).toBe(1_024)
  })

  it("replays what a list of the retained changes holds, through growth, wrap-around and drops (seeded)", () => {
    for (const seed of [1, 2, 3]) exercise(seed, 60)
  })

  it("keeps a type without an indexed field, and answers a pinned replay with every change", () => {
    const log = new ChangeLog(ConfigMaps)
    const changes: Change[] = Array.from({ length: 3_000 }, (_, i) => ({
      revision: i + 1,
      type: i < 10 ? "ADDED" : "MODIFIED",
      resource: ConfigMaps,
      key: `default/c${i % 10}`,
      object: { metadata: { name: `c${i % 10}` }, data: { v: String(i) } },
      previous: undefined,
      time: i
    }))
    for (const c of changes) log.push(c)
    expect(log.dropBefore(2_000)).toBe(2_000)
    expect([...log.after(2_990)]).toEqual(changes.slice(2_990))
    expect([...log.after(0, "anything")]).toEqual(changes.slice(2_000))
    expect([...log.newestAfter(2_998)].map((c) => c.revision)).toEqual([3_000, 2_999])
  })
})
