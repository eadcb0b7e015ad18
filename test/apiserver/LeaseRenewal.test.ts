/**
 * A lease renewal written by its own path (simulator/apiserver/LeaseRenewal.ts) and kept in the history as what it
 * changed (RenewedVersion.ts) stores, answers and replays exactly what the general update path does: the same
 * sequence of writes sent once with the stored metadata itself (the renewal path) and once with a copy of it (the
 * general path) gives the same JSON, write by write, in the history and in lists at older revisions.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { KObject, ObjectMeta } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Leases } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { everything } from "../../simulator/apiserver/Store.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"
import { storedVersions } from "../support/storedVersions.js"

const namespace = "platform-node-lease"
const start = Date.UTC(2026, 0, 1)

/** A server, its lease writes, and every stored version as JSON by revision (what a store subscriber saw). */
const cluster = (copyMetadata: boolean) => {
  const server = new ApiServerImpl(defaultConfig, start)
  const client = inProcessClient(server)
  const { seen, previousOf } = storedVersions(server.store, Leases)
  const answers: string[] = []
  const leases = new Map<string, KObject>()
  const take = (answer: unknown): void => {
    const written = answer as Either.Either<WriteResult, unknown>
    if (Either.isLeft(written)) return void answers.push(`error ${JSON.stringify(written.left)}`)
    answers.push(JSON.stringify(written.right))
    leases.set(written.right.object.metadata.name!, written.right.object)
  }
  return {
    server,
    seen,
    previousOf,
    answers,
    /** `extra`: metadata an agent's lease has (labels, then ownerReferences: `RenewedMetadata.ts`'s key sequences). */
    create: (name: string, now: number, opts: WriteOptions = {}, extra: Partial<ObjectMeta> = {}) =>
      take(client.at!(now)!.create(Leases, { metadata: { name, namespace, ...extra }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(now) } }, { namespace, ...opts })),
    /** A renewal as a node agent sends it: the metadata it read, the spec it read with a new renewTime. */
    renew: (name: string, now: number, opts: WriteOptions = {}, renewTime = microTime(now), renewTimeFirst = false) => {
      const lease = leases.get(name)!
      const metadata = copyMetadata ? { ...lease.metadata } : lease.metadata
      // `renewTimeFirst`: the same fields in another order (a client's own body), kept as sent
      const spec = renewTimeFirst ? Object.assign({ renewTime }, lease.spec, { renewTime }) : { ...(lease.spec as object), renewTime }
      take(client.at!(now)!.update(Leases, { metadata, spec }, { namespace, ...opts }))
    },
    label: (name: string, now: number) => take(client.at!(now)!.patch(Leases, name, "merge", { metadata: { labels: { at: String(now) } } }, { namespace })),
    renewedVersionOf: (name: string) => server.store.renewedVersion(server.state.find(Leases, namespace, name)!)
  }
}

/** The same writes on both servers: renewals by the holder, by other managers, in the same second, between patches. */
const script = (c: ReturnType<typeof cluster>) => {
  let now = start
  c.create("a", now)
  c.create("b", now, { fieldManager: "other" })
  // an agent's lease owned by its Node, with and without the run's label: the metadata a renewal knows by its cell
  const ownerReferences = [{ apiVersion: "v1", kind: "Node", name: "c", uid: "00000000-0000-4000-8000-000000000001" }]
  c.create("c", now, {}, { ownerReferences })
  c.create("d", now, {}, { labels: { run: "r" }, ownerReferences })
  for (let round = 0; round < 30; round++) {
    now += 10_000 + round * 7.25
    c.renew("a", now)
    c.renew("c", now + 0.25)
    c.renew("d", now + 0.75)
    // another write between renewals: the metadata is another object, read again
    if (round % 8 === 5) c.label("d", now + 1.25)
    // b was created by "other": its first renewal by "" takes renewTime over, later ones are the holder's own
    c.renew("b", now + 0.5)
    if (round % 7 === 3) c.label("a", now + 1)
    // within the same second: the managed-fields entry keeps its time
    if (round % 5 === 1) c.renew("a", now + 2)
    // the same renewTime again: a no-op
    if (round % 9 === 2) c.renew("b", now + 3, {}, JSON.parse(JSON.stringify((c.server.store.get(Leases, `${namespace}/b`)!.spec as { renewTime: string }).renewTime)))
    if (round === 20) c.renew("a", now + 4, { fieldManager: "intruder" })
    // renewTime sent first: the stored spec's keys in another order than the last full version's, twice in a row
    if (round === 12 || round === 13) c.renew("b", now + 1.5, {}, microTime(now + 1.5), true)
    // a bad renewTime is refused as the general path refuses it
    if (round === 25) c.renew("a", now + 5, {}, "2026-13-01T00:00:00.000000Z")
    // a dry run stores nothing
    if (round === 26) c.renew("b", now + 6, { dryRun: ["All"] })
  }
  return now
}

describe("LeaseRenewal", () => {
  it("answers and stores what the general update path does", () => {
    const direct = cluster(false)
    const general = cluster(true)
    script(direct)
    script(general)
    expect(direct.answers.length).toBeGreaterThan(60)
    expect(direct.answers).toEqual(general.answers)
    expect([...direct.seen]).toEqual([...general.seen])
    expect([...direct.previousOf]).toEqual([...general.previousOf])
    expect(direct.answers.some((a) => a.startsWith("error"))).toBe(true)
  })

  it("takes its own path for a renewal of the holder's own field, and only then", () => {
    const c = cluster(false)
    c.create("a", start)
    c.renew("a", start + 10_000)
    expect(c.renewedVersionOf("a")).toBeDefined()
    c.label("a", start + 11_000)
    expect(c.renewedVersionOf("a")).toBeUndefined()
    // another manager renewing takes renewTime from the holder: the general path
    c.renew("a", start + 20_000, { fieldManager: "other" })
    expect(c.renewedVersionOf("a")).toBeUndefined()
    c.renew("a", start + 30_000, { fieldManager: "other" })
    expect(c.renewedVersionOf("a")).toBeDefined()
    // a copy of the metadata is decoded as any body
    const copied = cluster(true)
    copied.create("a", start)
    copied.renew("a", start + 10_000)
    expect(copied.renewedVersionOf("a")).toBeUndefined()
  })

  it("keeps renewTimes sent for other seconds than the write's as they were sent, in answers, replays and lists", () => {
    // the renewTime a second and a half before the write, ~17 minutes after it, an hour after, and in year 999
    const renewTimes = (now: number) => [microTime(now - 1_500.25), microTime(now + 999_000.5), microTime(now + 3_600_000), "0999-01-01T00:00:05.000001Z", microTime(now + 0.75)]
    const run = (c: ReturnType<typeof cluster>) => {
      let now = start
      c.create("a", now)
      for (let round = 0; round < 12; round++) {
        now += 10_000 + round * 3.5
        c.renew("a", now, {}, renewTimes(now)[round % 5])
      }
      return now
    }
    const direct = cluster(false)
    const general = cluster(true)
    const end = run(direct)
    run(general)
    expect(direct.answers).toEqual(general.answers)
    expect([...direct.seen]).toEqual([...general.seen])
    expect(direct.renewedVersionOf("a")).toBeDefined()
    const store = direct.server.store
    store.compactBefore(end - 200_000)
    const replayed = [...store.changesAfter(Leases, store.compactedRevision)]
    expect(replayed.length).toBeGreaterThan(8)
    for (const change of replayed) {
      expect(JSON.stringify(change.object)).toBe(direct.seen.get(change.revision))
      const page = store.page({ resource: Leases, revision: change.revision, prefix: `${namespace}/`, start: `${namespace}/`, limit: undefined, matches: everything, countRemaining: false })
      expect(JSON.stringify(page.items[0])).toBe(direct.seen.get(change.revision))
    }
  })

  it("replays and lists the versions it kept as they were stored, after compaction too", () => {
    const c = cluster(false)
    const end = script(c)
    const store = c.server.store
    // compaction drops the changes that wrote the renewals' base versions; the kept versions still refer to them
    store.compactBefore(end - 150_000)
    const replayed = [...store.changesAfter(Leases, store.compactedRevision)]
    expect(replayed.length).toBeGreaterThan(20)
    for (const change of replayed) {
      expect(JSON.stringify(change.object)).toBe(c.seen.get(change.revision))
      expect(change.previous === undefined ? undefined : JSON.stringify(change.previous)).toBe(c.previousOf.get(change.revision))
    }
    // a list at each retained revision: every lease as it was then
    for (const change of replayed) {
      const page = store.page({ resource: Leases, revision: change.revision, prefix: `${namespace}/`, start: `${namespace}/`, limit: undefined, matches: everything, countRemaining: false })
      const atThen = page.items.find((o) => o.metadata.name === change.key.split("/")[1])
      expect(JSON.stringify(atThen)).toBe(c.seen.get(Number(atThen!.metadata.resourceVersion)))
    }
  })
})
