/**
 * Deployment and ReplicaSet validation (`Apps.ts`, upstream `ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
 * `ValidateDeploymentStrategy` and the strategies' selector immutability): each rule's path and text as upstream
 * prints it, Go `%#v` values included, and nothing asked of a status write.
 */
import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import { deploymentRules, replicaSetRules } from "../../../src/api/kinds/Apps.js"
import type { KindRules } from "../../../src/api/kinds/KindRules.js"
import { validateForCreate, validateForUpdate } from "../../../src/api/kinds/Validation.js"

const template = (labels: Record<string, string> | undefined, spec: Record<string, unknown> = { containers: [{ name: "c", image: "x" }] }) => ({
  metadata: labels === undefined ? {} : { labels },
  spec
})
const workload = (spec: Record<string, unknown>): KObject => ({ metadata: { name: "w", namespace: "default", uid: "u" }, spec })
const valid = { selector: { matchLabels: { app: "w" } }, template: template({ app: "w" }) }
const created = (rules: KindRules, spec: Record<string, unknown>) => validateForCreate(rules, true, workload(spec)).map(formatFieldError)
const mismatch = "`selector` does not match template `labels`"

describe("Deployment and ReplicaSet specs", () => {
  it("pass a valid spec, with or without the fields the server does not default", () => {
    expect(created(deploymentRules, valid)).toEqual([])
    expect(created(replicaSetRules, { ...valid, replicas: 0 })).toEqual([])
    expect(created(deploymentRules, { ...valid, strategy: { type: "Recreate" }, minReadySeconds: 5, progressDeadlineSeconds: 6, revisionHistoryLimit: 0 })).toEqual([])
  })

  it("refuse a template whose labels the selector does not match, printing the labels as Go's map", () => {
    const spec = { selector: { matchLabels: { app: "a" } }, template: template({ app: "b", tier: "web" }) }
    expect(created(deploymentRules, spec)).toEqual([`spec.template.metadata.labels: Invalid value: map[string]string{"app":"b", "tier":"web"}: ${mismatch}`])
    expect(created(replicaSetRules, { ...spec, template: template(undefined) })).toEqual([`spec.template.metadata.labels: Invalid value: map[string]string(nil): ${mismatch}`])
    const expressions = { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] }
    expect(created(replicaSetRules, { selector: expressions, template: template({ tier: "web" }) })).toEqual([])
    expect(created(replicaSetRules, { selector: expressions, template: template({ tier: "db" }) })).toEqual([
      `spec.template.metadata.labels: Invalid value: map[string]string{"tier":"db"}: ${mismatch}`
    ])
  })

  it("need a selector (a missing one matches no template), refuse an empty one, and check its terms", () => {
    expect(created(deploymentRules, { template: template({ a: "n" }) })).toEqual([
      "spec.selector: Required value",
      `spec.template.metadata.labels: Invalid value: map[string]string{"a":"n"}: ${mismatch}`
    ])
    expect(created(replicaSetRules, { selector: {}, template: template({ a: "n" }) })).toEqual([
      "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment"
    ])
    const bad = { matchExpressions: [{ key: "k", operator: "Near", values: ["v"] }, { key: "k", operator: "In" }] }
    expect(created(deploymentRules, { selector: bad, template: template({ k: "v" }) })).toEqual([
      'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"Near", Values:[]string{"v"}}, v1.LabelSelectorRequirement{Key:"k", Operator:"In", Values:[]string(nil)}}}: invalid label selector'
    ])
  })

  it("validate the template as a pod spec at its path, with restartPolicy Always and no deadline", () => {
    const spec = { ...valid, template: template({ app: "w" }, { containers: [{ name: "c" }], restartPolicy: "Never", activeDeadlineSeconds: 10 }) }
    expect(created(deploymentRules, spec)).toEqual([
      "spec.template.spec.containers[0].image: Required value",
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"
    ])
    expect(created(replicaSetRules, { ...valid, template: { metadata: { labels: { app: "w" }, annotations: { "a b": "x" } }, spec: { containers: [{ name: "c", image: "x" }] } } })).toEqual([
      `spec.template.annotations: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
    ])
  })

  it("counts are not negative; the progress deadline exceeds minReadySeconds (600 s when unset)", () => {
    expect(created(deploymentRules, { ...valid, replicas: -1, minReadySeconds: 700, revisionHistoryLimit: -2 })).toEqual([
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
      "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"
    ])
    expect(created(replicaSetRules, { ...valid, replicas: -1, minReadySeconds: -1 })).toEqual([
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"
    ])
  })

  it("a Deployment's strategy: rolling bounds (defaulted to 25 %), Recreate alone, a known type", () => {
    const strategy = (s: unknown) => created(deploymentRules, { ...valid, strategy: s })
    expect(strategy({ rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } })).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0'
    ])
    expect(strategy({ rollingUpdate: { maxSurge: "0%", maxUnavailable: "0%" } })).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0'
    ])
    expect(strategy({ type: "RollingUpdate", rollingUpdate: { maxSurge: 0 } })).toEqual([])
    expect(strategy({ rollingUpdate: { maxUnavailable: "150%", maxSurge: "x" } })).toEqual([
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%'
    ])
    expect(strategy({ type: "Recreate", rollingUpdate: {} })).toEqual(["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"])
    expect(strategy({ type: "BlueGreen" })).toEqual([
      'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"'
    ])
  })
})

describe("updates", () => {
  const stored = workload(valid)
  const immutable =
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"w", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'
  const moved = workload({ selector: { matchLabels: { app: "w", x: "y" } }, template: template({ app: "w", x: "y" }) })

  it("the selector is immutable (an absent map equals an empty one)", () => {
    expect(validateForUpdate(deploymentRules, moved, stored).map(formatFieldError)).toEqual([immutable])
    const same = workload({ ...valid, selector: { matchLabels: { app: "w" }, matchExpressions: [] }, replicas: 5 })
    expect(validateForUpdate(deploymentRules, same, stored)).toEqual([])
  })

  it("a ReplicaSet's spec is checked twice (ValidateReplicaSet and ValidateReplicaSetUpdate): each cause twice, the message once", () => {
    const errors = validateForUpdate(replicaSetRules, workload({ ...valid, replicas: -1 }), stored)
    expect(errors.map(formatFieldError)).toEqual([
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    ])
    expect(aggregate(errors)).toBe("spec.replicas: Invalid value: -1: must be greater than or equal to 0")
    expect(validateForUpdate(replicaSetRules, moved, stored).map(formatFieldError)).toEqual([immutable])
  })

  it("a status write shares the stored spec and is not validated again, even a spec stored invalid", () => {
    const invalidStored = workload({ selector: { matchLabels: { app: "a" } }, template: template({ app: "b" }) })
    for (const rules of [deploymentRules, replicaSetRules]) expect(validateForUpdate(rules, { ...invalidStored, status: { replicas: 1 } }, invalidStored)).toEqual([])
  })
})
