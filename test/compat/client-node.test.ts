/**
 * The official Node client (`@kubernetes/client-node` 2.x, run with its own node@22 from `test/compat/client-node`):
 * the typed lease client on `coordination.k8s.io`, and an informer that relists after a compaction (its re-watch
 * from a too-old resourceVersion gets 410).
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
})
