/**
 * The `audit.k8s.io/v1` audit `Policy` (`staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go`), read from YAML or
 * JSON as `--audit-policy-file` is (`apiserver/pkg/audit/policy/reader.go` `LoadPolicyFromBytes`) and checked as
 * `apis/audit/validation/validation.go` `ValidatePolicy` checks it. A bad file is one message naming the file and the
 * field. Pure.
 */
import { Either, ParseResult, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import { AuditApiVersion, Level, Stage } from "./Event.js"

/** A literal union whose error names every choice (the formatter would name only the first). */
const oneOf = <S extends Schema.Schema.Any>(schema: S, choices: ReadonlyArray<string>): S =>
  schema.annotations({
    message: (issue: ParseResult.ParseIssue) => ({ message: `Expected ${choices.map((c) => JSON.stringify(c)).join(" | ")}, actual ${JSON.stringify(issue.actual)}`, override: true })
  }) as S
const PolicyLevel = oneOf(Level, Level.literals)
const PolicyStage = oneOf(Stage, Stage.literals)

export const GroupResources = Schema.Struct({
  group: Schema.optional(Schema.String),
  resources: Schema.optional(Schema.Array(Schema.String)),
  resourceNames: Schema.optional(Schema.Array(Schema.String))
})
export type GroupResources = typeof GroupResources.Type

export const PolicyRule = Schema.Struct({
  level: PolicyLevel,
  users: Schema.optional(Schema.Array(Schema.String)),
  userGroups: Schema.optional(Schema.Array(Schema.String)),
  verbs: Schema.optional(Schema.Array(Schema.String)),
  resources: Schema.optional(Schema.Array(GroupResources)),
  namespaces: Schema.optional(Schema.Array(Schema.String)),
  nonResourceURLs: Schema.optional(Schema.Array(Schema.String)),
  omitStages: Schema.optional(Schema.Array(PolicyStage)),
  omitManagedFields: Schema.optional(Schema.Boolean)
})
export type PolicyRule = typeof PolicyRule.Type

export const Policy = Schema.Struct({
  kind: Schema.Literal("Policy"),
  apiVersion: Schema.Literal(AuditApiVersion),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  rules: Schema.Array(PolicyRule),
  omitStages: Schema.optional(Schema.Array(PolicyStage)),
  omitManagedFields: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "audit.k8s.io/v1 Policy" })
export type Policy = typeof Policy.Type

const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, k) => (typeof k === "number" ? `${out}[${k}]` : out === "" ? String(k) : `${out}.${String(k)}`), "")

/** `ValidatePolicy`'s rule checks (`validateResources`, `validateNonResourceURLs`), first problem first. */
const ruleProblem = (rule: PolicyRule, i: number): string | undefined => {
  const at = `rules[${i}]`
  if ((rule.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0))
    return `${at}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`
  for (const [j, url] of (rule.nonResourceURLs ?? []).entries()) {
    if (url === "*") continue
    if (!url.startsWith("/")) return `${at}.nonResourceURLs[${j}]: Invalid value: "${url}": non-resource URL rules must begin with a '/' character`
    if (url !== "" && url.slice(0, -1).includes("*")) return `${at}.nonResourceURLs[${j}]: Invalid value: "${url}": non-resource URL wildcards '*' must be the final character of the rule`
  }
  for (const [j, gr] of (rule.resources ?? []).entries()) {
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0)
      return `${at}.resources[${j}].resourceNames: Invalid value: resourceNames require at least one resource`
  }
  return undefined
}

/**
 * A policy file's text (YAML or JSON) as its policy, or what is wrong with it, prefixed with the file:
 * `policy.yaml: rules[1].level: Expected "None" | "Metadata" | "Request" | "RequestResponse", actual "Everything"`.
 */
export const decodePolicy = (file: string, text: string): Either.Either<{ readonly policy: Policy; readonly warnings: ReadonlyArray<string> }, string> => {
  let value: unknown
  try {
    value = parseYaml(text)
  } catch (e) {
    return Either.left(`${file}: failed decoding: ${(e as Error).message.split("\n")[0]}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Either.left(`${file}: failed decoding: not an object`)
  const { kind, apiVersion } = value as { kind?: unknown; apiVersion?: unknown }
  if (apiVersion !== AuditApiVersion)
    return Either.left(`${file}: apiVersion: expected "${AuditApiVersion}", got ${JSON.stringify(apiVersion ?? "")} (audit.k8s.io/v1beta1 and v1alpha1 are no longer read, as upstream since 1.24)`)
  if (kind !== "Policy") return Either.left(`${file}: kind: expected "Policy", got ${JSON.stringify(kind ?? "")}`)
  const describe = (issue: ParseResult.ArrayFormatterIssue | undefined) => {
    const path = issue ? fieldPath(issue.path) : ""
    return `${file}: ${path ? `${path}: ` : ""}${issue?.message ?? "invalid"}`
  }
  const decoded = Schema.decodeUnknownEither(Policy, { onExcessProperty: "ignore" })(value)
  if (Either.isLeft(decoded)) return Either.left(describe(ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]))
  // reader.go decodes strictly first; a file that fails only that (unknown fields) is read leniently, with a warning.
  const warnings: Array<string> = []
  const strict = Schema.decodeUnknownEither(Policy, { onExcessProperty: "error", errors: "all" })(value)
  if (Either.isLeft(strict))
    for (const i of ParseResult.ArrayFormatter.formatErrorSync(strict.left))
      warnings.push(`${file}: ${fieldPath(i.path)}: unknown field, ignored (upstream falls back to lenient decoding)`)
  const policy = decoded.right
  // reader.go: a policy without rules audits nothing, which upstream refuses as a mistake.
  if (policy.rules.length === 0) return Either.left(`${file}: loaded illegal policy with 0 rules`)
  for (const [i, rule] of policy.rules.entries()) {
    const problem = ruleProblem(rule, i)
    if (problem !== undefined) return Either.left(`${file}: ${problem}`)
  }
  return Either.right({ policy, warnings })
}
