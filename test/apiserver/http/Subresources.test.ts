/**
 * Subresources as upstream serves them (issue 37): unknown ones 404 for every kind, getter-less ones 405,
 * `deployments/scale` as `autoscaling/v1` Scale, `pods/log` as text from the pod's status (follow included), and
 * exec/attach/portforward failing as a node without a reachable kubelet does.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as http from "node:http"
import { request } from "undici"
import { encodeObject } from "../../../src/api/protobuf/Envelope.js"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"
import { healthz, statusOf } from "../../hardening/liveness.js"

const json = { "content-type": "application/json" }
const pods = "/api/v1/namespaces/default/pods"
const deployments = "/apis/apps/v1/namespaces/default/deployments"
const notFoundResource = { code: 404, kind: "Status", reason: "NotFound", message: "the server could not find the requested resource" }

/** A request asking for a connection upgrade (undici refuses to send one): the Status that comes back. */
const sendUpgrade = (base: string, method: string, path: string) =>
  Effect.async<{ code: number; kind: unknown; reason: unknown; message: unknown }>((resume) => {
    const req = http.request(base + path, { method, headers: { connection: "Upgrade", upgrade: "SPDY/3.1" } })
    req.on("response", (res) => {
      let text = ""
      res.on("data", (c) => (text += c))
      res.on("end", () => {
        const body = JSON.parse(text)
        resume(Effect.succeed({ code: res.statusCode ?? 0, kind: body.kind, reason: body.reason, message: body.message }))
      })
    })
    req.on("upgrade", (res, socket) => {
      socket.destroy()
      resume(Effect.succeed({ code: res.statusCode ?? 0, kind: undefined, reason: undefined, message: "upgraded" }))
    })
    req.end()
  })

const post = (base: string, path: string, body: unknown) => send(base, "POST", path, { body: JSON.stringify(body), headers: json })

const deployment = (name: string, replicas: number) => ({
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name }, matchExpressions: [{ key: "tier", operator: "In", values: ["web", "api"] }] },
    template: { metadata: { labels: { app: name, tier: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } }
  }
})

const t0 = "2026-01-01T00:00:00Z"
const t1 = "2026-01-01T00:00:05Z"
const t2 = "2026-01-01T00:00:09Z"

/** A pod bound to node n1, then its status moved on by `status` (PUT …/status). */
const podWithStatus = (base: string, name: string, status: Record<string, unknown> | undefined, containers = [{ name: "c", image: "nginx" }]) =>
  Effect.gen(function* () {
    expect((yield* post(base, pods, { metadata: { name }, spec: { containers } })).code).toBe(201)
    expect((yield* post(base, `${pods}/${name}/binding`, { metadata: { name }, target: { kind: "Node", name: "n1" } })).code).toBe(201)
    if (status) yield* setStatus(base, name, status)
  })

const setStatus = (base: string, name: string, status: Record<string, unknown>) =>
  Effect.gen(function* () {
    const pod = (yield* send(base, "GET", `${pods}/${name}`)).json
    const put = yield* send(base, "PUT", `${pods}/${name}/status`, { body: JSON.stringify({ ...pod, status }), headers: json })
    expect(put.code).toBe(200)
  })

const running = (ready: boolean) => ({
  phase: "Running",
  conditions: [
    { type: "PodScheduled", status: "True", lastTransitionTime: t0 },
    ...(ready ? [{ type: "Ready", status: "True", lastTransitionTime: t2 }] : [])
  ],
  containerStatuses: [{ name: "c", image: "nginx", imageID: "", ready, restartCount: 0, started: true, containerID: "sim://c", state: { running: { startedAt: t1 } } }]
})

describe("unknown and getter-less subresources", () => {
  it.scoped("an unknown subresource is upstream's generic 404 for every kind, namespaced or cluster-scoped", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* post(base, pods, { metadata: { name: "web-0" }, spec: { containers: [{ name: "c", image: "i" }] } })
      for (const path of [
        `${pods}/web-0/bogus`,
        `${pods}/web-0/scale`,
        "/api/v1/nodes/n1/bogus",
        "/api/v1/namespaces/default/bogus",
        "/apis/rbac.authorization.platform/v1/clusterroles/admin/bogus",
        `${deployments}/hello/log`
      ])
        for (const method of ["GET", "PUT", "PATCH", "POST"]) expect({ path, method, ...statusOf(yield* send(base, method, path, { body: "{}", headers: json })) }).toEqual({ path, method, ...notFoundResource })
    }))

  it.scoped("GET of a create-only or update-only subresource is 405, not the parent object", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* post(base, pods, { metadata: { name: "web-0" }, spec: { containers: [{ name: "c", image: "i" }] } })
      for (const path of [`${pods}/web-0/binding`, `${pods}/web-0/eviction`, "/api/v1/namespaces/default/serviceaccounts/default/token", "/api/v1/namespaces/default/finalize"])
        expect({ path, ...statusOf(yield* send(base, "GET", path)) }).toEqual({
          path,
          code: 405,
          kind: "Status",
          reason: "MethodNotAllowed",
          message: "the server does not allow this method on the requested resource"
        })
    }))

  it.scoped("PUT or PATCH of a subresource without an updater is 405, and PATCH of finalize (no getter) too; the objects stay", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* post(base, pods, { metadata: { name: "web-0" }, spec: { containers: [{ name: "c", image: "i" }] } })
      const pod = (yield* send(base, "GET", `${pods}/web-0`)).json
      const namespace = (yield* send(base, "GET", "/api/v1/namespaces/default")).json
      const merge = { "content-type": "application/merge-patch+json" }
      const refused = [
        ...["binding", "eviction", "log", "exec", "attach", "portforward"].flatMap((sub) => [
          { method: "PUT", path: `${pods}/web-0/${sub}`, body: JSON.stringify(pod), headers: json },
          { method: "PATCH", path: `${pods}/web-0/${sub}`, body: JSON.stringify({ metadata: { labels: { a: "b" } } }), headers: merge }
        ]),
        { method: "PUT", path: "/api/v1/namespaces/default/serviceaccounts/default/token", body: "{}", headers: json },
        { method: "PATCH", path: "/api/v1/namespaces/default/finalize", body: JSON.stringify({ spec: { finalizers: [] } }), headers: merge }
      ]
      for (const { method, path, body, headers } of refused)
        expect({ method, path, ...statusOf(yield* send(base, method, path, { body, headers })) }).toEqual({
          method,
          path,
          code: 405,
          kind: "Status",
          reason: "MethodNotAllowed",
          message: "the server does not allow this method on the requested resource"
        })
      expect((yield* send(base, "GET", `${pods}/web-0`)).json).toEqual(pod)
      expect((yield* send(base, "GET", "/api/v1/namespaces/default")).json).toEqual(namespace)
      // finalize's own verb: an update of the namespace's finalizers
      const finalized = yield* send(base, "PUT", "/api/v1/namespaces/default/finalize", { body: JSON.stringify({ ...namespace, spec: { finalizers: [] } }), headers: json })
      expect(finalized.code).toBe(200)
      expect(finalized.json.spec.finalizers ?? []).toEqual([])
    }))
})

describe("deployments/scale", () => {
  it.scoped("get, put, merge/strategic/JSON patch map spec.replicas; stale resourceVersion 409; negative 422; missing 404", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const made = yield* post(base, deployments, deployment("hello", 1))
      expect(made.code).toBe(201)
      const scalePath = `${deployments}/hello/scale`
      const got = yield* send(base, "GET", scalePath)
      expect(got.code).toBe(200)
      expect(got.json).toEqual({
        kind: "Scale",
        apiVersion: "autoscaling/v1",
        metadata: {
          name: "hello",
          namespace: "default",
          uid: made.json.metadata.uid,
          resourceVersion: made.json.metadata.resourceVersion,
          creationTimestamp: made.json.metadata.creationTimestamp
        },
        spec: { replicas: 1 },
        status: { replicas: 0, selector: "app=hello,tier in (api,web)" }
      })
      const put = yield* send(base, "PUT", scalePath, { body: JSON.stringify({ ...got.json, spec: { replicas: 2 } }), headers: json })
      expect(put.code).toBe(200)
      expect(put.json.spec).toEqual({ replicas: 2 })
      expect((yield* send(base, "GET", `${deployments}/hello`)).json.spec.replicas).toBe(2)
      expect(put.json.metadata.resourceVersion).not.toBe(got.json.metadata.resourceVersion)
      // The first Scale's resourceVersion is stale now.
      expect(statusOf(yield* send(base, "PUT", scalePath, { body: JSON.stringify({ ...got.json, spec: { replicas: 5 } }), headers: json }))).toEqual({
        code: 409,
        kind: "Status",
        reason: "Conflict",
        message: 'Operation cannot be fulfilled on deployments.apps "hello": the object has been modified; please apply your changes to the latest version and try again'
      })
      const patch = (type: string, body: unknown) => send(base, "PATCH", scalePath, { body: JSON.stringify(body), headers: { "content-type": type } })
      expect((yield* patch("application/merge-patch+json", { spec: { replicas: 3 } })).json.spec.replicas).toBe(3)
      expect((yield* patch("application/strategic-merge-patch+json", { spec: { replicas: 4 } })).json.spec.replicas).toBe(4)
      expect((yield* patch("application/json-patch+json", [{ op: "replace", path: "/spec/replicas", value: 0 }])).json.spec).toEqual({})
      expect((yield* send(base, "GET", `${deployments}/hello`)).json.spec.replicas).toBe(0)
      expect(statusOf(yield* patch("application/merge-patch+json", { spec: { replicas: -1 } }))).toEqual({
        code: 422,
        kind: "Status",
        reason: "Invalid",
        message: 'Scale.autoscaling "hello" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'
      })
      expect(statusOf(yield* patch("application/merge-patch+json", { spec: { replicas: "two" } }))).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32'
      })
      expect((yield* send(base, "GET", `${deployments}/hello`)).json.spec.replicas).toBe(0)
      expect(statusOf(yield* send(base, "GET", `${deployments}/nope/scale`))).toEqual({ code: 404, kind: "Status", reason: "NotFound", message: 'deployments/scale.apps "nope" not found' })
      expect(statusOf(yield* patch("application/merge-patch+json", { spec: { replicas: 1 } }).pipe(Effect.zipRight(send(base, "DELETE", scalePath))))).toMatchObject({ code: 405 })
      // Protobuf: the `autoscaling/v1` Scale message in the envelope.
      const pb = yield* Effect.promise(async () => {
        const res = await request(base + scalePath, { headers: { accept: "application/vnd.kubernetes.protobuf" } })
        return { code: res.statusCode, type: res.headers["content-type"], bytes: Buffer.from(await res.body.arrayBuffer()) }
      })
      expect(pb.code).toBe(200)
      expect(pb.type).toBe("application/vnd.kubernetes.protobuf")
      expect(pb.bytes.subarray(0, 4)).toEqual(Buffer.from([0x6b, 0x38, 0x73, 0x00]))
      expect(pb.bytes.includes(Buffer.from("autoscaling/v1"))).toBe(true)
      expect(pb.bytes.includes(Buffer.from("app=hello,tier in (api,web)"))).toBe(true)
      // A protobuf Scale body: decoded as `autoscaling/v1` Scale, its replicas written to the Deployment.
      const current = (yield* send(base, "GET", scalePath)).json
      const encoded = encodeObject({ ...current, spec: { replicas: 6 } })
      if (Either.isLeft(encoded)) throw encoded.left
      const pbPut = yield* send(base, "PUT", scalePath, { body: Buffer.from(encoded.right), headers: { "content-type": "application/vnd.kubernetes.protobuf" } })
      expect(pbPut.code).toBe(200)
      expect((yield* send(base, "GET", `${deployments}/hello`)).json.spec.replicas).toBe(6)
    }))

  it.scoped("discovery lists deployments/scale as autoscaling/v1 Scale and the pod subresources with upstream's kinds and verbs", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const apps = (yield* send(base, "GET", "/apis/apps/v1")).json.resources
      expect(apps.find((r: { name: string }) => r.name === "deployments/scale")).toEqual({
        name: "deployments/scale",
        singularName: "",
        namespaced: true,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"]
      })
      const core = (yield* send(base, "GET", "/api/v1")).json.resources as Array<{ name: string; kind: string; verbs: string[] }>
      const pick = (name: string) => {
        const r = core.find((x) => x.name === name)
        return r && { kind: r.kind, verbs: r.verbs }
      }
      expect(pick("pods/log")).toEqual({ kind: "Pod", verbs: ["get"] })
      expect(pick("pods/exec")).toEqual({ kind: "PodExecOptions", verbs: ["create", "get"] })
      expect(pick("pods/attach")).toEqual({ kind: "PodAttachOptions", verbs: ["create", "get"] })
      expect(pick("pods/portforward")).toEqual({ kind: "PodPortForwardOptions", verbs: ["create", "get"] })
      expect(pick("namespaces/finalize")).toEqual({ kind: "Namespace", verbs: ["update"] })
    }))
})

describe("pods/log", () => {
  it.scoped("text/plain lifecycle lines from the status; timestamps, tailLines, limitBytes, sinceTime", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* podWithStatus(base, "web-0", running(true))
      const log = yield* send(base, "GET", `${pods}/web-0/log`)
      expect(log.code).toBe(200)
      expect(log.headers["content-type"]).toBe("text/plain")
      expect(log.text).toBe(
        [
          "Successfully assigned default/web-0 to n1",
          'Pulling image "nginx"',
          'Successfully pulled image "nginx"',
          "Created container c",
          "Started container c",
          "Container c is ready",
          ""
        ].join("\n")
      )
      expect((yield* send(base, "GET", `${pods}/web-0/log?tailLines=2&timestamps=true`)).text).toBe(
        "2026-01-01T00:00:05.000000000Z Started container c\n2026-01-01T00:00:09.000000000Z Container c is ready\n"
      )
      expect((yield* send(base, "GET", `${pods}/web-0/log?limitBytes=10`)).text).toBe("Successful")
      expect((yield* send(base, "GET", `${pods}/web-0/log?sinceTime=${t2}`)).text).toBe("Container c is ready\n")
      expect((yield* send(base, "GET", `${pods}/web-0/log?container=c&tailLines=0`)).text).toBe("")
    }))

  it.scoped("upstream's 400s and 422s: container choice, waiting, previous, bad options; unscheduled is empty", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const bad = (message: string) => ({ code: 400, kind: "Status", reason: "BadRequest", message })
      expect((yield* post(base, pods, { metadata: { name: "pending" }, spec: { containers: [{ name: "c", image: "i" }] } })).code).toBe(201)
      const empty = yield* send(base, "GET", `${pods}/pending/log`)
      expect({ code: empty.code, text: empty.text }).toEqual({ code: 200, text: "" })
      yield* podWithStatus(base, "creating", {
        phase: "Pending",
        containerStatuses: [{ name: "c", image: "nginx", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }]
      })
      expect(statusOf(yield* send(base, "GET", `${pods}/creating/log`))).toEqual(bad('container "c" in pod "creating" is waiting to start: ContainerCreating'))
      yield* podWithStatus(base, "two", running(false), [
        { name: "a", image: "i" },
        { name: "b", image: "i" }
      ])
      expect(statusOf(yield* send(base, "GET", `${pods}/two/log`))).toEqual(bad("a container name must be specified for pod two, choose one of: [a b]"))
      expect(statusOf(yield* send(base, "GET", `${pods}/two/log?container=z`))).toEqual(bad("container z is not valid for pod two"))
      yield* podWithStatus(base, "web-0", running(true))
      expect(statusOf(yield* send(base, "GET", `${pods}/web-0/log?previous=true`))).toEqual(bad('previous terminated container "c" in pod "web-0" not found'))
      expect(statusOf(yield* send(base, "GET", `${pods}/web-0/log?tailLines=-1`))).toEqual({
        code: 422,
        kind: "Status",
        reason: "Invalid",
        message: 'PodLogOptions "web-0" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'
      })
      expect(statusOf(yield* send(base, "GET", `${pods}/nope/log`))).toEqual({ code: 404, kind: "Status", reason: "NotFound", message: 'pods "nope" not found' })
      expect(statusOf(yield* send(base, "POST", `${pods}/web-0/log`, { body: "{}", headers: json }))).toMatchObject({ code: 405 })
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))

  it.live("follow: sends the line a status change adds, and ends when the pod is deleted", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* podWithStatus(base, "web-0", running(false))
      const chunks: string[] = []
      const followed = Effect.runPromise(
        Effect.promise(async () => {
          const res = await request(`${base}${pods}/web-0/log?follow=true&tailLines=1`)
          for await (const chunk of res.body) chunks.push(Buffer.from(chunk).toString())
          return res.statusCode
        })
      )
      const waitFor = (n: number) =>
        Effect.promise(async () => {
          for (let i = 0; i < 200 && chunks.join("").split("\n").length - 1 < n; i++) await new Promise((r) => setTimeout(r, 10))
        })
      yield* waitFor(1)
      expect(chunks.join("")).toBe("Started container c\n")
      yield* setStatus(base, "web-0", running(true))
      yield* waitFor(2)
      expect(chunks.join("")).toBe("Started container c\nContainer c is ready\n")
      expect((yield* send(base, "DELETE", `${pods}/web-0?gracePeriodSeconds=0`)).code).toBe(200)
      expect(yield* Effect.promise(() => followed)).toBe(200)
    }).pipe(Effect.scoped))

  it.live("follow: a client that goes away ends the stream; the server answers on and the pod is unchanged", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* podWithStatus(base, "web-0", running(false))
      const before = (yield* send(base, "GET", `${pods}/web-0`)).json
      const controller = new AbortController()
      const first = yield* Effect.promise(async () => {
        const res = await request(`${base}${pods}/web-0/log?follow=true&tailLines=1`, { signal: controller.signal })
        for await (const chunk of res.body) return Buffer.from(chunk).toString()
        return ""
      }).pipe(Effect.ensuring(Effect.sync(() => controller.abort())))
      expect(first).toBe("Started container c\n")
      // The status moving on after the client left writes to no one.
      yield* setStatus(base, "web-0", running(true))
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
      const after = (yield* send(base, "GET", `${pods}/web-0`)).json
      expect(after.spec).toEqual(before.spec)
    }).pipe(Effect.scoped))
})

describe("exec, attach, portforward without a kubelet", () => {
  it.scoped("400 without an upgrade, 500 error dialing backend with one; the pod's own checks first", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      expect(
        (yield* post(base, "/api/v1/nodes", { metadata: { name: "n1" } })).code
      ).toBe(201)
      const node = (yield* send(base, "GET", "/api/v1/nodes/n1")).json
      yield* send(base, "PUT", "/api/v1/nodes/n1/status", {
        body: JSON.stringify({ ...node, status: { addresses: [{ type: "InternalIP", address: "10.0.0.7" }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } } }),
        headers: json
      })
      yield* podWithStatus(base, "web-0", running(true))
      for (const sub of ["exec?command=sh", "attach?stdout=true", "portforward?ports=80"]) {
        for (const method of ["GET", "POST"]) {
          expect({ sub, method, ...statusOf(yield* send(base, method, `${pods}/web-0/${sub}`)) }).toEqual({ sub, method, code: 400, kind: "Status", reason: "BadRequest", message: "Upgrade request required" })
          expect({ sub, method, ...(yield* sendUpgrade(base, method, `${pods}/web-0/${sub}`)) }).toEqual({
            sub,
            method,
            code: 500,
            kind: "Status",
            reason: undefined,
            message: "error dialing backend: dial tcp 10.0.0.7:10250: connect: connection refused"
          })
        }
      }
      expect(statusOf(yield* send(base, "GET", `${pods}/web-0/exec?command=sh&container=z`))).toEqual({ code: 400, kind: "Status", reason: "BadRequest", message: "container z is not valid for pod web-0" })
      expect((yield* post(base, pods, { metadata: { name: "pending" }, spec: { containers: [{ name: "c", image: "i" }] } })).code).toBe(201)
      expect(statusOf(yield* send(base, "GET", `${pods}/pending/exec?command=sh`))).toEqual({ code: 400, kind: "Status", reason: "BadRequest", message: "pod pending does not have a host assigned" })
      expect(statusOf(yield* send(base, "DELETE", `${pods}/web-0/exec`))).toMatchObject({ code: 405 })
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))
})

describe("replicasets (apps/v1), for the workload controllers", () => {
  const replicaSets = "/apis/apps/v1/namespaces/default/replicasets"
  const replicaSet = (replicas: number) => ({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "web-abc" },
    spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } }
  })

  it.scoped("served with scale and status: generation 1 on create, bumped by a spec change only; the Scale maps spec.replicas; Table columns as printReplicaSet", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const made = yield* post(base, replicaSets, replicaSet(2))
      expect([made.code, made.json.metadata.generation]).toEqual([201, 1])
      const apps = (yield* send(base, "GET", "/apis/apps/v1")).json.resources as Array<{ name: string; kind: string; shortNames?: Array<string> }>
      expect(apps.filter((r) => r.name.startsWith("replicasets")).map((r) => [r.name, r.kind])).toEqual([
        ["replicasets", "ReplicaSet"],
        ["replicasets/scale", "Scale"],
        ["replicasets/status", "ReplicaSet"]
      ])
      expect(apps.find((r) => r.name === "replicasets")?.shortNames).toEqual(["rs"])
      const status = yield* send(base, "PUT", `${replicaSets}/web-abc/status`, { body: JSON.stringify({ ...made.json, status: { replicas: 2, readyReplicas: 1 } }), headers: json })
      expect([status.code, status.json.metadata.generation, status.json.status]).toEqual([200, 1, { replicas: 2, readyReplicas: 1 }])
      const scale = yield* send(base, "GET", `${replicaSets}/web-abc/scale`)
      expect([scale.json.kind, scale.json.spec, scale.json.status]).toEqual(["Scale", { replicas: 2 }, { replicas: 2, selector: "app=web" }])
      const scaled = yield* send(base, "PATCH", `${replicaSets}/web-abc/scale`, { body: JSON.stringify({ spec: { replicas: 4 } }), headers: { "content-type": "application/merge-patch+json" } })
      expect(scaled.code).toBe(200)
      const after = (yield* send(base, "GET", `${replicaSets}/web-abc`)).json
      expect([after.spec.replicas, after.metadata.generation]).toEqual([4, 2])
      const table = yield* send(base, "GET", replicaSets, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } })
      expect(table.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"])
      expect(table.json.rows[0].cells.slice(0, 4)).toEqual(["web-abc", 4, 2, 1])
    }))
})
