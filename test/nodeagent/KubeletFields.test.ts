import { describe, expect, it } from "@effect/vitest"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { objectKey } from "../../simulator/apiserver/Store.js"
import { containerIdOf, imageIdOf, nodeSystemInfo, normalizedImage } from "../../simulator/nodeagent/KubeletFields.js"
import { NodeNetwork, nodeAddressesOf, PodAddresses } from "../../simulator/nodeagent/NodeNetwork.js"
import { podOn, simulateOneNode } from "./oneNode.js"

describe("node and pod addresses (NodeNetwork)", () => {
  it("a /24 of 10.244.0.0/16 per node and an InternalIP from 172.16.0.2, by the node's ordinal", () => {
    expect(nodeAddressesOf(0, 3)).toMatchObject({ podCIDR: "10.244.0.0/24", internalIP: "172.16.0.2" })
    expect(nodeAddressesOf(255, 256)).toMatchObject({ podCIDR: "10.244.255.0/24", internalIP: "172.16.1.1" })
    // more nodes than 10.244.0.0/16 has /24s: 10.128.0.0/9, halved past 32,768 nodes
    expect(nodeAddressesOf(256, 1000).podCIDR).toBe("10.129.0.0/24")
    expect(nodeAddressesOf(49_999, 50_000).podCIDR).toBe("10.225.167.128/25")
    expect(new NodeNetwork(["a", "b"]).node("b")?.podCIDR).toBe("10.244.1.0/24")
  })

  it("a pod gets the lowest free address from .2, the same again, and frees it when deleted", () => {
    const pods = new PodAddresses(nodeAddressesOf(1, 3))
    expect([pods.assign("default/a"), pods.assign("default/b"), pods.assign("default/a")]).toEqual(["10.244.1.2", "10.244.1.3", "10.244.1.2"])
    pods.release("default/a")
    expect(pods.assign("default/c")).toBe("10.244.1.2")
    // a /24 holds 253 pods (.2 … .254)
    const full = new PodAddresses(nodeAddressesOf(0, 1))
    const given = Array.from({ length: 254 }, (_, i) => full.assign(`p${i}`))
    expect(given[252]).toBe("10.244.0.254")
    expect(given[253]).toBeUndefined()
  })
})

describe("what the kubelet writes for stock clients (KubeletFields)", () => {
  it("nodeInfo: upstream's ten fields and nodeAgentVersion, identifiers a digest of the name", () => {
    const info = nodeSystemInfo("node-0")
    expect(Object.keys(info)).toEqual([
      "machineID",
      "systemUUID",
      "bootID",
      "kernelVersion",
      "osImage",
      "containerRuntimeVersion",
      "kubeletVersion",
      "kubeProxyVersion",
      "operatingSystem",
      "architecture",
      "nodeAgentVersion"
    ])
    expect(info).toMatchObject({ kubeletVersion: "v1.26.0", nodeAgentVersion: "v1.26.0", operatingSystem: "linux", architecture: "amd64" })
    expect(info.machineID).toMatch(/^[0-9a-f]{32}$/)
    expect(info.bootID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(nodeSystemInfo("node-0")).toEqual(info)
    expect(nodeSystemInfo("node-1").bootID).not.toBe(info.bootID)
  })

  it("images as a runtime reports them", () => {
    expect(normalizedImage("nginx")).toBe("docker.io/library/nginx:latest")
    expect(normalizedImage("nginx:1.27")).toBe("docker.io/library/nginx:1.27")
    expect(normalizedImage("me/app:1")).toBe("docker.io/me/app:1")
    expect(normalizedImage("registry.example/app:1")).toBe("registry.example/app:1")
    expect(normalizedImage("localhost:5000/app")).toBe("localhost:5000/app:latest")
    expect(imageIdOf("nginx:1.27")).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/)
    expect(imageIdOf("app@sha256:abc")).toBe("docker.io/library/app@sha256:abc")
    expect(containerIdOf("uid-1", "app")).toMatch(/^clustersim:\/\/[0-9a-f]{64}$/)
  })
})

describe("a node agent with the cluster's addresses (real time's)", () => {
  const network = () => new NodeNetwork(["node-0"])

  it("registers its Node with nodeInfo, addresses, its endpoint and pod CIDR", () => {
    const { server } = simulateOneNode(5_000, { network: network() })
    const node = server.store.lookup(Nodes, undefined, "node-0")!.obj
    expect(node.spec).toEqual({ podCIDR: "10.244.0.0/24", podCIDRs: ["10.244.0.0/24"] })
    expect(node.status).toMatchObject({
      nodeInfo: nodeSystemInfo("node-0"),
      addresses: [
        { type: "InternalIP", address: "172.16.0.2" },
        { type: "Hostname", address: "node-0" }
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } }
    })
  })

  it("writes each pod's IPs and its containers' images; a deleted pod's address goes to the next", () => {
    const { get } = simulateOneNode(20_000, {
      network: network(),
      steps: [
        [6_000, (s, now) => void s.store.remove(Pods, objectKey("default", "p0"), now)],
        [7_000, (s, now) => void s.store.putFresh(Pods, objectKey("default", "p2"), podOn("p2"), now)]
      ]
    })
    expect(get("p1")?.status).toMatchObject({
      phase: "Running",
      hostIP: "172.16.0.2",
      hostIPs: [{ ip: "172.16.0.2" }],
      podIP: "10.244.0.3",
      podIPs: [{ ip: "10.244.0.3" }],
      containerStatuses: [
        {
          name: "app",
          state: { running: {} },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: "registry.example/app:1",
          imageID: imageIdOf("registry.example/app:1"),
          containerID: containerIdOf("uid-p1", "app"),
          started: true
        }
      ]
    })
    expect((get("p2")?.status as { podIP?: string }).podIP).toBe("10.244.0.2")
  })

  it("without them (a simulation) writes what it always wrote", () => {
    const { server, get } = simulateOneNode(5_000)
    const node = server.store.lookup(Nodes, undefined, "node-0")!.obj
    expect(node.spec).toEqual({})
    expect((node.status as { nodeInfo: object }).nodeInfo).toEqual({ nodeAgentVersion: "v1.26.0", operatingSystem: "linux", architecture: "amd64" })
    expect(get("p0")?.status).not.toHaveProperty("podIP")
  })
})
