/**
 * serve's audit flags before the server starts: both or neither of --audit-log-path and --audit-policy-file, sizes not
 * negative, the policy read and checked (its errors naming the file and the field), the log file created 0600 in a
 * directory made for it; `-` is stdout (no file).
 */
import { mkdtempSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { resolveAudit } from "../../app/cli/serveAudit.js"

const dir = mkdtempSync(join(tmpdir(), "serve-audit-"))
const policy = join(dir, "policy.yaml")
writeFileSync(policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
const flags = { logPath: join(dir, "logs", "audit.log"), policyFile: policy, maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 }

describe("serve's audit flags", () => {
  it("neither flag: no audit; one without the other: a usage error saying what is missing", () => {
    expect(Either.getOrThrow(resolveAudit({ ...flags, logPath: undefined, policyFile: undefined })).layer).toBeUndefined()
    expect(resolveAudit({ ...flags, logPath: undefined })).toEqual(Either.left("--audit-policy-file: needs --audit-log-path (where the events go; there is no webhook backend)"))
    expect(resolveAudit({ ...flags, policyFile: undefined })).toEqual(Either.left("--audit-log-path: needs --audit-policy-file (without a policy no event is recorded)"))
  })

  it("negative sizes are refused with kube-apiserver's words", () => {
    expect(resolveAudit({ ...flags, maxSizeMB: -1 })).toEqual(Either.left("--audit-log-maxsize must be greater than or equal to 0"))
    expect(resolveAudit({ ...flags, maxBackups: -1 })).toEqual(Either.left("--audit-log-maxbackup must be greater than or equal to 0"))
    expect(resolveAudit({ ...flags, maxAgeDays: -2 })).toEqual(Either.left("--audit-log-maxage must be greater than or equal to 0"))
  })

  it("a policy that cannot be read or is wrong names the file (and the field)", () => {
    const missing = Either.getLeft(resolveAudit({ ...flags, policyFile: join(dir, "none.yaml") }))
    expect(missing._tag === "Some" && missing.value).toMatch(/^--audit-policy-file: cannot read .*none\.yaml: ENOENT/)
    const bad = join(dir, "bad.yaml")
    writeFileSync(bad, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  verbs: get\n")
    expect(resolveAudit({ ...flags, policyFile: bad })).toEqual(Either.left(`--audit-policy-file: ${bad}: rules[0].verbs: Expected ReadonlyArray<string>, actual "get"`))
  })

  it("the log file is created at start (its directory too), mode 0600; - writes to stdout and creates nothing", () => {
    expect(Either.getOrThrow(resolveAudit(flags)).layer).toBeDefined()
    expect(statSync(flags.logPath).mode & 0o777).toBe(0o600)
    expect(Either.getOrThrow(resolveAudit({ ...flags, logPath: "-" })).layer).toBeDefined()
    const blocked = join(dir, "policy.yaml", "audit.log")
    const refused = Either.getLeft(resolveAudit({ ...flags, logPath: blocked }))
    expect(refused._tag === "Some" && refused.value).toMatch(/^--audit-log-path: cannot open .*policy\.yaml\/audit\.log: /)
  })
})
