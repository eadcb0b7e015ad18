/**
 * Server-side apply to a status subresource (`nodes/<name>/status`, `pods/<name>/status`, `deployments/<name>/status`):
 * as upstream's patch handler (`handlers/patch.go` `applyPatcher`, `fieldmanager`), the applied status is stored with
 * the applier's Apply entry under `subresource: status`; a later apply by the same manager that drops a field it
 * alone owned removes it; the main resource's entries stay as they were; a status field another manager owns is a
 * 409 unless forced.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import type { KObject } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Deployments, Nodes, Pods, type ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { objectKey } from "../../simulator/apiserver/Store.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"

const start = Date.UTC(2026, 0, 1)
const later = start + 60_000

const written = (answer: Either.Either<WriteResult, ApiError>): WriteResult => {
  if (Either.isLeft(answer)) throw new Error(`unexpected error: ${JSON.stringify(answer.left.status)}`)
  return answer.right
}
const refused = (answer: Either.Either<WriteResult, ApiError>): ApiError => {
  if (Either.isRight(answer)) throw new Error(`unexpected success: ${JSON.stringify(answer.right.object)}`)
  return answer.left
}
const entriesOf = (obj: KObject | undefined) => (obj?.metadata.managedFields ?? []) as ReadonlyArray<ManagedFieldsEntry>
const summary = (obj: KObject | undefined) => entriesOf(obj).map((e) => [e.manager, e.operation, e.subresource ?? "", e.fieldsV1])

const setup = () => {
  const server = new ApiServerImpl(defaultConfig, start)
  const stored = (resource: ResourceType, name: string, namespace?: string) => server.store.get(resource, objectKey(namespace, name))
  const apply = (resource: ResourceType, name: string, config: object, opts: WriteOptions, now = later) =>
    server.patchAt(resource, name, "apply", { value: config, raw: JSON.stringify(config) }, opts, now)
  return { server, stored, apply }
}

const nodeStatus = (status: object) => ({ apiVersion: "v1", kind: "Node", metadata: { name: "n" }, status })
const asStatus = (fieldManager: string, extra: Partial<WriteOptions> = {}): WriteOptions => ({ subresource: "status", fieldManager, ...extra })

describe("server-side apply to nodes/<name>/status", () => {
  it("stores the applied status and the manager's Apply entry with subresource status; the main resource's entries untouched", () => {
    const { server, stored, apply } = setup()
    written(server.createAt(Nodes, { value: { metadata: { name: "n", labels: { zone: "a" } } } }, { fieldManager: "creator" }, start))
    const before = stored(Nodes, "n")!
    const creatorEntry = entriesOf(before)[0]

    const answer = written(apply(Nodes, "n", nodeStatus({ capacity: { cpu: "4", memory: "16Gi" } }), asStatus("agent")))
    expect(answer.code).toBe(200)
    const node = stored(Nodes, "n")!
    expect(node.status).toEqual({ capacity: { cpu: "4", memory: "16Gi" } })
    // Apply entries before Update entries (upstream's sortEncodedManagedFields).
    expect(node.metadata.managedFields).toEqual([
      {
        manager: "agent",
        operation: "Apply",
        apiVersion: "v1",
        time: rfc3339(later),
        fieldsType: "FieldsV1",
        fieldsV1: { "f:status": { "f:capacity": { "f:cpu": {}, "f:memory": {} } } },
        subresource: "status"
      },
      creatorEntry
    ])
    // The answer is what was stored.
    expect(answer.object.metadata.managedFields).toEqual(node.metadata.managedFields)
    expect(answer.object.status).toEqual(node.status)
    expect(node.metadata.labels).toEqual({ zone: "a" })
    expect(node.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion)

    // The same manager applies again without memory, which only it owned: memory goes.
    const again = written(apply(Nodes, "n", nodeStatus({ capacity: { cpu: "8" } }), asStatus("agent"), later + 1_000))
    expect(again.code).toBe(200)
    const after = stored(Nodes, "n")!
    expect(after.status).toEqual({ capacity: { cpu: "8" } })
    expect(summary(after)).toEqual([
      ["agent", "Apply", "status", { "f:status": { "f:capacity": { "f:cpu": {} } } }],
      ["creator", "Update", "", creatorEntry!.fieldsV1]
    ])
    expect(after.metadata.managedFields![1]).toBe(creatorEntry)
  })

  it("a status field another manager owns is a 409 with upstream's message, the node unchanged; force takes it", () => {
    const { server, stored, apply } = setup()
    written(server.createAt(Nodes, { value: { metadata: { name: "n", labels: { zone: "a" } } } }, { fieldManager: "creator" }, start))
    written(server.patchAt(Nodes, "n", "merge", { value: { status: { capacity: { cpu: "4" } } } }, asStatus("kubelet"), start + 1_000))
    const before = stored(Nodes, "n")!

    const conflict = refused(apply(Nodes, "n", nodeStatus({ capacity: { cpu: "8" } }), asStatus("tool")))
    expect(conflict.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.capacity.cpu',
      reason: "Conflict",
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "kubelet" with subresource "status" using v1', field: ".status.capacity.cpu" }] },
      code: 409
    })
    expect(stored(Nodes, "n")).toBe(before)

    const forced = written(apply(Nodes, "n", nodeStatus({ capacity: { cpu: "8" } }), asStatus("tool", { force: true })))
    expect(forced.code).toBe(200)
    const node = stored(Nodes, "n")!
    expect(node.status).toEqual({ capacity: { cpu: "8" } })
    expect(summary(node)).toEqual([
      ["tool", "Apply", "status", { "f:status": { "f:capacity": { "f:cpu": {} } } }],
      ["creator", "Update", "", entriesOf(before)[0]!.fieldsV1],
      // The forced field leaves kubelet's entry; `.status` itself it still owns (structured-merge-diff's Difference).
      ["kubelet", "Update", "status", { "f:status": {} }]
    ])
  })
})

describe("server-side apply to the other status subresources served the same way", () => {
  it("pods/<name>/status stores the status and the Apply entry; the spec and its entries stay", () => {
    const { server, stored, apply } = setup()
    const pod = { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "a", image: "a:1" }] } }
    written(server.createAt(Pods, { value: pod }, { namespace: "default", fieldManager: "creator" }, start))
    const before = stored(Pods, "p", "default")!
    const config = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: { phase: "Running", message: "up" } }
    written(apply(Pods, "p", config, { namespace: "default", ...asStatus("agent") }))
    const after = stored(Pods, "p", "default")!
    expect(after.status).toMatchObject({ phase: "Running", message: "up" })
    expect(after.spec).toBe(before.spec)
    expect(summary(after)).toEqual([
      ["agent", "Apply", "status", { "f:status": { "f:message": {}, "f:phase": {} } }],
      ["creator", "Update", "", entriesOf(before)[0]!.fieldsV1]
    ])
    const dropped = { ...config, status: { phase: "Running" } }
    written(apply(Pods, "p", dropped, { namespace: "default", ...asStatus("agent") }, later + 1_000))
    const last = stored(Pods, "p", "default")!
    expect((last.status as { message?: string }).message).toBeUndefined()
    expect(summary(last)[0]).toEqual(["agent", "Apply", "status", { "f:status": { "f:phase": {} } }])
  })

  it("deployments/<name>/status stores the status and the Apply entry", () => {
    const { server, stored, apply } = setup()
    const template = { metadata: { labels: { app: "d" } }, spec: { containers: [{ name: "a", image: "a:1" }] } }
    const deployment = { metadata: { name: "d", namespace: "default" }, spec: { selector: { matchLabels: { app: "d" } }, template } }
    written(server.createAt(Deployments, { value: deployment }, { namespace: "default", fieldManager: "creator" }, start))
    const config = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, status: { observedGeneration: 1, replicas: 1 } }
    written(apply(Deployments, "d", config, { namespace: "default", ...asStatus("controller") }))
    const after = stored(Deployments, "d", "default")!
    expect(after.status).toMatchObject({ observedGeneration: 1, replicas: 1 })
    expect(summary(after).map((e) => e.slice(0, 3))).toEqual([
      ["controller", "Apply", "status"],
      ["creator", "Update", ""]
    ])
  })
})
