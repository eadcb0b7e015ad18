/**
 * A caller's note of a store entry (`EntryNote.ts`) finds what a lookup by name finds, whatever happened to the
 * entry since it was noted; and a node agent's renewals sent with one answer and store exactly what they do without.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import { ConfigMaps, Leases, Nodes, type ResourceType } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { EntryNote } from "../../simulator/apiserver/EntryNote.js"
import { objectKey, Store } from "../../simulator/apiserver/Store.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"
import { NotingWriteOptions } from "../../simulator/apiserver/Write.js"

const namespace = "platform-node-lease"
const lease = (name: string, ns = namespace): KObject => ({ metadata: { name, namespace: ns }, spec: { holderIdentity: name } })

describe("EntryNote", () => {
  it("finds what lookup finds: after writes, deletes, a new object of the name, and asked of another store, type, namespace or name", () => {
    const stores = [new Store(), new Store()]
    const note = new EntryNote()
    let time = 0
    /** The same lookup through the note and by name; the note's answer must be the lookup's. */
    const both = (store: Store, resource: ResourceType, ns: string | undefined, name: string) => {
      const found = note.lookup(store, resource, ns, name)
      expect([resource.plural, ns, name, found]).toEqual([resource.plural, ns, name, store.lookup(resource, ns, name)])
      expect(found === store.lookup(resource, ns, name)).toBe(true)
      return found
    }
    const [a, b] = stores as [Store, Store]
    for (const store of stores) for (const name of ["n1", "n2"]) store.put(Leases, objectKey(namespace, name), lease(name), time++)
    a.put(Leases, objectKey("other", "n1"), lease("n1", "other"), time++)
    a.put(ConfigMaps, objectKey(namespace, "n1"), lease("n1"), time++)
    expect(both(a, Leases, namespace, "n1")).toBeDefined()
    // written: the same entry, found through the note
    a.put(Leases, objectKey(namespace, "n1"), lease("n1"), time++)
    both(a, Leases, namespace, "n1")
    // another store, type, namespace, name: each the one asked for
    both(b, Leases, namespace, "n1")
    both(a, Leases, namespace, "n1")
    both(a, ConfigMaps, namespace, "n1")
    both(a, Leases, namespace, "n1")
    both(a, Leases, "other", "n1")
    both(a, Leases, namespace, "n1")
    both(a, Leases, namespace, "n2")
    both(a, Leases, namespace, "n1")
    // deleted: not found; made again: the new entry, not the noted one
    const before = both(a, Leases, namespace, "n1")
    a.remove(Leases, objectKey(namespace, "n1"), time++)
    expect(both(a, Leases, namespace, "n1")).toBeUndefined()
    expect(both(a, Leases, namespace, "n1")).toBeUndefined()
    a.put(Leases, objectKey(namespace, "n1"), lease("n1"), time++)
    const again = both(a, Leases, namespace, "n1")
    expect(again).toBeDefined()
    expect(again === before).toBe(false)
    a.remove(Leases, objectKey(namespace, "n1"), time++)
    a.put(Leases, objectKey(namespace, "n1"), lease("n1"), time++)
    expect(both(a, Leases, namespace, "n1") === again).toBe(false)
    // a cluster-scoped type: no namespace
    a.put(Nodes, "n1", { metadata: { name: "n1" } }, time++)
    both(a, Nodes, undefined, "n1")
    both(a, Nodes, undefined, "n1")
    // a timed store times every lookup, the noted ones too
    let gets = 0
    a.timing = { start: () => 0, observe: (operation) => void (operation === "get" && gets++) }
    both(a, Nodes, undefined, "n1")
    both(a, Nodes, undefined, "n1")
    // each `both`: the noted lookup and two by name
    expect(gets).toBe(6)
  })

  it("renewals sent with a note answer, store and replay what they do without, with the lease deleted and made again between", () => {
    const start = Date.UTC(2026, 0, 1)
    const run = (noted: boolean) => {
      const server = new ApiServerImpl(defaultConfig, start)
      const client = inProcessClient(server)
      const seen: Array<string> = []
      server.store.subscribe((c) => void (c.resource === Leases && seen.push(JSON.stringify([c.type, c.revision, c.object, c.previous]))))
      const answers: Array<string> = []
      const leases = new Map<string, KObject>()
      // the agents' options: each lease's own, its note of the entry
      const notes = new Map<string, NotingWriteOptions>()
      const take = (answer: Either.Either<WriteResult, unknown>) => {
        if (Either.isLeft(answer)) return void answers.push(`error ${JSON.stringify(answer.left)}`)
        answers.push(JSON.stringify(answer.right))
        leases.set(answer.right.object.metadata.name!, answer.right.object)
      }
      const create = (name: string, now: number) =>
        take(client.at!(now)!.create(Leases, { metadata: { name, namespace }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(now) } }, { namespace }) as Either.Either<WriteResult, unknown>)
      const renew = (name: string, now: number) => {
        const stored = leases.get(name)!
        if (!notes.has(name)) notes.set(name, new NotingWriteOptions(namespace))
        const opts = noted ? notes.get(name)! : { namespace }
        take(client.at!(now)!.update(Leases, { metadata: stored.metadata, spec: { ...(stored.spec as object), renewTime: microTime(now) } }, opts) as Either.Either<WriteResult, unknown>)
      }
      let now = start
      for (const name of ["n1", "n2"]) create(name, now)
      for (let i = 0; i < 6; i++) for (const name of ["n1", "n2"]) renew(name, (now += 1_250))
      // n1 deleted: its renewal is a 404 (through a dead note), then it is made again and renewed
      server.store.remove(Leases, objectKey(namespace, "n1"), now)
      renew("n1", (now += 10))
      create("n1", (now += 10))
      for (let i = 0; i < 3; i++) for (const name of ["n1", "n2"]) renew(name, (now += 1_250))
      return { answers, seen, history: [...server.store.changesAfter(Leases, 0)].map((c) => JSON.stringify(c)) }
    }
    const general = run(false)
    const noted = run(true)
    expect(noted.answers).toEqual(general.answers)
    expect(noted.seen).toEqual(general.seen)
    expect(noted.history).toEqual(general.history)
    expect(general.answers.filter((a) => a.startsWith("error")).length).toBe(1)
    expect(general.answers.length).toBe(2 + 12 + 1 + 1 + 6)
  })
})
