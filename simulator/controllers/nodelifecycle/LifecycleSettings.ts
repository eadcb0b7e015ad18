/**
 * The node lifecycle controller's settings (kube-controller-manager flags `--node-monitor-period`,
 * `--node-monitor-grace-period`, `--node-startup-grace-period`, `--node-eviction-rate`,
 * `--secondary-node-eviction-rate`, `--large-cluster-size-threshold`, `--unhealthy-zone-threshold`)
 * and the log of what it did, which a cluster run reports.
 */

/** A zone's state (`ComputeZoneState`, `ZoneQueues.ts`). */
export type ZoneState = "Normal" | "PartialDisruption" | "FullDisruption"

export interface NodeLifecycleSettings {
  readonly monitorPeriodMs: number
  readonly gracePeriodMs: number
  readonly startupGracePeriodMs: number
  readonly evictionRate: number
  readonly secondaryEvictionRate: number
  readonly largeClusterSizeThreshold: number
  readonly unhealthyZoneThreshold: number
}

/** Controller-manager defaults (`pkg/controller/nodelifecycle/config/v1alpha1/defaults.go`). */
export const defaultNodeLifecycleSettings: NodeLifecycleSettings = {
  monitorPeriodMs: 5_000,
  gracePeriodMs: 40_000,
  startupGracePeriodMs: 60_000,
  evictionRate: 0.1,
  secondaryEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55
}

/** What the controller did, in virtual ms; the cluster run reports it. */
export interface LifecycleLog {
  readonly events: Array<{ readonly t: number; readonly reason: string; readonly object: string; readonly note: string }>
  readonly zoneStates: Array<{ readonly t: number; readonly zone: string; readonly state: ZoneState }>
}

export const makeLifecycleLog = (): LifecycleLog => ({ events: [], zoneStates: [] })
