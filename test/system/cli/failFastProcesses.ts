/**
 * The CLI in its own process for the fail-fast suites (failFast.test.ts, serveTokenKubeconfig.test.ts): `run …` with
 * the time from its first line to its exit, `serve --tls …` until its kubeconfig is written.
 */
import { type ChildProcess, spawn } from "node:child_process"

const cli = (args: ReadonlyArray<string>) => spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })

/** `run …` in its own process: exit code, output, and the time from its first stderr line (the target) to its exit. */
export const run = (args: ReadonlyArray<string>): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string; readonly afterTargetMs: number }> =>
  new Promise((resolve, reject) => {
    const child = cli(["run", ...args])
    let stdout = ""
    let stderr = ""
    let targetAt: number | undefined
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString()
      if (targetAt === undefined && stderr.startsWith("target: ")) targetAt = performance.now()
    })
    child.on("exit", (code) => resolve({ code, stdout, stderr, afterTargetMs: performance.now() - (targetAt ?? Number.NaN) }))
    child.on("error", reject)
  })

/** `serve --tls --port 0 …` in its own process until the test ends; its stdout lines once the kubeconfig is written. */
export const serve = (args: ReadonlyArray<string>): Promise<{ readonly child: ChildProcess; readonly lines: ReadonlyArray<string> }> =>
  new Promise((resolve, reject) => {
    const child = cli(["serve", "--tls", "--port", "0", ...args])
    let stdout = ""
    let stderr = ""
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString()
      const lines = stdout.split("\n")
      if (lines.some((l) => l.startsWith("kubeconfig")) && (!args.includes("token") || lines.some((l) => l.startsWith("token file")))) resolve({ child, lines })
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
    child.on("error", reject)
  })

export const pathAfterColon = (lines: ReadonlyArray<string>, prefix: string): string => {
  const line = lines.find((l) => l.startsWith(prefix))!
  return line.slice(line.lastIndexOf(": ") + 2)
}

export const stop = (child: ChildProcess) => {
  child.removeAllListeners("exit")
  child.kill("SIGTERM")
}
