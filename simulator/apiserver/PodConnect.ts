/**
 * `pods/exec`, `pods/attach` and `pods/portforward`: connect subresources the API server proxies to the pod's
 * kubelet. A simulated node has no kubelet to dial, so every such request ends as upstream's does when the kubelet
 * cannot be reached (docs/stock-clients.md "exec, attach, port-forward"). Upstream's order: the pod (404), the
 * container (`streamLocation`, `pkg/registry/core/pod/strategy.go`), the node (400 `does not have a host
 * assigned`), then `UpgradeAwareHandler` (`apimachinery/pkg/util/proxy/upgradeaware.go`): a plain request is 400
 * `Upgrade request required`, an upgrade fails to dial: 500 `error dialing backend: dial tcp <ip>:<port>: connect:
 * connection refused` (no reason: `ErrorToAPIStatus` of a plain error). Pure.
 */
import { isRecord, type KObject } from "../../src/api/Object.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"

export const connectSubresources: ReadonlySet<string> = new Set(["exec", "attach", "portforward"])

const names = (v: unknown): string => (Array.isArray(v) ? v.filter(isRecord).map((c) => String(c.name ?? "")).join(" ") : "")

/** `streamLocation`'s checks before any dialing, for exec and attach (port-forward names no container). */
export const connectTarget = (pod: KObject, subresource: string, container: string | undefined): ApiError | { readonly nodeName: string } => {
  const spec = isRecord(pod.spec) ? pod.spec : {}
  const name = pod.metadata.name
  if (subresource !== "portforward") {
    const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : []
    if (container === undefined || container === "") {
      if (containers.length === 0) return Status.badRequest(`a container name must be specified for pod ${name}`)
      if (containers.length > 1) {
        const init = names(spec.initContainers)
        return Status.badRequest(`a container name must be specified for pod ${name}, choose one of: [${names(containers)}]${init ? ` or one of the init containers: [${init}]` : ""}`)
      }
    } else {
      const all = [spec.initContainers, spec.containers, spec.ephemeralContainers].flatMap((l) => (Array.isArray(l) ? l.filter(isRecord) : []))
      if (!all.some((c) => c.name === container)) return Status.badRequest(`container ${container} is not valid for pod ${name}`)
    }
  }
  const nodeName = typeof spec.nodeName === "string" ? spec.nodeName : ""
  if (nodeName === "") return Status.badRequest(`pod ${name} does not have a host assigned`)
  return { nodeName }
}

/** The kubelet endpoint of a node (`GetConnectionInfo`): its InternalIP (else its first address) and kubelet port. */
export const kubeletAddress = (node: KObject): string => {
  const status = isRecord(node.status) ? node.status : {}
  const addresses = Array.isArray(status.addresses) ? status.addresses.filter(isRecord) : []
  const address = String((addresses.find((a) => a.type === "InternalIP") ?? addresses[0])?.address ?? node.metadata.name)
  const endpoints = isRecord(status.daemonEndpoints) && isRecord(status.daemonEndpoints.kubeletEndpoint) ? status.daemonEndpoints.kubeletEndpoint : {}
  const port = typeof endpoints.Port === "number" && endpoints.Port > 0 ? endpoints.Port : 10250
  return `${address.includes(":") ? `[${address}]` : address}:${port}`
}

/** What the proxy answers once the pod and its node are known: no upgrade asked, or no kubelet to dial. */
export const proxyFailure = (upgrade: boolean, node: KObject): ApiError =>
  upgrade ? Status.internal(`error dialing backend: dial tcp ${kubeletAddress(node)}: connect: connection refused`) : Status.badRequest("Upgrade request required")
