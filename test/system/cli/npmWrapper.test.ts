/**
 * `npx clustersim serve &`, then a SIGTERM to npx: npm forwards it to the shell it started (`sh -c …`) only; before
 * app/cli/WrapperExit.ts the shell died and the server went on, re-parented to init, its port still open. The
 * wrapper here is npm's own (`npm exec -c`, the code path of npx without installing anything); the CLI runs from
 * the sources as test/support/cliProcess.ts does.
 */
import { execFileSync, spawn } from "node:child_process"
import { connect } from "node:net"
import { describe, expect, it } from "@effect/vitest"

const descendants = (pid: number): Array<number> => {
  let out = ""
  try {
    out = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
  } catch {
    return [] // ps exits 1 when there is none
  }
  const children = out.split("\n").map((l) => Number(l.trim())).filter((n) => n > 0)
  return children.flatMap((c) => [c, ...descendants(c)])
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })

const waitFor = async (condition: () => Promise<boolean> | boolean, ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await condition()) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return condition()
}

describe("the npm wrapper", () => {
  it("SIGTERM to `npm exec … clustersim serve`: the server's process ends and its port closes", async () => {
    const wrapper = spawn("npm", ["exec", "--offline", "-c", "node_modules/.bin/vite-node test/support/cliProcess.ts serve --port 0"], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL in 60 s: ${stdout}`)), 60_000)
      wrapper.stdout!.on("data", (d: Buffer) => {
        stdout += d.toString()
        const m = /listening on (http:\/\/\S+)/.exec(stdout)
        if (m) clearTimeout(timer), resolve(m[1]!)
      })
      wrapper.once("exit", (code) => reject(new Error(`npm exited (${code}) before the server listened: ${stdout}`)))
    })
    const port = Number(new URL(url).port)
    const chain = descendants(wrapper.pid!)
    // npm → sh -c → node (the server)
    expect(chain.length).toBeGreaterThanOrEqual(2)
    expect(await portOpen(port)).toBe(true)
    try {
      const exited = new Promise<void>((resolve) => wrapper.once("exit", () => resolve()))
      wrapper.kill("SIGTERM")
      await exited
      expect(await waitFor(() => chain.every((pid) => !alive(pid)), 5_000), `still alive: ${chain.filter(alive).join(", ")}`).toBe(true)
      expect(await waitFor(async () => !(await portOpen(port)), 2_000)).toBe(true)
    } finally {
      for (const pid of chain) if (alive(pid)) process.kill(pid, "SIGKILL")
    }
  }, 90_000)
})
