import { describe, expect, it } from "@effect/vitest"
import { deploymentSchema, nodeSchema, podSchema, serviceSchema } from "../../../src/api/kinds/BuiltinSchemas.js"
import { type FieldSchema, listSemantics, typeError, unknownFields } from "../../../src/api/kinds/FieldSchema.js"

/** The schema at a dotted path of object fields; `[]` steps into array items. */
const at = (schema: FieldSchema, path: string): FieldSchema => {
  let s = schema
  for (const step of path.split(".")) {
    if (step === "[]") {
      if (s.type !== "array") throw new Error(`${path}: ${s.type} is not an array`)
      s = s.items
      continue
    }
    if (s.type !== "object" || s.fields[step] === undefined) throw new Error(`${path}: no field ${step}`)
    s = s.fields[step]!
  }
  return s
}

const semantics = (schema: FieldSchema, path: string) => {
  const s = at(schema, path)
  if (s.type !== "array") throw new Error(`${path} is not a list`)
  return listSemantics(s)
}

describe("built-in schemas carry the upstream 1.26 patch tags", () => {
  it("pod lists merge by their upstream merge keys", () => {
    expect(at(podSchema, "spec.containers")).toMatchObject({ type: "array", goType: "[]v1.Container", patch: { patchStrategy: "merge", patchMergeKey: "name" } })
    expect(semantics(podSchema, "spec.containers")).toEqual({ type: "map", keys: ["name"] })
    expect(semantics(podSchema, "spec.initContainers")).toEqual({ type: "map", keys: ["name"] })
    expect(semantics(podSchema, "spec.ephemeralContainers")).toEqual({ type: "map", keys: ["name"] })
    expect(semantics(podSchema, "spec.containers.[].ports")).toEqual({ type: "map", keys: ["containerPort", "protocol"], keyDefaults: { protocol: "TCP" } })
    expect(at(podSchema, "spec.containers.[].ports")).toMatchObject({ patch: { patchMergeKey: "containerPort" } })
    expect(semantics(podSchema, "spec.containers.[].env")).toEqual({ type: "map", keys: ["name"] })
    expect(semantics(podSchema, "spec.containers.[].volumeMounts")).toEqual({ type: "map", keys: ["mountPath"] })
    expect(semantics(podSchema, "spec.ephemeralContainers.[].env")).toEqual({ type: "map", keys: ["name"] })
    expect(at(podSchema, "spec.volumes")).toMatchObject({ patch: { patchStrategy: "merge,retainKeys", patchMergeKey: "name" } })
    expect(semantics(podSchema, "status.conditions")).toEqual({ type: "map", keys: ["type"] })
    expect(at(podSchema, "spec.nodeSelector")).toMatchObject({ type: "map", patch: { mapType: "atomic" } })
  })

  it("untagged lists are atomic, as upstream: tolerations, taints, node images", () => {
    expect(semantics(podSchema, "spec.tolerations")).toEqual({ type: "atomic" })
    expect(semantics(nodeSchema, "spec.taints")).toEqual({ type: "atomic" })
    expect(semantics(nodeSchema, "status.images")).toEqual({ type: "atomic" })
    expect(semantics(nodeSchema, "status.addresses")).toEqual({ type: "map", keys: ["type"] })
    expect(semantics(nodeSchema, "status.conditions")).toEqual({ type: "map", keys: ["type"] })
    expect(semantics(nodeSchema, "spec.podCIDRs")).toEqual({ type: "set" })
  })

  it("metadata, services and deployments", () => {
    expect(semantics(podSchema, "metadata.finalizers")).toEqual({ type: "set" })
    expect(semantics(podSchema, "metadata.ownerReferences")).toEqual({ type: "map", keys: ["uid"] })
    expect(at(podSchema, "metadata.ownerReferences.[]")).toMatchObject({ patch: { structType: "atomic" } })
    expect(semantics(serviceSchema, "spec.ports")).toEqual({ type: "map", keys: ["port", "protocol"], keyDefaults: { protocol: "TCP" } })
    expect(at(deploymentSchema, "spec.strategy")).toMatchObject({ type: "object", patch: { patchStrategy: "retainKeys" } })
    expect(at(deploymentSchema, "spec.selector")).toMatchObject({ type: "object", patch: { structType: "atomic" } })
    expect(semantics(deploymentSchema, "spec.template.spec.containers")).toEqual({ type: "map", keys: ["name"] })
  })

  it("kubelet fields are known under upstream's names and the spec's renamed ones", () => {
    expect(at(nodeSchema, "status.nodeInfo.nodeAgentVersion")).toMatchObject({ type: "string" })
    expect(unknownFields(nodeSchema, { status: { nodeInfo: { kubeletVersion: "v1.26.0", nodeAgentVersion: "v1.26.0", bogus: 1 } } })).toEqual(["status.nodeInfo.bogus"])
  })

  it("decode errors and unknown fields name the Go structs as upstream", () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: 1, image: "i", bogus: true }], volumes: [{ name: "v", emptyDir: {} }] } }
    expect(typeError(podSchema, pod, "Pod", "v1")).toBe(
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string'
    )
    // Inline structs (Volume's VolumeSource) sit in their parent's object.
    expect(unknownFields(podSchema, pod)).toEqual(["spec.containers[0].bogus"])
  })
})
