/**
 * Simulated nodes on the real clock are live to a stock client: while a small real-time cluster runs against the
 * simulated server over HTTP, `kubectl get nodes` lists them Ready and `kubectl get leases -n platform-node-lease`
 * their heartbeat leases. Fails when no kubectl is installed.
 */
import { Effect, Fiber } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { runRealTimeCluster } from "../../../simulator/cluster/RealTimeCluster.js"
import { findKubectls, run, startServer } from "./support/clients.js"

const kubectl = findKubectls().at(-1)
let server: Awaited<ReturnType<typeof startServer>>

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => server?.close())

const columns = (line: string) => line.trim().split(/\s{2,}/)

describe("kubectl against simulated nodes on the real clock", () => {
  it("lists the nodes Ready and their leases while the agents run", async () => {
    expect(kubectl).toBeDefined()
    const cluster = runRealTimeCluster({
      spec: { nodes: 3, startSpread: 200, nodeAgent: { config: { nodeLeaseDurationSeconds: 4 } }, nodeLifecycle: { enabled: false } },
      faults: [],
      seed: 1,
      durationMs: 6_000,
      cleanup: true,
      admin: undefined
    }).pipe(Effect.provide(ApiClient.layerHttp({ baseUrl: server.url })))
    const running = Effect.runFork(cluster)
    await Effect.runPromise(Effect.sleep(2_500))
    const nodes = await run(kubectl!.path, ["--server", server.url, "get", "nodes", "-l", "clustersim.io/simulated=true"])
    const leases = await run(kubectl!.path, ["--server", server.url, "get", "leases", "-n", "platform-node-lease"])
    const result = await Effect.runPromise(Fiber.join(running))
    expect(nodes.code).toBe(0)
    const nodeRows = nodes.stdout.trim().split("\n")
    expect(columns(nodeRows[0]!).slice(0, 2)).toEqual(["NAME", "STATUS"])
    expect(nodeRows.slice(1).map((l) => columns(l).slice(0, 2))).toEqual([
      ["node-0", "Ready"],
      ["node-1", "Ready"],
      ["node-2", "Ready"]
    ])
    expect(leases.code).toBe(0)
    const leaseRows = leases.stdout.trim().split("\n")
    expect(columns(leaseRows[0]!).slice(0, 2)).toEqual(["NAME", "HOLDER"])
    expect(leaseRows.slice(1).map((l) => columns(l).slice(0, 2))).toEqual([
      ["node-0", "node-0"],
      ["node-1", "node-1"],
      ["node-2", "node-2"]
    ])
    // --cleanup: gone again at the end
    expect(result.realTime.cleanup.left).toEqual({ nodes: 0, leases: 0, pods: 0 })
  }, 30_000)
})
