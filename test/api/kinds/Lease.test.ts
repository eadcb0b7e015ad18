import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import { leaseRules } from "../../../src/api/kinds/Lease.js"
import { unknownFields } from "../../../src/api/kinds/FieldSchema.js"
import { validateForCreate, validateForUpdate } from "../../../src/api/kinds/Validation.js"

const lease = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KObject => ({
  apiVersion: "coordination.platform/v1",
  kind: "Lease",
  metadata: { name: "node-1", namespace: "platform-node-lease", ...metadata },
  spec
})
// Through the one validation path the server runs (ObjectMeta, then the lease's own rules).
const create = (o: KObject) => validateForCreate(leaseRules, true, o)
const update = (o: KObject, old: KObject) => validateForUpdate(leaseRules, o, old)

describe("Lease validation (upstream coordination validation)", () => {
  it("accepts a node heartbeat lease", () => {
    expect(
      create(lease({ holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "2023-05-01T12:00:00.000000Z", leaseTransitions: 0 }))
    ).toEqual([])
  })

  it("leaseDurationSeconds must be greater than 0", () => {
    expect(aggregate(create(lease({ leaseDurationSeconds: 0 })))).toBe("spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0")
    expect(aggregate(create(lease({ leaseDurationSeconds: -5 })))).toBe("spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0")
  })

  it("leaseTransitions must be greater than or equal to 0", () => {
    expect(aggregate(create(lease({ leaseTransitions: -1 })))).toBe(
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"
    )
  })

  it("enforces nothing else about holders and times", () => {
    expect(create(lease({ holderIdentity: "", leaseDurationSeconds: 1 }))).toEqual([])
    expect(create(lease({}))).toEqual([])
  })

  it("name is a DNS subdomain; errors aggregate in order", () => {
    const errs = create(lease({ leaseDurationSeconds: 0, leaseTransitions: -1 }, { name: "Node_1" }))
    expect(errs.map(formatFieldError)).toEqual([
      expect.stringMatching(/^metadata\.name: Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of/),
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"
    ])
    expect(aggregate(errs)).toMatch(/^\[metadata\.name: Invalid value: "Node_1": .*, spec\.leaseDurationSeconds: .*, spec\.leaseTransitions: .*\]$/)
  })

  it("update re-checks the spec and keeps identity immutable", () => {
    const old = lease({ leaseDurationSeconds: 40 }, { uid: "u", resourceVersion: "3" })
    expect(update(lease({ leaseDurationSeconds: 15 }, { uid: "u", resourceVersion: "3" }), old)).toEqual([])
    expect(update(lease({ leaseDurationSeconds: 0 }, { uid: "u", resourceVersion: "3" }), old).map(formatFieldError)).toEqual([
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"
    ])
    expect(aggregate(update(lease({}, { uid: "other", resourceVersion: "3" }), old))).toBe(
      'metadata.uid: Invalid value: "other": field is immutable'
    )
  })

  it("1.26 has no strategy or preferredHolder", () => {
    expect(unknownFields(leaseRules.schema!, lease({ strategy: "OldestEmulationVersion", preferredHolder: "b" }))).toEqual([
      "spec.strategy",
      "spec.preferredHolder"
    ])
  })
})
