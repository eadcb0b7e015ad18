/**
 * What a node agent's requests are to API Priority and Fairness: user `system:node:<name>` in group `system:nodes`
 * (the node authorizer's identity), so its lease and node status go to node-high and its pod status to system
 * (docs/apf.md). One object per node and kind of request, made once and kept by the agent (`AgentState.requests`).
 */
import { classification } from "../apiserver/apf/Bootstrap.js"
import { nodeUser } from "../apiserver/auth/UserInfo.js"
import type { ModelRequest } from "../apiserver/ServiceTime.js"

export interface NodeRequests {
  readonly leaseGet: ModelRequest
  readonly leaseCreate: ModelRequest
  readonly leaseUpdate: ModelRequest
  readonly nodeGet: ModelRequest
  readonly nodeCreate: ModelRequest
  readonly nodeStatusPatch: ModelRequest
  readonly podStatusPatch: ModelRequest
}

const made = new Map<string, NodeRequests>()

export const nodeRequests = (node: string): NodeRequests => {
  let r = made.get(node)
  if (r === undefined) {
    const { name: user, groups } = nodeUser(node)
    // Classified once: an agent sends each of these thousands of times.
    const request = (verb: string, resource: string, namespace: string | undefined): ModelRequest => ({
      user,
      groups,
      verb,
      resource,
      namespace,
      classification: classification({ user, groups, verb, resource, namespace })
    })
    r = {
      leaseGet: request("get", "leases", "kube-node-lease"),
      leaseCreate: request("create", "leases", "kube-node-lease"),
      leaseUpdate: request("update", "leases", "kube-node-lease"),
      nodeGet: request("get", "nodes", undefined),
      nodeCreate: request("create", "nodes", undefined),
      nodeStatusPatch: request("patch", "nodes/status", undefined),
      podStatusPatch: request("patch", "pods/status", "default")
    }
    made.set(node, r)
  }
  return r
}
