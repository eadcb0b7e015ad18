/**
 * The one `tolerates` (upstream `Toleration.ToleratesTaint`), on the cases where the scheduler's and the node
 * controller's former copies disagreed: an empty key with Equal, and unknown operators.
 */
import { describe, expect, it } from "@effect/vitest"
import { taintsOf, tolerates, toleratesAny } from "../../../src/api/kinds/Taints.js"

const taint = { key: "k", value: "v", effect: "NoExecute" }

describe("tolerates", () => {
  it("Equal (or no operator) needs the same value; absent and empty values are equal", () => {
    expect(tolerates({ key: "k", value: "v" }, taint)).toBe(true)
    expect(tolerates({ key: "k", operator: "Equal", value: "v" }, taint)).toBe(true)
    expect(tolerates({ key: "k", operator: "", value: "v" }, taint)).toBe(true)
    expect(tolerates({ key: "k", value: "w" }, taint)).toBe(false)
    expect(tolerates({ key: "k" }, { key: "k", effect: "NoSchedule" })).toBe(true)
    expect(tolerates({ key: "k", value: "" }, { key: "k", value: "", effect: "NoSchedule" })).toBe(true)
  })

  it("Exists matches any value of the key; with an empty key, every taint", () => {
    expect(tolerates({ key: "k", operator: "Exists" }, taint)).toBe(true)
    expect(tolerates({ key: "other", operator: "Exists" }, taint)).toBe(false)
    expect(tolerates({ operator: "Exists" }, taint)).toBe(true)
    expect(tolerates({ key: "", operator: "Exists" }, { key: "x", effect: "NoSchedule" })).toBe(true)
  })

  it("an empty key with Equal matches taints of the same value, whatever their key (matching does not validate)", () => {
    expect(tolerates({ value: "v" }, taint)).toBe(true)
    expect(tolerates({ key: "", operator: "Equal", value: "v" }, { key: "any", value: "v", effect: "NoSchedule" })).toBe(true)
    expect(tolerates({ key: "", operator: "Equal", value: "w" }, taint)).toBe(false)
    expect(tolerates({}, { key: "any", effect: "NoSchedule" })).toBe(true)
  })

  it("an unknown operator matches nothing", () => {
    expect(tolerates({ key: "k", operator: "Gt", value: "v" }, taint)).toBe(false)
    expect(tolerates({ key: "k", operator: "exists" }, taint)).toBe(false)
    expect(tolerates({ operator: "In" }, taint)).toBe(false)
  })

  it("an empty effect matches every effect; a set one only its own", () => {
    expect(tolerates({ key: "k", operator: "Exists", effect: "" }, taint)).toBe(true)
    expect(tolerates({ key: "k", operator: "Exists", effect: "NoSchedule" }, taint)).toBe(false)
    expect(tolerates({ key: "k", operator: "Exists", effect: "NoExecute" }, taint)).toBe(true)
  })

  it("toleratesAny: some toleration matches", () => {
    expect(toleratesAny([{ key: "a", operator: "Exists" }, { key: "k", operator: "Exists" }], taint)).toBe(true)
    expect(toleratesAny([], taint)).toBe(false)
  })

  it("taintsOf reads spec.taints, none when absent", () => {
    expect(taintsOf({ metadata: {}, spec: { taints: [taint] } })).toEqual([taint])
    expect(taintsOf({ metadata: {} })).toEqual([])
  })
})
