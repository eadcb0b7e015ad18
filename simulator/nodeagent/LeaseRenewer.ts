/**
 * The node lease (reference §3.1; upstream `pkg/kubelet/nodelease` and `component-helpers/apimachinery/lease`):
 * `platform-node-lease/<node>` renewed every 0.25 × nodeLeaseDurationSeconds, sliding, jitter 0.04 (next start =
 * previous end + [interval, 1.04 × interval)). A failed update is retried at once up to 5 tries, then ensure-lease
 * (GET; 404 → create) with backoff 200 ms, 400 ms, … 7 s until it succeeds. The lease client is not rate-limited.
 */
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { Leases } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import { recordMillis } from "../../src/loadgen/LatencyRecorder.js"
import type { AgentState } from "./AgentState.js"
import { isOwned } from "./Registration.js"
import { Kind, type Request, type ShardContext } from "./ShardContext.js"

/** Lease timing constants (reference §3.1). */
export const leaseTiming = {
  renewFraction: 0.25,
  jitterFactor: 0.04,
  maxUpdateTries: 5,
  backoffStartMs: 200,
  backoffMaxMs: 7_000
} as const

const leaseOptions = { namespace: nodeLeaseNamespace } as const

/** Approximate request size for the service-time model. */
const leaseBytes = 420

export class LeaseRenewer {
  private readonly renewIntervalMs: number

  constructor(
    private readonly ctx: ShardContext,
    /** Called first at every renewal: the agent's pods bound since its last event are started. */
    private readonly beforeRenewal: (a: AgentState, t: number) => void
  ) {
    this.renewIntervalMs = ctx.env.settings.nodeLeaseDurationSeconds * 1000 * leaseTiming.renewFraction
  }

  /** The first renewal, right after registration completed at `end`. */
  begin(a: AgentState, end: number): void {
    this.ctx.at(a, end, Kind.Lease)
  }

  renew(a: AgentState, t: number): Request {
    const ctx = this.ctx
    if (ctx.stopped(a, t)) return
    const metrics = ctx.env.metrics
    if (a.pending !== undefined) this.beforeRenewal(a, t)
    if (!ctx.reachable(a, t)) {
      metrics.leaseFailures++
      const failedAt = t + ctx.timeoutMs
      if (a.ensuring) {
        // backoffEnsureLease: sleep, doubling up to 7 s, and try again, forever
        const next = failedAt + a.backoffMs
        a.backoffMs = Math.min(2 * a.backoffMs, leaseTiming.backoffMaxMs)
        ctx.at(a, next, Kind.Lease)
      } else if (a.leaseMeta !== undefined && a.leaseTries + 1 < leaseTiming.maxUpdateTries) {
        a.leaseTries++
        ctx.at(a, failedAt, Kind.Lease)
      } else {
        // "failed 5 attempts to update lease": fall back to ensure-lease at once
        a.ensuring = true
        a.leaseTries = 0
        a.backoffMs = leaseTiming.backoffStartMs
        ctx.at(a, failedAt, Kind.Lease)
      }
      return
    }
    if (a.ensuring || a.leaseMeta === undefined) return this.ensure(a, t)
    return this.update(a, t, t)
  }

  /** ensure-lease: GET it; a 404 creates it, anything else renews what was read. */
  private ensure(a: AgentState, t: number): Request {
    const got = this.ctx.env.serviceTime.complete(t, "read", 1, leaseBytes, a.requests.leaseGet)
    a.ensuring = false
    a.leaseTries = 0
    return this.ctx.send(
      a,
      (client) => client.get(Leases, a.node.name, leaseOptions),
      (lease) => {
        // someone else's lease of this name: leave it alone, this agent renews nothing
        if (!isOwned(this.ctx.env, lease)) return void this.ctx.env.metrics.foreignNodes.push(a.node.name)
        this.remember(a, lease)
        return this.update(a, t, this.ctx.ended(got))
      },
      (e) => (e.status.code === 404 ? this.create(a, t, this.ctx.ended(got)) : this.conflict(a, this.ctx.ended(got))),
      404
    )
  }

  private create(a: AgentState, t: number, start: number): Request {
    const created = this.ctx.env.serviceTime.complete(start, "mutating", 0, leaseBytes, a.requests.leaseCreate)
    const lease = this.newLease(a, start)
    return this.ctx.send(
      a,
      (client) => client.create(Leases, lease, leaseOptions),
      (made) => {
        this.ctx.env.metrics.leaseCreates++
        this.written(a, made.object, t, this.ctx.ended(created))
      },
      () => this.conflict(a, this.ctx.ended(created))
    )
  }

  /** PUT the lease with a new renewTime (and the owner reference once the Node's uid is known). */
  private update(a: AgentState, t: number, start: number): Request {
    const meta = a.leaseMeta!
    const spec = a.leaseSpec
    a.renewalEnd = this.ctx.env.serviceTime.complete(start, "mutating", 0, leaseBytes, a.requests.leaseUpdate)
    a.renewalDueAt = t
    a.renewal = {
      metadata: meta.ownerReferences === undefined && a.uid !== undefined ? { ...extendable, ...meta, ownerReferences: [this.ownerOf(a)] } : meta,
      spec: { ...extendable, ...spec, renewTime: this.ctx.text.micro(start) }
    }
    return this.ctx.send(a, this.sendRenewal, this.renewed, this.renewalRejected)
  }

  // The renewal's request and answers, made once: the renewal's own values are in the agent's state.
  private readonly sendRenewal = (client: ApiClientService, a: AgentState) => client.update(Leases, a.renewal!, leaseOptions)

  private readonly renewed = (written: WriteResult, a: AgentState): void => {
    a.renewal = undefined
    this.written(a, written.object, a.renewalDueAt, this.ctx.ended(a.renewalEnd))
  }

  private readonly renewalRejected = (_: ApiError, a: AgentState): void => {
    a.renewal = undefined
    this.conflict(a, this.ctx.ended(a.renewalEnd))
  }

  /** Keeps the parts of a lease the next renewal sends back (parts of the stored object: nothing is copied). */
  private remember(a: AgentState, lease: KObject): void {
    a.leaseMeta = lease.metadata
    a.leaseSpec = (lease.spec ?? {}) as Record<string, unknown>
  }

  private written(a: AgentState, lease: KObject, t: number, end: number): void {
    this.remember(a, lease)
    const metrics = this.ctx.env.metrics
    metrics.leaseWrites++
    recordMillis(metrics.leaseLatency, end - t)
    const next = Math.round(end + this.ctx.jittered(this.renewIntervalMs, leaseTiming.jitterFactor))
    this.ctx.at(a, next, Kind.Lease)
  }

  /** A rejected lease write (409 after someone else wrote it): read it again on the next try, as the lease client does. */
  private conflict(a: AgentState, at: number): void {
    this.ctx.env.metrics.leaseFailures++
    a.leaseMeta = undefined
    this.ctx.at(a, Math.ceil(at) + leaseTiming.backoffStartMs, Kind.Lease)
  }

  private ownerOf(a: AgentState) {
    return { apiVersion: "v1", kind: "Node", name: a.node.name, uid: a.uid! }
  }

  private newLease(a: AgentState, t: number): KObject {
    const owner = this.ctx.env.ownerLabel
    return {
      metadata: {
        name: a.node.name,
        namespace: nodeLeaseNamespace,
        ...(owner !== undefined ? { labels: { [owner.key]: owner.value } } : {}),
        ...(a.uid !== undefined ? { ownerReferences: [this.ownerOf(a)] } : {})
      },
      spec: { holderIdentity: a.node.name, leaseDurationSeconds: this.ctx.env.settings.nodeLeaseDurationSeconds, renewTime: this.ctx.text.micro(t) }
    }
  }
}
