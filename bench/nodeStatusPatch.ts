/**
 * A node's status report through the simulated server's patch path, in-process, as a node agent sends it
 * (simulator/nodeagent/StatusReporter.ts `post`: a merge patch of nodes/status with its capacity, allocatable and
 * conditions, in which only the heartbeats changed; simulator/apiserver/NodeHeartbeat.ts). The server-side part of the
 * 5,000-node hour's status reports (issue 39), without the agents, the model or the kernel around it.
 *
 *   npx tsc -p . && node dist/bench/nodeStatusPatch.js [nodes] [rounds]    # default 5,000 nodes, 12 rounds
 *
 * Registers the nodes and sends each its first report (untimed: the status is nobody's until then), then `rounds`
 * reports of every node, five virtual minutes apart, spread over each round. Prints CPU µs per report (user + system;
 * the server's part: each round's bodies are built before it is timed) and the last node's JSON digest (same build,
 * same bytes).
 */
import { createHash } from "node:crypto"
import type { KObject } from "../src/api/Object.js"
import { Nodes } from "../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../simulator/apiserver/InProcessClient.js"
import { rfc3339 } from "../simulator/apiserver/SystemMeta.js"
import { desiredConditions, healthy, mergeConditions, type NodeCondition } from "../simulator/nodeagent/NodeStatus.js"

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const nodes = Number(positional[0] ?? 5_000)
const rounds = Number(positional[1] ?? 12)
const start = Date.UTC(2026, 0, 1)
const period = 300_000

const server = new ApiServerImpl(defaultConfig, start)
const client = inProcessClient(server)
const capacity = { cpu: "4", memory: "16Gi", pods: "110" }
const nodeInfo = { nodeAgentVersion: "v1.26.0", operatingSystem: "linux", architecture: "amd64" }
const desired = desiredConditions(healthy)
const options = { subresource: "status" } as const
const name = (i: number) => `node-${i}`
const conditionsOf = (node: KObject | undefined) => ((node?.status ?? {}) as { conditions?: ReadonlyArray<NodeCondition> }).conditions ?? []

/** Every node's report at its place in the round that starts at `at` (StatusReporter.post's body), built untimed. */
const bodies = (at: number) => {
  const out: Array<{ readonly now: number; readonly body: object }> = []
  for (let i = 0; i < nodes; i++) {
    const conditions = mergeConditions(conditionsOf(server.store.get(Nodes, name(i))), desired, rfc3339(at + Math.floor((i * period) / nodes)))
    out.push({ now: at + Math.floor((i * period) / nodes), body: { status: { capacity, allocatable: capacity, conditions } } })
  }
  return out
}

/** The round's reports sent; their CPU µs and how many failed. */
const report = (at: number): { readonly micros: number; readonly failed: number } => {
  const round = bodies(at)
  let failed = 0
  const before = process.cpuUsage()
  for (let i = 0; i < nodes; i++) {
    const { now, body } = round[i]!
    const answer = client.at!(now)!.patch(Nodes, name(i), "merge", body, options)
    if (answer === undefined || (answer as { _tag?: string })._tag !== "Right") failed++
  }
  const cpu = process.cpuUsage(before)
  return { micros: cpu.user + cpu.system, failed }
}

for (let i = 0; i < nodes; i++) {
  const now = start + i
  client.at!(now)!.create(Nodes, { metadata: { name: name(i), labels: { "kubernetes.io/hostname": name(i) } }, spec: {}, status: { capacity, allocatable: capacity, conditions: mergeConditions([], desired, rfc3339(now)), nodeInfo } }, {})
}
let { failed } = report(start + period)
let micros = 0
for (let round = 0; round < rounds; round++) {
  const sent = report(start + (round + 2) * period)
  micros += sent.micros
  failed += sent.failed
}
const digest = createHash("sha256").update(JSON.stringify(server.store.get(Nodes, name(nodes - 1)))).digest("hex").slice(0, 16)
console.log(JSON.stringify({ nodes, rounds, reports: nodes * rounds, failed, cpuMicrosPerReport: Number((micros / (nodes * rounds)).toFixed(2)), digest }))
