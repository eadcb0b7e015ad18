import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { formatFieldError } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import { defaultService, validateService, validateServiceUpdate } from "../../../src/api/kinds/Service.js"
import { allocateCreate, allocateUpdate, type TakenAddresses } from "../../../src/api/kinds/ServiceAllocation.js"

const service = (spec: object, name = "web"): KObject => ({ metadata: { name, namespace: "default" }, spec })
const errorsOf = (svc: KObject) => validateService(svc).map(formatFieldError)
const none: TakenAddresses = { clusterIPs: new Set(), nodePorts: new Set() }
const taken = (ips: ReadonlyArray<string>, ports: ReadonlyArray<number> = []): TakenAddresses => ({ clusterIPs: new Set(ips), nodePorts: new Set(ports) })
const created = (svc: KObject, t: TakenAddresses = none) => Either.getOrThrow(allocateCreate(defaultService(svc), t)).spec as Record<string, unknown>

describe("Service defaults (SetDefaults_Service)", () => {
  it("kubectl expose's body: type, affinity, protocol, target port, internal traffic policy", () => {
    const spec = defaultService(service({ ports: [{ port: 80 }], selector: { app: "web" } })).spec
    expect(spec).toEqual({
      ports: [{ protocol: "TCP", port: 80, targetPort: 80 }],
      selector: { app: "web" },
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster"
    })
    // upstream's field order, so JSON answers read as upstream's
    expect(Object.keys(spec as object)).toEqual(["ports", "selector", "type", "sessionAffinity", "internalTrafficPolicy"])
  })

  it("NodePort and LoadBalancer get externalTrafficPolicy; LoadBalancer allocateLoadBalancerNodePorts; ClientIP its timeout", () => {
    expect(defaultService(service({ type: "NodePort", ports: [{ port: 80, targetPort: "http" }] })).spec).toMatchObject({ externalTrafficPolicy: "Cluster", ports: [{ targetPort: "http" }] })
    expect(defaultService(service({ type: "LoadBalancer", ports: [{ port: 80 }] })).spec).toMatchObject({ allocateLoadBalancerNodePorts: true, externalTrafficPolicy: "Cluster" })
    expect(defaultService(service({ sessionAffinity: "ClientIP", ports: [{ port: 80 }] })).spec).toMatchObject({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } })
    // ExternalName: no traffic policy
    expect(defaultService(service({ type: "ExternalName", externalName: "example.com" })).spec).not.toHaveProperty("internalTrafficPolicy")
  })
})

describe("Service validation (ValidateService)", () => {
  it("ports are required, except for headless and ExternalName Services", () => {
    expect(errorsOf(defaultService(service({ selector: { app: "web" } })))).toEqual(["spec.ports: Required value"])
    expect(errorsOf(defaultService(service({ clusterIP: "None", clusterIPs: ["None"] })))).toEqual([])
    expect(errorsOf(defaultService(service({ type: "ExternalName", externalName: "db.example.com." })))).toEqual([])
    expect(errorsOf(defaultService(service({ type: "ExternalName" })))).toEqual(["spec.externalName: Required value"])
  })

  it("ports: names when several, numbers, protocols; nodePort not with ClusterIP; duplicates", () => {
    const svc = defaultService(service({ ports: [{ port: 80, nodePort: 30001 }, { port: 0, protocol: "HTTP" }, { name: "a", port: 80 }] }))
    expect(errorsOf(svc)).toEqual([
      "spec.ports[0].name: Required value",
      "spec.ports[1].name: Required value",
      "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      'spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      "spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
      'spec.ports[2]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'
    ])
  })

  it("a headless NodePort, an unknown type, a clusterIP that is no IP", () => {
    expect(errorsOf(defaultService(service({ type: "NodePort", clusterIP: "None", clusterIPs: ["None"], ports: [{ port: 80 }] })))).toEqual([
      `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`
    ])
    expect(errorsOf(defaultService(service({ type: "Bogus", ports: [{ port: 80 }] })))).toEqual([
      'spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'
    ])
    expect(errorsOf(defaultService(service({ clusterIP: "10.96.x", clusterIPs: ["10.96.x"], ports: [{ port: 80 }] })))).toEqual([
      'spec.clusterIPs[0]: Invalid value: "10.96.x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'
    ])
  })

  it("an update may not change the cluster IP (validateUpgradeDowngradeClusterIPs)", () => {
    const old = service({ ...created(service({ ports: [{ port: 80 }] })) })
    const moved = service({ ...(old.spec as object), clusterIP: "10.96.5.5", clusterIPs: ["10.96.5.5"] })
    expect(validateServiceUpdate(moved, old).map(formatFieldError)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"10.96.5.5"}: may not change once set'])
    expect(validateServiceUpdate(old, old)).toEqual([])
  })
})

describe("Service allocation (the registry's beginCreate / beginUpdate)", () => {
  it("the lowest free cluster IP of 10.96.0.0/12's upper band, single-stack IPv4", () => {
    expect(created(service({ ports: [{ port: 80 }] }))).toMatchObject({ clusterIP: "10.96.1.1", clusterIPs: ["10.96.1.1"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" })
    expect(created(service({ ports: [{ port: 80 }] }), taken(["10.96.1.1", "10.96.1.3"])).clusterIP).toBe("10.96.1.2")
  })

  it("a requested cluster IP: honoured when free, else upstream's 422 causes", () => {
    expect(created(service({ clusterIP: "10.96.0.10", ports: [{ port: 80 }] })).clusterIPs).toEqual(["10.96.0.10"])
    const refused = (ip: string, t: TakenAddresses) => {
      const out = allocateCreate(defaultService(service({ clusterIP: ip, ports: [{ port: 80 }] })), t)
      return Either.isLeft(out) && out.left._tag === "Invalid" ? out.left.errors.map(formatFieldError) : []
    }
    expect(refused("10.96.0.10", taken(["10.96.0.10"]))).toEqual(['spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated'])
    expect(refused("1.1.1.1", none)).toEqual([
      'spec.clusterIPs: Invalid value: []string{"1.1.1.1"}: failed to allocate IP 1.1.1.1: the provided IP (1.1.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12'
    ])
    expect(refused("fd00::1", none)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"fd00::1"}: IPv6 is not configured on this cluster'])
  })

  it("headless keeps None; headless without a selector is RequireDualStack; ExternalName gets nothing", () => {
    expect(created(service({ clusterIP: "None", selector: { a: "b" } }))).toMatchObject({ clusterIP: "None", clusterIPs: ["None"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" })
    expect(created(service({ clusterIP: "None" }))).toMatchObject({ ipFamilies: ["IPv4", "IPv6"], ipFamilyPolicy: "RequireDualStack" })
    const ext = created(service({ type: "ExternalName", externalName: "example.com" }))
    expect(ext).not.toHaveProperty("clusterIP")
    expect(ext).not.toHaveProperty("ipFamilies")
  })

  it("node ports: from 30086 (the upper band), one per port number, requested ones checked", () => {
    const spec = created(service({ type: "NodePort", ports: [{ name: "a", port: 80 }, { name: "b", port: 80, protocol: "UDP" }, { name: "c", port: 443 }] }), taken([], [30086]))
    expect((spec.ports as Array<{ nodePort: number }>).map((p) => p.nodePort)).toEqual([30087, 30087, 30088])
    const refusal = (nodePort: number) => {
      const out = allocateCreate(defaultService(service({ type: "NodePort", ports: [{ port: 80, nodePort }] })), taken([], [30500]))
      return Either.isLeft(out) && out.left._tag === "Invalid" ? out.left.errors.map(formatFieldError) : []
    }
    expect(refusal(30500)).toEqual(["spec.ports[0].nodePort: Invalid value: 30500: provided port is already allocated"])
    expect(refusal(80)).toEqual(["spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767"])
    // a LoadBalancer that allocates no node ports keeps only those asked for
    expect(created(service({ type: "LoadBalancer", allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] })).ports).toEqual([{ protocol: "TCP", port: 80, targetPort: 80 }])
  })

  it("an update keeps what was allocated when the body leaves it out, and allocates for a new type", () => {
    const old = service(created(service({ type: "NodePort", ports: [{ name: "http", port: 80 }] })))
    const t = taken(["10.96.1.1"], [30086])
    // kubectl replace of the original manifest: no clusterIP, no nodePort
    const replaced = Either.getOrThrow(allocateUpdate(defaultService(service({ type: "NodePort", ports: [{ name: "http", port: 80 }] })), old, t)).spec
    expect(replaced).toMatchObject({ clusterIP: "10.96.1.1", clusterIPs: ["10.96.1.1"], ports: [{ nodePort: 30086 }] })
    // its own node port is no conflict
    expect(Either.isRight(allocateUpdate(old, old, t))).toBe(true)
    const ext = service(created(service({ type: "ExternalName", externalName: "example.com" })))
    const nowClusterIP = Either.getOrThrow(allocateUpdate(defaultService(service({ type: "ClusterIP", ports: [{ port: 80 }] })), ext, t)).spec
    expect(nowClusterIP).toMatchObject({ clusterIP: "10.96.1.2", ipFamilies: ["IPv4"] })
  })

  it("a full range is upstream's 500", () => {
    const everyPort = new Set(Array.from({ length: 2768 }, (_, i) => 30000 + i))
    const out = allocateCreate(defaultService(service({ type: "NodePort", ports: [{ port: 80 }] })), { clusterIPs: new Set(), nodePorts: everyPort })
    expect(Either.isLeft(out) && out.left).toEqual({ _tag: "Internal", message: "failed to allocate a nodePort: range is full" })
  })
})
