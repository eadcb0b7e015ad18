/**
 * `clustersim serve` in its own process under a low open-file limit (prlimit): the connection cap follows the
 * limit, so a flood of idle connections leaves the server answering — past the cap with upstream's 429 — where
 * before accept() ran out of descriptors and other clients got no answer at all. A soft limit below the hard one
 * is raised by node itself (issue 36, item 9). And the CLI's modules load under a limit of 64.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { syncLoadHook } from "../../../app/cli/SyncModuleLoading.js"

const startServe = (nofile: string): Promise<{ child: ChildProcess; port: number; stderr: () => string }> =>
  new Promise((resolve, reject) => {
    const child = spawn("prlimit", [`--nofile=${nofile}`, "node_modules/.bin/vite-node", "test/support/cliProcess.ts", "serve", "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()))
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) resolve({ child, port: Number(m[1]), stderr: () => err })
    })
    child.on("exit", (code) => reject(new Error(`serve exited (${code}): ${err}`)))
  })

/** One request on a new connection; the raw answer, or what happened instead (no answer in `ms`). */
const request = (port: number, ms = 3_000): Promise<string> =>
  new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    let text = ""
    const giveUp = setTimeout(() => (socket.destroy(), resolve(`no answer in ${ms} ms: ${text}`)), ms)
    socket.on("connect", () => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
    socket.on("data", (d) => {
      text += d.toString("latin1")
      if (text.includes("\r\n\r\n") && /\r\n\r\n[\s\S]*\S/.test(text)) (clearTimeout(giveUp), socket.destroy(), resolve(text))
    })
    socket.on("error", (e) => (clearTimeout(giveUp), resolve(`error: ${e.message}`)))
    socket.on("close", () => (clearTimeout(giveUp), resolve(text === "" ? "closed without an answer" : text)))
  })

/** Opens `n` connections that send nothing, resolving once each is connected (or failed). */
const idle = (port: number, n: number): Promise<Array<net.Socket>> =>
  Promise.all(
    Array.from({ length: n }, () =>
      new Promise<net.Socket>((resolve) => {
        const s = net.connect(port, "127.0.0.1")
        s.on("connect", () => resolve(s))
        s.on("error", () => resolve(s))
      })
    )
  )

describe("serve under a low open-file limit (own process)", () => {
  it("soft 256, hard 1,024: the cap is 960; 1,100 idle connections, then a client still gets an answer (429, the 140 refused ones gone), and /healthz once they go", async () => {
    const { child, port, stderr } = await startServe("256:1024")
    try {
      expect(stderr()).toContain(
        "clustersim: --max-connections 4096 lowered to 960: this process may open 1024 files (ulimit -Hn) and keeps 64 for its own (docs/limits.md)\n"
      )
      // an attack: connections that send nothing and never read (the 140 past the cap are answered 429 and
      // must not linger half-closed: closingGraceMs)
      const flood = await idle(port, 1_100)
      await new Promise((r) => setTimeout(r, 2_000))
      const refused = await request(port)
      expect(refused.startsWith("HTTP/1.1 429 Too Many Requests")).toBe(true)
      expect(JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4))).toMatchObject({ kind: "Status", code: 429, message: "Too many requests, please try again later." })
      for (const s of flood) s.destroy()
      await new Promise((r) => setTimeout(r, 500))
      expect(await request(port)).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nok$/)
    } finally {
      child.kill("SIGTERM")
    }
  }, 60_000)

  it("the sync load hook lets a wide module graph load under a limit of 64 descriptors, which fails without it", () => {
    const script = (hooked: boolean) =>
      `${hooked ? `import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent(${JSON.stringify(syncLoadHook)}));` : ""}
       import("effect").then(() => console.log("loaded"), (e) => console.log("failed: " + e.code))`
    const run = (hooked: boolean) =>
      spawnSync("prlimit", ["--nofile=64:64", process.execPath, "--input-type=module", "-e", script(hooked)], { encoding: "utf8", timeout: 20_000 }).stdout.trim()
    expect(run(false)).toBe("failed: EMFILE")
    expect(run(true)).toBe("loaded")
  })
})
