/**
 * The pure entry point behind `clustersim validate <file>`: decode (`configfiles.go`), default (`defaults.go`),
 * validate (`validation.go`) and parse the eviction maps (`ParseThresholdConfig`) as the node agent would at startup,
 * and say everything found instead of stopping at the first failure where that is safe.
 *
 * Errors that belong to a place in the file read `<file>:<line>:<column>: <field path>: <message>`;
 * the others are upstream's messages as they are (validation messages name their field).
 */
import { Either } from "effect"
import { warningsFor } from "../../../src/api/FeatureGates.js"
import { decodeNodeAgentConfiguration, type DecodeIssue } from "./decode.js"
import { applyDefaults } from "./defaults.js"
import { parseThresholdConfig } from "./eviction.js"
import type { NodeAgentConfiguration } from "./NodeAgentConfiguration.js"
import { configFeatureGates, validateNodeAgentConfiguration } from "./validate.js"
import { readDocumentHeader } from "./DocumentHeader.js"
import { missingRequiredFields, requiredMessage } from "./required.js"

/** The spec's required fields missing from a file that decoded (so its header reads again). */
const requiredFieldErrors = (text: string, file: string): Array<string> => {
  const header = readDocumentHeader(text)
  if (Either.isLeft(header)) return []
  return missingRequiredFields(header.right.root, header.right.ctx).map((m) => requiredMessage(file, m))
}

export interface CheckResult {
  /** The defaulted configuration, whenever the file could be decoded (even if it is invalid). */
  readonly config?: NodeAgentConfiguration
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const located = (file: string, issue: DecodeIssue): string => {
  const where = issue.line === undefined ? file : `${file}:${issue.line}:${issue.column}`
  return issue.path === "" ? `${where}: ${issue.message}` : `${where}: ${issue.path}: ${issue.message}`
}

export interface CheckOptions {
  /**
   * Report the fields spec 001 marks required when they are missing (required.ts). On for configuration files;
   * off for a scenario's inline configuration, which overrides defaults piecemeal.
   */
  readonly requireFields?: boolean
}

export const checkNodeAgentConfiguration = (text: string, file: string, options: CheckOptions = {}): CheckResult => {
  const decoded = decodeNodeAgentConfiguration(text, file)
  // unknown and duplicate fields: upstream decodes leniently and goes on
  const warnings = decoded.issues.filter((i) => i.kind !== "error").map((i) => located(file, i))
  if (decoded.document === undefined) {
    const errors = decoded.issues.filter((i) => i.kind === "error")
    return { errors: errors.length > 0 ? errors.map((i) => located(file, i)) : [decoded.error ?? "failed to decode"], warnings }
  }
  const config = applyDefaults(decoded.document)
  warnings.push(...warningsFor(config.featureGates ?? {}))
  // a feature gate error is reported alone (`ValidateKubeletConfiguration`)
  const gates = configFeatureGates(config)
  if (Either.isLeft(gates)) return { config, errors: [gates.left], warnings }
  const errors = [...(options.requireFields ? requiredFieldErrors(text, file) : []), ...validateNodeAgentConfiguration(config)]
  // upstream parses the eviction maps later, when the node agent is built; a bad map aborts startup too
  const thresholds = parseThresholdConfig(config)
  if (Either.isLeft(thresholds)) errors.push(thresholds.left)
  return { config, errors, warnings }
}
