/** `clustersim serve -v` logs each request on stderr as one httplog line; without it, nothing. */
import { type ChildProcess, spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"

const start = (args: ReadonlyArray<string>) =>
  new Promise<{ child: ChildProcess; url: string; stderr: () => string }>((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stderr!.on("data", (d: Buffer) => void (err += d.toString()))
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1]!, stderr: () => err })
    })
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${out}${err}`)))
  })

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGTERM")))

describe("serve -v", () => {
  it("-v writes one line per request to stderr; without it, none", async () => {
    for (const flag of ["-v", undefined]) {
      const s = await start(flag ? [flag] : [])
      try {
        expect((await fetch(`${s.url}/api/v1/namespaces/default/pods`, { headers: { "user-agent": "log-test/1.0" } })).status).toBe(200)
        expect((await fetch(`${s.url}/api/v1/namespaces/default/pods/nope`)).status).toBe(404)
        await new Promise((r) => setTimeout(r, 200))
        const lines = s.stderr().split("\n").filter((l) => l.includes('"HTTP"'))
        if (flag === undefined) expect(lines).toEqual([])
        else {
          expect(lines.length, flag).toBe(2)
          expect(lines[0]).toMatch(
            /^I\d{4} \d\d:\d\d:\d\d\.\d{6} httplog\] "HTTP" verb="LIST" URI="\/api\/v1\/namespaces\/default\/pods" latency="[\d.]+(µs|ms|s)" user="system:anonymous" userAgent="log-test\/1\.0" srcIP="127\.0\.0\.1:\d+" resp=200$/
          )
          expect(lines[1]).toMatch(/ verb="GET" URI="\/api\/v1\/namespaces\/default\/pods\/nope" latency="[^"]+" user="system:anonymous" userAgent="[^"]*" srcIP="[^"]+" resp=404$/)
        }
      } finally {
        await stop(s.child)
      }
    }
  }, 120_000)
})
