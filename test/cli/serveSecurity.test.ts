/**
 * `serve`'s security output (issue 36, item 10): a warning when it is open to everyone beyond loopback, and the
 * certificate directory `--tls` writes holds only what is needed, readable by the owner alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readdirSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generatePki } from "../../simulator/apiserver/auth/Certificates.js"
import { defaultAuthentication } from "../../simulator/apiserver/auth/Authenticator.js"
import { isLoopbackHost, openAccessWarning } from "../../app/cli/serveSecurity.js"

const open = { authentication: { ...defaultAuthentication, anonymous: true }, authorizationMode: "AlwaysAllow" as const }

describe("serve security", () => {
  it("loopback hosts are only 127.0.0.0/8, ::1 and localhost", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost", "::ffff:127.0.0.1"].map(isLoopbackHost)).toEqual([true, true, true, true, true])
    expect(["0.0.0.0", "::", "10.0.0.1", "example.com", "128.0.0.1"].map(isLoopbackHost)).toEqual([false, false, false, false, false])
  })

  it("warns when anyone beyond loopback may do anything, and only then", () => {
    expect(openAccessWarning("0.0.0.0", open)).toBe(
      "clustersim: warning: serving on 0.0.0.0 with anonymous requests allowed everything (--anonymous-auth=true, --authorization-mode=AlwaysAllow): anyone who can reach this address can read, change and delete every object. Add --authorization-mode=RBAC or --anonymous-auth=false with --token-auth-file or --client-ca-file (docs/auth.md)."
    )
    expect(openAccessWarning("192.168.1.5", open)).toContain("serving on 192.168.1.5")
    expect(openAccessWarning("127.0.0.1", open)).toBeUndefined()
    expect(openAccessWarning("0.0.0.0", { ...open, authorizationMode: "RBAC" })).toBeUndefined()
    expect(openAccessWarning("0.0.0.0", { ...open, authentication: { ...open.authentication, anonymous: false } })).toBeUndefined()
  })

  it("--tls's certificate directory: 0700, keys and nothing else 0600, no signing requests, extensions or serial files", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "clustersim-pki-")), "certs")
    const pki = await Effect.runPromise(generatePki(dir, "127.0.0.1"))
    expect(readdirSync(dir).sort()).toEqual(["admin.crt", "admin.key", "apiserver.crt", "apiserver.key", "ca.crt", "ca.key"])
    const mode = (f: string) => (statSync(f).mode & 0o777).toString(8)
    expect(mode(dir)).toBe("700")
    expect([pki.keyFile, pki.adminKeyFile, join(dir, "ca.key")].map(mode)).toEqual(["600", "600", "600"])
  })
})
