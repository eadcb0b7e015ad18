/**
 * Running an exec credential plugin as a child process, as client-go's `exec.Command` does: the environment given,
 * stdin only in interactive mode, stderr passed through (plugins prompt and log there), stdout collected. Failures
 * read as client-go's (`wrapCmdRunErrorLocked`).
 */
import { spawn } from "node:child_process"
import { Effect } from "effect"
import { CredentialError } from "./Credential.js"

export interface ExecInvocation {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The whole environment of the child. */
  readonly env: Readonly<Record<string, string>>
  /** Give the plugin the terminal's stdin. */
  readonly interactive: boolean
  /** Shown when the command is not found (kubeconfig `installHint`). */
  readonly installHint?: string
}

/** The environment of a plugin process: the host's, then the configured variables (later wins, as Go's exec). */
export const mergeEnv = (
  environ: Readonly<Record<string, string | undefined>>,
  extra: ReadonlyArray<{ readonly name: string; readonly value: string }>
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(environ)) if (v !== undefined) out[k] = v
  for (const { name, value } of extra) out[name] = value
  return out
}

/** Runs a plugin; its stdout. Tests and simulations pass their own. */
export type ExecRunner = (invocation: ExecInvocation) => Effect.Effect<string, CredentialError>

/** client-go `installHintVerboseHelp`. */
const InstallHintHelp = `

It looks like you are trying to use a client-go credential plugin that is not installed.

To learn more about this feature, consult the documentation available at:
      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins`

export const notFoundMessage = (command: string, installHint: string | undefined): string =>
  `exec: executable ${command} not found${InstallHintHelp}${installHint ? `\n\n${installHint}` : ""}`

/** The real runner: a child process. `stderr: "ignore"` silences the plugin (tests). */
export const childProcessRunner =
  (options: { readonly stderr?: "inherit" | "ignore" } = {}): ExecRunner =>
  (invocation) =>
    Effect.async<string, CredentialError>((resume) => {
      const child = spawn(invocation.command, [...invocation.args], {
        env: invocation.env,
        stdio: [invocation.interactive ? "inherit" : "ignore", "pipe", options.stderr ?? "inherit"]
      })
      const chunks: Array<Buffer> = []
      child.stdout!.on("data", (c: Buffer) => chunks.push(c))
      child.once("error", (e: NodeJS.ErrnoException) =>
        resume(
          Effect.fail(
            new CredentialError({
              // Go's exec.Error: the binary is missing or not executable
              message: e.code === "ENOENT" || e.code === "EACCES" ? notFoundMessage(invocation.command, invocation.installHint) : `exec: ${e.message}`
            })
          )
        )
      )
      child.once("close", (code) => {
        if (code === 0) return resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
        // Go's ExitError.ExitCode() is -1 for a process ended by a signal
        resume(Effect.fail(new CredentialError({ message: `exec: executable ${invocation.command} failed with exit code ${code ?? -1}` })))
      })
      return Effect.sync(() => void child.kill())
    })
