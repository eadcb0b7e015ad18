/** What the metrics suites share: a scratch directory and child processes, both gone after the file; a free port. */
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

/** A temporary directory and a list of children, removed and stopped after the test file. */
export const scratch = (prefix: string): { readonly dir: string; readonly children: Array<ChildProcess> } => {
  const children: Array<ChildProcess> = []
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => {
    for (const c of children) c.kill("SIGTERM")
    rmSync(dir, { recursive: true, force: true })
  })
  return { dir, children }
}

/** A loopback port free at the moment of asking (for Prometheus, which cannot be told to pick one). */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
