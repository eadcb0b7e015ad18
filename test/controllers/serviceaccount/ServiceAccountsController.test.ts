/**
 * The service accounts controller against a simulated server in virtual time: `default` in every active namespace,
 * made again when deleted, none in a terminating namespace, a ServiceAccount someone else made left as it is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Namespaces, ServiceAccounts } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { startServiceAccountsController } from "../../../simulator/controllers/serviceaccount/ServiceAccountsController.js"
import { runSim } from "../../scheduler/sim.js"

const accountsIn = (namespace: string) =>
  Effect.flatMap(ApiClient, (c) => Effect.map(Effect.orDie(c.list(ServiceAccounts, { namespace })), (l) => l.items.map((sa) => sa.metadata.name)))

describe("service accounts controller", () => {
  it("makes `default` in every namespace there is and in each new one, and makes it again when deleted", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const before = yield* accountsIn("default")
        yield* startServiceAccountsController
        yield* Effect.sleep("1 second")
        const namespaces = (yield* Effect.orDie(client.list(Namespaces))).items.map((ns) => ns.metadata.name!)
        const atStart = yield* Effect.forEach(namespaces, accountsIn)
        yield* Effect.orDie(client.create(Namespaces, { metadata: { name: "team-a" } }))
        yield* Effect.sleep("1 second")
        const inNew = yield* accountsIn("team-a")
        const first = yield* Effect.orDie(client.get(ServiceAccounts, "default", { namespace: "team-a" }))
        yield* Effect.orDie(client.delete(ServiceAccounts, "default", { namespace: "team-a" }))
        yield* Effect.sleep("1 second")
        const again = yield* Effect.orDie(client.get(ServiceAccounts, "default", { namespace: "team-a" }))
        return { before, namespaces, atStart, inNew, first, again }
      })
    )
    expect(r.before).toEqual([])
    expect(r.namespaces.length).toBeGreaterThanOrEqual(4)
    expect(r.atStart).toEqual(r.namespaces.map(() => ["default"]))
    expect(r.inNew).toEqual(["default"])
    expect(r.again.metadata.uid).not.toBe(r.first.metadata.uid)
  })

  it("leaves a terminating namespace alone and keeps an account someone else made", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        yield* Effect.orDie(client.create(Namespaces, { metadata: { name: "going" } }))
        yield* Effect.orDie(client.create(Namespaces, { metadata: { name: "kept" } }))
        const mine = yield* Effect.orDie(client.create(ServiceAccounts, { metadata: { name: "default", namespace: "kept", labels: { owner: "me" } } }, { namespace: "kept" }))
        // a finalizer of someone else's keeps "going" terminating once deleted
        const going = yield* Effect.orDie(client.get(Namespaces, "going"))
        yield* Effect.orDie(client.update(Namespaces, { ...going, metadata: { ...going.metadata, finalizers: ["example.com/hold"] } }))
        yield* Effect.orDie(client.delete(Namespaces, "going"))
        yield* startServiceAccountsController
        yield* Effect.sleep("2 seconds")
        const phase = ((yield* Effect.orDie(client.get(Namespaces, "going"))).status as { phase: string }).phase
        const kept = yield* Effect.orDie(client.get(ServiceAccounts, "default", { namespace: "kept" }))
        return { phase, inGoing: yield* accountsIn("going"), mine, kept }
      })
    )
    expect(r.phase).toBe("Terminating")
    expect(r.inGoing).toEqual([])
    expect(r.kept.metadata.uid).toBe(r.mine.object.metadata.uid)
    expect(r.kept.metadata.labels).toEqual({ owner: "me" })
  })
})
