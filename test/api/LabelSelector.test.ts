import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { formatLabelSelector, labelSelectorIsEmpty, matchesLabels, parseLabelSelector } from "../../src/api/LabelSelector.js"
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
