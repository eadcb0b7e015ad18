/**
 * The monitor pass's lease step on columns (`LeaseWrites` → `HealthColumns`, renewTimes as keys: `RenewKey`) decides
 * write by write as its object path did at d7eb58d (kept here as the reference): each lease object kept, its
 * `spec.renewTime` compared with the node's last one by `renew > h.renew`. Random sequences of lease writes — canonical
 * texts near each other, far years, texts in other forms a client may write, other types, no renewTime — with leases
 * deleted and nodes removed and kept again, give the same probes and the same last renewTime for every node.
 */
import { describe, expect, it } from "@effect/vitest"
import { HealthColumns } from "../../../simulator/controllers/nodelifecycle/HealthColumns.js"
import { LeaseWrites } from "../../../simulator/controllers/nodelifecycle/LeaseWrites.js"
import { NodeOrdinals } from "../../../simulator/controllers/nodelifecycle/NodeOrdinals.js"
import { noRenew } from "../../../simulator/controllers/nodelifecycle/RenewKey.js"
import type { KObject } from "../../../src/api/Object.js"

/** The object path of d7eb58d's `MonitorPass.run` (its lease loop and a new node's `renew`). */
class ObjectPath {
  readonly health = new Map<string, { renew: unknown; probe: number }>()
  private leases: Array<KObject> = []

  write(name: string, renewTime: unknown): void {
    this.leases.push({ metadata: { name }, spec: renewTime === undefined ? {} : { renewTime } })
  }

  deleteLease(name: string): void {
    this.leases = this.leases.filter((l) => l.metadata.name !== name)
  }

  pass(now: number, create: ReadonlyArray<string>, remove: ReadonlyArray<string>): void {
    const firstLeases = new Map<string, KObject>()
    for (const l of this.leases) {
      const h = this.health.get(l.metadata.name!)
      if (h === undefined) {
        firstLeases.set(l.metadata.name!, l)
        continue
      }
      const renew = (l.spec as { renewTime?: string } | undefined)?.renewTime
      if (renew !== undefined && (h.renew === undefined || renew > (h.renew as string))) {
        h.renew = renew
        h.probe = now
      }
    }
    this.leases = []
    for (const name of create)
      if (!this.health.has(name)) this.health.set(name, { renew: (firstLeases.get(name)?.spec as { renewTime?: unknown } | undefined)?.renewTime, probe: now })
    for (const name of remove) this.health.delete(name)
  }
}

/** The same through the columns, as the observer records writes and `MonitorPass.run` takes them. */
class ColumnPath {
  readonly ordinals = new NodeOrdinals()
  readonly columns = new HealthColumns()
  private readonly writes = new LeaseWrites()

  /** Each lease's store slot, as the store gives them: a new one for each lease created (again). */
  private readonly slots = new Map<string, number>()
  private nextSlot = 0

  write(name: string, renewTime: unknown): void {
    let slot = this.slots.get(name)
    if (slot === undefined) {
      slot = this.nextSlot++
      this.slots.set(name, slot)
      this.writes.bind(slot, this.ordinals.of(name))
    }
    this.writes.record(slot, renewTime)
  }

  deleteLease(name: string): void {
    const slot = this.slots.get(name)
    if (slot === undefined) return
    this.writes.forget(slot)
    this.slots.delete(name)
  }

  pass(now: number, create: ReadonlyArray<string>, remove: ReadonlyArray<string>): void {
    const { columns, ordinals } = this
    const firstLeases = new Map<number, readonly [number, unknown]>()
    this.writes.drain((ordinal, key, odd) => {
      if (columns.tracks(ordinal)) columns.leaseWritten(ordinal, key, odd, now)
      else firstLeases.set(ordinal, [key, odd])
    })
    for (const name of create) {
      const ordinal = ordinals.of(name)
      if (columns.tracks(ordinal)) continue
      const [key, odd] = firstLeases.get(ordinal) ?? [noRenew, undefined]
      columns.track(ordinal, now, 40_000, key, odd)
    }
    for (const name of remove) columns.untrack(ordinals.of(name))
  }
}

/** A small seeded generator (the test's own). */
const lcg = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** The canonical MicroTime text of `ms` plus `micros` µs (0–999). */
const canonical = (ms: number, micros: number): string => {
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, 23)}${String(micros).padStart(3, "0")}Z`
}

const renewTimes = (random: () => number): (() => unknown) => {
  const base = Date.UTC(2024, 0, 1)
  const near = () => base + Math.floor(random() * 4_000)
  const forms: ReadonlyArray<() => unknown> = [
    () => canonical(near(), Math.floor(random() * 1000)),
    () => canonical(near(), Math.floor(random() * 1000)),
    () => canonical(near(), 999),
    () => canonical(base + Math.floor(random() * 3) * 1_000, 0), // written again: the same text is no probe
    () => canonical(near() - 3_600_000, 0), // an hour earlier
    // canonical, far years (keys out of a double's exact range, or of the four-digit years)
    () => canonical(Date.UTC(2300, 0, 1) + Math.floor(random() * 4_000), 5),
    () => canonical(Date.UTC(1600, 0, 1) + Math.floor(random() * 4_000), 5),
    () => canonical(Date.UTC(1969, 11, 31, 23, 59, 59), Math.floor(random() * 1000)),
    () => `0${canonical(near(), 0).slice(1)}`, // year 0024
    // other forms of about the same instants
    () => new Date(near()).toISOString().replace(".", ",").replace("Z", "+00:00"),
    () => new Date(near() + 3_600_000).toISOString().slice(0, 19) + "+01:00",
    () => new Date(near()).toISOString().slice(0, 21) + "Z",
    () => canonical(near(), 7).toLowerCase(),
    () => canonical(near(), 7).replace("-01T", "-32T"), // no such day
    () => "",
    () => "renewed",
    () => null,
    () => 42,
    () => undefined
  ]
  return () => forms[Math.floor(random() * forms.length)]!()
}

describe("the lease step on columns", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])("decides as the object path, write by write (seed %i)", (seed) => {
    const random = lcg(seed)
    const renewTime = renewTimes(random)
    const names = Array.from({ length: 12 }, (_, i) => `node-${i}`)
    const reference = new ObjectPath()
    const columns = new ColumnPath()
    let now = 0
    let probes = 0
    for (let step = 0; step < 2_000; step++) {
      const r = random()
      const name = names[Math.floor(random() * names.length)]!
      if (r < 0.6) {
        const value = renewTime()
        reference.write(name, value)
        columns.write(name, value)
      } else if (r < 0.63) {
        reference.deleteLease(name)
        columns.deleteLease(name)
      } else {
        // a pass: some nodes kept from now on (if not yet), some removed
        now += 5_000
        const create = names.filter(() => random() < 0.3)
        const remove = names.filter(() => random() < 0.05)
        reference.pass(now, create, remove)
        columns.pass(now, create, remove)
        for (const n of names) {
          const h = reference.health.get(n)
          const ordinal = columns.ordinals.of(n)
          expect(columns.columns.tracks(ordinal)).toBe(h !== undefined)
          if (h === undefined) continue
          expect(columns.columns.probeOf(ordinal)).toBe(h.probe)
          expect(columns.columns.renewOf(ordinal)).toBe(h.renew)
          if (h.probe === now) probes++
        }
      }
    }
    // the sequences do probe, and not always
    expect(probes).toBeGreaterThan(50)
  })
})
