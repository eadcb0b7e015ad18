/**
 * Well-known names of the platform API (upstream `k8s.io/api/core/v1` well_known_labels.go and
 * well_known_taints.go, with the `.platform` renaming of the spec): node labels, the node-lease namespace, the
 * taint keys the node controllers and agents set, and the namespaces every server starts with. One place, so the
 * agent that writes a label and the controller that reads it cannot drift apart.
 */

/** Node labels the node agent sets at registration. */
export const hostnameLabel = "platform.io/hostname"
export const archLabel = "platform.io/arch"
export const osLabel = "platform.io/os"
export const zoneLabel = "topology.platform.io/zone"
export const regionLabel = "topology.platform.io/region"

/**
 * clustersim's mark on the Nodes and node Leases its simulated agents own (as KWOK marks its fake nodes): a run
 * adopts or deletes only objects carrying it, and never touches a node without it (docs/cluster.md "Real time").
 */
export const simulatedLabel = "clustersim.io/simulated"
export const simulatedLabelValue = "true"

/** Label every namespace carries with its own name (`NamespaceDefaultLabelName` upstream). */
export const namespaceNameLabel = "platform.io/metadata.name"

/** Where node agents keep their heartbeat leases. */
export const nodeLeaseNamespace = "platform-node-lease"
export const systemNamespace = "platform-system"
export const publicNamespace = "platform-public"
export const defaultNamespace = "default"

/** Taint keys of node conditions (upstream `TaintNodeNotReady`, …). */
export const TaintKeys = {
  notReady: "node.platform.io/not-ready",
  unreachable: "node.platform.io/unreachable",
  unschedulable: "node.platform.io/unschedulable",
  memoryPressure: "node.platform.io/memory-pressure",
  diskPressure: "node.platform.io/disk-pressure",
  pidPressure: "node.platform.io/pid-pressure",
  networkUnavailable: "node.platform.io/network-unavailable"
} as const

/** The priority at and above which a pod is critical (upstream `scheduling.SystemCriticalPriority`). */
export const systemCriticalPriority = 2_000_000_000
