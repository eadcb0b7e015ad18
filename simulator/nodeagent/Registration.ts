/**
 * Node registration (upstream kubelet `registerWithAPIServer`): POST the Node with its labels,
 * capacity and first conditions; when it exists already (a restarted agent), GET it to learn its uid. An
 * unreachable server is tried again after the client timeout; a POST given up after 429s (`ShardContext.send`)
 * after upstream's back-off. Once registered, the agent's loops begin.
 */
import type { KObject } from "../../src/api/Object.js"
import { Nodes } from "../../src/api/Resources.js"
import { archLabel, hostnameLabel, osLabel, regionLabel, zoneLabel } from "../../src/api/WellKnown.js"
import type { NodeAgentEnvironment } from "./AgentEnvironment.js"
import { rfc3339 } from "../apiserver/SystemMeta.js"
import type { AgentState } from "./AgentState.js"
import { desiredConditions, mergeConditions, type NodeHealth } from "./NodeStatus.js"
import { Kind, type Request, type ShardContext } from "./ShardContext.js"
import { reported, setCurrent } from "./StatusCheckMemo.js"
import { nodeAgentVersion, nodeSpecFields, nodeStatusFields } from "./KubeletFields.js"

/**
 * The sleep before the next registration try after `failed` tries failed (upstream `registerWithAPIServer`: 100 ms
 * before each try, doubling, at most 7 s). The first try's own 100 ms is not modelled (an agent registers at its
 * start), so the first retry waits 200 ms.
 */
export const registrationBackoffMs = (failed: number): number => Math.min(100 * 2 ** failed, 7_000)

/** Whether the agents own `obj` (a Node or node Lease): it carries their owner label, when they have one. */
export const isOwned = (env: NodeAgentEnvironment, obj: KObject): boolean =>
  env.ownerLabel === undefined || obj.metadata.labels?.[env.ownerLabel.key] === env.ownerLabel.value

/** The status of a registration, and what it was made of. */
interface RegistrationStatus {
  readonly now: string
  readonly health: NodeHealth
  readonly capacity: Readonly<Record<string, string>>
  readonly status: object
}

/** Two capacities with the same resources and quantities. */
const sameCapacity = (x: Readonly<Record<string, string>>, y: Readonly<Record<string, string>>): boolean => {
  if (x === y) return true
  let keys = 0
  for (const k in x) {
    if (x[k] !== y[k]) return false
    keys++
  }
  return keys === Object.keys(y).length
}

/** A simulated node's nodeInfo: the spec's field names only (with `env.network`, upstream's too: `KubeletFields.ts`). */
const nodeInfo = { nodeAgentVersion, operatingSystem: "linux", architecture: "amd64" }

export class Registration {
  /**
   * The last registration's status: the same object for the agents registering in the same second with the same
   * health and capacity (stored objects are never mutated), so the server decodes and compares it once for them
   * (src/api/internal/LastCall.ts): 5,000 nodes register within seconds of the hour's start.
   */
  private last: RegistrationStatus | undefined = undefined

  constructor(
    private readonly ctx: ShardContext,
    /** Registered (or found registered) at `end`: lease and status loops start, bound pods are started. */
    private readonly registered: (a: AgentState, end: number) => void
  ) {}

  register(a: AgentState, t: number): Request {
    const ctx = this.ctx
    const node = a.node
    if (ctx.stopped(a, t)) return
    if (!ctx.reachable(a, t)) {
      ctx.at(a, t + ctx.timeoutMs, Kind.Register)
      return
    }
    const now = rfc3339(t)
    const owner = ctx.env.ownerLabel
    const addresses = ctx.env.network?.node(node.name)
    const registration: KObject = {
      metadata: {
        name: node.name,
        labels: {
          [archLabel]: "amd64",
          [osLabel]: "linux",
          [hostnameLabel]: node.name,
          [zoneLabel]: node.zone,
          [regionLabel]: node.region,
          ...(owner !== undefined ? { [owner.key]: owner.value } : {})
        }
      },
      spec: addresses === undefined ? {} : nodeSpecFields(addresses),
      status: addresses === undefined ? this.statusOf(a, now) : { ...this.statusOf(a, now), ...nodeStatusFields(node.name, addresses) }
    }
    return ctx.send(
      a,
      t,
      (client) => client.create(Nodes, registration),
      (created, _, answered) => {
        a.uid = created.object.metadata.uid
        reported(a, t, ctx.env.settings.nodeStatusReportFrequencyMs)
        if (a.current === undefined) setCurrent(a, created.object)
        ctx.env.metrics.registrations++
        this.registered(a, Math.ceil(answered))
      },
      (_e, _, answered) =>
        ctx.send(
          a,
          Math.ceil(answered),
          (client) => client.get(Nodes, node.name),
          (existing, _, read) => {
            // a node of the same name that clustersim does not own is left alone: this agent stops here
            if (!isOwned(ctx.env, existing)) return void ctx.env.metrics.foreignNodes.push(node.name)
            a.uid = existing.metadata.uid
            a.current ??= existing
            ctx.env.metrics.adopted++
            this.registered(a, Math.ceil(read))
          },
          (_e, _, read) => this.registered(a, Math.ceil(read)),
          (_, at) => this.registered(a, at)
        ),
      // the POST failed (429 after client-go's retries): tried again after the back-off
      (_, at) => ctx.at(a, at + registrationBackoffMs(++a.failedRegistrations), Kind.Register)
    )
  }

  /** The registration's status: its capacity, its first conditions, what it runs. */
  private statusOf(a: AgentState, now: string): object {
    const last = this.last
    if (last !== undefined && last.now === now && last.health === a.health && sameCapacity(last.capacity, a.capacity)) return last.status
    const status = { capacity: a.capacity, allocatable: a.capacity, conditions: mergeConditions([], desiredConditions(a.health), now), nodeInfo }
    this.last = { now, health: a.health, capacity: a.capacity, status }
    return status
  }
}
