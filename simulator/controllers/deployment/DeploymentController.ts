/**
 * The Deployment controller (upstream `pkg/controller/deployment`: `deployment_controller.go` `syncDeployment`,
 * `sync.go`, `rolling.go`, `recreate.go`, `progress.go`): each Deployment gets a ReplicaSet per pod template, named
 * `<deployment>-<pod-template-hash>` and labelled and selected by that hash, owned by the Deployment
 * (`controller: true, blockOwnerDeletion: true`); a template change rolls out by maxSurge / maxUnavailable
 * (RollingUpdate) or all at once (Recreate), a replicas change scales in proportion, and the status (replicas,
 * updated, ready, available, unavailable, observedGeneration, Available and Progressing conditions) is written as
 * upstream writes it. The arithmetic is in `DeploymentSync.ts`; this file reads the informers' caches and writes.
 *
 * Choices: rollback annotations (`deprecated.deployment.rollback.to`) and the paused conditions
 * (`DeploymentPaused` / `DeploymentResumed`) are not written; a paused Deployment is only scaled, as upstream. A
 * ReplicaSet name collision (another template with the same hash) is retried with `status.collisionCount` + 1.
 */
import { Clock, Effect } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Deployments, ReplicaSets } from "../../../src/api/Resources.js"
import { type ClientError, hasStatusCode } from "../../../src/client/TransportError.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { Cache } from "../../../src/informer/Cache.js"
import type { EventHandlers } from "../../../src/informer/Informer.js"
import { rfc3339 } from "../../apiserver/SystemMeta.js"
import type { EventRecorderService, ObjectRef } from "../../events/EventRecorder.js"
import { controllerOf, controllerRef, keyOf, selectorIsEmpty, selectorMatches, splitKey } from "../ControllerRef.js"
import type { WorkQueue } from "../WorkQueue.js"
import {
  calculateStatus,
  canonicalJson,
  computeHash,
  conditionOf,
  deploymentComplete,
  deploymentView,
  equalIgnoreHash,
  foundNewReplicaSet,
  isScalingEvent,
  maxRevision,
  newReplicaSetCreated,
  newRSNewReplicas,
  oldReplicaSetScaleDowns,
  podTemplateHashLabel,
  replicaSetAnnotations,
  replicaSetCreateError,
  replicaSetsToCleanUp,
  revisionAnnotation,
  rolloutStatus,
  rsView,
  scaleSizes,
  setCondition,
  type DeploymentStatus
} from "./DeploymentSync.js"

export interface DeploymentControllerDeps {
  readonly client: ApiClientService
  readonly recorder: EventRecorderService
  readonly deployments: Cache
  readonly replicaSets: Cache
  readonly queue: WorkQueue
}

const deploymentRef = (d: KObject): ObjectRef => ({ kind: "Deployment", apiVersion: "apps/v1", name: d.metadata.name ?? "", namespace: d.metadata.namespace, uid: d.metadata.uid })

const created = (o: KObject) => (o.metadata.creationTimestamp ? Date.parse(o.metadata.creationTimestamp) : 0)
const byCreation = (a: KObject, b: KObject) => created(a) - created(b) || ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1)

/** One sync's view: the Deployment as last written, its ReplicaSets as last written. */
interface Round {
  d: KObject
  readonly rss: Map<string, KObject>
  readonly nowMs: number
  readonly now: string
}

export class DeploymentController {
  constructor(private readonly deps: DeploymentControllerDeps) {}

  private deploymentOf(rs: KObject): KObject | undefined {
    const ref = controllerOf(rs)
    if (ref === undefined || ref.kind !== "Deployment") return undefined
    const d = this.deps.deployments.get(rs.metadata.namespace, ref.name)
    return d?.metadata.uid === ref.uid ? d : undefined
  }

  private enqueueForReplicaSet(rs: KObject): void {
    const owner = this.deploymentOf(rs)
    if (owner) return this.deps.queue.add(keyOf(owner))
    if (controllerOf(rs) !== undefined) return
    for (const d of this.deps.deployments.list()) {
      const selector = deploymentView(d).selector
      if (d.metadata.namespace === rs.metadata.namespace && !selectorIsEmpty(selector) && selectorMatches(selector, rs.metadata.labels)) this.deps.queue.add(keyOf(d))
    }
  }

  readonly deploymentHandlers: EventHandlers = {
    onAdd: (d) => this.deps.queue.add(keyOf(d)),
    onUpdate: (_old, d) => this.deps.queue.add(keyOf(d)),
    onDelete: (d) => this.deps.queue.add(keyOf(d))
  }

  readonly replicaSetHandlers: EventHandlers = {
    onAdd: (rs) => this.enqueueForReplicaSet(rs),
    onUpdate: (old, rs) => {
      if (old.metadata.resourceVersion !== rs.metadata.resourceVersion) this.enqueueForReplicaSet(rs)
    },
    onDelete: (rs) => this.enqueueForReplicaSet(rs)
  }

  /** `syncDeployment`. */
  sync(key: string): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const { namespace, name } = splitKey(key)
      const stored = this.deps.deployments.get(namespace, name)
      if (stored === undefined) return
      const nowMs = yield* Clock.currentTimeMillis
      const round: Round = { d: stored, rss: new Map(), nowMs, now: rfc3339(nowMs) }
      const view = deploymentView(stored)
      if (selectorIsEmpty(view.selector)) {
        yield* this.deps.recorder.eventf(deploymentRef(stored), undefined, "Warning", "SelectingAll", "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
        const status = (stored.status ?? {}) as DeploymentStatus
        if ((status.observedGeneration ?? 0) < (stored.metadata.generation ?? 0))
          yield* this.writeStatus(round, { ...status, observedGeneration: stored.metadata.generation })
        return
      }
      for (const rs of yield* this.claimReplicaSets(stored)) round.rss.set(rs.metadata.name!, rs)
      if (stored.metadata.deletionTimestamp !== undefined) {
        const { newRS, olds } = yield* this.replicaSetsAndRevision(round, false)
        return yield* this.syncDeploymentStatus(round, newRS, olds)
      }
      if (view.paused || isScalingEvent(view, [...round.rss.values()].map(rsView))) return yield* this.syncScale(round)
      if (view.strategy === "Recreate") return yield* this.rolloutRecreate(round)
      return yield* this.rolloutRolling(round)
    })
  }

  /** `getReplicaSetsForDeployment`: those it controls, and orphans its selector matches, adopted. */
  private claimReplicaSets(d: KObject): Effect.Effect<ReadonlyArray<KObject>> {
    return Effect.gen(this, function* () {
      const selector = deploymentView(d).selector
      const out: Array<KObject> = []
      for (const rs of this.deps.replicaSets.list()) {
        if (rs.metadata.namespace !== d.metadata.namespace) continue
        const ref = controllerOf(rs)
        if (ref !== undefined) {
          if (ref.uid === d.metadata.uid) out.push(rs)
          continue
        }
        if (d.metadata.deletionTimestamp !== undefined || !selectorMatches(selector, rs.metadata.labels)) continue
        const patch = { metadata: { ownerReferences: [...(rs.metadata.ownerReferences ?? []), controllerRef(d, "apps/v1", "Deployment")], uid: rs.metadata.uid } }
        const adopted = yield* Effect.either(this.deps.client.patch(ReplicaSets, rs.metadata.name!, "merge", patch, { namespace: rs.metadata.namespace }))
        if (adopted._tag === "Right") out.push(adopted.right.object)
      }
      return out
    })
  }

  /**
   * `getAllReplicaSetsAndSyncRevision`: the new ReplicaSet (the oldest whose template equals the Deployment's but for
   * the hash), created when asked and missing, its annotations and the Deployment's revision kept up to date; the others.
   */
  private replicaSetsAndRevision(round: Round, createIfMissing: boolean): Effect.Effect<{ newRS: KObject | undefined; olds: Array<KObject> }, ClientError> {
    return Effect.gen(this, function* () {
      const view = deploymentView(round.d)
      const sorted = [...round.rss.values()].sort(byCreation)
      const existing = sorted.find((rs) => equalIgnoreHash((rs.spec as { template?: unknown } | undefined)?.template, view.template))
      const olds = sorted.filter((rs) => rs !== existing)
      const newRevision = String(maxRevision(olds) + 1)
      const { client, recorder } = this.deps
      const namespace = round.d.metadata.namespace
      if (existing !== undefined) {
        let rs = existing
        const annotations = replicaSetAnnotations(round.d, rs.metadata.annotations ?? {}, newRevision)
        const spec = rs.spec as Record<string, unknown>
        const minReadyChanged = (spec.minReadySeconds ?? 0) !== view.minReadySeconds
        if (canonicalJson(annotations) !== canonicalJson(rs.metadata.annotations ?? {}) || minReadyChanged) {
          rs = (yield* client.update(ReplicaSets, { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...spec, minReadySeconds: view.minReadySeconds } }, { namespace })).object
          round.rss.set(rs.metadata.name!, rs)
          return { newRS: rs, olds }
        }
        const revision = rs.metadata.annotations?.[revisionAnnotation]
        let d = revision !== undefined ? withRevision(round.d, revision) : round.d
        let changed = d !== round.d
        const status = (d.status ?? {}) as DeploymentStatus
        if (view.progressDeadlineSeconds !== undefined && conditionOf(status, "Progressing") === undefined) {
          d = { ...d, status: { ...status, conditions: setCondition(status.conditions ?? [], foundNewReplicaSet(rs.metadata.name!, round.now)) } }
          changed = true
        }
        if (changed) yield* this.writeStatus(round, (d.status ?? {}) as DeploymentStatus, d.metadata.annotations)
        return { newRS: rs, olds }
      }
      if (!createIfMissing) return { newRS: undefined, olds }
      const status = (round.d.status ?? {}) as DeploymentStatus
      const hash = computeHash(view.template, status.collisionCount)
      const templateMeta = (view.template.metadata ?? {}) as { labels?: Record<string, string> }
      const labels = { ...templateMeta.labels, [podTemplateHashLabel]: hash }
      const selector = view.selector as { matchLabels?: Record<string, string> }
      const name = `${round.d.metadata.name}-${hash}`
      const draft: KObject = {
        metadata: { name, namespace, labels, ownerReferences: [controllerRef(round.d, "apps/v1", "Deployment")] },
        spec: {
          replicas: 0,
          minReadySeconds: view.minReadySeconds,
          selector: { ...selector, matchLabels: { ...selector.matchLabels, [podTemplateHashLabel]: hash } },
          template: { ...view.template, metadata: { ...templateMeta, labels } }
        }
      }
      const replicas = newRSNewReplicas(view, [...olds.map(rsView), rsView(draft)], rsView(draft))
      const rs: KObject = { ...draft, metadata: { ...draft.metadata, annotations: replicaSetAnnotations(round.d, {}, newRevision) }, spec: { ...(draft.spec as object), replicas } }
      const made = yield* Effect.either(client.create(ReplicaSets, rs, { namespace }))
      if (made._tag === "Left") {
        if (!hasStatusCode(made.left, 409)) {
          // `getNewReplicaSet`: the refusal in the Progressing condition and a Warning event, then the sync fails and
          // is retried with the queue's backoff — a Deployment the server's validation refuses a ReplicaSet for
          // (stored before that validation existed) retries at most every 5 s, creating nothing.
          const message = `Failed to create new replica set "${name}": ${made.left.message}`
          if (view.progressDeadlineSeconds !== undefined)
            yield* Effect.ignore(this.writeStatus(round, { ...status, conditions: setCondition(status.conditions ?? [], replicaSetCreateError(message, round.now)) }))
          yield* recorder.eventf(deploymentRef(round.d), undefined, "Warning", "ReplicaSetCreateError", "Create", message)
          return yield* Effect.fail(made.left)
        }
        // the name is taken: ours if its template is the same (the cache had not seen it yet), else a hash collision
        const taken = yield* client.get(ReplicaSets, name, { namespace })
        const ours = controllerOf(taken)?.uid === round.d.metadata.uid && equalIgnoreHash((taken.spec as { template?: unknown }).template, view.template)
        if (!ours) yield* this.writeStatus(round, { ...status, collisionCount: (status.collisionCount ?? 0) + 1 })
        return yield* Effect.fail(made.left)
      }
      const createdRS = made.right.object
      round.rss.set(name, createdRS)
      if (replicas > 0) yield* recorder.eventf(deploymentRef(round.d), undefined, "Normal", "ScalingReplicaSet", "Scaling", `Scaled up replica set ${name} to ${replicas}`)
      let d = withRevision(round.d, newRevision)
      if (view.progressDeadlineSeconds !== undefined) {
        const s = (d.status ?? {}) as DeploymentStatus
        d = { ...d, status: { ...s, conditions: setCondition(s.conditions ?? [], newReplicaSetCreated(name, round.now)) } }
      }
      yield* this.writeStatus(round, (d.status ?? {}) as DeploymentStatus, d.metadata.annotations)
      return { newRS: createdRS, olds }
    })
  }

  /** `rolloutRolling`: grow the new ReplicaSet, else shrink old ones, else clean up; then the rollout status. */
  private rolloutRolling(round: Round): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const { newRS, olds } = yield* this.replicaSetsAndRevision(round, true)
      const view = deploymentView(round.d)
      const all = () => [...olds.map((o) => round.rss.get(o.metadata.name!)!), ...(newRS ? [round.rss.get(newRS.metadata.name!)!] : [])]
      if (newRS !== undefined) {
        const current = rsView(round.rss.get(newRS.metadata.name!)!)
        if (current.replicas !== view.replicas) {
          const to = current.replicas > view.replicas ? view.replicas : newRSNewReplicas(view, all().map(rsView), current)
          if (yield* this.scaleReplicaSet(round, newRS.metadata.name!, to)) return yield* this.syncRolloutStatus(round, newRS.metadata.name, olds)
        }
      }
      const activeOlds = olds.map((o) => round.rss.get(o.metadata.name!)!).filter((o) => rsView(o).replicas > 0)
      const newView = newRS ? rsView(round.rss.get(newRS.metadata.name!)!) : undefined
      let scaledDown = false
      for (const { name, to } of oldReplicaSetScaleDowns(view, all().map(rsView), activeOlds.map(rsView), newView)) scaledDown = (yield* this.scaleReplicaSet(round, name, to)) || scaledDown
      if (scaledDown) return yield* this.syncRolloutStatus(round, newRS?.metadata.name, olds)
      if (deploymentComplete(round.d, (round.d.status ?? {}) as DeploymentStatus)) yield* this.cleanup(round, olds)
      return yield* this.syncRolloutStatus(round, newRS?.metadata.name, olds)
    })
  }

  /** `rolloutRecreate`: old ReplicaSets to 0, wait for their pods to go, then the new one at full size. */
  private rolloutRecreate(round: Round): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      let { newRS, olds } = yield* this.replicaSetsAndRevision(round, false)
      let scaledDown = false
      for (const o of olds) if (rsView(round.rss.get(o.metadata.name!)!).replicas > 0) scaledDown = (yield* this.scaleReplicaSet(round, o.metadata.name!, 0)) || scaledDown
      if (scaledDown) return yield* this.syncRolloutStatus(round, newRS?.metadata.name, olds)
      // `oldPodsRunning`: the old ReplicaSets still report pods
      if (olds.some((o) => rsView(round.rss.get(o.metadata.name!)!).statusReplicas > 0)) return yield* this.syncRolloutStatus(round, newRS?.metadata.name, olds)
      if (newRS === undefined) ({ newRS, olds } = yield* this.replicaSetsAndRevision(round, true))
      if (newRS !== undefined) yield* this.scaleReplicaSet(round, newRS.metadata.name!, deploymentView(round.d).replicas)
      if (deploymentComplete(round.d, (round.d.status ?? {}) as DeploymentStatus)) yield* this.cleanup(round, olds)
      return yield* this.syncRolloutStatus(round, newRS?.metadata.name, olds)
    })
  }

  /** `sync` (a scaling event or a paused Deployment): scale without rolling, clean up when paused, the status. */
  private syncScale(round: Round): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const { newRS, olds } = yield* this.replicaSetsAndRevision(round, false)
      const view = deploymentView(round.d)
      const statusReplicas = ((round.d.status ?? {}) as DeploymentStatus).replicas ?? 0
      for (const { name, to } of scaleSizes(view, newRS ? rsView(newRS) : undefined, olds.map(rsView), statusReplicas)) yield* this.scaleReplicaSet(round, name, to)
      if (view.paused) yield* this.cleanup(round, olds)
      return yield* this.syncDeploymentStatus(round, newRS, olds)
    })
  }

  /**
   * `scaleReplicaSet`: writes the size and the replicas annotations; an event when the size changed. Whether it
   * changed the size.
   */
  private scaleReplicaSet(round: Round, name: string, to: number): Effect.Effect<boolean, ClientError> {
    return Effect.gen(this, function* () {
      const rs = round.rss.get(name)!
      const before = rsView(rs)
      const annotations = replicaSetAnnotations(round.d, rs.metadata.annotations ?? {}, rs.metadata.annotations?.[revisionAnnotation] ?? "0")
      const sizeChanged = before.replicas !== to
      if (!sizeChanged && canonicalJson(annotations) === canonicalJson(rs.metadata.annotations ?? {})) return false
      const written = yield* this.deps.client.update(ReplicaSets, { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...(rs.spec as object), replicas: to } }, { namespace: rs.metadata.namespace })
      round.rss.set(name, written.object)
      if (sizeChanged)
        yield* this.deps.recorder.eventf(deploymentRef(round.d), undefined, "Normal", "ScalingReplicaSet", "Scaling", `Scaled ${before.replicas < to ? "up" : "down"} replica set ${name} to ${to}`)
      return sizeChanged
    })
  }

  /** `cleanupDeployment`. */
  private cleanup(round: Round, olds: ReadonlyArray<KObject>): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const current = olds.map((o) => round.rss.get(o.metadata.name!)!).filter((o) => o.metadata.deletionTimestamp === undefined)
      for (const name of replicaSetsToCleanUp(deploymentView(round.d), current.map(rsView))) {
        const gone = yield* Effect.either(this.deps.client.delete(ReplicaSets, name, { namespace: round.d.metadata.namespace }))
        if (gone._tag === "Left" && !hasStatusCode(gone.left, 404)) return yield* Effect.fail(gone.left)
        round.rss.delete(name)
      }
    })
  }

  private allOf(round: Round, newName: string | undefined, olds: ReadonlyArray<KObject>) {
    const all = [...olds, ...(newName ? [round.rss.get(newName)!] : [])].map((o) => round.rss.get(o.metadata.name!)).filter((o): o is KObject => o !== undefined)
    return { all: all.map(rsView), newRS: newName ? rsView(round.rss.get(newName)!) : undefined }
  }

  /** `syncRolloutStatus`: the status with Progressing moved; looks again when a deadline may pass (`requeueStuckDeployment`). */
  private syncRolloutStatus(round: Round, newName: string | undefined, olds: ReadonlyArray<KObject>): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const { all, newRS } = this.allOf(round, newName, olds)
      const status = rolloutStatus(round.d, all, newRS, round.nowMs, round.now)
      const deadline = deploymentView(round.d).progressDeadlineSeconds
      const progressing = conditionOf(status, "Progressing")
      if (deadline !== undefined && progressing?.status === "True" && progressing.reason !== "NewReplicaSetAvailable" && !deploymentComplete(round.d, status)) {
        const from = progressing.lastUpdateTime ? Date.parse(progressing.lastUpdateTime) : round.nowMs
        yield* this.deps.queue.addAfter(keyOf(round.d), Math.max(1000, from + deadline * 1000 - round.nowMs + 1000))
      }
      if (!sameStatus(status, round.d.status)) yield* this.writeStatus(round, status)
    })
  }

  /** `syncDeploymentStatus`: `calculateStatus` written if it changed. */
  private syncDeploymentStatus(round: Round, newRS: KObject | undefined, olds: ReadonlyArray<KObject>): Effect.Effect<void, ClientError> {
    const { all, newRS: view } = this.allOf(round, newRS?.metadata.name, olds)
    const status = calculateStatus(round.d, all, view, round.now)
    return sameStatus(status, round.d.status) ? Effect.void : this.writeStatus(round, status)
  }

  private writeStatus(round: Round, status: DeploymentStatus, annotations?: Readonly<Record<string, string>>): Effect.Effect<void, ClientError> {
    return Effect.gen(this, function* () {
      const d = round.d
      const metadata = annotations !== undefined ? { ...d.metadata, annotations } : d.metadata
      const written = yield* this.deps.client.update(Deployments, { ...d, metadata, status }, { namespace: d.metadata.namespace, subresource: "status" })
      round.d = written.object
    })
  }
}

/** `SetDeploymentRevision`: the revision annotation on the Deployment. */
const withRevision = (d: KObject, revision: string): KObject =>
  d.metadata.annotations?.[revisionAnnotation] === revision ? d : { ...d, metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [revisionAnnotation]: revision } } }

/** Status equality that ignores condition times that did not move (each sync stamps new ones otherwise). */
const sameStatus = (a: DeploymentStatus, b: unknown): boolean => canonicalJson(a) === canonicalJson(b ?? {})
