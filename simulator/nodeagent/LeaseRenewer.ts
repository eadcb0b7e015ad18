/**
 * The node lease (upstream `pkg/kubelet/nodelease` and `component-helpers/apimachinery/lease`):
 * `platform-node-lease/<node>` renewed every 0.25 × nodeLeaseDurationSeconds, sliding, jitter 0.04 (next start =
 * previous end + [interval, 1.04 × interval)). A failed update is retried at once up to 5 tries, then ensure-lease
 * (GET; 404 → create) with backoff 200 ms, 400 ms, … 7 s until it succeeds. The lease client is not rate-limited.
 * A request given up after client-go's 429 retries (`ShardContext.send`) was never sent and fails the same way, when
 * its last 429 is answered.
 */
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import type { BookedClient } from "../apiserver/BookedClient.js"
import { NotingWriteOptions } from "../apiserver/Write.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { Leases } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import type { AgentState } from "./AgentState.js"
import { isOwned } from "./Registration.js"
import { renewalSpecOf } from "./RenewalSpec.js"
import { Kind, type Request, type ShardContext } from "./ShardContext.js"
import { type ClientError, hasStatusCode } from "../../src/client/TransportError.js"

/** Lease timing constants (`pkg/kubelet/nodelease`, `lease/controller.go`). */
export const leaseTiming = {
  renewFraction: 0.25,
  jitterFactor: 0.04,
  maxUpdateTries: 5,
  backoffStartMs: 200,
  backoffMaxMs: 7_000
} as const

const leaseOptions = { namespace: nodeLeaseNamespace } as const

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
    if (a.pending !== undefined) this.beforeRenewal(a, t)
    if (!ctx.reachable(a, t)) return void this.failed(a, t + ctx.timeoutMs)
    if (a.ensuring || a.leaseMeta === undefined) return this.ensure(a, t)
    return this.update(a, t, t)
  }

  /**
   * A lease request failed at `failedAt` without an answer (the server unreachable, or given up after 429s) and
   * is tried again as the lease client does: ensure-lease backs off; an update is retried at once.
   */
  private readonly failed = (a: AgentState, failedAt: number): void => {
    const ctx = this.ctx
    ctx.env.metrics.leaseFailures++
    ctx.env.metrics.leaseTimeline?.failure(failedAt)
    if (a.ensuring) {
      // backoffEnsureLease: sleep, doubling up to 7 s, and try again, forever
      const next = failedAt + a.backoffMs
      a.backoffMs = Math.min(2 * a.backoffMs, leaseTiming.backoffMaxMs)
      ctx.at(a, next, Kind.Lease)
    } else if (a.leaseMeta !== undefined && a.leaseTries + 1 < leaseTiming.maxUpdateTries) {
      a.leaseTries++
      ctx.at(a, failedAt, Kind.Lease)
    } else {
      // "failed 5 attempts to update lease" (or no lease known yet): fall back to ensure-lease at once
      a.ensuring = true
      a.leaseTries = 0
      a.backoffMs = leaseTiming.backoffStartMs
      ctx.at(a, failedAt, Kind.Lease)
    }
  }

  /** ensure-lease: GET it; a 404 creates it, anything else renews what was read. */
  private ensure(a: AgentState, t: number): Request {
    const ctx = this.ctx
    return ctx.send(
      a,
      t,
      (client) => client.get(Leases, a.node.name, leaseOptions),
      (lease, _, end) => {
        this.ensured(a)
        // someone else's lease of this name: leave it alone, this agent renews nothing
        if (!isOwned(ctx.env, lease)) return void ctx.env.metrics.foreignNodes.push(a.node.name)
        this.remember(a, lease)
        return this.update(a, t, end)
      },
      (e, _, end) => {
        if (hasStatusCode(e, 404)) return this.create(a, t, end)
        this.ensured(a)
        this.conflict(a, end)
      },
      this.failed,
      404
    )
  }

  /**
   * ensure-lease was answered (its GET, or the create after a 404): its back-off ends, and the update that follows
   * has its 5 tries. Until then a given-up GET or create goes on backing off (`failed`).
   */
  private ensured(a: AgentState): void {
    a.ensuring = false
    a.leaseTries = 0
  }

  private create(a: AgentState, t: number, start: number): Request {
    const lease = this.newLease(a, start)
    return this.ctx.send(
      a,
      start,
      (client) => client.create(Leases, lease, leaseOptions),
      (made, _, end) => {
        this.ensured(a)
        this.ctx.env.metrics.leaseCreates++
        this.written(a, made.object, t, end)
      },
      (_e, _, end) => {
        this.ensured(a)
        this.conflict(a, end)
      },
      this.failed
    )
  }

  /** PUT the lease with a new renewTime (and the owner reference once the Node's uid is known). */
  private update(a: AgentState, t: number, start: number): Request {
    const meta = a.leaseMeta!
    this.renewal = {
      metadata: meta.ownerReferences === undefined && a.uid !== undefined ? { ...extendable, ...meta, ownerReferences: [this.ownerOf(a)] } : meta,
      spec: renewalSpecOf(a, a.leaseSpec, this.ctx.text.micro(start))
    }
    // A renewal sent when due (nearly all) counts from the instant it was sent (`send` hands it back); one sent after
    // ensure-lease's GET counts from when it was due, kept in the agent's state: a time is a number V8 keeps in a box
    // of its own, one more cold object written per renewal (docs/benchmarks.md "Where a lease renewal's CPU goes").
    if (t === start) return this.ctx.send(a, start, this.sendRenewal, this.renewed, this.renewalRejected, this.renewalGivenUp)
    a.renewalDueAt = t
    return this.ctx.send(a, start, this.sendRenewal, this.renewedAfterEnsure, this.renewalRejected, this.renewalGivenUp)
  }

  /**
   * The renewal `update` sends, read by `sendRenewal` only, which `send` calls before it returns (at most one renewal
   * is made at a time): not kept in the agent's state, where each renewal stored a young object into an old one — a
   * slot the next scavenge visits, in a cold line of one of 65,000 agents (docs/benchmarks.md).
   */
  private renewal: KObject | undefined = undefined

  // The renewal's request and answers, made once: the renewal's own values are in the agent's state and `renewal`.
  // Its options carry the agent's note of its lease's entry in an in-process server's store (`EntryNote.ts`).
  private readonly sendRenewal = (client: BookedClient, a: AgentState) =>
    client.update(Leases, this.renewal!, a.renewalOptions ?? (a.renewalOptions = new NotingWriteOptions(nodeLeaseNamespace)))

  private readonly renewed = (written: WriteResult, a: AgentState, end: number, sentAt: number): void => {
    this.written(a, written.object, sentAt, end)
  }

  private readonly renewedAfterEnsure = (written: WriteResult, a: AgentState, end: number): void => {
    this.written(a, written.object, a.renewalDueAt, end)
  }

  private readonly renewalRejected = (_: ClientError, a: AgentState, end: number): void => {
    this.conflict(a, end)
  }

  private readonly renewalGivenUp = (a: AgentState, at: number): void => {
    this.failed(a, at)
  }

  /** Keeps the parts of a lease the next renewal sends back (parts of the stored object: nothing is copied). */
  private remember(a: AgentState, lease: KObject): void {
    a.leaseMeta = lease.metadata
    a.leaseSpec = (lease.spec ?? {}) as Record<string, unknown>
  }

  private written(a: AgentState, lease: KObject, t: number, end: number): void {
    this.remember(a, lease)
    // the next renewal's update has its 5 tries again (retryUpdateLease counts per renewal)
    a.leaseTries = 0
    const metrics = this.ctx.env.metrics
    metrics.leaseWrites++
    metrics.recordLeaseLatency(end - t)
    metrics.leaseTimeline?.write(end, end - t)
    metrics.observer?.leaseWritten(end - t)
    const next = Math.round(end + this.ctx.jittered(this.renewIntervalMs, leaseTiming.jitterFactor))
    this.ctx.at(a, next, Kind.Lease)
  }

  /** A rejected lease write (409 after someone else wrote it): read it again on the next try, as the lease client does. */
  private conflict(a: AgentState, at: number): void {
    this.ctx.env.metrics.leaseFailures++
    this.ctx.env.metrics.leaseTimeline?.failure(at)
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
