/**
 * Hashes of the simulated cluster's result documents (the `wall` part left out), for checking that a refactoring
 * keeps every run the same: the benchmark's control-plane configuration and the shipped cluster scenario's sections.
 *
 *   npx tsc -p . && node dist/bench/resultHash.js          # prints one `name sha256` line per configuration
 *   node dist/bench/resultHash.js --no-apf                 # API Priority and Fairness off, `serverModel` left out:
 *                                                          # the runs as they were before APF (issue 20)
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Schema } from "effect"
import { parse } from "yaml"
import { ClusterFault, ClusterSpec } from "../simulator/cluster/ClusterSpec.js"
import { deterministicPart, runSimulatedCluster, type ClusterRunOptions } from "../simulator/cluster/ClusterRun.js"
import { controlPlaneWorkload } from "../simulator/scheduler/ControlPlane.js"

const controlPlane = (nodes: number, minutes: number): ClusterRunOptions => ({
  spec: {
    nodes,
    podsPerNode: 30,
    memoryPressure: [{ nodes: Array.from({ length: Math.ceil(nodes / 100) }, (_, i) => `node-${i * 100}`), pod: 0, base: "100Mi", perSecond: "20Mi" }]
  },
  workload: controlPlaneWorkload({ replicas: 2 }),
  faults: [],
  seed: 1,
  durationMs: minutes * 60_000
})

// The shipped node-death scenario's cluster and faults sections, decoded as a run decodes them.
const nodeDeath = ((): ClusterRunOptions => {
  const file = fileURLToPath(new URL("../../scenarios/cluster/node-death.yaml", import.meta.url))
  const doc = parse(readFileSync(file, "utf8")) as { cluster: unknown; faults: unknown }
  return {
    spec: Schema.decodeUnknownSync(ClusterSpec)(doc.cluster),
    faults: Schema.decodeUnknownSync(Schema.Array(ClusterFault))(doc.faults),
    seed: 1,
    durationMs: 20 * 60_000,
    baseDir: dirname(file)
  }
})()

const configurations: ReadonlyArray<readonly [string, ClusterRunOptions]> = [
  ["node-death (shipped scenario's cluster and faults)", nodeDeath],
  ["control plane, 500 nodes, 10 min", controlPlane(500, 10)]
]

const withoutApf = process.argv.includes("--no-apf")

for (const [name, given] of configurations) {
  const options = withoutApf ? { ...given, spec: { ...given.spec, serviceTime: { ...given.spec.serviceTime, apf: false } } } : given
  // `leaseTimeline` only records what the run did per interval (the report's charts, added after these hashes were
  // taken): left out, a run that behaves the same hashes the same
  const { leaseTimeline: _timeline, ...recorded } = deterministicPart(Effect.runSync(runSimulatedCluster(options)))
  const { serverModel: _model, ...beforeApf } = recorded
  const hash = createHash("sha256").update(JSON.stringify(withoutApf ? beforeApf : recorded)).digest("hex")
  console.log(`${hash}  ${name}`)
}
