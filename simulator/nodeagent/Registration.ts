/**
 * Node registration (reference §3.2; upstream kubelet `registerWithAPIServer`): POST the Node with its labels,
 * capacity and first conditions; when it exists already (a restarted agent), GET it to learn its uid. An
 * unreachable server is tried again after the client timeout. Once registered, the agent's loops begin.
 */
import type { KObject } from "../../src/api/Object.js"
import { Nodes } from "../../src/api/Resources.js"
import { archLabel, hostnameLabel, osLabel, regionLabel, zoneLabel } from "../../src/api/WellKnown.js"
import { rfc3339 } from "../apiserver/SystemMeta.js"
import type { AgentState } from "./AgentState.js"
import { desiredConditions, mergeConditions } from "./NodeStatus.js"
import { Kind, type Request, type ShardContext } from "./ShardContext.js"
import { nodeRequests } from "./NodeRequests.js"

/** Approximate request size for the service-time model. */
const nodeBytes = 1_600

export class Registration {
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
    const end = Math.ceil(ctx.env.serviceTime.complete(t, "mutating", 0, nodeBytes, nodeRequests(node.name).nodeCreate))
    const now = rfc3339(t)
    const registration: KObject = {
      metadata: {
        name: node.name,
        labels: {
          [archLabel]: "amd64",
          [osLabel]: "linux",
          [hostnameLabel]: node.name,
          [zoneLabel]: node.zone,
          [regionLabel]: node.region
        }
      },
      spec: {},
      status: {
        capacity: a.capacity,
        allocatable: a.capacity,
        conditions: mergeConditions([], desiredConditions(a.health), now),
        nodeInfo: { nodeAgentVersion: "v1.26.0", operatingSystem: "linux", architecture: "amd64" }
      }
    }
    return ctx.send(
      (client) => client.create(Nodes, registration),
      (created) => {
        a.uid = created.object.metadata.uid
        a.lastReport = t
        ctx.env.metrics.registrations++
        this.registered(a, end)
      },
      () =>
        ctx.send(
          (client) => client.get(Nodes, node.name),
          (existing) => {
            a.uid = existing.metadata.uid
            this.registered(a, end)
          },
          () => this.registered(a, end)
        )
    )
  }
}
