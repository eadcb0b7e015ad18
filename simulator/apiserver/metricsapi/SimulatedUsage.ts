/**
 * What the simulated kubelets would report to a metrics-server: the CPU and working-set memory of each running
 * container and of each node (docs/metrics.md "kubectl top"). The live cluster's node agents start pods but run no
 * processes, so usage is modelled from what the pod asks for: each container uses a share of its request (a stable
 * share drawn from a hash of the pod's uid and the container's name, plus a slow wave over time), a container
 * without a request a little; a node uses its pods' sum plus its system daemons. Pure and deterministic: the same
 * objects at the same instant give the same figures.
 */
import { Either } from "effect"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import type { KObject } from "../../../src/api/Object.js"

/** A quantity in thousandths (`milli`: CPU) or whole units (memory); absent or malformed counts as 0. */
const quantityOf = (v: unknown, milli: boolean): number => {
  if (typeof v !== "string" && typeof v !== "number") return 0
  const q = parseQuantity(String(v))
  return Either.isRight(q) ? (milli ? q.right.milliValue() : q.right.value()) : 0
}

/** Usage of one container or node: CPU in nanocores, working-set memory in bytes. */
export interface Usage {
  readonly nanocores: number
  readonly bytes: number
}

/** CPU and memory a container without requests is taken to ask for. */
const unrequestedMilliCpu = 10
const unrequestedBytes = 32 * 1024 * 1024
/** A node's system daemons (kubelet, runtime, journald): a base plus a share of its capacity. */
const systemMilliCpu = 60
const systemBytes = 384 * 1024 * 1024
const systemShare = 0.02
/** The period of the slow wave on CPU usage. */
const wavePeriodMs = 300_000
const pageBytes = 4096

/** FNV-1a over a text, as a fraction in [0, 1). */
const fraction = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h / 2 ** 32
}

const record = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" ? (v as Record<string, unknown>) : {})

/** The pod's containers by name, with their CPU (milli) and memory (bytes) requests. */
export const containersOf = (pod: KObject): ReadonlyArray<{ readonly name: string; readonly milliCpu: number; readonly bytes: number }> => {
  const containers = record(pod.spec).containers
  if (!Array.isArray(containers)) return []
  return containers.map((c) => {
    const requests = record(record(record(c).resources).requests)
    return { name: String(record(c).name ?? ""), milliCpu: quantityOf(requests.cpu, true), bytes: quantityOf(requests.memory, false) }
  })
}

/** A running container's usage at `t` (ms). */
export const containerUsage = (pod: KObject, container: { readonly name: string; readonly milliCpu: number; readonly bytes: number }, t: number): Usage => {
  const key = `${pod.metadata.uid ?? `${pod.metadata.namespace}/${pod.metadata.name}`}/${container.name}`
  const cpuShare = 0.2 + 0.5 * fraction(`${key}/cpu`)
  const wave = 1 + 0.1 * Math.sin((2 * Math.PI * t) / wavePeriodMs + 2 * Math.PI * fraction(`${key}/phase`))
  const memoryShare = 0.3 + 0.5 * fraction(`${key}/memory`)
  const milliCpu = container.milliCpu > 0 ? container.milliCpu : unrequestedMilliCpu
  const bytes = container.bytes > 0 ? container.bytes : unrequestedBytes
  return {
    nanocores: Math.max(1, Math.round(milliCpu * 1e6 * cpuShare * wave)),
    bytes: Math.max(pageBytes, Math.round((bytes * memoryShare) / pageBytes) * pageBytes)
  }
}

/** A node's usage: its running pods' containers plus its system daemons. */
export const nodeUsage = (node: KObject, pods: ReadonlyArray<KObject>, t: number): Usage => {
  const capacity = record(record(node.status).capacity)
  let nanocores = Math.round((systemMilliCpu + systemShare * quantityOf(capacity.cpu, true)) * 1e6)
  let bytes = Math.round((systemBytes + systemShare * quantityOf(capacity.memory, false)) / pageBytes) * pageBytes
  for (const pod of pods)
    for (const container of containersOf(pod)) {
      const u = containerUsage(pod, container, t)
      nanocores += u.nanocores
      bytes += u.bytes
    }
  return { nanocores, bytes }
}

/** A pod the metrics pipeline has figures for: running on a node. */
export const isRunning = (pod: KObject): boolean => record(pod.status).phase === "Running" && typeof record(pod.spec).nodeName === "string"

/** A node whose kubelet answers: its Ready condition is True. */
export const isReady = (node: KObject): boolean => {
  const conditions = record(node.status).conditions
  return Array.isArray(conditions) && conditions.some((c) => record(c).type === "Ready" && record(c).status === "True")
}
