/**
 * The addresses of a live cluster's nodes and pods, as a real cluster's node IPAM and CNI would hand them out
 * (docs/serve.md "Node and pod addresses"): each node a pod CIDR (upstream node-ipam controller's `spec.podCIDR`, a
 * /24 of the cluster CIDR 10.244.0.0/16 — the common default of `--cluster-cidr` and `--node-cidr-mask-size`) and
 * an InternalIP; each pod the lowest free address of its node's range from .2 on (the bridge plugin's host-local
 * IPAM keeps .1 for the gateway), given back when the pod is deleted. Everything follows from the node's ordinal in
 * the cluster plan and the order pods start: nothing random. Pure, apart from each node's set of addresses in use.
 */
import { ipv4Text, parseIPv4 } from "../../src/api/IPv4.js"

/** Upstream's common default cluster CIDR (`kube-controller-manager --cluster-cidr`, kubeadm and kind). */
export const defaultClusterCidr = "10.244.0.0/16"

/**
 * Clusters of more nodes than 10.244.0.0/16 has /24s (256) take their pod CIDRs from here: 32,768 /24s, clear of the
 * service range 10.96.0.0/12 (src/api/kinds/ServiceAllocation.ts). Past that, the nodes' ranges halve (/25, /26) to fit.
 */
export const largeClusterCidr = "10.128.0.0/9"

const networkOf = (cidr: string): number => parseIPv4(cidr.slice(0, cidr.indexOf("/")))!
const defaultBase = networkOf(defaultClusterCidr)
const largeBase = networkOf(largeClusterCidr)

/** Node InternalIPs: from 172.16.0.2 on, one per node (a /12 holds a million). */
const nodeAddressBase = parseIPv4("172.16.0.2")!

/** One node's addresses: its pod range and its InternalIP. */
export interface NodeAddresses {
  /** `spec.podCIDR`, e.g. `10.244.3.0/24`. */
  readonly podCIDR: string
  /** The node's InternalIP (`status.addresses`, a pod's `hostIP`). */
  readonly internalIP: string
  /** The range's first address and its size (a power of two). */
  readonly rangeBase: number
  readonly rangeSize: number
}

/** The pod range of node `ordinal` in a cluster of `nodes`: where it starts and its prefix length. */
export const podRangeOf = (ordinal: number, nodes: number): { readonly base: number; readonly prefix: number } => {
  if (nodes <= 256) return { base: defaultBase + ordinal * 256, prefix: 24 }
  // 10.128.0.0/9 has 2^15 /24s: a /24 per node up to 32,768 nodes, then the smallest halving that fits them all
  let prefix = 24
  while (nodes > 2 ** (prefix - 9)) prefix++
  return { base: largeBase + ordinal * 2 ** (32 - prefix), prefix }
}

/** The addresses of node `ordinal` in a cluster of `nodes`. */
export const nodeAddressesOf = (ordinal: number, nodes: number): NodeAddresses => {
  const { base, prefix } = podRangeOf(ordinal, nodes)
  return { podCIDR: `${ipv4Text(base)}/${prefix}`, internalIP: ipv4Text(nodeAddressBase + ordinal), rangeBase: base, rangeSize: 2 ** (32 - prefix) }
}

/** The first address a pod gets in its node's range: .1 is the bridge's gateway (host-local IPAM's default). */
const firstPodOffset = 2

/**
 * The addresses in use on one node, by pod key: the lowest free address of the range (past the gateway, short of
 * the broadcast address) for each pod started, the same one again for a pod that has one, freed when it is deleted.
 */
export class PodAddresses {
  private readonly byPod = new Map<string, number>()
  private readonly used = new Set<number>()

  constructor(private readonly node: NodeAddresses) {}

  /** The pod's address: the one it has, else the lowest free; undefined when the range is full. */
  assign(podKey: string): string | undefined {
    const had = this.byPod.get(podKey)
    if (had !== undefined) return ipv4Text(this.node.rangeBase + had)
    for (let offset = firstPodOffset; offset < this.node.rangeSize - 1; offset++) {
      if (this.used.has(offset)) continue
      this.used.add(offset)
      this.byPod.set(podKey, offset)
      return ipv4Text(this.node.rangeBase + offset)
    }
    return undefined
  }

  /** The pod is gone: its address is free again. */
  release(podKey: string): void {
    const offset = this.byPod.get(podKey)
    if (offset === undefined) return
    this.byPod.delete(podKey)
    this.used.delete(offset)
  }
}

/** A cluster's addressing by node name: every node's addresses and the pods' addresses on each. */
export class NodeNetwork {
  private readonly ordinals: ReadonlyMap<string, number>
  private readonly pods = new Map<string, PodAddresses>()

  /** `nodes`: every node of the cluster, in plan order (all segments of a distributed run plan the same). */
  constructor(nodes: ReadonlyArray<string>) {
    this.ordinals = new Map(nodes.map((name, i) => [name, i]))
  }

  /** The addresses of `node`; undefined for a node not in the plan. */
  node(node: string): NodeAddresses | undefined {
    const ordinal = this.ordinals.get(node)
    return ordinal === undefined ? undefined : nodeAddressesOf(ordinal, this.ordinals.size)
  }

  /** The addresses of the pods on `node`, made at its first pod. */
  podsOn(node: string): PodAddresses | undefined {
    let pods = this.pods.get(node)
    if (pods === undefined) {
      const addresses = this.node(node)
      if (addresses === undefined) return undefined
      pods = new PodAddresses(addresses)
      this.pods.set(node, pods)
    }
    return pods
  }
}
