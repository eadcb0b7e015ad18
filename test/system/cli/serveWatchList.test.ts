/**
 * `clustersim serve --feature-gates WatchList=true` in its own process, driven over raw HTTP with the request
 * client-go's reflector sends in WatchList mode (`reflector.go` `watchList`: `watch=1`, `sendInitialEvents=true`,
 * `resourceVersionMatch=NotOlderThan`, `allowWatchBookmarks=true`, no resourceVersion): the state as ADDED lines,
 * the `k8s.io/initial-events-end` bookmark, then live events. A bad gate value is a usage error (exit 2).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { request } from "undici"
import { afterAll, describe, expect, it } from "vitest"

const children: ChildProcess[] = []
afterAll(() => children.forEach((c) => c.kill("SIGTERM")))

const serve = (args: ReadonlyArray<string>): Promise<{ url?: string; code?: number | null; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(stdout)
      if (listening) resolve({ url: listening[1]!, stderr })
    })
    child.on("exit", (code) => resolve({ code, stderr }))
    child.on("error", reject)
  })

const cm = (name: string) => JSON.stringify({ metadata: { name }, data: { v: "1" } })
const post = (url: string, body: string) =>
  request(`${url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.body.json())

describe("serve --feature-gates WatchList=true (own process, raw HTTP)", () => {
  it("the reflector's WatchList request: state, end bookmark, live events", async () => {
    const { url } = await serve(["--feature-gates", "WatchList=true"])
    for (const name of ["a", "b"]) await post(url!, cm(name))
    const res = await request(
      `${url}/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=30&watch=1`
    )
    expect(res.statusCode).toBe(200)
    expect(res.headers["content-type"]).toBe("application/json")
    const lines: Array<{ type: string; object: { metadata: { name?: string; resourceVersion: string; annotations?: Record<string, string> } } }> = []
    let text = ""
    for await (const chunk of res.body) {
      text += chunk.toString()
      while (text.includes("\n")) {
        lines.push(JSON.parse(text.slice(0, text.indexOf("\n"))))
        text = text.slice(text.indexOf("\n") + 1)
      }
      if (lines.length === 3) await post(url!, cm("c"))
      if (lines.length === 4) break
    }
    expect(lines.map((l) => `${l.type} ${l.object.metadata.name ?? l.object.metadata.annotations?.["k8s.io/initial-events-end"]}`)).toEqual([
      "ADDED a",
      "ADDED b",
      "BOOKMARK true",
      "ADDED c"
    ])
    expect(Number(lines[2]!.object.metadata.resourceVersion)).toBe(Number(lines[1]!.object.metadata.resourceVersion))
    // the same request with a continue token: upstream's validateWatchOptions refuses it before any stream
    const continued = await request(
      `${url}/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&continue=abc`
    )
    expect(continued.statusCode).toBe(422)
    expect(await continued.body.json()).toMatchObject({
      kind: "Status",
      reason: "Invalid",
      message: 'ListOptions.meta.platform "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
      details: { causes: [{ reason: "FieldValueForbidden", message: "Forbidden: resourceVersionMatch is forbidden when continue is provided", field: "resourceVersionMatch" }] }
    })
  }, 60_000)

  it("without the gate the same request is 422 naming it; a bad gate value is exit 2", async () => {
    const { url } = await serve([])
    const res = await request(`${url}/api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=1`)
    expect(res.statusCode).toBe(422)
    expect(((await res.body.json()) as { message: string }).message).toBe(
      'ListOptions.meta.platform "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'
    )
    const bad = await serve(["--feature-gates", "WatchList=maybe"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--feature-gates: invalid value of WatchList=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax')
  }, 60_000)
})
