/**
 * The taint manager (upstream `pkg/controller/nodelifecycle/scheduler` `NoExecuteTaintManager`,
 * 1.26): pods on a node with NoExecute taints are deleted at taint time + their smallest tolerationSeconds — at once
 * without a matching toleration, never without tolerationSeconds — and the deletions are cancelled when the taints
 * go. Events `TaintManagerEviction` "Marking for deletion Pod <ns>/<name>" / "Cancelling deletion of Pod …".
 *
 * Choice: pods that land on an already tainted node are not picked up (the controller polls nodes, it does not
 * watch pods).
 */
import { Effect } from "effect"
import { taintsOf, tolerates, type Taint, type Toleration } from "../../../src/api/kinds/Taints.js"
import type { KObject } from "../../../src/api/Object.js"
import { Pods } from "../../../src/api/Resources.js"
import { TimerHeap, type Timer } from "../../kernel/VirtualClock.js"
import { podKey, podRef, type NodeUpdates } from "./NodeUpdates.js"

/**
 * How long a pod may stay on a node with these NoExecute taints (`getMinTolerationTime`): undefined = forever; 0 =
 * at once (some taint not tolerated); else the smallest tolerationSeconds of the tolerations used (ms).
 */
export const evictionDelayMs = (tolerations: ReadonlyArray<Toleration>, taints: ReadonlyArray<Taint>): number | undefined => {
  let min: number | undefined
  for (const taint of taints) {
    const used = tolerations.filter((t) => tolerates(t, taint))
    if (used.length === 0) return 0
    for (const t of used) {
      if (t.tolerationSeconds === undefined) continue
      const ms = Math.max(0, t.tolerationSeconds) * 1000
      min = min === undefined ? ms : Math.min(min, ms)
    }
  }
  return min
}

interface Scheduled {
  readonly timer: Timer
  readonly pod: KObject
}

export class TaintManager {
  private readonly evictions = new TimerHeap()
  /** Per node, its pods' scheduled deletions by pod key. */
  private readonly scheduled = new Map<string, Map<string, Scheduled>>()
  private readonly byTimer = new Map<Timer, { readonly node: string; readonly key: string; readonly pod: KObject }>()

  constructor(private readonly updates: NodeUpdates) {}

  /** When the next deletion is due (ms), undefined when none is. */
  nextDue(): number | undefined {
    return this.evictions.peek()?.time
  }

  /** The node's NoExecute taints went: its pods' deletions are cancelled. */
  cancel(nodeName: string, t: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const pending = this.scheduled.get(nodeName)
      if (!pending) return
      this.scheduled.delete(nodeName)
      for (const { timer, pod } of pending.values()) {
        this.evictions.remove(timer)
        this.byTimer.delete(timer)
        yield* this.updates.event(podRef(pod), "Normal", "TaintManagerEviction", `Cancelling deletion of Pod ${podKey(pod)}`, t)
      }
    })
  }

  /** The node as written with its NoExecute taints: (re)schedules its pods' deletions. */
  schedule(node: KObject, t: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const name = node.metadata.name!
      const taints = taintsOf(node).filter((x) => x.effect === "NoExecute")
      if (taints.length === 0) return yield* this.cancel(name, t)
      const since = Math.min(...taints.map((x) => (x.timeAdded ? Date.parse(x.timeAdded) : t)))
      const pending = this.scheduled.get(name) ?? new Map<string, Scheduled>()
      this.scheduled.set(name, pending)
      for (const pod of yield* this.updates.podsOn(name)) {
        if (pod.metadata.deletionTimestamp !== undefined) continue
        const key = podKey(pod)
        const old = pending.get(key)
        if (old) {
          this.evictions.remove(old.timer)
          this.byTimer.delete(old.timer)
        }
        const tolerations = (pod.spec as { tolerations?: ReadonlyArray<Toleration> } | undefined)?.tolerations ?? []
        const delay = evictionDelayMs(tolerations, taints)
        if (delay === undefined) {
          pending.delete(key)
          continue
        }
        const at = Math.max(t, since + delay)
        const timer = this.evictions.insert(at, () => {})
        pending.set(key, { timer, pod })
        this.byTimer.set(timer, { node: name, key, pod })
      }
    })
  }

  /** Deletes the pods whose time has come. */
  runDue(now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      for (let top = this.evictions.peek(); top !== undefined && top.time <= now; top = this.evictions.peek()) {
        this.evictions.pop()
        const found = this.byTimer.get(top)
        if (!found) continue
        this.byTimer.delete(top)
        this.scheduled.get(found.node)?.delete(found.key)
        const pod = found.pod
        yield* this.updates.event(podRef(pod), "Normal", "TaintManagerEviction", `Marking for deletion Pod ${found.key}`, now)
        yield* Effect.ignore(this.updates.client.delete(Pods, pod.metadata.name!, { namespace: pod.metadata.namespace }))
      }
    })
  }
}
