import { describe, expect, it } from "@effect/vitest"
import { FieldSchema, kindSchema } from "../../../src/api/kinds/FieldSchema.js"
import { leaseSchema } from "../../../src/api/kinds/Lease.js"
import { definitionsOf, documentHash, openApiV2Document, openApiV3Document, openApiV3Index, openApiV3Paths } from "../../../src/api/openapi/Documents.js"
import { decodeOpenApiV2, encodeOpenApiV2 } from "../../../src/api/openapi/ProtobufV2.js"
import { servedApis, type ServedApi } from "../../../src/api/openapi/ServedApis.js"
import { resourceTypes } from "../../../src/api/Resources.js"

const info = { version: "v1.26.15-test" }
type Json = Record<string, any>

const v3 = (path: string): Json => {
  const doc = openApiV3Document(info, path)
  if (doc === undefined) throw new Error(`no document at ${path}`)
  return doc as Json
}

/** Every `$ref` in a document, with where it was found. */
const refs = (value: unknown, at = ""): Array<{ at: string; ref: string }> => {
  if (Array.isArray(value)) return value.flatMap((v, i) => refs(v, `${at}[${i}]`))
  if (value === null || typeof value !== "object") return []
  return Object.entries(value).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" ? [{ at, ref: v }] : refs(v, `${at}.${k}`)))
}

/** Every operation of a document's paths, with its method and path. */
const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => method !== "parameters")
      .map(([method, op]) => ({ path, method, op: op as Json }))
  )

describe("OpenAPI v3 index", () => {
  it("lists every served group/version, the upstream-name views too, each with its document's SHA-512", () => {
    expect(openApiV3Paths()).toEqual(["api/v1", "apis/apps/v1", "apis/coordination.platform/v1", "apis/coordination.k8s.io/v1", "apis/events.platform/v1",
      "apis/events.k8s.io/v1",
      "apis/rbac.authorization.platform/v1",
      "apis/rbac.authorization.k8s.io/v1",
      "apis/authorization.platform/v1",
      "apis/authorization.k8s.io/v1",
      "apis/authentication.platform/v1",
      "apis/authentication.k8s.io/v1"
    ])
    const index = openApiV3Index((p) => `H(${p})`) as Json
    expect(index.paths["apis/coordination.k8s.io/v1"]).toEqual({ serverRelativeURL: "/openapi/v3/apis/coordination.k8s.io/v1?hash=H(apis/coordination.k8s.io/v1)" })
    expect(documentHash(Buffer.from("abc"))).toBe(
      "DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A2192992A274FC1A836BA3C23A3FEEBBD454D4423643CE80E2A9AC94FA54CA49F"
    )
  })
})

describe("OpenAPI v3 group/version documents", () => {
  it("every PATCH operation names its group/version/kind and offers fieldValidation (kubectl's server-side validation check)", () => {
    for (const path of openApiV3Paths()) {
      const patches = operations(v3(path)).filter((o) => o.method === "patch")
      for (const { op } of patches) expect(op.parameters.map((p: Json) => p.name)).toEqual(["dryRun", "fieldManager", "fieldValidation", "force"])
      const gvk = path === "api/v1" ? { group: "", kind: "Pod", version: "v1" } : undefined
      if (gvk) expect(patches.find((o) => o.path === "/api/v1/namespaces/{namespace}/pods/{name}")?.op["x-kubernetes-group-version-kind"]).toEqual(gvk)
    }
    const lease = operations(v3("apis/coordination.k8s.io/v1")).find((o) => o.method === "patch" && o.path.endsWith("/leases/{name}"))
    expect(lease?.path).toBe("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}")
    expect(lease?.op["x-kubernetes-group-version-kind"]).toEqual({ group: "coordination.k8s.io", kind: "Lease", version: "v1" })
    expect(lease?.op.operationId).toBe("patchCoordinationV1NamespacedLease")
    const ids = operations(v3("api/v1")).filter((o) => o.path.includes("/pods")).map((o) => o.op.operationId).sort()
    expect(ids).toEqual([
      "createCoreV1NamespacedPod",
      "deleteCoreV1CollectionNamespacedPod",
      "deleteCoreV1NamespacedPod",
      "listCoreV1NamespacedPod",
      "listCoreV1PodForAllNamespaces",
      "patchCoreV1NamespacedPod",
      "patchCoreV1NamespacedPodStatus",
      "readCoreV1NamespacedPod",
      "readCoreV1NamespacedPodStatus",
      "replaceCoreV1NamespacedPod",
      "replaceCoreV1NamespacedPodStatus"
    ])
  })

  it("a read-only view (core v1 events) has only its reads and deletes", () => {
    const events = operations(v3("api/v1")).filter((o) => o.path.includes("/events"))
    expect(events.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      "delete /api/v1/namespaces/{namespace}/events",
      "delete /api/v1/namespaces/{namespace}/events/{name}",
      "get /api/v1/events",
      "get /api/v1/namespaces/{namespace}/events",
      "get /api/v1/namespaces/{namespace}/events/{name}"
    ])
    // Described in its own package's shape (the core Event message), not the stored events.platform Event's.
    const core = v3("api/v1").components.schemas["io.k8s.api.core.v1.Event"] as Json
    expect(core["x-kubernetes-group-version-kind"]).toEqual([{ group: "", kind: "Event", version: "v1" }])
    expect(core.properties.involvedObject).toEqual({ $ref: "#/components/schemas/io.k8s.api.core.v1.ObjectReference" })
    expect(core.properties.note).toBeUndefined()
  })

  it("the Lease definition is the decoder's schema: fields, types, formats, the meta types by reference", () => {
    const schemas = v3("apis/coordination.k8s.io/v1").components.schemas as Json
    const lease = schemas["io.k8s.api.coordination.v1.Lease"]
    expect(lease["x-kubernetes-group-version-kind"]).toEqual([
      { group: "coordination.platform", kind: "Lease", version: "v1" },
      { group: "coordination.k8s.io", kind: "Lease", version: "v1" }
    ])
    expect(lease.properties).toEqual({
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" },
      spec: { $ref: "#/components/schemas/io.k8s.api.coordination.v1.LeaseSpec" }
    })
    expect(schemas["io.k8s.api.coordination.v1.LeaseSpec"]).toEqual({
      type: "object",
      properties: {
        acquireTime: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" },
        holderIdentity: { type: "string" },
        leaseDurationSeconds: { type: "integer", format: "int32" },
        leaseTransitions: { type: "integer", format: "int32" },
        renewTime: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" }
      }
    })
    expect(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].properties.ownerReferences).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference" },
      "x-kubernetes-patch-merge-key": "uid",
      "x-kubernetes-patch-strategy": "merge"
    })
    expect(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"]["x-kubernetes-map-type"]).toBe("atomic")
    expect(schemas["io.k8s.api.coordination.v1.LeaseList"].properties.items).toEqual({ type: "array", items: { $ref: "#/components/schemas/io.k8s.api.coordination.v1.Lease" } })
  })

  it("the table's patch tags are upstream's extensions: merge keys, list and map types, retainKeys beside a reference", () => {
    const core = v3("api/v1").components.schemas as Json
    expect(core["io.k8s.api.core.v1.PodSpec"].properties.containers).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/io.k8s.api.core.v1.Container" },
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge"
    })
    expect(core["io.k8s.api.core.v1.Container"].properties.ports).toMatchObject({
      "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
      "x-kubernetes-list-type": "map",
      "x-kubernetes-patch-merge-key": "containerPort",
      "x-kubernetes-patch-strategy": "merge"
    })
    expect(core["io.k8s.api.core.v1.PodSpec"].properties.nodeSelector["x-kubernetes-map-type"]).toBe("atomic")
    expect(core["io.k8s.api.core.v1.PodSpec"].properties.tolerations["x-kubernetes-patch-strategy"]).toBeUndefined()
    const apps = v3("apis/apps/v1").components.schemas as Json
    expect(apps["io.k8s.api.apps.v1.DeploymentSpec"].properties.strategy).toEqual({
      allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy" }],
      "x-kubernetes-patch-strategy": "retainKeys"
    })
    // A Deployment's pod template is core's, its selector meta's: named by the Go package, not the kind's.
    expect(apps["io.k8s.api.apps.v1.DeploymentSpec"].properties.template).toEqual({ $ref: "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec" })
    expect(apps["io.k8s.api.apps.v1.DeploymentSpec"].properties.selector).toEqual({ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector" })
    const v2 = openApiV2Document(info) as Json
    expect(v2.definitions["io.k8s.api.apps.v1.DeploymentSpec"].properties.strategy).toEqual({
      $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy",
      "x-kubernetes-patch-strategy": "retainKeys"
    })
    expect(v2.definitions["io.k8s.api.core.v1.ContainerPort"].properties.containerPort).toEqual({ type: "integer", format: "int32" })
    expect(v2.definitions["io.k8s.api.core.v1.ServicePort"].properties.targetPort).toEqual({ $ref: "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString" })
  })

  it("descriptions where the spec gives them: the kind's, a field's, and beside a reference", () => {
    const schemas = v3("apis/events.platform/v1").components.schemas as Json
    const event = schemas["io.k8s.api.events.v1.Event"]
    expect(event.description).toMatch(/^Event is a report of something that happened in the cluster/)
    expect(event.properties.note).toEqual({ description: "Human-readable description of the status of the action; at most 1 kB, but readers must accept up to 64 kB.", type: "string" })
    expect(event.properties.series).toEqual({
      description: "Data for a series of repeated events; unset for a single event.",
      allOf: [{ $ref: "#/components/schemas/io.k8s.api.events.v1.EventSeries" }]
    })
    expect((openApiV2Document(info) as Json).definitions["io.k8s.api.events.v1.Event"].properties.series).toEqual({
      description: "Data for a series of repeated events; unset for a single event.",
      $ref: "#/definitions/io.k8s.api.events.v1.EventSeries"
    })
    expect(event.properties.apiVersion).toEqual({ type: "string" })
  })

  it("one source of truth: a field added to a kind's schema shows up in its definition", () => {
    const leases = servedApis.find((a) => a.kind === "Lease")!
    const extended: ServedApi = {
      ...leases,
      schema: kindSchema({ spec: FieldSchema.object("v1.LeaseSpec", { holderIdentity: FieldSchema.string(), preferredHolder: FieldSchema.string() }) })
    }
    const spec = definitionsOf("v3", [extended])["io.k8s.api.coordination.v1.LeaseSpec"] as Json
    expect(Object.keys(spec.properties)).toEqual(["holderIdentity", "preferredHolder"])
    expect(leases.schema).toBe(leaseSchema)
  })

  it("every kind with a field schema has every one of its fields in its definition, at every depth", () => {
    for (const api of servedApis) {
      const schemas = v3(api.group === "" ? `api/${api.version}` : `apis/${api.group}/${api.version}`).components.schemas as Json
      const check = (s: FieldSchema, def: Json, at: string): void => {
        const ref = def.$ref ?? def.allOf?.[0]?.$ref
        const target = ref ? schemas[String(ref).split("/").pop()!] : def
        expect(target, at).toBeDefined()
        if (s.type === "object") {
          expect(Object.keys(target.properties).sort(), at).toEqual(Object.keys(s.fields).sort())
          for (const [k, child] of Object.entries(s.fields)) check(child, target.properties[k], `${at}.${k}`)
        } else if (s.type === "array") check(s.items, target.items, `${at}[]`)
        else if (s.type === "map") check(s.values, target.additionalProperties, `${at}{}`)
      }
      check(api.schema, schemas[api.definition], api.definition)
    }
    expect(servedApis.map((a) => a.kind)).toEqual(expect.arrayContaining(resourceTypes.map((r) => r.kind)))
  })

  it("every reference resolves inside its own document", () => {
    for (const path of openApiV3Paths()) {
      const doc = v3(path)
      for (const { at, ref } of refs(doc)) expect(doc.components.schemas[ref.replace("#/components/schemas/", "")], `${path} ${at}`).toBeDefined()
    }
    const v2 = openApiV2Document(info) as Json
    for (const { at, ref } of refs(v2)) expect(v2.definitions[ref.replace("#/definitions/", "")], `v2 ${at}`).toBeDefined()
  })
})

describe("OpenAPI v2", () => {
  it("the protobuf form carries every path and definition, extensions as YAML text", () => {
    const json = openApiV2Document(info) as Json
    const decoded = decodeOpenApiV2(encodeOpenApiV2(json))
    expect(decoded.swagger).toBe("2.0")
    expect((decoded.info as Json).version).toBe("v1.26.15-test")
    const definitions = (decoded.definitions as Json).additional_properties as Json[]
    expect(definitions.map((d) => d.name)).toEqual(Object.keys(json.definitions))
    const pod = definitions.find((d) => d.name === "io.k8s.api.core.v1.Pod")!
    const gvk = (pod.value.vendor_extension as Json[]).find((e) => e.name === "x-kubernetes-group-version-kind")!
    expect(JSON.parse(gvk.value.yaml)).toEqual([{ group: "", kind: "Pod", version: "v1" }])
    const paths = (decoded.paths as Json).path as Json[]
    expect(paths.map((p) => p.name)).toEqual(Object.keys(json.paths))
    const podPatch = paths.find((p) => p.name === "/api/v1/namespaces/{namespace}/pods/{name}")!.value.patch
    const names = (podPatch.parameters as Json[]).map((p) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name ?? p.parameter.body_parameter?.name)
    expect(names).toEqual(["body", "dryRun", "fieldManager", "fieldValidation", "force"])
  })
})
