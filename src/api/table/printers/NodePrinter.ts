/**
 * Node rows (`printNode`): STATUS from the Ready condition (`Ready`, `NotReady`, `Unknown` without one) plus
 * `SchedulingDisabled` for a cordoned node; ROLES from `node-role.kubernetes.io/<role>` and
 * `kubernetes.io/role` labels, sorted.
 */
import type { KObject } from "../../Object.js"
import { ageColumn, column, nameColumn } from "../Columns.js"
import { timestampSince } from "../HumanDuration.js"
import { arr, rec, str, type Printer } from "../Printer.js"

const labelNodeRolePrefix = "node-role.kubernetes.io/"
const nodeLabelRole = "kubernetes.io/role"

export const nodeRoles = (labels: Readonly<Record<string, string>> | undefined): ReadonlyArray<string> => {
  const roles = new Set<string>()
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(labelNodeRolePrefix)) {
      const role = k.slice(labelNodeRolePrefix.length)
      if (role.length > 0) roles.add(role)
    } else if (k === nodeLabelRole && v !== "") roles.add(v)
  }
  // sets.String.List(): byte order.
  return [...roles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

const address = (node: KObject, type: string): string =>
  str(rec(arr(rec(node.status).addresses).find((a) => rec(a).type === type)).address) || "<none>"

const addressesDescription = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP)."

export const nodePrinter: Printer = {
  columns: [
    nameColumn,
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    ageColumn,
    column("Version", "string", "Kubelet Version reported by the node."),
    column("Internal-IP", "string", addressesDescription, { priority: 1 }),
    column("External-IP", "string", addressesDescription, { priority: 1 }),
    column("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", { priority: 1 }),
    column("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", { priority: 1 }),
    column("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", { priority: 1 })
  ],
  row: (node: KObject, now: number) => {
    const status = rec(node.status)
    const info = rec(status.nodeInfo)
    // The last Ready condition wins, as upstream's map by type keeps the last.
    const ready = arr(status.conditions).filter((c) => rec(c).type === "Ready").at(-1)
    const states = ready === undefined ? ["Unknown"] : [rec(ready).status === "True" ? "Ready" : "NotReady"]
    if (rec(node.spec).unschedulable === true) states.push("SchedulingDisabled")
    const roles = nodeRoles(node.metadata.labels).join(",") || "<none>"
    return {
      cells: [
        node.metadata.name ?? "",
        states.join(","),
        roles,
        timestampSince(node.metadata.creationTimestamp, now),
        // upstream's name first; a node only the spec's name describes (virtual time) shows that
        str(info.kubeletVersion) || str(info.nodeAgentVersion),
        address(node, "InternalIP"),
        address(node, "ExternalIP"),
        str(info.osImage) || "<unknown>",
        str(info.kernelVersion) || "<unknown>",
        str(info.containerRuntimeVersion) || "<unknown>"
      ]
    }
  }
}
