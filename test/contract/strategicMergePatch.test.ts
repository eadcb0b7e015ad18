/** Strategic merge patch and pod update validation, the same over every transport. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer, transports } from "../support/transports.js"
import { serverAnswer } from "../support/serverAnswer.js"

const ns = { namespace: "default" }
const pod = {
  metadata: { name: "p" },
  spec: { containers: [{ name: "a", image: "a:1", env: [{ name: "X", value: "1" }] }, { name: "b", image: "b:1" }] }
}

describe.each(transports)("strategic merge patch over %s", (transport) => {
  const run = <A, E>(effect: Effect.Effect<A, E, ApiClient>) => effect.pipe(Effect.provide(clientLayer(transport)))

  it.effect("merges containers by name: patching one container keeps the others", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(Pods, pod, ns)
        // Images are the one container field a pod update may change (env merging by name: test/api/patch).
        const patched = yield* api.patch(Pods, "p", "strategic", { spec: { containers: [{ name: "b", image: "b:2" }] } }, ns)
        expect(patched.code).toBe(200)
        const containers = (patched.object.spec as { containers: Array<{ name: string; image: string; env?: unknown }> }).containers
        expect(containers.map((c) => [c.name, c.image])).toEqual([["a", "a:1"], ["b", "b:2"]])
        expect(containers[0]!.env).toEqual([{ name: "X", value: "1" }])
        // Labels merge as maps, finalizers as a set.
        const meta = yield* api.patch(Pods, "p", "strategic", { metadata: { labels: { a: "1" }, finalizers: ["x/y"] } }, ns)
        expect(meta.object.metadata).toMatchObject({ labels: { a: "1" }, finalizers: ["x/y"] })
        const removed = yield* api.patch(Pods, "p", "strategic", { metadata: { "$deleteFromPrimitiveList/finalizers": ["x/y"] } }, ns)
        expect(removed.object.metadata.finalizers ?? []).toEqual([])
      })
    ))

  it.effect("a merge patch replacing the container list, or a changed spec field, is refused as upstream's pod update validation", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(Pods, pod, ns)
        const dropped = yield* serverAnswer(api.patch(Pods, "p", "merge", { spec: { containers: [{ name: "b", image: "b:3" }] } }, ns))
        expect(dropped.code).toBe(422)
        expect(dropped.message).toBe('Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers')
        expect(dropped.status.details).toEqual({
          name: "p",
          kind: "Pod",
          causes: [{ reason: "FieldValueForbidden", message: "Forbidden: pod updates may not add or remove containers", field: "spec.containers" }]
        })
        const deleted = yield* serverAnswer(api.patch(Pods, "p", "strategic", { spec: { containers: [{ name: "a", $patch: "delete" }] } }, ns))
        expect(deleted.message).toBe('Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers')
        const changed = yield* serverAnswer(api.patch(Pods, "p", "strategic", { spec: { restartPolicy: "Never" } }, ns))
        expect(changed.code).toBe(422)
        expect(changed.message).toBe(
          'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'
        )
        // The fields that may change do.
        const allowed = yield* api.patch(Pods, "p", "strategic", { spec: { activeDeadlineSeconds: 60, containers: [{ name: "a", image: "a:2" }] } }, ns)
        expect((allowed.object.spec as { activeDeadlineSeconds: number }).activeDeadlineSeconds).toBe(60)
        const raised = yield* serverAnswer(api.patch(Pods, "p", "strategic", { spec: { activeDeadlineSeconds: 61 } }, ns))
        expect(raised.message).toBe('Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: 61: must be less than or equal to previous value')
      })
    ))

  it.effect("strategic patch errors: a list item without its merge key is a 500 with upstream's text, a bad directive 400", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(Pods, pod, ns)
        const noKey = yield* serverAnswer(api.patch(Pods, "p", "strategic", { spec: { containers: [{ image: "x" }] } }, ns))
        expect(noKey.code).toBe(500)
        expect(noKey.message).toBe("map: map[image:x] does not contain declared merge key: name")
        const badRetain = yield* serverAnswer(api.patch(Pods, "p", "strategic", { spec: { $retainKeys: "containers" } }, ns))
        expect(badRetain.code).toBe(400)
        expect(badRetain.message).toBe("invalid patch format of retainKeys")
      })
    ))
})
