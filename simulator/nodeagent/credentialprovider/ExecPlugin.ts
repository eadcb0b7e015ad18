/**
 * The exec exchange with a credential provider plugin, for a node agent running against a real server
 * (upstream `pkg/credentialprovider/plugin/plugin.go` `execPlugin.ExecPlugin`, `runPlugin`, `decodeResponse`).
 *
 * The binary `<binDir>/<name>` runs with the provider's `args`; a `CredentialProviderRequest` (JSON) goes to its
 * stdin; its environment is the host's plus the provider's `env` (appended, so the provider's value wins). It has
 * one minute (`context deadline exceeded` after that; the process is killed). Its stdout must hold a
 * `CredentialProviderResponse` in the provider's `apiVersion`.
 *
 * Simulations use a modelled plugin instead (images/ImagePulls.ts).
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { Data, Duration, Effect, Either } from "effect"
import { parseDuration } from "../../../src/api/go/Duration.js"
import { mergeEnv } from "../../../src/client/auth/ExecPlugin.js"
import { exchangeGroup } from "./CredentialProviderConfig.js"
import type { AuthConfig, CredentialProviderResponse } from "./Keyring.js"

/** Upstream's catch-all timeout of exec plugins. */
export const execTimeoutMs = 60_000

export class CredentialPluginError extends Data.TaggedError("CredentialPluginError")<{ readonly message: string }> {}

export interface ExecPluginSettings {
  readonly name: string
  readonly apiVersion: string
  readonly args: ReadonlyArray<string>
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: string }>
  /** `--image-credential-provider-bin-dir`. */
  readonly binDir: string
  /** The host environment (default `process.env`). */
  readonly environ?: Readonly<Record<string, string | undefined>>
  /** Default one minute (upstream's fixed value); shorter in tests. */
  readonly timeoutMs?: number
}

export const requestKind = "CredentialProviderRequest"
export const responseKind = "CredentialProviderResponse"

export const encodeRequest = (apiVersion: string, image: string): string => JSON.stringify({ kind: requestKind, apiVersion, image })

/** The environment of the plugin process: the host's, then the provider's variables (the client's rule, shared). */
export { mergeEnv }

/**
 * Reads the plugin's stdout: apiVersion first (it must equal the configured one), then the response. A decode
 * failure does not say why: the text may hold credentials (upstream does the same).
 */
export const decodeResponse = (stdout: string, expectedApiVersion: string): Either.Either<CredentialProviderResponse, string> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch (e) {
    return Either.left(`error reading GVK from response: ${(e as Error).message}`)
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Either.left(`error reading GVK from response: json: cannot unmarshal ${Array.isArray(parsed) ? "array" : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  }
  const doc = parsed as Record<string, unknown>
  const actual = typeof doc.apiVersion === "string" ? doc.apiVersion : ""
  if (actual !== expectedApiVersion) {
    return Either.left(`apiVersion from credential plugin response did not match expected apiVersion:${expectedApiVersion}, actual apiVersion:${actual}`)
  }
  const opaque = Either.left("error decoding credential provider plugin response from stdout")
  if (doc.kind !== responseKind || !actual.startsWith(`${exchangeGroup}/`)) return opaque
  if (doc.cacheKeyType !== undefined && typeof doc.cacheKeyType !== "string") return opaque
  let cacheDuration: number | undefined
  if (doc.cacheDuration !== undefined && doc.cacheDuration !== null) {
    if (typeof doc.cacheDuration !== "string") return opaque
    const d = parseDuration(doc.cacheDuration)
    if (Either.isLeft(d)) return opaque
    cacheDuration = d.right
  }
  const auth: Record<string, AuthConfig> = {}
  if (doc.auth !== undefined && doc.auth !== null) {
    if (typeof doc.auth !== "object" || Array.isArray(doc.auth)) return opaque
    for (const [key, value] of Object.entries(doc.auth as Record<string, unknown>)) {
      const v = (value ?? {}) as Record<string, unknown>
      if (typeof v !== "object" || (v.username !== undefined && typeof v.username !== "string") || (v.password !== undefined && typeof v.password !== "string")) return opaque
      auth[key] = { username: (v.username as string | undefined) ?? "", password: (v.password as string | undefined) ?? "" }
    }
  }
  return Either.right({ cacheKeyType: (doc.cacheKeyType as string | undefined) ?? "", ...(cacheDuration !== undefined ? { cacheDuration } : {}), auth })
}

interface Finished {
  readonly stdout: string
  readonly stderr: string
  /** Go's `exit status N` / `signal: X`, or a start failure; undefined on success. */
  readonly failure?: string
}

/** Runs the binary with `input` on stdin; interrupting the effect kills the process. */
const run = (file: string, args: ReadonlyArray<string>, env: Record<string, string>, input: string): Effect.Effect<Finished> =>
  Effect.async<Finished>((resume) => {
    const child = spawn(file, [...args], { env, stdio: ["pipe", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (b: Buffer) => out.push(b))
    child.stderr.on("data", (b: Buffer) => err.push(b))
    child.stdin.on("error", () => {}) // a plugin that does not read its stdin
    let done = false
    const finish = (failure: string | undefined) => {
      if (done) return
      done = true
      const stdout = Buffer.concat(out).toString("utf8")
      const stderr = Buffer.concat(err).toString("utf8")
      resume(Effect.succeed(failure === undefined ? { stdout, stderr } : { stdout, stderr, failure }))
    }
    child.on("error", (e: NodeJS.ErrnoException) => finish(`fork/exec ${file}: ${e.code === "ENOENT" ? "no such file or directory" : e.code === "EACCES" ? "permission denied" : e.message}`))
    child.on("close", (code, signal) => finish(code === 0 ? undefined : signal !== null ? `signal: ${signal === "SIGKILL" ? "killed" : signal}` : `exit status ${code}`))
    child.stdin.end(input)
    return Effect.sync(() => {
      done = true
      child.kill("SIGKILL")
    })
  })

/** One exchange with the plugin for `image`: upstream's `ExecPlugin`, with its error texts. */
export const execPlugin = (settings: ExecPluginSettings, image: string): Effect.Effect<CredentialProviderResponse, CredentialPluginError> => {
  const file = path.join(settings.binDir, settings.name)
  const env = mergeEnv(settings.environ ?? process.env, settings.env)
  const fail = (why: string, stderr: string) =>
    new CredentialPluginError({ message: `error execing credential provider plugin ${settings.name} for image ${image}: ${why}: ${stderr}` })
  return run(file, settings.args, env, encodeRequest(settings.apiVersion, image)).pipe(
    Effect.timeoutFail({ duration: Duration.millis(settings.timeoutMs ?? execTimeoutMs), onTimeout: () => fail("context deadline exceeded", "") }),
    Effect.flatMap((r) => {
      if (r.failure !== undefined) return Effect.fail(fail(r.failure, r.stderr))
      return Either.match(decodeResponse(r.stdout, settings.apiVersion), {
        onLeft: (message) => Effect.fail(new CredentialPluginError({ message })),
        onRight: (response) => Effect.succeed(response)
      })
    })
  )
}
