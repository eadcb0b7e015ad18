/**
 * The configurations whose result hashes `resultHash.ts` prints and test/cluster/ResultHash.test.ts keeps: the
 * benchmark's control-plane configuration and the shipped node-death scenario's cluster and faults sections.
 */
import { createHash } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Schema } from "effect"
import { parse } from "yaml"
import { ClusterFault, ClusterSpec } from "../simulator/cluster/ClusterSpec.js"
import { deterministicPart, runSimulatedCluster, type ClusterRunOptions } from "../simulator/cluster/ClusterRun.js"
import { controlPlaneWorkload } from "../simulator/scheduler/ControlPlane.js"

export const controlPlane = (nodes: number, minutes: number): ClusterRunOptions => ({
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

/** The shipped node-death scenario's cluster and faults sections, decoded as a run decodes them. */
export const nodeDeath = (): ClusterRunOptions => {
  // bench/ from the sources (a test), dist/bench/ compiled
  const here = dirname(fileURLToPath(import.meta.url))
  const file = join(existsSync(join(here, "../scenarios")) ? join(here, "..") : join(here, "../.."), "scenarios/cluster/node-death.yaml")
  const doc = parse(readFileSync(file, "utf8")) as { cluster: unknown; faults: unknown }
  return {
    spec: Schema.decodeUnknownSync(ClusterSpec)(doc.cluster),
    faults: Schema.decodeUnknownSync(Schema.Array(ClusterFault))(doc.faults),
    seed: 1,
    durationMs: 20 * 60_000,
    baseDir: dirname(file)
  }
}

export const configurations: ReadonlyArray<readonly [string, () => ClusterRunOptions]> = [
  ["node-death (shipped scenario's cluster and faults)", nodeDeath],
  ["control plane, 500 nodes, 10 min", () => controlPlane(500, 10)]
]

/** sha256 of the run's result without `wall`; `withoutApf`: APF off and `serverModel` left out (the runs before APF, issue 20). */
export const resultHash = (given: ClusterRunOptions, withoutApf = false): string => {
  const options = withoutApf ? { ...given, spec: { ...given.spec, serviceTime: { ...given.spec.serviceTime, apf: false } } } : given
  // `leaseTimeline` only records what the run did per interval (the report's charts, added after these hashes were
  // taken): left out, a run that behaves the same hashes the same
  const { leaseTimeline: _timeline, ...result } = deterministicPart(Effect.runSync(runSimulatedCluster(options)))
  const { serverModel: _model, ...beforeApf } = result
  return createHash("sha256").update(JSON.stringify(withoutApf ? beforeApf : result)).digest("hex")
}
