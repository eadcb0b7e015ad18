/**
 * The controller's writes, shared by its parts: events (recorded and logged), Node updates with upstream's
 * conflict retry, taint edits, and the pods of a node (a LIST by `spec.nodeName`, as upstream's pod informer index).
 */
import { Effect } from "effect"
import { extendable } from "../../../src/api/internal/V8Shapes.js"
import { taintsOf, type Taint } from "../../../src/api/kinds/Taints.js"
import type { KObject } from "../../../src/api/Object.js"
import { Nodes, Pods } from "../../../src/api/Resources.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { EventRecorderService, ObjectRef } from "../../events/EventRecorder.js"
import type { LifecycleLog } from "./LifecycleSettings.js"
import { hasStatusCode } from "../../../src/client/TransportError.js"

export const nodeRef = (node: KObject): ObjectRef => ({ kind: "Node", apiVersion: "v1", name: node.metadata.name!, uid: node.metadata.uid })

export const podRef = (pod: KObject): ObjectRef => ({
  kind: "Pod",
  apiVersion: "v1",
  name: pod.metadata.name!,
  namespace: pod.metadata.namespace,
  uid: pod.metadata.uid
})

export const podKey = (pod: KObject): string => `${pod.metadata.namespace}/${pod.metadata.name}`

/** Tries of a Node update on conflict (upstream `nodeUpdateRetries`-like loops: re-read, re-apply). */
const updateTries = 5

export class NodeUpdates {
  constructor(
    readonly client: ApiClientService,
    private readonly recorder: EventRecorderService,
    readonly log: LifecycleLog
  ) {}

  event(ref: ObjectRef, type: "Normal" | "Warning", reason: string, note: string, t: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      this.log.events.push({ t, reason, object: ref.namespace ? `${ref.kind}/${ref.namespace}/${ref.name}` : `${ref.kind}/${ref.name}`, note })
      yield* this.recorder.eventf(ref, undefined, type, reason, reason, note)
    })
  }

  /** Applies `mutate` to the node and writes it; re-reads and retries on conflict (≤ 5 tries). */
  updateNode(first: KObject, mutate: (n: KObject) => KObject | undefined, subresource?: "status"): Effect.Effect<KObject | undefined> {
    const client = this.client
    return Effect.gen(function* () {
      let node: KObject | undefined = first
      for (let i = 0; i < updateTries && node !== undefined; i++) {
        const next = mutate(node)
        if (next === undefined) return node
        const written = yield* Effect.either(client.update(Nodes, next, subresource ? { subresource } : {}))
        if (written._tag === "Right") return written.right.object
        if (!hasStatusCode(written.left, 409)) return undefined
        node = yield* Effect.orElseSucceed(client.get(Nodes, node.metadata.name!), () => undefined)
      }
      return undefined
    })
  }

  /** Adds `add` and removes the taints of `removeKeys` with `effect`; no write when nothing changes. */
  setTaints(node: KObject, add: ReadonlyArray<Taint>, removeKeys: ReadonlyArray<string>, effect: string): Effect.Effect<KObject | undefined> {
    return this.updateNode(node, (n) => {
      const current = taintsOf(n)
      const kept = current.filter((t) => !(t.effect === effect && removeKeys.includes(t.key)))
      const missing = add.filter((a) => !kept.some((t) => t.key === a.key && t.effect === a.effect))
      if (missing.length === 0 && kept.length === current.length) return undefined
      return { ...n, spec: { ...extendable, ...(n.spec as object), taints: [...kept, ...missing] } }
    })
  }

  podsOn(nodeName: string): Effect.Effect<ReadonlyArray<KObject>> {
    return Effect.map(
      Effect.orElseSucceed(this.client.list(Pods, { fieldSelector: `spec.nodeName=${nodeName}` }), () => ({ items: [] as ReadonlyArray<KObject> })),
      (l) => l.items
    )
  }
}
