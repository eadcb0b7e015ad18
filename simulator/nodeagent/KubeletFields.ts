/**
 * The fields a real kubelet writes that stock clients read and the simulation does not need (docs/serve.md "Node and
 * pod addresses"): a Node's `status.nodeInfo` under upstream's ten field names (`NodeSystemInfo`: the Python client
 * refuses a Node without any of them), its `addresses` and `daemonEndpoints`, its `spec.podCIDR(s)`; a pod's
 * `hostIP`, `podIP` and each container's `image`, `imageID` and `containerID` (`V1ContainerStatus` requires the first
 * two). Deterministic: identifiers are digests of the node's name or the pod's uid, never random. Pure.
 */
import { createHash } from "node:crypto"
import type { NodeAddresses } from "./NodeNetwork.js"

/** The version the simulated node agents report (upstream's `kubeletVersion`, the spec's `nodeAgentVersion`). */
export const nodeAgentVersion = "v1.26.0"

/** The simulated container runtime: its name is the scheme of container IDs and `containerRuntimeVersion`. */
const runtimeName = "clustersim"

/** `NodeSystemInfo` fields the same on every simulated node (one shared string each). */
const sharedInfo = {
  kernelVersion: "6.1.0-clustersim",
  osImage: "clustersim simulated node",
  containerRuntimeVersion: `${runtimeName}://${nodeAgentVersion.slice(1)}`,
  kubeletVersion: nodeAgentVersion,
  kubeProxyVersion: nodeAgentVersion,
  operatingSystem: "linux",
  architecture: "amd64"
} as const

const digest = (text: string): string => createHash("sha256").update(text).digest("hex")

/** A UUID's text (8-4-4-4-12) from a digest's first 32 hex digits, version 4 and variant bits set as RFC 4122's. */
const uuidOf = (hex: string): string => {
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/**
 * A node's `status.nodeInfo`: upstream's ten fields (machineID as /etc/machine-id's 32 hex digits, systemUUID and
 * bootID as UUIDs, each a digest of the node's name) and the spec's `nodeAgentVersion` beside `kubeletVersion`,
 * which clustersim's own virtual-time nodes carry alone.
 */
export const nodeSystemInfo = (node: string) => ({
  machineID: digest(`machine-id/${node}`).slice(0, 32),
  systemUUID: uuidOf(digest(`system-uuid/${node}`)),
  bootID: uuidOf(digest(`boot-id/${node}`)),
  ...sharedInfo,
  nodeAgentVersion
})

/** The kubelet's port (`ports.KubeletPort`), where a real API server would dial for logs and exec. */
export const kubeletPort = 10250

/** What a kubelet adds to its Node's status: nodeInfo, addresses (InternalIP, Hostname) and its endpoint. */
export const nodeStatusFields = (node: string, addresses: NodeAddresses) => ({
  nodeInfo: nodeSystemInfo(node),
  addresses: [
    { type: "InternalIP", address: addresses.internalIP },
    { type: "Hostname", address: node }
  ],
  daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } }
})

/** What the node IPAM controller sets on a Node's spec, written here at registration. */
export const nodeSpecFields = (addresses: NodeAddresses) => ({ podCIDR: addresses.podCIDR, podCIDRs: [addresses.podCIDR] })

/**
 * An image reference as a container runtime reports it (docker's reference normalisation, `ParseNormalizedNamed`):
 * `nginx` is `docker.io/library/nginx:latest`, `me/app:1` `docker.io/me/app:1`; a reference with a registry or a
 * digest keeps it.
 */
export const normalizedImage = (image: string): string => {
  const slash = image.indexOf("/")
  const first = slash < 0 ? "" : image.slice(0, slash)
  const hasRegistry = first.includes(".") || first.includes(":") || first === "localhost"
  const named = hasRegistry ? image : slash < 0 ? `docker.io/library/${image}` : `docker.io/${image}`
  const lastPart = named.slice(named.lastIndexOf("/") + 1)
  return named.includes("@") || lastPart.includes(":") ? named : `${named}:latest`
}

/** The image's ID as the runtime reports it: the repository and a digest (of the reference: no registry is asked). */
export const imageIdOf = (image: string): string => {
  const normalized = normalizedImage(image)
  const at = normalized.indexOf("@")
  if (at >= 0) return normalized
  const lastSlash = normalized.lastIndexOf("/")
  const colon = normalized.indexOf(":", lastSlash)
  return `${normalized.slice(0, colon)}@sha256:${digest(`image/${normalized}`)}`
}

/** A container's ID (`<runtime>://<64 hex digits>`), from its pod's uid and its name. */
export const containerIdOf = (podUid: string, container: string): string => `${runtimeName}://${digest(`container/${podUid}/${container}`)}`
