/**
 * `serve --audit-log-path FILE --audit-policy-file POLICY` (docs/audit.md): the policy read and checked before the
 * server starts, the log file created (kube-apiserver's `ensureLogFile`) and rotated as its `--audit-log-maxsize`,
 * `--audit-log-maxbackup` and `--audit-log-maxage` say, or `-` for stdout; the `Audit` service the HTTP server and the
 * live cluster's clients read.
 */
import { readFileSync } from "node:fs"
import { Effect, Either, Layer } from "effect"
import { decodePolicy } from "../../src/api/audit/Policy.js"
import { Audit, Auditor } from "../../simulator/apiserver/audit/Auditor.js"
import { makePolicyRuleEvaluator } from "../../simulator/apiserver/audit/PolicyChecker.js"
import { RotatingFile } from "../../simulator/apiserver/audit/RotatingFile.js"

export interface AuditFlags {
  readonly logPath: string | undefined
  readonly policyFile: string | undefined
  readonly maxSizeMB: number
  readonly maxBackups: number
  readonly maxAgeDays: number
}

/** lumberjack's `MaxSize` of 0: 100 megabytes. */
const defaultMaxSizeMB = 100

/** The audit layer the flags ask for, none without flags, or the usage error (with the policy's warnings to print). */
export const resolveAudit = (f: AuditFlags): Either.Either<{ readonly layer: Layer.Layer<Audit> | undefined; readonly warnings: ReadonlyArray<string> }, string> => {
  if (f.logPath === undefined && f.policyFile === undefined) return Either.right({ layer: undefined, warnings: [] })
  if (f.logPath === undefined) return Either.left("--audit-policy-file: needs --audit-log-path (where the events go; there is no webhook backend)")
  if (f.policyFile === undefined) return Either.left("--audit-log-path: needs --audit-policy-file (without a policy no event is recorded)")
  if (f.logPath === "") return Either.left("--audit-log-path: must not be empty (a file, or - for stdout)")
  for (const [flag, v] of [["--audit-log-maxsize", f.maxSizeMB], ["--audit-log-maxbackup", f.maxBackups], ["--audit-log-maxage", f.maxAgeDays]] as const)
    if (v < 0) return Either.left(`${flag} must be greater than or equal to 0`)
  let text: string
  try {
    text = readFileSync(f.policyFile, "utf8")
  } catch (e) {
    return Either.left(`--audit-policy-file: cannot read ${f.policyFile}: ${(e as Error).message}`)
  }
  const decoded = decodePolicy(f.policyFile, text)
  if (Either.isLeft(decoded)) return Either.left(`--audit-policy-file: ${decoded.left}`)
  const policy = makePolicyRuleEvaluator(decoded.right.policy)
  const logPath = f.logPath
  const file =
    logPath === "-"
      ? undefined
      : new RotatingFile({ path: logPath, maxBytes: (f.maxSizeMB === 0 ? defaultMaxSizeMB : f.maxSizeMB) * 1024 * 1024, maxBackups: f.maxBackups, maxAgeDays: f.maxAgeDays, now: () => Date.now() })
  if (file !== undefined) {
    try {
      file.ensure()
    } catch (e) {
      return Either.left(`--audit-log-path: cannot open ${logPath}: ${(e as Error).message}`)
    }
  }
  const layer = Layer.scoped(
    Audit,
    Effect.gen(function* () {
      const clock = yield* Effect.clock
      const write =
        file === undefined
          ? (line: string) => void process.stdout.write(`${line}\n`)
          : (line: string) => {
              try {
                file.write(`${line}\n`)
              } catch (e) {
                // upstream's log backend reports a failed write and goes on (`log/backend.go` logEvent)
                process.stderr.write(`clustersim: audit log: ${(e as Error).message}\n`)
              }
            }
      yield* Effect.addFinalizer(() => Effect.sync(() => file?.close()))
      return new Auditor(policy, { write }, () => clock.unsafeCurrentTimeNanos())
    })
  )
  return Either.right({ layer, warnings: decoded.right.warnings })
}
