/**
 * A compact renewal version kept as numbers (simulator/apiserver/RenewedColumns.ts) is made again equal to the record
 * it was kept from (`RenewedVersion.materialise`, the object form the history kept before): the same JSON, keys in the
 * same order, through the columns' growth and wrap-around; and a record set again for a later renewal (the cell's
 * spare, `Store.renewalRecord`) leaves what the columns kept unchanged. Versions not compact are kept as themselves.
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
  it("makes a compact version again as its record would, through growth and wrap-around", () => {
    const bases = [storedLease("a"), storedLease("node-17", "kubelet")]
    let columns = new RenewedColumns(4)
    let capacity = 4
    let first = 0
    const kept: Array<{ slotOf: number; kept: unknown; json: string }> = []
    const instants = [start + 0.001, start + 999.999, start + 10_000.5, start + 86_399_999, Date.UTC(2038, 0, 19, 3, 14, 8) + 0.25, Date.UTC(9999, 11, 31, 22, 59, 59) + 999.999]
    let n = 0
    for (let round = 0; round < 40; round++) {
      // keep at most 5 positions, growing once past 4 and wrapping around after
      if (n - first === capacity) {
        if (capacity === 4) {
          columns.grow(8, first, n)
          capacity = 8
        } else first++
      }
      if (n - first > 5) first++
      const base = bases[round % 2]!
      const at = instants[round % instants.length]!
      const version = record(new RenewedVersion(), base, 0, microTime(at + round * 1.001), 1_000 + round * 3, at + 5_000.75)
      expect(version.compact).toBe(true)
      const slot = n & (capacity - 1)
      const json = JSON.stringify(version.materialise(Leases))
      const inRing = columns.keep(slot, version)
      expect(inRing).toBe(base)
      kept.push({ slotOf: n, kept: inRing, json })
      // set again for another renewal: what was kept does not change
      record(version, bases[(round + 1) % 2]!, 0, microTime(at + 77), 5, at + 1)
      for (let p = first; p <= n; p++) {
        const k = kept[p]!
        expect(JSON.stringify(columns.version(p & (capacity - 1), k.kept as KObject, Leases))).toBe(k.json)
      }
      n++
    }
    // the same keys in the same order as the record's object
    const version = record(new RenewedVersion(), bases[1]!, 0, microTime(start + 20_000.5), 77, start + 20_001)
    columns = new RenewedColumns(2)
    const made = columns.version(1, columns.keep(1, version)!, Leases)
    const expected = version.materialise(Leases)
    expect(Object.keys(made)).toEqual(Object.keys(expected))
    expect(Object.keys(made.metadata)).toEqual(Object.keys(expected.metadata))
    expect(Object.keys(made.spec as object)).toEqual(Object.keys(expected.spec as object))
    expect(made).toEqual(expected)
  })

  it("keeps a version that is not compact, and anything else, as itself", () => {
    const base = storedLease("a")
    const columns = new RenewedColumns(4)
    // a renewTime that is not the canonical text of its instant, and a spec in another key order
    const text = record(new RenewedVersion(), base, 0, "2026-01-01T00:00:05.5Z", 9, start)
    const reordered = record(new RenewedVersion(), base, 0, microTime(start), 10, start, { renewTime: microTime(start), holderIdentity: "a", leaseDurationSeconds: 40 })
    for (const [slot, version] of [text, reordered].entries()) {
      expect(version.compact).toBe(false)
      expect(columns.keep(slot, version)).toBe(version)
      expect(columns.version(slot, version, Leases)).toEqual(version.materialise(Leases))
    }
    expect(columns.keep(2, base)).toBe(base)
    expect(columns.version(2, base, Leases)).toBe(base)
    expect(columns.keep(3, undefined)).toBeUndefined()
  })
})
