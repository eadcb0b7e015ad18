/** The ten-Update-manager cap (upstream `capmanagers.go`): one `ancient-changes` bucket per apiVersion, oldest first. */
import { describe, expect, it } from "vitest"
import type { ManagedFieldsEntry } from "../../../src/api/apply/ManagedFields.js"
import { capUpdateManagers } from "../../../src/api/apply/UpdateManagerCap.js"

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}Z`
const update = (manager: string, apiVersion: string, second: number, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
  manager,
  operation: "Update",
  apiVersion,
  time: at(second),
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { [`f:${manager}`]: {} } },
  ...extra
})

describe("capUpdateManagers", () => {
  it("leaves ten Update entries (and any Apply entries) as they are", () => {
    const entries = [...Array.from({ length: 10 }, (_, i) => update(`m${i}`, "v1", i)), { ...update("tool", "v1", 0), operation: "Apply" as const }]
    expect(capUpdateManagers(entries)).toBe(entries)
  })

  it("merges the oldest into one bucket per version; the first of a version becomes it, the bucket takes the last time", () => {
    const versions = ["v1", "v2", "v1", "v2", "v1", "v1", "v1", "v1", "v1", "v1", "v1", "v1"]
    const entries = versions.map((v, i) => update(`m${String(i + 1).padStart(2, "0")}`, v, i + 1, i === 2 ? { subresource: "status" } : {}))
    const applied: ManagedFieldsEntry = { manager: "tool", operation: "Apply", apiVersion: "v1", time: at(0), fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:z": {} } } }
    const capped = capUpdateManagers([applied, ...entries])
    // in upstream's order (Apply first, then by time), as `afterUpdate` sorts them
    const ordered = [...capped].sort((p, q) => (p.operation !== q.operation ? (p.operation < q.operation ? -1 : 1) : p.time < q.time ? -1 : p.time > q.time ? 1 : 0))
    const summary = ordered.map((e) => [e.manager, e.operation, e.apiVersion, e.time, e.subresource, Object.keys(e.fieldsV1["f:data"] ?? {}).sort()])
    expect(summary).toEqual([
      ["tool", "Apply", "v1", at(0), undefined, ["f:z"]],
      // m01 (v1) and the status manager m03 merged: the bucket names no subresource
      ["ancient-changes", "Update", "v1", at(3), undefined, ["f:m01", "f:m03"]],
      ["ancient-changes", "Update", "v2", at(4), undefined, ["f:m02", "f:m04"]],
      ...["m05", "m06", "m07", "m08", "m09", "m10", "m11", "m12"].map((m, i) => [m, "Update", "v1", at(i + 5), undefined, [`f:${m}`]])
    ])
  })
})
