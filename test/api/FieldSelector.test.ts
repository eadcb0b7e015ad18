import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { fieldSelectorIsEmpty, fieldSelectorName, matchesFields, parseFieldSelector } from "../../src/api/FieldSelector.js"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps, Deployments, Events, Leases, Namespaces, Nodes, Pods } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"

const statusOf = <A>(r: Either.Either<A, ApiError>) => Either.getLeft(r).pipe(Option.getOrThrow).status
const badRequest = (message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason: "BadRequest",
  code: 400
})
const obj = (fields: Record<string, unknown>): KObject => ({ metadata: { name: "p1", namespace: "default" }, ...fields }) as KObject
const field = (text: string, r = Pods) => Either.getOrThrow(parseFieldSelector(text, r))
const fieldError = (text: string, r = Pods) => statusOf(parseFieldSelector(text, r))

describe("parseFieldSelector", () => {
  it("parses =, == and != in sorted order", () => {
    expect(field("status.phase!=Failed,metadata.name==p1,spec.nodeName=n1").requirements).toEqual([
      { field: "metadata.name", operator: "=", value: "p1" },
      { field: "spec.nodeName", operator: "=", value: "n1" },
      { field: "status.phase", operator: "!=", value: "Failed" }
    ])
  })

  it("unescapes values and skips empty terms", () => {
    expect(field("metadata.name=a\\,b\\=c\\\\d,,").requirements).toEqual([{ field: "metadata.name", operator: "=", value: "a,b=c\\d" }])
    expect(fieldSelectorIsEmpty(field(""))).toBe(true)
    expect(fieldSelectorIsEmpty(field(","))).toBe(true)
  })

  it("maps spec.host to spec.nodeName for pods", () => {
    expect(field("spec.host=n1").requirements[0]?.field).toBe("spec.nodeName")
  })

  it("rejects an unsupported pod field", () => {
    expect(fieldError("spec.containers=x")).toEqual(badRequest("field label not supported: spec.containers"))
  })

  it("reports the first unsupported field in sorted order", () => {
    expect(fieldError("zzz=1,aaa=2").message).toBe("field label not supported: aaa")
  })

  it("uses the default conversion text for kinds without conversions", () => {
    const message = `"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"`
    expect(fieldError("spec.holderIdentity=x", Leases)).toEqual(badRequest(message))
    expect(fieldError("spec.replicas=1", Deployments).message).toBe(
      `"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`
    )
    expect(field("metadata.namespace=default", Leases).requirements).toHaveLength(1)
  })

  it("follows each kind's field labels", () => {
    expect(field("spec.unschedulable=true", Nodes).requirements).toHaveLength(1)
    expect(fieldError("metadata.namespace=x", Nodes).message).toBe("field label not supported: metadata.namespace")
    expect(field("status.phase=Active", Namespaces).requirements).toHaveLength(1)
    expect(fieldError("metadata.namespace=x", Namespaces).message).toBe("field label not supported: metadata.namespace")
    expect(field("metadata.namespace=x", ConfigMaps).requirements).toHaveLength(1)
    expect(fieldError("data.x=1", ConfigMaps).message).toBe("field label not supported: data.x")
  })

  it("takes the events.platform/v1 spellings for Events", () => {
    expect(field("regarding.name=p1,reportingController=kubelet,reason=Pulled,type=Normal", Events).requirements.map((r) => r.field)).toEqual([
      "reason",
      "involvedObject.name",
      "reportingComponent",
      "type"
    ])
    expect(fieldError("involvedObject.name=p1", Events).message).toBe("field label not supported: involvedObject.name")
  })

  it("rejects malformed terms before converting fields", () => {
    expect(fieldError("aaa=1,zzz")).toEqual(badRequest("invalid selector: 'aaa=1,zzz'; can't understand 'zzz'"))
    expect(fieldError("metadata.name in (a)").message).toBe(
      "invalid selector: 'metadata.name in (a)'; can't understand 'metadata.name in (a)'"
    )
  })

  it("rejects bad escapes", () => {
    expect(fieldError("metadata.name=a=b")).toEqual(badRequest("invalid field selector: unescaped character in value: 61"))
    expect(fieldError("metadata.name=a\\x").message).toBe("invalid field selector: invalid escape sequence: \\x")
    expect(fieldError("metadata.name=a\\").message).toBe("invalid field selector: invalid escape sequence: \\")
  })
})

describe("matchesFields", () => {
  const pod = obj({ spec: { nodeName: "n1" }, status: { phase: "Running", podIPs: [{ ip: "10.0.0.1" }] } })

  it("matches pod fields", () => {
    expect(matchesFields(field("metadata.name=p1,metadata.namespace=default"), pod)).toBe(true)
    expect(matchesFields(field("spec.nodeName=n1,status.phase=Running"), pod)).toBe(true)
    expect(matchesFields(field("spec.nodeName=n2"), pod)).toBe(false)
    expect(matchesFields(field("status.phase!=Running"), pod)).toBe(false)
    expect(matchesFields(field("status.podIP=10.0.0.1"), pod)).toBe(true)
    expect(matchesFields(field(""), pod)).toBe(true)
  })

  it("reads an absent field as the empty string", () => {
    const unscheduled = obj({ spec: {} })
    expect(matchesFields(field("spec.nodeName="), unscheduled)).toBe(true)
    expect(matchesFields(field("spec.nodeName!="), unscheduled)).toBe(false)
  })

  it("prints spec.unschedulable as a bool", () => {
    const node = { metadata: { name: "n1" }, spec: {} } as KObject
    expect(matchesFields(field("spec.unschedulable=false", Nodes), node)).toBe(true)
    expect(matchesFields(field("spec.unschedulable=true", Nodes), { ...node, spec: { unschedulable: true } })).toBe(true)
  })

  it("matches events by regarding, reason, type and controller", () => {
    const event = obj({ regarding: { kind: "Pod", name: "web" }, reason: "Pulled", type: "Normal", reportingController: "kubelet" })
    expect(matchesFields(field("regarding.kind=Pod,regarding.name=web", Events), event)).toBe(true)
    expect(matchesFields(field("reason=Pulled,type=Normal,reportingController=kubelet", Events), event)).toBe(true)
    expect(matchesFields(field("regarding.name=db", Events), event)).toBe(false)
  })
})

describe("fieldSelectorName", () => {
  it("returns the pinned name", () => {
    expect(fieldSelectorName(field("metadata.name=x"))).toBe("x")
    expect(fieldSelectorName(field("metadata.namespace=d,metadata.name==x"))).toBe("x")
  })

  it("returns undefined unless the name is pinned", () => {
    expect(fieldSelectorName(field("metadata.name!=x"))).toBeUndefined()
    expect(fieldSelectorName(field("spec.nodeName=x"))).toBeUndefined()
    expect(fieldSelectorName(field(""))).toBeUndefined()
  })
})
