/**
 * A node lease renewal through the simulated server's write path, in-process, as a node agent sends it (the stored
 * metadata sent back, a new spec with the next renewTime) and as the cluster run takes it (a store subscriber keeping
 * lease changes for the lifecycle controller, compaction every 10 s of a 5-minute history window). The server-side
 * part of the control-plane hour's most common request, without the agents, the model or the kernel around it.
 *
 *   npx tsc -p . && node dist/bench/leaseWrite.js [nodes] [virtual minutes]    # default 5,000 nodes, 10 minutes
 *
 * Prints CPU µs per renewal (user + system) and the heap used at the end (after a full collection with `--expose-gc`).
 */
import { extendable } from "../src/api/internal/V8Shapes.js"
import type { KObject } from "../src/api/Object.js"
import { Leases } from "../src/api/Resources.js"
import { nodeLeaseNamespace } from "../src/api/WellKnown.js"
import { ApiServerImpl, defaultConfig } from "../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../simulator/apiserver/InProcessClient.js"
import { microTime } from "../simulator/apiserver/SystemMeta.js"
import { TimeText } from "../simulator/nodeagent/TimeText.js"

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const nodes = Number(positional[0] ?? 5_000)
const minutes = Number(positional[1] ?? 10)
const renewEveryMs = 10_000
const start = Date.UTC(2026, 0, 1)

const server = new ApiServerImpl(defaultConfig, start)
const client = inProcessClient(server)
const options = { namespace: nodeLeaseNamespace } as const
// What the lifecycle controller's cache takes from every lease write (ClusterObserver.observe).
let kept: Array<KObject> = []
server.store.subscribe((change) => {
  if (change.resource === Leases) kept.push(change.object)
})

const leases: Array<KObject> = []
for (let i = 0; i < nodes; i++) {
  const name = `node-${i}`
  // owned by its Node, as an agent's lease is once registered: the owner's uid is a key of every lease's own field set
  const ownerReferences = [{ apiVersion: "v1", kind: "Node", name, uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` }]
  const made = client.at!(start)!.create(Leases, { metadata: { name, namespace: nodeLeaseNamespace, ownerReferences }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(start) } }, options)
  leases.push((made as unknown as { right: { object: KObject } }).right.object)
}

// the agents' renewTime text (cached per second), as a shard makes it
const text = new TimeText()
const renew = (i: number, now: number): void => {
  const lease = leases[i]!
  const body = { metadata: lease.metadata, spec: { ...extendable, ...(lease.spec as object), renewTime: text.micro(now) } }
  const answer = client.at!(now)!.update(Leases, body, options) as unknown as { _tag: string; right: { object: KObject } }
  if (answer._tag !== "Right") throw new Error(`renewal refused: ${JSON.stringify(answer)}`)
  leases[i] = answer.right.object
}

const rounds = (minutes * 60_000) / renewEveryMs
const cpuBefore = process.cpuUsage()
const wallBefore = performance.now()
let now = start
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < nodes; i++) renew(i, (now += renewEveryMs / nodes))
  server.store.compactBefore(now - defaultConfig.historyWindowMs)
  kept = []
}
const cpu = process.cpuUsage(cpuBefore)
const wallMs = performance.now() - wallBefore
const writes = rounds * nodes
// with `--expose-gc`: the heap the history window keeps live, not what the last scavenge left
;(globalThis as { gc?: () => void }).gc?.()
console.log(
  JSON.stringify({
    nodes,
    virtualMinutes: minutes,
    renewals: writes,
    cpuMicrosPerRenewal: +((cpu.user + cpu.system) / writes).toFixed(3),
    wallMicrosPerRenewal: +((wallMs * 1000) / writes).toFixed(3),
    heapUsedMiB: +(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)
  })
)
