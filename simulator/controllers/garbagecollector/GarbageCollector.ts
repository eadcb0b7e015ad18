/**
 * A minimal garbage collector for the workload kinds (upstream `pkg/controller/garbagecollector`, background
 * propagation only). The simulated server handles `Orphan` and `Foreground` deletes itself
 * (simulator/apiserver/Delete.ts) but removes an owner deleted in the background (kubectl's default) at once and
 * leaves its dependents; this collector deletes them: when a Deployment or ReplicaSet is gone, each ReplicaSet and
 * Pod naming it among its owners, read again from the server, is deleted (background, with its uid as precondition)
 * once none of its owners exists any more. A deleted ReplicaSet's pods follow through the same path.
 *
 * Choice: only the owners and dependents the workload controllers make (Deployment → ReplicaSet → Pod); upstream's
 * collector builds a graph of every resource. Dependents whose owner went while the collector was not running are
 * not swept.
 */
import { Effect } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Deployments, Pods, ReplicaSets, type ResourceType } from "../../../src/api/Resources.js"
import { type ClientError, hasStatusCode } from "../../../src/client/TransportError.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { Cache } from "../../../src/informer/Cache.js"
import type { EventHandlers } from "../../../src/informer/Informer.js"
import type { WorkQueue } from "../WorkQueue.js"

const owners: Readonly<Record<string, ResourceType>> = { Deployment: Deployments, ReplicaSet: ReplicaSets }
const dependentTypes: Readonly<Record<string, ResourceType>> = { ReplicaSet: ReplicaSets, Pod: Pods }

export interface GarbageCollectorDeps {
  readonly client: ApiClientService
  readonly replicaSets: Cache
  readonly pods: Cache
  readonly queue: WorkQueue
}

/** Queue keys: `Kind/namespace/name` of a dependent to look at. */
const dependentKey = (kind: string, obj: KObject) => `${kind}/${obj.metadata.namespace ?? ""}/${obj.metadata.name ?? ""}`

export class GarbageCollector {
  constructor(private readonly deps: GarbageCollectorDeps) {}

  private ownerGone(owner: KObject): void {
    const uid = owner.metadata.uid
    if (uid === undefined) return
    const named = (o: KObject) => o.metadata.namespace === owner.metadata.namespace && (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid)
    for (const rs of this.deps.replicaSets.list()) if (named(rs)) this.deps.queue.add(dependentKey("ReplicaSet", rs))
    for (const pod of this.deps.pods.list()) if (named(pod)) this.deps.queue.add(dependentKey("Pod", pod))
  }

  /** Handlers for the owners' informers (Deployments, ReplicaSets). */
  readonly ownerHandlers: EventHandlers = { onDelete: (owner) => this.ownerGone(owner) }

  /** `attemptToDeleteItem`: deletes the dependent if no owner it names exists. */
  sync(key: string): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const [kind, namespace, name] = key.split("/") as [string, string, string]
      const type = dependentTypes[kind]!
      const { client } = this.deps
      const current = yield* Effect.either(client.get(type, name, { namespace }))
      if (current._tag === "Left") return hasStatusCode(current.left, 404) ? undefined : yield* Effect.fail(current.left)
      const dependent = current.right
      if (dependent.metadata.deletionTimestamp !== undefined) return
      const refs = (dependent.metadata.ownerReferences ?? []).filter((r) => owners[r.kind] !== undefined)
      if (refs.length === 0) return
      for (const ref of refs) {
        const owner = yield* Effect.either(client.get(owners[ref.kind]!, ref.name, { namespace }))
        if (owner._tag === "Right" && owner.right.metadata.uid === ref.uid) return
        if (owner._tag === "Left" && !hasStatusCode(owner.left, 404)) return yield* Effect.fail(owner.left)
      }
      const gone = yield* Effect.either(client.delete(type, name, { namespace, propagationPolicy: "Background", preconditions: { uid: dependent.metadata.uid } }))
      if (gone._tag === "Left" && !hasStatusCode(gone.left, 404) && !hasStatusCode(gone.left, 409)) return yield* Effect.fail(gone.left)
    })
  }
}
