/** The node condition taints (upstream `node.kubernetes.io/…`, renamed by the spec README "Naming"). */
export const notReadyTaintKey = "node.platform.io/not-ready"
export const unreachableTaintKey = "node.platform.io/unreachable"
