/**
 * A stand-in for the node agents in the controllers' tests: every pod is bound to `node-a` and written Running and
 * Ready `startMs` after it appears (what the agents do in a cluster run, without their model).
 */
import { Clock, Effect, Runtime, type Scope } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Pods } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { startInformer } from "../../../src/informer/Informer.js"
import { rfc3339 } from "../../../simulator/apiserver/SystemMeta.js"

export const runFakeKubelet = (startMs = 1_000): Effect.Effect<void, never, ApiClient | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const started = new Set<string>()
    const start = (pod: KObject) =>
      Effect.gen(function* () {
        yield* Effect.sleep(startMs)
        const now = rfc3339(yield* Clock.currentTimeMillis)
        const status = {
          phase: "Running",
          conditions: [
            { type: "Ready", status: "True", lastTransitionTime: now },
            { type: "PodScheduled", status: "True", lastTransitionTime: now }
          ]
        }
        yield* Effect.ignore(client.patch(Pods, pod.metadata.name!, "merge", { status }, { namespace: pod.metadata.namespace, subresource: "status" }))
      })
    const runtime = yield* Effect.runtime<never>()
    const informer = yield* startInformer(
      { resource: Pods },
      {
        onAdd: (pod) => {
          if (started.has(pod.metadata.uid!)) return
          started.add(pod.metadata.uid!)
          Runtime.runFork(runtime)(start(pod))
        }
      }
    )
    yield* informer.synced
  })
