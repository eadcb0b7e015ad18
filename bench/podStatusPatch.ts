/**
 * A pod's first status write through the simulated server's patch path, in-process, as a node agent sends it
 * (simulator/nodeagent/PodStarter.ts `run`: a merge patch of pods/status to Running, its conditions, start time and
 * container statuses) onto pods seeded as a cluster run seeds them (simulator/cluster/SeedPods.ts). The server-side
 * part of the 5,000-node hour's pod-start storm (issue 39), without the agents, the model or the kernel around it.
 *
 *   npx tsc -p . && node dist/bench/podStatusPatch.js [pods] [rounds]    # default 150,000 pods, 1 round
 *
 * Each round seeds the pods afresh and starts every one, 500 a virtual second (the agents' pace in the hour).
 * Prints CPU µs per patch (user + system) and the first started pod's JSON digest (same build, same bytes).
 */
import { createHash } from "node:crypto"
import type { KObject } from "../src/api/Object.js"
import { Pods } from "../src/api/Resources.js"
import { TaintKeys } from "../src/api/WellKnown.js"
import { ApiServerImpl, defaultConfig } from "../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../simulator/apiserver/InProcessClient.js"
import { objectKey } from "../simulator/apiserver/Store.js"
import { rfc3339 } from "../simulator/apiserver/SystemMeta.js"
import { TimeText } from "../simulator/nodeagent/TimeText.js"

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const pods = Number(positional[0] ?? 150_000)
const rounds = Number(positional[1] ?? 1)
const start = Date.UTC(2026, 0, 1)

let cpuMicros = 0
let digest = ""
for (let round = 0; round < rounds; round++) {
  const server = new ApiServerImpl(defaultConfig, start)
  const client = inProcessClient(server)
  // SeedPods.ts's shapes: every pod shares its containers, tolerations and Pending status
  const created = rfc3339(start)
  const labels = { app: "sim" }
  const containers = [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m", memory: "128Mi" } } }]
  const tolerations = [
    { key: TaintKeys.notReady, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { key: TaintKeys.unreachable, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }
  ]
  const pending = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: created }] }
  for (let i = 0; i < pods; i++) {
    const name = `node-${Math.floor(i / 30)}-pod-${i % 30}`
    const uid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`
    server.store.putFresh(Pods, objectKey("default", name), {
      metadata: { name, namespace: "default", uid, creationTimestamp: created, labels },
      spec: { nodeName: `node-${Math.floor(i / 30)}`, schedulerName: "default-scheduler", containers, tolerations },
      status: pending
    }, start)
  }
  // PodStarter.run's body: parts shared by the pods started in the same second
  const text = new TimeText()
  let partsAt = ""
  let conditions: ReadonlyArray<object> = []
  let single: ReadonlyArray<object> = []
  let body: object | undefined
  let bodyAt = ""
  let lastScheduled: object | undefined
  const options = { namespace: "default", subresource: "status" } as const
  const cpuBefore = process.cpuUsage()
  for (let i = 0; i < pods; i++) {
    const t = start + 10_000 + i * 2
    const now = text.seconds(t)
    if (now !== partsAt) {
      const cond = (type: string) => ({ type, status: "True", lastTransitionTime: now })
      conditions = [cond("Initialized"), cond("Ready"), cond("ContainersReady")]
      single = [{ name: "app", ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } }]
      partsAt = now
    }
    const name = `node-${Math.floor(i / 30)}-pod-${i % 30}`
    const pod = server.store.get(Pods, `default/${name}`)!
    const scheduled = (pod.status as { conditions: ReadonlyArray<object> }).conditions[0]!
    // one body for the pods started in the same second with the same PodScheduled condition (PodStarter.runningBody)
    if (scheduled !== lastScheduled || body === undefined || partsAt !== bodyAt) {
      body = { status: { phase: "Running", conditions: [...conditions, scheduled], startTime: now, containerStatuses: single } }
      lastScheduled = scheduled
      bodyAt = partsAt
    }
    const answer = client.at!(t)!.patch(Pods, name, "merge", body, options) as unknown as { _tag: string; right: { object: KObject } }
    if (answer._tag !== "Right") throw new Error(`patch refused: ${JSON.stringify(answer)}`)
    if (i === 0 && round === 0) digest = createHash("sha256").update(JSON.stringify(answer.right.object)).digest("hex").slice(0, 12)
  }
  const cpu = process.cpuUsage(cpuBefore)
  cpuMicros += cpu.user + cpu.system
}
console.log(JSON.stringify({ pods, rounds, cpuMicrosPerPatch: +(cpuMicros / (pods * rounds)).toFixed(3), firstPodSha256: digest }))
