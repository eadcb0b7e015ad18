/**
 * Exec credential plugins run as real child processes: what the plugin is given (env, args, KUBERNETES_EXEC_INFO),
 * the cached answer until its expirationTimestamp, the re-run on a 401 (once per answer), and client-go's texts
 * when the plugin fails.
 */
import { mkdtempSync, rmSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { execCredentialSource, type ExecSourceOptions } from "../../../src/client/auth/ExecAuthenticator.js"
import type { ExecConfig } from "../../../src/client/auth/ExecCredential.js"
import { childProcessRunner } from "../../../src/client/auth/ExecPlugin.js"
import { pluginState, writeExecPlugin } from "../../support/execPlugin.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-exec-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const plugin = writeExecPlugin(dir)

let stateCount = 0
/** A fresh state directory and a source running the plugin with `env`. */
const setup = (env: Record<string, string> = {}, config: Partial<ExecConfig> = {}, extra: Partial<ExecSourceOptions> = {}) => {
  const state = pluginState(path.join(dir, `state-${++stateCount}`))
  const source = execCredentialSource({
    config: {
      command: plugin,
      args: ["get-token", "--cluster=c1"],
      env: [{ name: "STATE", value: state.dir }, ...Object.entries(env).map(([name, value]) => ({ name, value }))],
      apiVersion: "client.authentication.k8s.io/v1",
      interactiveMode: "Never",
      provideClusterInfo: false,
      ...config
    },
    run: childProcessRunner({ stderr: "ignore" }),
    environ: () => ({ PATH: process.env.PATH, GREETING: "from-host" }),
    isTerminal: () => false,
    ...extra
  })
  return { source, runs: state.runs, given: state.given }
}

describe("exec credential plugin (child process)", () => {
  it.effect("runs once with env, args and KUBERNETES_EXEC_INFO; the answer is cached without an expiry", () =>
    Effect.gen(function* () {
      const { source, runs, given } = setup({ GREETING: "from-kubeconfig" })
      expect(yield* source.current).toEqual({ token: "tok-1" })
      expect(yield* source.current).toEqual({ token: "tok-1" })
      yield* TestClock.adjust("10 hours")
      expect(yield* source.current).toEqual({ token: "tok-1" })
      expect(runs()).toBe(1)
      expect(source.loads()).toBe(1)
      expect(given(1, "args")).toBe("get-token --cluster=c1")
      // the kubeconfig's env wins over the host's
      expect(given(1, "env")).toBe("from-kubeconfig")
      expect(JSON.parse(given(1, "info"))).toEqual({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1", spec: { interactive: false } })
    }))

  it.effect("provideClusterInfo passes spec.cluster", () =>
    Effect.gen(function* () {
      const { source, given } = setup({}, { provideClusterInfo: true }, { cluster: { server: "https://h:1", "certificate-authority-data": "Q0E=" } })
      yield* source.current
      expect(JSON.parse(given(1, "info")).spec).toEqual({ cluster: { server: "https://h:1", "certificate-authority-data": "Q0E=" }, interactive: false })
    }))

  it.effect("expirationTimestamp: cached until then, run again after it", () =>
    Effect.gen(function* () {
      // TestClock starts at the epoch: the answer expires one minute in
      const { source, runs } = setup({ EXPIRY: "1970-01-01T00:01:00Z" })
      expect(yield* source.current).toEqual({ token: "tok-1" })
      yield* TestClock.adjust("60 seconds")
      // client-go: expired when now is after the timestamp, not at it
      expect(yield* source.current).toEqual({ token: "tok-1" })
      yield* TestClock.adjust("1 millis")
      expect(yield* source.current).toEqual({ token: "tok-2" })
      expect(runs()).toBe(2)
    }))

  it.effect("a 401 runs the plugin again once per answer: a late 401 of an older answer does not", () =>
    Effect.gen(function* () {
      const { source, runs } = setup()
      const first = yield* source.current
      yield* source.unauthorized(first)
      expect(yield* source.current).toEqual({ token: "tok-2" })
      yield* source.unauthorized(first)
      expect(runs()).toBe(2)
      yield* source.unauthorized(yield* source.current)
      expect(yield* source.current).toEqual({ token: "tok-3" })
    }))

  it.effect("expireHeld: the held token is refused until a 401 makes the plugin run again", () =>
    Effect.gen(function* () {
      const { source, runs } = setup()
      yield* source.current
      yield* source.expireHeld("stale")
      const stale = yield* source.current
      expect(stale).toEqual({ token: "stale" })
      yield* source.unauthorized(stale)
      expect(yield* source.current).toEqual({ token: "tok-2" })
      expect(runs()).toBe(2)
    }))

  it.effect("failures read as client-go's", () =>
    Effect.gen(function* () {
      const exit = setup({ EXIT: "3" })
      expect((yield* Effect.flip(exit.source.current)).message).toBe(`exec: executable ${plugin} failed with exit code 3`)
      const version = setup({ ANSWER: '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t"}}' })
      expect((yield* Effect.flip(version.source.current)).message).toBe(
        "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1"
      )
      const missing = execCredentialSource({
        config: { command: path.join(dir, "absent-plugin"), args: [], env: [], apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never", installHint: "brew install absent-plugin", provideClusterInfo: false },
        run: childProcessRunner({ stderr: "ignore" })
      })
      expect((yield* Effect.flip(missing.current)).message).toBe(
        `exec: executable ${path.join(dir, "absent-plugin")} not found

It looks like you are trying to use a client-go credential plugin that is not installed.

To learn more about this feature, consult the documentation available at:
      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins

brew install absent-plugin`
      )
      const always = setup({}, { interactiveMode: "Always" })
      expect((yield* Effect.flip(always.source.current)).message).toBe("exec plugin cannot support interactive mode: standard input is not a terminal")
    }))

  it.effect("interactiveMode: IfAvailable is interactive on a terminal, Never never", () =>
    Effect.gen(function* () {
      const tty = setup({}, { interactiveMode: "IfAvailable" }, { isTerminal: () => true })
      yield* tty.source.current
      expect(JSON.parse(tty.given(1, "info")).spec).toEqual({ interactive: true })
      const never = setup({}, { interactiveMode: "Never" }, { isTerminal: () => true })
      yield* never.source.current
      expect(JSON.parse(never.given(1, "info")).spec).toEqual({ interactive: false })
    }))
})
