import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { decodeResponse, execPlugin, mergeEnv, type ExecPluginSettings } from "../../../simulator/nodeagent/credentialprovider/ExecPlugin.js"

const v1 = "credentialprovider.nodeagent.platform/v1"
const binDir = mkdtempSync(path.join(tmpdir(), "cred-plugin-"))
const plugin = (name: string, body: string) => {
  const file = path.join(binDir, name)
  writeFileSync(file, `#!${process.execPath}\n${body}\n`)
  chmodSync(file, 0o755)
}

// Echoes the request's image and the environment it sees back as a username / password.
plugin(
  "echo-plugin",
  `let input = ""
process.stdin.on("data", (d) => (input += d))
process.stdin.on("end", () => {
  const req = JSON.parse(input)
  process.stdout.write(JSON.stringify({
    kind: "CredentialProviderResponse", apiVersion: req.apiVersion, cacheKeyType: "Image", cacheDuration: "5m",
    auth: { [req.image.split("/")[0]]: { username: req.kind + " " + req.image + " " + process.argv.slice(2).join(","), password: (process.env.AUDIENCE ?? "-") + " " + (process.env.HOST_ONLY ?? "-") } }
  }))
})`
)
plugin("old-version", `process.stdout.write(JSON.stringify({ kind: "CredentialProviderResponse", apiVersion: "credentialprovider.nodeagent.platform/v1alpha1", cacheKeyType: "Image" }))`)
plugin("slow", `setTimeout(() => {}, 60000)`)
plugin("fails", `process.stderr.write("no token for you"); process.exit(3)`)

const settings = (name: string, extra: Partial<ExecPluginSettings> = {}): ExecPluginSettings => ({
  name,
  apiVersion: v1,
  args: [],
  env: [],
  binDir,
  environ: { PATH: process.env.PATH, HOST_ONLY: "host", AUDIENCE: "host-value" },
  ...extra
})

const failure = <A, E extends { message: string }>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const e = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (e === undefined) throw new Error(`unexpected cause ${exit.cause._tag}`)
  return e.message
}

describe("exec plugin (credentialprovider plugin.go)", () => {
  it.live("sends the request on stdin with args, merges the provider's env over the host's, decodes the answer", () =>
    Effect.gen(function* () {
      const r = yield* execPlugin(settings("echo-plugin", { args: ["get", "--x"], env: [{ name: "AUDIENCE", value: "nodes" }] }), "r.example.io/app:1")
      expect(r).toStrictEqual({
        cacheKeyType: "Image",
        cacheDuration: 300_000,
        auth: { "r.example.io": { username: "CredentialProviderRequest r.example.io/app:1 get,--x", password: "nodes host" } }
      })
    })
  )

  it.live("a response in another apiVersion is refused", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(execPlugin(settings("old-version"), "r.io/a"))
      expect(failure(exit)).toBe(
        "apiVersion from credential plugin response did not match expected apiVersion:credentialprovider.nodeagent.platform/v1, actual apiVersion:credentialprovider.nodeagent.platform/v1alpha1"
      )
    })
  )

  it.live("a plugin past its deadline is killed: context deadline exceeded", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(execPlugin(settings("slow", { timeoutMs: 300 }), "r.io/a"))
      expect(failure(exit)).toBe("error execing credential provider plugin slow for image r.io/a: context deadline exceeded: ")
    })
  )

  it.live("a failing plugin: exit status and its stderr; a missing one: fork/exec", () =>
    Effect.gen(function* () {
      expect(failure(yield* Effect.exit(execPlugin(settings("fails"), "r.io/a")))).toBe(
        "error execing credential provider plugin fails for image r.io/a: exit status 3: no token for you"
      )
      expect(failure(yield* Effect.exit(execPlugin(settings("absent"), "r.io/a")))).toBe(
        `error execing credential provider plugin absent for image r.io/a: fork/exec ${path.join(binDir, "absent")}: no such file or directory: `
      )
    })
  )

  it("decodeResponse: GVK errors, mismatches, and an opaque error for a bad body", () => {
    expect(decodeResponse("not json", v1)).toStrictEqual(Either.left(`error reading GVK from response: Unexpected token 'o', "not json" is not valid JSON`))
    expect(decodeResponse("{}", v1)).toStrictEqual(
      Either.left(`apiVersion from credential plugin response did not match expected apiVersion:${v1}, actual apiVersion:`)
    )
    expect(decodeResponse(JSON.stringify({ apiVersion: v1, kind: "Other" }), v1)).toStrictEqual(Either.left("error decoding credential provider plugin response from stdout"))
    expect(decodeResponse(JSON.stringify({ apiVersion: v1, kind: "CredentialProviderResponse", cacheDuration: "soon" }), v1)).toStrictEqual(
      Either.left("error decoding credential provider plugin response from stdout")
    )
    expect(decodeResponse(JSON.stringify({ apiVersion: v1, kind: "CredentialProviderResponse", cacheKeyType: "Global" }), v1)).toStrictEqual(
      Either.right({ cacheKeyType: "Global", auth: {} })
    )
  })

  it("mergeEnv: host variables kept, provider variables win", () => {
    expect(mergeEnv({ A: "1", B: "2", C: undefined }, [{ name: "B", value: "3" }, { name: "D", value: "4" }])).toStrictEqual({ A: "1", B: "3", D: "4" })
  })
})
