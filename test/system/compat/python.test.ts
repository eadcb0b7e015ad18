/**
 * The official Python client (Debian's `python3-kubernetes`): `watch=True` streams, a watch from a compacted
 * resourceVersion ends in upstream's 410, and the typed lease and event clients (`coordination.k8s.io`,
 * `events.k8s.io`) work; events written through `events.k8s.io` read back as core v1 events; the dynamic client's
 * server-side apply records its manager, fails on another manager's field with upstream's 409 and takes it with
 * `force_conflicts=True`; the typed client's patch (strategic merge for a dict body) merges containers by name; a pod
 * without an image and a Deployment whose selector does not match its template are refused with upstream's 422.
 */
import { describe, expect, it } from "vitest"
import { compatDir, python, run, startServer } from "./support/clients.js"

/** One check of `python/checks.py` against a fresh server of its own (the checks run concurrently). */
const check = async (name: string): Promise<any> => {
  const server = await startServer()
  const ran = await run(python, [`${compatDir}python/checks.py`, server.url, name]).finally(() => server.close())
  expect(ran.stderr).toBe("")
  expect(ran.code).toBe(0)
  return JSON.parse(ran.stdout)
}

describe.concurrent("python kubernetes client", () => {
  it("a pod without an image and a Deployment whose selector does not match its template get upstream's 422 with causes", async () => {
    const mismatch = "Invalid value: map[string]string{\"app\":\"b\"}: `selector` does not match template `labels`"
    expect(await check("invalid-workloads")).toEqual([
      [422, "Invalid", 'Pod "ni" is invalid: spec.containers[0].image: Required value', [{ reason: "FieldValueRequired", message: "Required value", field: "spec.containers[0].image" }]],
      [
        422,
        "Invalid",
        `Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: ${mismatch}`,
        [{ reason: "FieldValueInvalid", message: mismatch, field: "spec.template.metadata.labels" }]
      ]
    ])
  })

  it("watch.Watch().stream sends watch=True and gets the events", async () => {
    expect(await check("watch")).toEqual({ events: [["ADDED", "a"], ["ADDED", "b"]] })
  })

  it("a watch from a compacted resourceVersion gets upstream's 410", async () => {
    const result = await check("watch-410")
    // client 22.x raises on the ERROR event's 410 (newer clients retry once, then raise)
    const saw410 = result.exception?.status === 410 || (result.events ?? []).some((e: [string, number]) => e[0] === "ERROR" && e[1] === 410)
    expect(saw410, JSON.stringify(result)).toBe(true)
  })

  it("CoordinationV1Api creates, replaces, reads and lists leases in kube-node-lease", async () => {
    expect(await check("leases")).toEqual({
      created: ["coordination.k8s.io/v1", "kube-node-lease"],
      holder: "n2",
      renewTimeMicros: true,
      rvChanged: true,
      listed: ["n1"]
    })
  })

  it("EventsV1Api creates and lists events; CoreV1Api lists them as core v1 events", async () => {
    expect(await check("events")).toEqual({
      created: ["events.k8s.io/v1", "hello from python"],
      listed: ["p1.1"],
      core: [["Pod", "Tested", "hello from python", "example.com/controller"]]
    })
  })

  it("DynamicClient.server_side_apply: managedFields, upstream's 409 conflict, force_conflicts=True", async () => {
    const result = await check("apply")
    expect(result.created).toEqual([
      { manager: "tool-a", operation: "Apply", apiVersion: "v1", time: result.created[0].time, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } }
    ])
    expect(result.created[0].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(result.conflict).toEqual([
      409,
      "Conflict",
      'Apply failed with 1 conflict: conflict with "tool-a": .data.a',
      { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "tool-a"', field: ".data.a" }] }
    ])
    expect(result.forced).toEqual([{ a: "2" }, [["tool-b", { "f:data": { "f:a": {} } }]]])
  })

  it("a pod: apply creates it, a second manager conflicts on a container's image until forced, patch_namespaced_pod merges containers by name", async () => {
    expect(await check("apply-pod")).toEqual({
      created: [["a", "a:1"], ["b", "b:1"]],
      managers: [["tool-a", "Apply"]],
      conflict: [409, 'Apply failed with 1 conflict: conflict with "tool-a": .spec.containers[name="b"].image'],
      forced: [["a", "a:1"], ["b", "b:2"]],
      patched: [["a", "a:3"], ["b", "b:2"]],
      owners: [
        ["tool-a", "Apply", ['k:{"name":"a"}', 'k:{"name":"b"}']],
        ["tool-b", "Apply", ['k:{"name":"b"}']],
        ["editor", "Update", ['k:{"name":"a"}']]
      ]
    })
  })
})
