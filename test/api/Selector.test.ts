import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps, Deployments, Events, Leases, Namespaces, Nodes, Pods } from "../../src/api/Resources.js"
import {
  fieldSelectorIsEmpty,
  fieldSelectorName,
  formatLabelSelector,
  labelSelectorIsEmpty,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector
} from "../../src/api/Selector.js"
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
const label = (text: string) => Either.getOrThrow(parseLabelSelector(text))
const labelError = (text: string) => statusOf(parseLabelSelector(text)).message

const qualifiedNameRule =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const labelValueRule =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

describe("parseLabelSelector", () => {
  it("parses every operator, sorted by key", () => {
    expect(label("z=1,y==2,x!=3,w in (b,a,b),v notin (c),u,!t,s>5,r<7").requirements).toEqual([
      { key: "r", operator: "lt", values: ["7"] },
      { key: "s", operator: "gt", values: ["5"] },
      { key: "t", operator: "!", values: [] },
      { key: "u", operator: "exists", values: [] },
      { key: "v", operator: "notin", values: ["c"] },
      { key: "w", operator: "in", values: ["a", "b"] },
      { key: "x", operator: "!=", values: ["3"] },
      { key: "y", operator: "==", values: ["2"] },
      { key: "z", operator: "=", values: ["1"] }
    ])
  })

  it("tolerates whitespace around tokens", () => {
    expect(label("  app = web ,\ttier in ( a , b )\n, ! gone ")).toEqual(label("app=web,tier in (a,b),!gone"))
  })

  it("accepts empty values and the keywords as values", () => {
    expect(label("a=,b in (),c in (,x),d=in").requirements.map((r) => r.values)).toEqual([[""], [""], ["", "x"], ["in"]])
  })

  it("accepts prefixed keys and an empty selector", () => {
    expect(label("example.com/app=web").requirements[0]?.key).toBe("example.com/app")
    expect(labelSelectorIsEmpty(label(""))).toBe(true)
    expect(labelSelectorIsEmpty(label("  "))).toBe(true)
    expect(labelSelectorIsEmpty(label("a"))).toBe(false)
  })

  it("formats canonically", () => {
    expect(formatLabelSelector(label("b in (y,x), a , !c, d==1, e>2"))).toBe("a,b in (x,y),!c,d==1,e>2")
  })

  it("rejects an invalid key with the <nil> path", () => {
    expect(statusOf(parseLabelSelector("app:monolith"))).toEqual(
      badRequest(`unable to parse requirement: <nil>: Invalid value: "app:monolith": name part ${qualifiedNameRule}`)
    )
  })

  it("rejects a key with two slashes", () => {
    expect(labelError("a/b/c ?=? def")).toBe(
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${qualifiedNameRule} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
    )
  })

  it("rejects a bad prefix", () => {
    expect(labelError("app.kubernetes_io/name=vault")).toBe(
      `unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io/name": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
    )
  })

  it("joins several key problems with '; '", () => {
    expect(labelError("/-x-")).toBe(
      `unable to parse requirement: <nil>: Invalid value: "/-x-": prefix part must be non-empty; name part ${qualifiedNameRule}`
    )
    expect(labelError(`${"k".repeat(64)}`)).toBe(
      `unable to parse requirement: <nil>: Invalid value: "${"k".repeat(64)}": name part must be no more than 63 characters`
    )
  })

  it("rejects bad values with the values[i][key] path", () => {
    expect(labelError(`good-key=${"z".repeat(64)}`)).toBe(
      `unable to parse requirement: values[0][good-key]: Invalid value: "${"z".repeat(64)}": must be no more than 63 characters`
    )
    expect(labelError("x=a@b")).toBe(`unable to parse requirement: values[0][x]: Invalid value: "a@b": ${labelValueRule}`)
    // values are sorted before validation, so the index follows the sorted order
    expect(labelError("x in (ok,-bad,-worse)")).toBe(
      `unable to parse requirement: [values[0][x]: Invalid value: "-bad": ${labelValueRule}, values[1][x]: Invalid value: "-worse": ${labelValueRule}]`
    )
  })

  it("requires an integer for gt and lt", () => {
    expect(labelError("x>a")).toBe(
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`
    )
  })

  it("reports syntax errors with upstream's texts", () => {
    expect(labelError("a b")).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt")
    expect(labelError("=a")).toBe("found '=', expected: !, identifier, or 'end of string'")
    expect(labelError("x=a,=b")).toBe("found '=', expected: identifier after ','")
    expect(labelError("x=a,")).toBe("found '', expected: identifier after ','")
    expect(labelError("x=a b")).toBe("found 'b', expected: ',' or 'end of string'")
    expect(labelError("!x=y")).toBe("found '=', expected: ',' or 'end of string'")
    expect(labelError("x in a")).toBe("unable to parse requirement: found 'a' expected: '('")
    expect(labelError("x in (a")).toBe("unable to parse requirement: found '', expected: ',' or ')'")
    expect(labelError("x in (a b)")).toBe("unable to parse requirement: found 'b', expected: ',' or ')'")
    expect(labelError("x in (=)")).toBe("unable to parse requirement: found '=', expected: ',', ')' or identifier")
    expect(labelError("x in (a,=)")).toBe("unable to parse requirement: found '=', expected: ',', or identifier")
    expect(labelError("x==(")).toBe("unable to parse requirement: found '(', expected: identifier")
    expect(labelError("!")).toBe("unable to parse requirement: found '', expected: identifier")
  })
})

describe("matchesLabels", () => {
  const labels = { app: "web", tier: "front", n: "10" }
  const cases: ReadonlyArray<readonly [string, boolean]> = [
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app=db", false],
    ["app!=db", true],
    ["missing!=x", true],
    ["tier in (back,front)", true],
    ["tier in (back)", false],
    ["missing in (x)", false],
    ["tier notin (back)", true],
    ["tier notin (front)", false],
    ["missing notin (x)", true],
    ["app", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["n>9", true],
    ["n>10", false],
    ["n<11", true],
    ["app>1", false],
    ["missing<1", false],
    ["app=web,tier=back", false],
    ["app=web,tier=front", true]
  ]
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text)} → ${want}`, () => {
      expect(matchesLabels(label(text), labels)).toBe(want)
    })
  }

  it("treats missing labels as an empty set", () => {
    expect(matchesLabels(label("!a"), undefined)).toBe(true)
    expect(matchesLabels(label("a in ()"), undefined)).toBe(false)
    expect(matchesLabels(label("a in ()"), { a: "" })).toBe(true)
  })
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
