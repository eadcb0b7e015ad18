/** `clustersim validate FILE…`: scenario, NodeAgentConfiguration and CredentialProviderConfig files, every error. */
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { checkNodeAgentConfiguration } from "../../simulator/nodeagent/config/check.js"
import { checkCredentialProviderConfig } from "../../simulator/nodeagent/credentialprovider/validate.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { parseScenario } from "../scenario/load.js"
import { parseSetOverrides } from "../scenario/SetOverrides.js"
import type { Environment } from "../scenario/Substitution.js"

/**
 * Checks scenario, NodeAgentConfiguration and CredentialProviderConfig files; returns the exit code (2 if any is
 * invalid). Scenario files are checked as `run` reads them: `${VAR}` from `env` (default `process.env`), then the
 * `--set` overrides.
 */
export const validateFiles = (
  files: ReadonlyArray<string>,
  out: (s: string) => void,
  err: (s: string) => void,
  inputs: { readonly sets?: ReadonlyArray<string>; readonly env?: Environment } = {}
): number => {
  if (files.length === 0) {
    err("clustersim: validate needs at least one file\n")
    return ExitCode.InvalidInput
  }
  const sets = parseSetOverrides(inputs.sets ?? [])
  if (Either.isLeft(sets)) {
    err(`clustersim: ${sets.left}\n`)
    return ExitCode.InvalidInput
  }
  let code: number = ExitCode.Pass
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, "utf8")
    } catch (e) {
      err(`${file}: cannot read: ${(e as Error).message}\n`)
      code = ExitCode.InvalidInput
      continue
    }
    const otherKind = /^kind:\s*["']?(NodeAgentConfiguration|CredentialProviderConfig)["']?\s*$/m.exec(text)?.[1]
    if (otherKind !== undefined && sets.right.length > 0) err(`warning: ${file}: --set changes scenario files only, not this ${otherKind}\n`)
    if (/^kind:\s*["']?NodeAgentConfiguration["']?\s*$/m.test(text)) {
      const r = checkNodeAgentConfiguration(text, file, { requireFields: true })
      for (const w of r.warnings) err(`warning: ${w}\n`)
      if (r.errors.length > 0) {
        // upstream's unlocated messages do not name the file; with several files they must
        for (const e of r.errors) err((e.startsWith(file) ? e : `${file}: ${e}`) + "\n")
        code = ExitCode.InvalidInput
      } else out(`${file}: valid NodeAgentConfiguration\n`)
      continue
    }
    if (/^kind:\s*["']?CredentialProviderConfig["']?\s*$/m.test(text)) {
      const r = checkCredentialProviderConfig(text, file)
      for (const e of r.errors) err((e.startsWith(file) ? e : `${file}: ${e}`) + "\n")
      if (r.errors.length > 0) code = ExitCode.InvalidInput
      else out(`${file}: valid CredentialProviderConfig\n`)
      continue
    }
    const r = parseScenario(text, file, undefined, { sets: sets.right, ...(inputs.env ? { env: inputs.env } : {}) })
    if (Either.isLeft(r)) {
      err(r.left.message + "\n")
      code = ExitCode.InvalidInput
    } else out(`${file}: valid Scenario "${r.right.scenario.metadata.name}"\n`)
  }
  return code
}
