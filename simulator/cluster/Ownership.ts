/**
 * What a real-time run owns on its target and how it leaves it: the Nodes, node Leases and pods of the run's node
 * names that carry clustersim's label (`simulatedLabel`). Nothing else is ever deleted — a node of the same name
 * without the label belongs to someone else. Asked by label, checked by name, so two runs with other name
 * prefixes on one server do not touch each other's nodes either.
 */
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods, type ResourceType } from "../../src/api/Resources.js"
import { nodeLeaseNamespace, simulatedLabel, simulatedLabelValue } from "../../src/api/WellKnown.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { hasStatusCode } from "../../src/client/TransportError.js"

export interface OwnedCounts {
  readonly nodes: number
  readonly leases: number
  readonly pods: number
}

export interface Leftovers {
  /** Deleted by this run (`--cleanup`). */
  readonly removed: OwnedCounts
  /** Still on the target when the run ended. */
  readonly left: OwnedCounts
  /** The target could not be asked (the counts are then what was known). */
  readonly error?: string
}

const ownedSelector = `${simulatedLabel}=${simulatedLabelValue}`

interface Owned {
  readonly resource: ResourceType
  readonly objects: ReadonlyArray<KObject>
}

/** The run's owned objects: its nodes, their leases, the pods bound to them. */
const findOwned = (names: ReadonlySet<string>) =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const nodes = yield* client.list(Nodes, { labelSelector: ownedSelector })
    const leases = yield* client.list(Leases, { namespace: nodeLeaseNamespace, labelSelector: ownedSelector })
    const pods = yield* client.list(Pods, { labelSelector: ownedSelector })
    const named = (o: KObject) => names.has(o.metadata.name ?? "")
    const bound = (o: KObject) => names.has((o.spec as { nodeName?: string } | undefined)?.nodeName ?? "")
    return [
      { resource: Nodes, objects: nodes.items.filter(named) },
      { resource: Leases, objects: leases.items.filter(named) },
      { resource: Pods, objects: pods.items.filter(bound) }
    ] satisfies ReadonlyArray<Owned>
  })

const countsOf = (owned: ReadonlyArray<Owned>): OwnedCounts => ({ nodes: owned[0]!.objects.length, leases: owned[1]!.objects.length, pods: owned[2]!.objects.length })

const none: OwnedCounts = { nodes: 0, leases: 0, pods: 0 }

/** What the run leaves on the target (no `--cleanup`). */
export const leftOver = (names: ReadonlySet<string>): Effect.Effect<Leftovers, never, ApiClient> =>
  findOwned(names).pipe(
    Effect.map((owned) => ({ removed: none, left: countsOf(owned) })),
    Effect.catchAll((e) => Effect.succeed({ removed: none, left: none, error: e.message }))
  )

/** Deletes the run's owned objects (pods first, then leases, then nodes), 32 at a time; says what remains. */
export const removeOwned = (names: ReadonlySet<string>): Effect.Effect<Leftovers, never, ApiClient> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const owned = yield* findOwned(names)
    const removed = { nodes: 0, leases: 0, pods: 0 }
    for (const { resource, objects } of [...owned].reverse()) {
      yield* Effect.forEach(
        objects,
        (o) =>
          client.delete(resource, o.metadata.name ?? "", { namespace: o.metadata.namespace, gracePeriodSeconds: 0 }).pipe(
            Effect.map(() => void (resource === Nodes ? removed.nodes++ : resource === Leases ? removed.leases++ : removed.pods++)),
            // gone already: nothing left to delete
            Effect.catchIf((e) => hasStatusCode(e, 404), () => Effect.void)
          ),
        { concurrency: 32, discard: true }
      )
    }
    const after = yield* findOwned(names)
    return { removed, left: countsOf(after) }
  }).pipe(Effect.catchAll((e) => Effect.succeed({ removed: none, left: none, error: e.message })))
