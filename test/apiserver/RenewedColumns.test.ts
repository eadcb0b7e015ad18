/**
 * A compact renewal version kept as numbers (simulator/apiserver/RenewedColumns.ts) is made again equal to the record
 * it was kept from (`RenewedVersion.materialise`, the object form the history kept before): the same JSON, keys in the
 * same order, through the columns' growth and wrap-around; and a record set again for a later renewal (the cell's
 * record, set again by the lease's next renewal) leaves what the columns kept unchanged. Versions not compact are kept
 * as themselves, and a store replays every version as it was stored, whatever order compact and other renewals came in.
 * Columns of the changes' own versions (`ofChange`, the ring's object side) take the revision and time from the change:
 * given another change's, the version made differs.
 */
import { describe, expect, it } from "@effect/vitest"
import type { KObject } from "../../src/api/Object.js"
import { Leases } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { secondOf } from "../../simulator/apiserver/CompactMicroTime.js"
import { RenewedColumns } from "../../simulator/apiserver/RenewedColumns.js"
import { RenewedVersion } from "../../simulator/apiserver/RenewedVersion.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"
import { storedVersions } from "../support/storedVersions.js"

const namespace = "platform-node-lease"
const start = Date.UTC(2026, 0, 1)

/** A stored lease, as the general path writes it (its managed fields built by the server). */
const storedLease = (name: string, fieldManager?: string): KObject => {
  const server = new ApiServerImpl(defaultConfig, start)
  const client = inProcessClient(server)
  const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(start) }
  client.at!(start)!.create(Leases, { metadata: { name, namespace, labels: { a: "b" } }, spec }, { namespace, fieldManager })
  return server.store.get(Leases, `${namespace}/${name}`)!
}

/** A record of a renewal of `base` written at `time`, revision `revision`, its renewTime `renewTime`. */
const record = (into: RenewedVersion, base: KObject, own: number, renewTime: string, revision: number, time: number, spec?: Record<string, unknown>): RenewedVersion => {
  into.set(base, own, renewTime, secondOf(renewTime), spec, "", undefined)
  into.written(revision, time)
  return into
}

describe("RenewedColumns", () => {
  it.each([false, true])("makes a compact version again as its record would, through growth and wrap-around (ofChange %s)", (ofChange) => {
    const bases = [storedLease("a"), storedLease("node-17", "kubelet")]
    let columns = new RenewedColumns(4, ofChange)
    let capacity = 4
    let first = 0
    const kept: Array<{ slotOf: number; kept: unknown; json: string; revision: number; time: number }> = []
    const instants = [start + 0.001, start + 999.999, start + 10_000.5, start + 86_399_999, Date.UTC(2038, 0, 19, 3, 14, 8) + 0.25, Date.UTC(9999, 11, 31, 22, 59, 59) + 999.999]
    let n = 0
    for (let round = 0; round < 40; round++) {
      // keep at most 5 positions, growing once past 4 and wrapping around after
      if (n - first === capacity) {
        if (capacity === 4) {
          columns.resize(8, first, n)
          capacity = 8
        } else first++
      }
      if (n - first > 5) first++
      const base = bases[round % 2]!
      const at = instants[round % instants.length]!
      const revision = 1_000 + round * 3
      const time = at + 5_000.75
      const version = record(new RenewedVersion(), base, 0, microTime(at + round * 1.001), revision, time)
      expect(version.compact).toBe(true)
      const slot = n & (capacity - 1)
      const json = JSON.stringify(version.materialise(Leases))
      const inRing = columns.keep(slot, version)
      expect(inRing).toBe(base)
      kept.push({ slotOf: n, kept: inRing, json, revision, time })
      // set again for another renewal: what was kept does not change
      record(version, bases[(round + 1) % 2]!, 0, microTime(at + 77), 5, at + 1)
      for (let p = first; p <= n; p++) {
        const k = kept[p]!
        // the change's revision and time as the ring keeps them; columns that keep their own ignore them
        const [changeRevision, changeTime] = ofChange ? [k.revision, k.time] : [NaN, NaN]
        expect(JSON.stringify(columns.version(p & (capacity - 1), k.kept as KObject, Leases, changeRevision, changeTime))).toBe(k.json)
      }
      if (ofChange) {
        // another change's revision or time gives another version: they are read from the change
        const k = kept[n]!
        expect(JSON.stringify(columns.version(n & (capacity - 1), k.kept as KObject, Leases, k.revision + 1, k.time))).not.toBe(k.json)
        expect(JSON.stringify(columns.version(n & (capacity - 1), k.kept as KObject, Leases, k.revision, k.time + 1_000))).not.toBe(k.json)
      }
      n++
    }
    // the same keys in the same order as the record's object
    const version = record(new RenewedVersion(), bases[1]!, 0, microTime(start + 20_000.5), 77, start + 20_001)
    columns = new RenewedColumns(2, ofChange)
    const made = columns.version(1, columns.keep(1, version)!, Leases, 77, start + 20_001)
    const expected = version.materialise(Leases)
    expect(Object.keys(made)).toEqual(Object.keys(expected))
    expect(Object.keys(made.metadata)).toEqual(Object.keys(expected.metadata))
    expect(Object.keys(made.spec as object)).toEqual(Object.keys(expected.spec as object))
    expect(made).toEqual(expected)
  })

  it("keeps a version that is not compact, and anything else, as itself", () => {
    const base = storedLease("a")
    const columns = new RenewedColumns(4, false)
    // a renewTime that is not the canonical text of its instant, and a spec in another key order
    const text = record(new RenewedVersion(), base, 0, "2026-01-01T00:00:05.5Z", 9, start)
    const reordered = record(new RenewedVersion(), base, 0, microTime(start), 10, start, { renewTime: microTime(start), holderIdentity: "a", leaseDurationSeconds: 40 })
    for (const [slot, version] of [text, reordered].entries()) {
      expect(version.compact).toBe(false)
      expect(columns.keep(slot, version)).toBe(version)
      expect(columns.version(slot, version, Leases, NaN, NaN)).toEqual(version.materialise(Leases))
    }
    expect(columns.keep(2, base)).toBe(base)
    expect(columns.version(2, base, Leases, NaN, NaN)).toBe(base)
    expect(columns.keep(3, undefined)).toBeUndefined()
  })

  it("replays a store's renewals as they were stored, compact or not, in any order", () => {
    const server = new ApiServerImpl(defaultConfig, start)
    const client = inProcessClient(server)
    const { seen, previousOf } = storedVersions(server.store, Leases)
    const options = { namespace }
    client.at!(start)!.create(Leases, { metadata: { name: "a", namespace }, spec: { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: microTime(start) } }, options)
    // c: the spec's keys in their order; o: in another order; t: a renewTime that is not its instant's canonical text
    const kinds = "ccoocttcocotcc"
    const paths: Array<string> = []
    let now = start
    for (const kind of kinds) {
      now += 10_000.25
      const stored = server.store.get(Leases, `${namespace}/a`)!
      const renewTime = kind === "t" ? microTime(now).replace("Z", "+00:00") : microTime(now)
      const { holderIdentity, leaseDurationSeconds } = stored.spec as { holderIdentity: string; leaseDurationSeconds: number }
      const spec = kind === "o" ? { renewTime, holderIdentity, leaseDurationSeconds } : { holderIdentity, leaseDurationSeconds, renewTime }
      const answer = client.at!(now)!.update(Leases, { metadata: stored.metadata, spec }, options) as unknown as { _tag: string }
      expect(answer._tag).toBe("Right")
      const record = server.store.renewedVersion(server.state.find(Leases, namespace, "a")!)
      paths.push(record === undefined ? "-" : record.compact ? "c" : "r")
    }
    // a record not compact (r) followed by compact ones (c), as the general path (-) writes "t"
    expect(paths.join("")).toBe("ccrrc--crcr-cc")
    const replayed = [...server.store.changesAfter(Leases, 0)]
    expect(replayed.length).toBe(kinds.length + 1)
    for (const change of replayed) {
      expect(JSON.stringify(change.object)).toBe(seen.get(change.revision))
      expect(change.previous === undefined ? undefined : JSON.stringify(change.previous)).toBe(previousOf.get(change.revision))
    }
  })
})
