/**
 * The ReplicaSet controller (upstream `pkg/controller/replicaset/replica_set.go`): keeps `spec.replicas` pods from
 * the template running for each ReplicaSet, each pod carrying the ReplicaSet as its controller (`ownerReferences`
 * with `controller: true, blockOwnerDeletion: true`), and writes the ReplicaSet's status. It reads from informers
 * (`WorkloadControllers.ts` runs them) and works through a queue of keys, one sync at a time, as upstream's
 * `syncReplicaSet`: expectations first, then claim (adopt orphans the selector matches), manage, status.
 *
 * Choices: a pod that stops matching its controller's selector is not released (upstream patches its reference
 * away); it stops counting for the ReplicaSet, which makes another. A ReplicaSet whose selector does not match its
 * own template (which the server refuses, but one may be stored past that) makes no pods at all (`refuseToManage`).
 */
import { Clock, Effect } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Pods, ReplicaSets } from "../../../src/api/Resources.js"
import { type ClientError, hasStatusCode } from "../../../src/client/TransportError.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { Cache } from "../../../src/informer/Cache.js"
import type { EventHandlers } from "../../../src/informer/Informer.js"
import { rfc3339 } from "../../apiserver/SystemMeta.js"
import type { EventRecorderService, ObjectRef } from "../../events/EventRecorder.js"
import { controllerOf, isPodActive, isPodReady, keyOf, selectorIsEmpty, selectorMatches, splitKey } from "../ControllerRef.js"
import type { WorkQueue } from "../WorkQueue.js"
import { Expectations } from "./Expectations.js"
import {
  podFromTemplate,
  podsToDelete,
  replicaDiff,
  replicaSetApiVersion,
  replicaSetStatus,
  replicaSetView,
  selectsOwnPods,
  slowStartBatches,
  templateMismatchMessage,
  type ManageFailure,
  type ReplicaSetView
} from "./ReplicaSetSync.js"

export interface ReplicaSetControllerDeps {
  readonly client: ApiClientService
  readonly recorder: EventRecorderService
  readonly pods: Cache
  readonly replicaSets: Cache
  readonly queue: WorkQueue
}

export const replicaSetRef = (rs: KObject): ObjectRef => ({
  kind: "ReplicaSet",
  apiVersion: replicaSetApiVersion,
  name: rs.metadata.name ?? "",
  namespace: rs.metadata.namespace,
  uid: rs.metadata.uid
})

const sameStatus = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {})

export class ReplicaSetController {
  readonly expectations = new Expectations()

  constructor(private readonly deps: ReplicaSetControllerDeps) {}

  /** The ReplicaSet controlling `pod`, as the cache holds it (`resolveControllerRef`: kind and uid must match). */
  private controllerOfPod(pod: KObject): KObject | undefined {
    const ref = controllerOf(pod)
    if (ref === undefined || ref.kind !== "ReplicaSet") return undefined
    const rs = this.deps.replicaSets.get(pod.metadata.namespace, ref.name)
    return rs?.metadata.uid === ref.uid ? rs : undefined
  }

  /** Orphans go to every ReplicaSet whose selector matches (`getPodReplicaSets`), which may adopt them. */
  private enqueueForPod(pod: KObject): void {
    const owner = this.controllerOfPod(pod)
    if (owner) return this.deps.queue.add(keyOf(owner))
    if (controllerOf(pod) !== undefined) return
    for (const rs of this.deps.replicaSets.list())
      if (rs.metadata.namespace === pod.metadata.namespace && !selectorIsEmpty(replicaSetView(rs).selector) && selectorMatches(replicaSetView(rs).selector, pod.metadata.labels))
        this.deps.queue.add(keyOf(rs))
  }

  readonly replicaSetHandlers: EventHandlers = {
    onAdd: (rs) => this.deps.queue.add(keyOf(rs)),
    onUpdate: (_old, rs) => this.deps.queue.add(keyOf(rs)),
    onDelete: (rs) => {
      this.expectations.delete(keyOf(rs))
      this.deps.queue.add(keyOf(rs))
    }
  }

  readonly podHandlers: EventHandlers = {
    onAdd: (pod) => {
      const owner = this.controllerOfPod(pod)
      if (owner) this.expectations.creationObserved(keyOf(owner))
      this.enqueueForPod(pod)
    },
    onUpdate: (old, pod) => {
      if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return
      this.enqueueForPod(pod)
      const owner = this.controllerOfPod(pod)
      // a pod that turned ready becomes available minReadySeconds later: look again then (`updatePod`)
      if (owner && !isPodReady(old) && isPodReady(pod)) {
        const wait = replicaSetView(owner).minReadySeconds
        if (wait > 0) this.deps.queue.addLater(keyOf(owner), wait * 1000 + 1000)
      }
    },
    onDelete: (pod) => {
      const owner = this.controllerOfPod(pod)
      if (owner) this.expectations.deletionObserved(keyOf(owner))
      this.enqueueForPod(pod)
    }
  }

  /** `syncReplicaSet`. */
  sync(key: string): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const { namespace, name } = splitKey(key)
      const rs = this.deps.replicaSets.get(namespace, name)
      if (rs === undefined) return void this.expectations.delete(key)
      const now = yield* Clock.currentTimeMillis
      const needsSync = this.expectations.satisfied(key, now)
      const view = replicaSetView(rs)
      const pods = yield* this.claimPods(rs)
      let failure: ManageFailure | undefined
      if (needsSync && rs.metadata.deletionTimestamp === undefined)
        failure = selectsOwnPods(view) ? yield* this.manageReplicas(key, rs, pods, now) : yield* this.refuseToManage(rs, view)
      const status = replicaSetStatus(rs, pods, now, failure, rfc3339(now))
      if (!sameStatus(status, rs.status))
        yield* this.deps.client.update(ReplicaSets, { ...rs, status }, { namespace, subresource: "status" })
      if (view.minReadySeconds > 0 && status.readyReplicas === view.replicas && status.availableReplicas !== view.replicas)
        yield* this.deps.queue.addAfter(key, view.minReadySeconds * 1000)
    })
  }

  /**
   * A ReplicaSet whose selector does not match the pods its template makes (stored before validation refused such
   * specs, or written past it) would count none of the pods it creates and create more on every sync, without end:
   * it creates none, and says why in a `FailedCreate` event and its `ReplicaFailure` condition (docs/serve.md).
   */
  private refuseToManage(rs: KObject, view: ReplicaSetView): Effect.Effect<ManageFailure> {
    const failure: ManageFailure = { reason: "FailedCreate", message: templateMismatchMessage(view) }
    return Effect.as(this.deps.recorder.eventf(replicaSetRef(rs), undefined, "Warning", "FailedCreate", "Create", `Error creating: ${failure.message}`), failure)
  }

  /** The active pods it controls and those it adopts (`claimPods`; no adoption while it is being deleted). */
  private claimPods(rs: KObject): Effect.Effect<ReadonlyArray<KObject>> {
    return Effect.gen(this, function* () {
      const selector = replicaSetView(rs).selector
      const uid = rs.metadata.uid
      const out: Array<KObject> = []
      for (const pod of this.deps.pods.list()) {
        if (pod.metadata.namespace !== rs.metadata.namespace || !isPodActive(pod)) continue
        const ref = controllerOf(pod)
        if (ref !== undefined) {
          if (ref.uid === uid && selectorMatches(selector, pod.metadata.labels)) out.push(pod)
          continue
        }
        if (rs.metadata.deletionTimestamp !== undefined || selectorIsEmpty(selector) || !selectorMatches(selector, pod.metadata.labels)) continue
        const patch = { metadata: { ownerReferences: [...(pod.metadata.ownerReferences ?? []), { apiVersion: replicaSetApiVersion, kind: "ReplicaSet", name: rs.metadata.name, uid, controller: true, blockOwnerDeletion: true }], uid: pod.metadata.uid } }
        const adopted = yield* Effect.either(this.deps.client.patch(Pods, pod.metadata.name!, "merge", patch, { namespace: pod.metadata.namespace }))
        if (adopted._tag === "Right") out.push(adopted.right.object)
      }
      return out
    })
  }

  /** `manageReplicas`: create or delete the difference; the failure of the last batch, if any, for the status. */
  private manageReplicas(key: string, rs: KObject, pods: ReadonlyArray<KObject>, now: number): Effect.Effect<ManageFailure | undefined> {
    return Effect.gen(this, function* () {
      const diff = replicaDiff(pods.length, replicaSetView(rs).replicas)
      const { client, recorder } = this.deps
      const ref = replicaSetRef(rs)
      if (diff > 0) {
        this.expectations.expect(key, diff, 0, now)
        let failure: ManageFailure | undefined
        let skipped = diff
        for (const size of slowStartBatches(diff)) {
          const results = yield* Effect.forEach(Array.from({ length: size }), () => Effect.either(client.create(Pods, podFromTemplate(rs), { namespace: rs.metadata.namespace })), {
            concurrency: "unbounded"
          })
          skipped -= size
          for (const r of results) {
            if (r._tag === "Right") yield* recorder.eventf(ref, undefined, "Normal", "SuccessfulCreate", "Create", `Created pod: ${r.right.object.metadata.name}`)
            else {
              this.expectations.creationObserved(key)
              failure = { reason: "FailedCreate", message: r.left.message }
              yield* recorder.eventf(ref, undefined, "Warning", "FailedCreate", "Create", `Error creating: ${r.left.message}`)
            }
          }
          if (failure) break
        }
        // the batches not tried are not expected either (`skippedPods`)
        for (let i = 0; i < skipped; i++) this.expectations.creationObserved(key)
        return failure
      }
      if (diff < 0) {
        const victims = podsToDelete(pods, -diff)
        this.expectations.expect(key, 0, victims.length, now)
        const results = yield* Effect.forEach(victims, (pod) => Effect.either(client.delete(Pods, pod.metadata.name!, { namespace: pod.metadata.namespace })), { concurrency: "unbounded" })
        let failure: ManageFailure | undefined
        for (let i = 0; i < results.length; i++) {
          const r = results[i]!
          const podName = victims[i]!.metadata.name
          if (r._tag === "Right") yield* recorder.eventf(ref, undefined, "Normal", "SuccessfulDelete", "Delete", `Deleted pod: ${podName}`)
          else {
            this.expectations.deletionObserved(key)
            if (hasStatusCode(r.left, 404)) continue
            failure = { reason: "FailedDelete", message: r.left.message }
            yield* recorder.eventf(ref, undefined, "Warning", "FailedDelete", "Delete", `Error deleting: ${r.left.message}`)
          }
        }
        return failure
      }
      return undefined
    })
  }
}
