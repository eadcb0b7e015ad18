/**
 * A pod's spec on create and update (`PodSpec.ts`, upstream `ValidatePodSpec` / `ValidatePodCreate`): each rule with
 * its field path and text in upstream's order, and none for a spec a status write shares with the stored pod.
 */
import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import { dns1123LabelMessage, dns1123SubdomainMessage } from "../../../src/api/kinds/Names.js"
import { podRules } from "../../../src/api/kinds/Pod.js"
import { portNameErrors } from "../../../src/api/kinds/PodSpec.js"
import { validateForCreate, validateForUpdate } from "../../../src/api/kinds/Validation.js"

const pod = (spec: Record<string, unknown>): KObject => ({ metadata: { name: "p", namespace: "default", uid: "u" }, spec })
const created = (spec: Record<string, unknown>) => validateForCreate(podRules, true, pod(spec)).map(formatFieldError)
const c = (name: string, image = "nginx", more: Record<string, unknown> = {}) => ({ name, image, ...more })

describe("a pod's spec on create", () => {
  it("needs a container, each named as a DNS label and with an image", () => {
    expect(created({ containers: [] })).toEqual(["spec.containers: Required value"])
    expect(created({})).toEqual(["spec.containers: Required value"])
    expect(created({ containers: [{ name: "c" }] })).toEqual(["spec.containers[0].image: Required value"])
    expect(created({ containers: [{ image: "x" }] })).toEqual(["spec.containers[0].name: Required value"])
    expect(created({ containers: [c("C_X")] })).toEqual([`spec.containers[0].name: Invalid value: "C_X": ${dns1123LabelMessage}`])
    expect(created({ containers: [c("a"), c("b")] })).toEqual([])
  })

  it("names are unique across containers and init containers; an empty init name is not remembered", () => {
    expect(created({ containers: [c("c", "x"), c("c", "y")] })).toEqual(['spec.containers[1].name: Duplicate value: "c"'])
    expect(created({ containers: [c("c")], initContainers: [c("c"), c("i"), c("i")] })).toEqual([
      'spec.initContainers[0].name: Duplicate value: "c"',
      'spec.initContainers[2].name: Duplicate value: "i"'
    ])
    expect(created({ containers: [c("c")], initContainers: [{ image: "x" }, { image: "y" }] })).toEqual([
      "spec.initContainers[0].name: Required value",
      "spec.initContainers[1].name: Required value"
    ])
  })

  it("an init container has no lifecycle or probes", () => {
    expect(created({ containers: [c("c")], initContainers: [c("i", "x", { readinessProbe: { exec: { command: ["true"] } }, lifecycle: {} })] })).toEqual([
      "spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers",
      "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers"
    ])
  })

  it("checks ports: an IANA name unique in the container, a port number in range, a known protocol", () => {
    const ports = [
      { name: "http", containerPort: 80, protocol: "TCP" },
      { name: "http", containerPort: 8080 },
      { name: "Bad_Name", containerPort: 70000, hostPort: -1, protocol: "ICMP" },
      { protocol: "UDP" }
    ]
    expect(created({ containers: [c("c", "x", { ports })] })).toEqual([
      'spec.containers[0].ports[1].name: Duplicate value: "http"',
      'spec.containers[0].ports[2].name: Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      "spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
      "spec.containers[0].ports[2].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
      'spec.containers[0].ports[2].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      "spec.containers[0].ports[3].containerPort: Required value"
    ])
    expect(portNameErrors("a-very-long-port-name")).toEqual(["must be no more than 15 characters"])
    expect(portNameErrors("-a--1-")).toEqual(["must not contain consecutive hyphens", "must not begin or end with a hyphen"])
    expect(portNameErrors("8080")).toEqual(["must contain at least one letter (a-z)"])
  })

  it("checks enumerations that are set, the pod's names and the deadline; pods only: image whitespace, no ephemeral containers", () => {
    expect(
      created({
        containers: [c("c", " nginx", { imagePullPolicy: "Sometimes" })],
        restartPolicy: "Maybe",
        dnsPolicy: "Google",
        nodeSelector: { "a b": "c" },
        serviceAccountName: "Bad",
        nodeName: "node_1",
        activeDeadlineSeconds: 0,
        hostname: "h.x",
        ephemeralContainers: [c("e")]
      })
    ).toEqual([
      'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
      'spec.restartPolicy: Unsupported value: "Maybe": supported values: "Always", "OnFailure", "Never"',
      'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      `spec.nodeSelector: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `spec.serviceAccountName: Invalid value: "Bad": ${dns1123SubdomainMessage}`,
      `spec.nodeName: Invalid value: "node_1": ${dns1123SubdomainMessage}`,
      "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
      `spec.hostname: Invalid value: "h.x": ${dns1123LabelMessage}`,
      'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace',
      "spec.ephemeralContainers: Forbidden: cannot be set on create"
    ])
  })
})

describe("a pod's spec on update", () => {
  const stored = pod({ containers: [c("c")] })

  it("a changed spec is validated as a create's, before the update's own rules; the message lists a repeated text once", () => {
    const errors = validateForUpdate(podRules, pod({ containers: [c("c", " x")] }), stored)
    expect(errors.map(formatFieldError)).toEqual([
      'spec.containers[0].image: Invalid value: " x": must not have leading or trailing whitespace',
      'spec.containers[0].image: Invalid value: " x": must not have leading or trailing whitespace'
    ])
    expect(aggregate(errors)).toBe('spec.containers[0].image: Invalid value: " x": must not have leading or trailing whitespace')
  })

  it("a spec shared with the stored pod (a status write) is not looked at again", () => {
    const invalidStored = pod({ containers: [] })
    expect(validateForUpdate(podRules, { ...invalidStored, status: { phase: "Running" } }, invalidStored)).toEqual([])
  })
})
