/** `run --target URL` with --token, --ca, --client-cert/--client-key and --insecure-skip-tls-verify. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { resolveTarget } from "../../app/cli/target.js"
import { runOptionsOf } from "../support/runFlags.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-target-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const p = path.join(dir, name)
  writeFileSync(p, text)
  return p
}

describe("--target URL credential flags", () => {
  it.effect("token, CA, client certificate and skip-verify become the client's options", () =>
    Effect.gen(function* () {
      const ca = file("ca.pem", "CA PEM")
      const cert = file("c.pem", "CERT PEM")
      const key = file("k.pem", "KEY PEM")
      expect(yield* resolveTarget({ target: "https://h:6443", token: "t", ca, clientCert: cert, clientKey: key })).toEqual({
        _tag: "url",
        options: { baseUrl: "https://h:6443", token: "t", tls: { ca: "CA PEM", cert: "CERT PEM", key: "KEY PEM" } }
      })
      expect(yield* resolveTarget({ target: "http://127.0.0.1:1", token: "t" })).toEqual({ _tag: "url", options: { baseUrl: "http://127.0.0.1:1", token: "t" } })
      // through the command line's real parser
      const parsed = yield* runOptionsOf(["s.yaml", "--target", "https://h:1", "--token", "x", "--insecure-skip-tls-verify"])
      expect(parsed.target).toEqual({ _tag: "url", options: { baseUrl: "https://h:1", token: "x", tls: { insecureSkipVerify: true } } })
    }))

  it.effect("refusals name the flags", () =>
    Effect.gen(function* () {
      const message = (values: Parameters<typeof resolveTarget>[0]) => Effect.map(Effect.flip(resolveTarget(values)), (e) => e.message)
      expect(yield* message({ token: "t" })).toBe("--token: only with --target URL (a kubeconfig gives its own credentials; embedded and in-process need none)")
      // a URL that cannot be sent to is the flag's error (exit 2), not the run's
      expect(yield* message({ target: "http://127.0.0.1:99999" })).toBe('--target: not a valid URL: "http://127.0.0.1:99999"')
      expect(yield* message({ target: "http://h:1", ca: "x", insecureSkipTlsVerify: true })).toBe("--ca, --insecure-skip-tls-verify: only with an https:// target")
      expect(yield* message({ target: "https://h:1", clientCert: "c" })).toBe("--client-cert and --client-key go together")
      expect(yield* message({ target: "https://h:1", ca: "x", insecureSkipTlsVerify: true })).toBe(
        "--ca, --insecure-skip-tls-verify: specifying a root certificates file with the insecure flag is not allowed"
      )
      expect(yield* message({ target: "https://h:1", ca: path.join(dir, "absent.pem") })).toMatch(
        new RegExp(`^--ca: cannot read ${path.join(dir, "absent.pem")}: ENOENT`)
      )
    }))
})
