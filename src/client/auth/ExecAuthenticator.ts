/**
 * An exec credential plugin as a credential source, client-go's `exec.Authenticator`: the plugin's answer is
 * cached until its `expirationTimestamp` (none: for good), the plugin runs again when the cached answer has
 * expired, or when a request sent with the cached answer gets a 401 (`maybeRefreshCreds`: only once per answer —
 * requests that went out with an older answer do not run it again). One run at a time.
 */
import { Clock, Effect, Either } from "effect"
import { CredentialError, type Credential, type CredentialSource } from "./Credential.js"
import { decodeExecOutput, execInfo, type ExecClusterInfo, type ExecConfig } from "./ExecCredential.js"
import { childProcessRunner, mergeEnv, type ExecRunner } from "./ExecPlugin.js"

export interface ExecSourceOptions {
  readonly config: ExecConfig
  /** The kubeconfig cluster, given to the plugin when `provideClusterInfo` is set. */
  readonly cluster?: ExecClusterInfo
  /** Default: a child process, its stderr passed through. */
  readonly run?: ExecRunner
  /** Whether stdin is a terminal (default: `process.stdin.isTTY`). */
  readonly isTerminal?: () => boolean
  /** The environment the plugin inherits (default: `process.env`). */
  readonly environ?: () => Readonly<Record<string, string | undefined>>
}

/** client-go `isInteractive`. */
export const isInteractive = (mode: ExecConfig["interactiveMode"], isTerminal: boolean): Either.Either<boolean, CredentialError> => {
  switch (mode) {
    case "Never":
      return Either.right(false)
    case "IfAvailable":
      return Either.right(isTerminal)
    case "Always":
      return isTerminal
        ? Either.right(true)
        : Either.left(new CredentialError({ message: "exec plugin cannot support interactive mode: standard input is not a terminal" }))
  }
}

export const execCredentialSource = (options: ExecSourceOptions): CredentialSource => {
  const { config } = options
  const run = options.run ?? childProcessRunner()
  const isTerminal = options.isTerminal ?? (() => process.stdin.isTTY === true)
  const environ = options.environ ?? (() => process.env)
  const lock = Effect.unsafeMakeSemaphore(1)
  let cached: Credential | undefined
  let expiresAt: number | undefined
  let runs = 0

  const refresh = Effect.gen(function* () {
    const interactive = yield* isInteractive(config.interactiveMode, isTerminal())
    const env = mergeEnv(environ(), config.env)
    env.KUBERNETES_EXEC_INFO = execInfo(config, interactive, options.cluster)
    runs++
    const stdout = yield* run({ command: config.command, args: config.args, env, interactive, ...(config.installHint ? { installHint: config.installHint } : {}) })
    const answer = yield* decodeExecOutput(config, stdout)
    cached = answer.credential
    expiresAt = answer.expiresAt
    return answer.credential
  })

  const valid = (now: number): Credential | undefined => (cached !== undefined && !(expiresAt !== undefined && now > expiresAt) ? cached : undefined)

  return {
    kind: "exec",
    current: Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const held = valid(now)
      return held ? Effect.succeed(held) : lock.withPermits(1)(Effect.flatMap(Clock.currentTimeMillis, (t) => (valid(t) ? Effect.succeed(valid(t)!) : refresh)))
    }),
    unauthorized: (used) =>
      // a failed refresh is logged by client-go ("refreshing credentials: …"); the next request tries again
      lock.withPermits(1)(Effect.suspend(() => (used === cached ? Effect.ignore(refresh) : Effect.void))),
    expireHeld: (expired) => Effect.sync(() => void (cached = cached && { token: expired })),
    loads: () => runs
  }
}
