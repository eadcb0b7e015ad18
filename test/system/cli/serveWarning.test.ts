/**
 * `clustersim serve --host 0.0.0.0` in its own process, open to everyone (the defaults): a warning on stderr, and
 * stdout keeps only the listening line its caller reads (issue 36, item 10). The rule itself:
 * test/cli/serveSecurity.test.ts.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"

const serve = (args: ReadonlyArray<string>): Promise<{ readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString()
      if (stdout.includes("listening on")) child.kill("SIGTERM")
    })
    child.on("exit", () => resolve({ stdout, stderr }))
    child.on("error", reject)
  })

describe("serve beyond loopback (own process)", () => {
  it("open to everyone on 0.0.0.0: a warning on stderr (when it is not given: test/cli/serveSecurity.test.ts)", async () => {
    const open = await serve(["--host", "0.0.0.0"])
    expect(open.stdout).toMatch(/^clustersim API server listening on http:\/\/0\.0\.0\.0:\d+\n$/)
    expect(open.stderr).toContain("clustersim: warning: serving on 0.0.0.0 with anonymous requests allowed everything")
  }, 60_000)
})
