/**
 * A pod update's own checks (`validatePodUpdate`, upstream `ValidatePodUpdate`): each refusal with its field, value and
 * text, in upstream's order, and none for a status write that keeps the stored spec.
 */
import { describe, expect, it } from "@effect/vitest"
import type { KObject } from "../../../src/api/Object.js"
import { podUpdateForbiddenMessage, validatePodUpdate } from "../../../src/api/kinds/Pod.js"

const container = (name: string, image: unknown) => ({ name, image })
const pod = (spec: Record<string, unknown>): KObject => ({ metadata: { name: "p", namespace: "default" }, spec })
const stored = pod({
  containers: [container("a", "img:1"), container("b", "img:2")],
  initContainers: [container("i", "init:1")],
  tolerations: [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }],
  activeDeadlineSeconds: 60
})
const spec = stored.spec as Record<string, unknown>
const errorsOf = (next: Record<string, unknown>) => validatePodUpdate(pod(next), stored).map((e) => ({ ...e }))

describe("validatePodUpdate", () => {
  it("passes the stored spec itself and an equal copy", () => {
    expect(validatePodUpdate({ ...stored, status: { phase: "Running" } }, stored)).toEqual([])
    expect(errorsOf(structuredClone(spec))).toEqual([])
  })

  it("refuses added or removed containers, and stops there", () => {
    expect(errorsOf({ ...spec, containers: [container("a", "")], activeDeadlineSeconds: -1 })).toEqual([
      { type: "Forbidden", field: "spec.containers", detail: "pod updates may not add or remove containers" }
    ])
    expect(errorsOf({ ...spec, containers: [container("a", " x"), container("b", "y")], initContainers: [] })).toEqual([
      { type: "Invalid", field: "spec.containers[0].image", value: " x", detail: "must not have leading or trailing whitespace" },
      { type: "Forbidden", field: "spec.initContainers", detail: "pod updates may not add or remove containers" }
    ])
  })

  it("checks every container's image, then the init containers', then the deadline and tolerations, then the rest", () => {
    const next = {
      ...spec,
      containers: [container("a", ""), container("b", 7)],
      initContainers: [container("i", "init:2 ")],
      activeDeadlineSeconds: 61,
      tolerations: []
    }
    expect(errorsOf(next)).toEqual([
      { type: "Required", field: "spec.containers[0].image", detail: "" },
      { type: "Required", field: "spec.containers[1].image", detail: "" },
      { type: "Invalid", field: "spec.initContainers[0].image", value: "init:2 ", detail: "must not have leading or trailing whitespace" },
      { type: "Invalid", field: "spec.activeDeadlineSeconds", value: 61, detail: "must be less than or equal to previous value" }
    ])
    expect(errorsOf({ ...spec, activeDeadlineSeconds: undefined, tolerations: [], nodeName: "other" })).toEqual([
      { type: "Invalid", field: "spec.activeDeadlineSeconds", value: "null", detail: "must not update from a positive integer to nil value" },
      { type: "Forbidden", field: "spec.tolerations", detail: "existing toleration can not be modified except its tolerationSeconds" },
      { type: "Forbidden", field: "spec", detail: podUpdateForbiddenMessage }
    ])
  })

  it("allows new images, a lower deadline, added tolerations and a changed tolerationSeconds", () => {
    const tolerations = [{ key: "k", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }, { key: "new", operator: "Exists" }]
    expect(errorsOf({ ...spec, containers: [container("a", "img:9"), container("b", "img:2")], activeDeadlineSeconds: 30, tolerations })).toEqual([])
    expect(errorsOf({ ...spec, activeDeadlineSeconds: 2 ** 31 })).toEqual([
      { type: "Invalid", field: "spec.activeDeadlineSeconds", value: 2 ** 31, detail: "must be between 0 and 2147483647, inclusive" }
    ])
  })

  it("takes a hole in a container list for no container (a decoded list has none; an in-process body could)", () => {
    // eslint-disable-next-line no-sparse-arrays
    const holey = [container("a", "img:1"), , ]
    holey.length = 2
    expect(errorsOf({ ...spec, containers: holey })).toEqual([])
  })
})
