/** Pods and namespaces as stock clients expect them: pod defaults, namespace names, eviction, emptied label maps. */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { ConfigMaps, Deployments, Namespaces, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer, transports } from "../support/transports.js"
import { serverAnswer } from "../support/serverAnswer.js"

describe.each(transports)("pods and namespaces over %s", (transport) => {
  const run = <A, E>(effect: Effect.Effect<A, E, ApiClient>) => effect.pipe(Effect.provide(clientLayer(transport)))

  it.effect("a created pod is defaulted as upstream defaults it", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(
          Pods,
          {
            metadata: { name: "p" },
            spec: {
              containers: [
                { name: "a", image: "nginx", ports: [{ containerPort: 80 }] },
                { name: "b", image: "registry.example/app:1.2", resources: { limits: { cpu: "1", memory: "1Gi" } } },
                { name: "c", image: "busybox:latest" }
              ]
            },
            status: { phase: "Running" }
          },
          { namespace: "default" }
        )
        const pod = created.object as any
        expect(pod.status).toEqual({ phase: "Pending", qosClass: "Burstable" })
        expect(pod.spec).toMatchObject({
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          securityContext: {},
          schedulerName: "default-scheduler",
          enableServiceLinks: true,
          priority: 0,
          preemptionPolicy: "PreemptLowerPriority",
          tolerations: [
            { key: "node.platform.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
            { key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }
          ]
        })
        expect(pod.spec.containers).toEqual([
          { name: "a", image: "nginx", ports: [{ containerPort: 80, protocol: "TCP" }], resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "Always" },
          {
            name: "b",
            image: "registry.example/app:1.2",
            resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1", memory: "1Gi" } },
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
            imagePullPolicy: "IfNotPresent"
          },
          { name: "c", image: "busybox:latest", resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "Always" }
        ])
        // A toleration the pod already has is not added again; set fields are kept.
        const own = yield* api.create(
          Pods,
          {
            metadata: { name: "q" },
            spec: { restartPolicy: "Never", containers: [{ name: "a", image: "x:1" }], tolerations: [{ key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }] }
          },
          { namespace: "default" }
        )
        const spec = (own.object as any).spec
        expect(spec.restartPolicy).toBe("Never")
        expect(spec.tolerations.map((t: any) => `${t.key}:${t.tolerationSeconds}`)).toEqual(["node.platform.io/unreachable:5", "node.platform.io/not-ready:300"])
        expect((own.object as any).status.qosClass).toBe("BestEffort")
      })
    ))

  it.effect("namespace names are DNS labels: 422 with upstream's text", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const dotted = yield* serverAnswer(api.create(Namespaces, { metadata: { name: "bad.name" } }))
        expect(dotted.code).toBe(422)
        expect(dotted.message).toBe(
          `Namespace "bad.name" is invalid: metadata.name: Invalid value: "bad.name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
        )
        const long = "a".repeat(64)
        const tooLong = yield* serverAnswer(api.create(Namespaces, { metadata: { name: long } }))
        expect(tooLong.code).toBe(422)
        expect(tooLong.message).toBe(`Namespace "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 63 characters`)
        expect((yield* api.create(Namespaces, { metadata: { name: "a".repeat(63) } })).code).toBe(201)
      })
    ))

  it.effect("pods/eviction: a policy/v1 Eviction deletes the pod, 201 Success; a missing pod is 404", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(Pods, { metadata: { name: "p" }, spec: { containers: [{ name: "a", image: "x:1" }] } }, { namespace: "default" })
        const evicted = yield* api.create(Pods, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p", namespace: "default" } }, { namespace: "default", subresource: "eviction" })
        expect(evicted.code).toBe(201)
        expect(evicted.object).toMatchObject({ kind: "Status", status: "Success", code: 201 })
        expect((yield* serverAnswer(api.get(Pods, "p", { namespace: "default" }))).code).toBe(404)
        const missing = yield* serverAnswer(api.create(Pods, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p" } }, { namespace: "default", subresource: "eviction" }))
        expect(missing.code).toBe(404)
        expect(missing.message).toBe('pods "p" not found')
      })
    ))

  it.live("namespace deletion: Terminating with the platform finalizer, contents removed, finalized, gone", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(Namespaces, { metadata: { name: "team" } })
        expect((created.object.spec as any).finalizers).toEqual(["platform"])
        yield* api.create(ConfigMaps, { metadata: { name: "c" } }, { namespace: "team" })
        const rv = created.object.metadata.resourceVersion
        const namespaceEvents = yield* Effect.fork(
          Stream.runCollect(Stream.interruptAfter(api.watch(Namespaces, { resourceVersion: rv, fieldSelector: "metadata.name=team" }), "1 second"))
        )
        const configMapEvents = yield* Effect.fork(Stream.runCollect(Stream.interruptAfter(api.watch(ConfigMaps, { namespace: "team", resourceVersion: rv }), "1 second")))
        yield* Effect.sleep("300 millis")
        const deleted = yield* api.delete(Namespaces, "team")
        expect(deleted.code).toBe(200)
        expect(deleted.object?.metadata.deletionTimestamp).toEqual(expect.any(String))
        expect((deleted.object?.status as any).phase).toBe("Terminating")
        expect((deleted.object?.spec as any).finalizers).toEqual(["platform"])
        const seen = Chunk.toReadonlyArray(yield* Fiber.join(namespaceEvents)).map((e) => [e.type, (e.object.status as any)?.phase, (e.object.spec as any)?.finalizers])
        expect(seen).toEqual([
          ["MODIFIED", "Terminating", ["platform"]],
          ["MODIFIED", "Terminating", undefined],
          ["DELETED", "Terminating", undefined]
        ])
        const cms = Chunk.toReadonlyArray(yield* Fiber.join(configMapEvents)).map((e) => `${e.type} ${e.object.metadata.name}`)
        expect(cms).toEqual(["ADDED c", "DELETED c"])
        expect((yield* serverAnswer(api.get(Namespaces, "team"))).code).toBe(404)
        // The finalizer is always added on create; another one keeps the namespace Terminating after finalize.
        const held = yield* api.create(Namespaces, { metadata: { name: "held" }, spec: { finalizers: ["example.com/hold"] } })
        expect((held.object.spec as any).finalizers).toEqual(["example.com/hold", "platform"])
        yield* api.delete(Namespaces, "held")
        const after = yield* api.get(Namespaces, "held")
        expect([(after.status as any).phase, (after.spec as any).finalizers]).toEqual(["Terminating", ["example.com/hold"]])
      })
    ))

  it.effect("nothing new is created in a namespace held Terminating by a finalizer (NamespaceLifecycle: 403)", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        // Held by a finalizer in metadata (the namespace stays after `finalize`) and, separately, in spec.
        yield* api.create(Namespaces, { metadata: { name: "held", finalizers: ["example.com/hold"] } })
        yield* api.create(Namespaces, { metadata: { name: "held-spec" }, spec: { finalizers: ["example.com/hold"] } })
        yield* api.create(ConfigMaps, { metadata: { name: "before" } }, { namespace: "held" })
        yield* api.delete(Namespaces, "held")
        yield* api.delete(Namespaces, "held-spec")
        expect((yield* api.get(Namespaces, "held")).status).toEqual({ phase: "Terminating" })
        const refused = yield* serverAnswer(api.create(ConfigMaps, { metadata: { name: "late" } }, { namespace: "held" }))
        expect(refused.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated',
          reason: "Forbidden",
          details: {
            name: "late",
            kind: "configmaps",
            causes: [{ reason: "NamespaceTerminating", message: "namespace held is being terminated", field: "metadata.namespace" }]
          },
          code: 403
        })
        const deployment = { metadata: { name: "web" }, spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } } }
        const refusedApps = yield* serverAnswer(api.create(Deployments, deployment, { namespace: "held-spec" }))
        expect([refusedApps.code, refusedApps.message]).toEqual([403, 'deployments.apps "web" is forbidden: unable to create new content in namespace held-spec because it is being terminated'])
        // With generateName the request has no name yet: upstream names only the resource.
        const generated = yield* serverAnswer(api.create(ConfigMaps, { metadata: { generateName: "late-" } }, { namespace: "held" }))
        expect(generated.message).toBe("configmaps is forbidden: unable to create new content in namespace held because it is being terminated")
        // What was in the namespace is gone; an Active namespace still accepts content.
        expect((yield* serverAnswer(api.get(ConfigMaps, "before", { namespace: "held" }))).code).toBe(404)
        expect((yield* api.create(ConfigMaps, { metadata: { name: "late" } }, { namespace: "default" })).code).toBe(201)
      })
    ))

  it.effect("a deployment's pod template is defaulted on create and update as SetDefaults_PodSpec defaults it", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const template = (containers: ReadonlyArray<object>, spec: object = {}) => ({ metadata: { labels: { app: "web" } }, spec: { ...spec, containers } })
        const deployment = (spec: object) => ({ metadata: { name: "web" }, spec: { selector: { matchLabels: { app: "web" } }, ...spec } })
        const created = yield* api.create(
          Deployments,
          deployment({ template: template([{ name: "c", image: "nginx", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "1" } } }]) }),
          { namespace: "default" }
        )
        const defaults = { dnsPolicy: "ClusterFirst", restartPolicy: "Always", securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: "default-scheduler" }
        // Exactly the spec defaults: the pod-only ones (enableServiceLinks, requests from limits, priority,
        // tolerations, status) do not materialize in a template.
        expect((created.object.spec as any).template.spec).toEqual({
          containers: [
            {
              name: "c",
              image: "nginx",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              resources: { limits: { cpu: "1" } },
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              imagePullPolicy: "Always"
            }
          ],
          ...defaults
        })
        const updated = yield* api.update(
          Deployments,
          { ...deployment({ template: template([{ name: "c", image: "nginx:1.25", imagePullPolicy: "Never" }], { restartPolicy: "Always", dnsPolicy: "Default" }) }), metadata: { name: "web", resourceVersion: created.object.metadata.resourceVersion } },
          { namespace: "default" }
        )
        expect((updated.object.spec as any).template.spec).toEqual({
          containers: [{ name: "c", image: "nginx:1.25", imagePullPolicy: "Never", resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" }],
          ...defaults,
          dnsPolicy: "Default"
        })
        expect(updated.object.metadata.generation).toBe(2)
        // Sending back what was read is a no-op: the defaults are already there.
        const again = yield* api.update(Deployments, updated.object, { namespace: "default" })
        expect(again.object.metadata.resourceVersion).toBe(updated.object.metadata.resourceVersion)
      })
    ))

  it.effect("an emptied label map is omitted", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(ConfigMaps, { metadata: { name: "c", labels: { a: "1" } } }, { namespace: "default" })
        const patched = yield* api.patch(ConfigMaps, "c", "merge", { metadata: { labels: { a: null } } }, { namespace: "default" })
        expect(patched.object.metadata.labels).toBeUndefined()
        const created = yield* api.create(ConfigMaps, { metadata: { name: "d", labels: {}, annotations: {} } }, { namespace: "default" })
        expect(created.object.metadata).not.toHaveProperty("labels")
        expect(created.object.metadata).not.toHaveProperty("annotations")
      })
    ))
})
