/**
 * The official Node client (`@kubernetes/client-node` 2.x, run with its own node@22 from `test/system/compat/client-node`):
 * the typed lease client on `coordination.k8s.io`, and an informer that relists after a compaction (its re-watch
 * from a too-old resourceVersion gets 410), server-side apply through `PatchStrategy.ServerSideApply` (managed fields,
 * upstream's 409 conflict, `force`), and a strategic merge patch that merges containers by name.
 */
import { describe, expect, it } from "vitest"
import { compatDir, node22, run, startServer } from "./support/clients.js"

const check = async (name: string): Promise<any> => {
  const server = await startServer()
  const ran = await run(node22, [`${compatDir}client-node/checks.mjs`, server.url, name]).finally(() => server.close())
  expect(ran.stderr).toBe("")
  expect(ran.code).toBe(0)
  return JSON.parse(ran.stdout)
}

describe.concurrent("@kubernetes/client-node", () => {
  it("CoordinationV1Api creates, replaces, reads and lists leases in kube-node-lease", async () => {
    expect(await check("leases")).toEqual({
      created: ["coordination.k8s.io/v1", "kube-node-lease"],
      holder: "n2",
      renewTime: true,
      rvChanged: true,
      listed: ["kube-node-lease/n1"]
    })
  })

  it("makeInformer relists after a compaction and keeps following changes", async () => {
    expect(await check("informer-relist")).toEqual({ lists: 2, seen: ["add a", "delete a", "add c"], errors: [], cached: ["c"] })
  })

  it("patch with PatchStrategy.ServerSideApply: managedFields, upstream's 409 conflict, force", async () => {
    const result = await check("apply")
    expect(result.created).toEqual([
      { manager: "tool-a", operation: "Apply", apiVersion: "v1", time: result.created[0].time, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } }
    ])
    expect(result.created[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/)
    expect(result.conflict).toEqual([
      409,
      "Conflict",
      'Apply failed with 1 conflict: conflict with "tool-a": .data.a',
      { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "tool-a"', field: ".data.a" }] }
    ])
    expect(result.forced).toEqual([{ a: "2" }, [["tool-b", { "f:data": { "f:a": {} } }]]])
  })

  it("patch with PatchStrategy.StrategicMergePatch merges containers by name", async () => {
    expect(await check("strategic-patch")).toEqual({
      containers: [["a", "a:1"], ["b", "b:2"]],
      // the creator is the client's User-Agent (sorted here: entries order by time, then manager)
      managers: [["editor", "Update"], ["kubernetes-client-javascript", "Update"]]
    })
  })
})
