/**
 * client-go's loading rules (`clientcmd/loader.go`): which files are read, in which order, and how they merge.
 * The environment is injected; nothing here reads process.env or the real home directory.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { loadKubeconfigFiles, type LoadingEnvironment, precedence, resolveLoadedContext } from "../../src/client/KubeconfigLoading.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-kubeconfig-loading-"))
const write = (name: string, text: string) => {
  const file = path.join(dir, name)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, text)
  return file
}
const env = (kubeconfigEnv: string | undefined, home = path.join(dir, "no-home")): LoadingEnvironment => ({ kubeconfigEnv, home, read: (p) => readFile(p, "utf8") })

const config = (o: { current?: string; clusters?: Record<string, string>; users?: Record<string, string>; contexts?: Record<string, [string, string]> }) =>
  [
    ...(o.current ? [`current-context: ${o.current}`] : []),
    "clusters:",
    ...Object.entries(o.clusters ?? {}).map(([n, s]) => `- { name: ${n}, cluster: { server: "${s}" } }`),
    "users:",
    ...Object.entries(o.users ?? {}).map(([n, t]) => `- { name: ${n}, user: { token: ${t} } }`),
    "contexts:",
    ...Object.entries(o.contexts ?? {}).map(([n, [c, u]]) => `- { name: ${n}, context: { cluster: ${c}, user: ${u} } }`)
  ].join("\n") + "\n"

const first = write("merge/first.yaml", config({ clusters: { shared: "https://first:1" }, users: { u: "first-token" }, contexts: { a: ["shared", "u"] } }))
const second = write(
  "merge/second.yaml",
  config({ current: "b", clusters: { shared: "https://second:2", own: "https://own:3" }, users: { u: "second-token" }, contexts: { a: ["own", "u"], b: ["own", "u"] } })
)
const third = write("merge/third.yaml", config({ current: "a", contexts: {} }))

describe("precedence", () => {
  it("--kubeconfig alone; else $KUBECONFIG's list without duplicates or empty entries; else ~/.kube/config", () => {
    expect(precedence("x.yaml", env(`${first}${path.delimiter}${second}`))).toEqual({ source: "--kubeconfig", files: [path.resolve("x.yaml")] })
    expect(precedence(undefined, env(`${first}${path.delimiter}${path.delimiter}${second}${path.delimiter}${first}`))).toEqual({ source: "$KUBECONFIG", files: [first, second] })
    expect(precedence(undefined, env("", "/home/u"))).toEqual({ source: "~/.kube/config", files: ["/home/u/.kube/config"] })
    expect(precedence(undefined, env(undefined, "/home/u"))).toEqual({ source: "~/.kube/config", files: ["/home/u/.kube/config"] })
  })
})

describe("merging $KUBECONFIG's files", () => {
  it.effect("the first file to name a cluster, user or context wins it; current-context from the first file that sets one", () =>
    Effect.gen(function* () {
      const loaded = yield* loadKubeconfigFiles(undefined, env([first, second, third].join(path.delimiter)))
      expect(loaded.files).toEqual([first, second, third])
      expect(loaded.config["current-context"]).toBe("b")
      const b = yield* resolveLoadedContext(loaded, undefined)
      // b comes from the second file, its cluster "own" too, but user "u" from the first
      expect(b).toEqual({ file: second, context: "b", client: { baseUrl: "https://own:3", token: "first-token" } })
      // context a: the first file's, so cluster "shared" is the first file's as well
      expect((yield* resolveLoadedContext(loaded, "a")).client).toEqual({ baseUrl: "https://first:1", token: "first-token" })
      // in the other order the second file wins every name and its current-context
      const reversed = yield* loadKubeconfigFiles(undefined, env([third, second, first].join(path.delimiter)))
      expect(reversed.config["current-context"]).toBe("a")
      expect((yield* resolveLoadedContext(reversed, undefined)).client).toEqual({ baseUrl: "https://own:3", token: "second-token" })
    }))

  it.effect("missing files in $KUBECONFIG are skipped; ~/.kube/config is not read then", () =>
    Effect.gen(function* () {
      const home = path.join(dir, "home")
      write("home/.kube/config", config({ current: "h", clusters: { h: "https://home:1" }, contexts: { h: ["h", "h"] }, users: { h: "h" } }))
      const absent = path.join(dir, "absent.yaml")
      const loaded = yield* loadKubeconfigFiles(undefined, env([absent, second].join(path.delimiter), home))
      expect({ files: loaded.files, missing: loaded.missing }).toEqual({ files: [second], missing: [absent] })
      const none = yield* loadKubeconfigFiles(undefined, env(absent, home))
      expect({ files: none.files, missing: none.missing, source: none.source }).toEqual({ files: [], missing: [absent], source: "$KUBECONFIG" })
      // unset: the home file
      const fromHome = yield* loadKubeconfigFiles(undefined, env(undefined, home))
      expect((yield* resolveLoadedContext(fromHome, undefined)).client.baseUrl).toBe("https://home:1")
      // no home file: nothing loaded, nothing missing to warn of
      expect((yield* loadKubeconfigFiles(undefined, env(undefined))).files).toEqual([])
    }))

  it.effect("an explicit --kubeconfig that is missing is an error; an unparsable file in the list is an error naming it", () =>
    Effect.gen(function* () {
      const absent = path.join(dir, "absent.yaml")
      const e = yield* Effect.flip(loadKubeconfigFiles(absent, env(second)))
      expect(e.message).toMatch(new RegExp(`^kubeconfig ${absent}: cannot read: ENOENT`))
      const broken = write("broken.yaml", "clusters: 3\n")
      const e2 = yield* Effect.flip(loadKubeconfigFiles(undefined, env([second, broken].join(path.delimiter))))
      expect(e2.message).toBe(`kubeconfig ${broken}: clusters: Expected ReadonlyArray<{ readonly name: string; readonly cluster: { readonly server?: string | undefined; readonly certificate-authority?: string | undefined; readonly certificate-authority-data?: string | undefined; readonly insecure-skip-tls-verify?: boolean | undefined } }>, actual 3`)
    }))

  it.effect("relative paths resolve against the file that names them, not the first file", () =>
    Effect.gen(function* () {
      write("rel/a/ca.pem", "CA-A")
      write("rel/b/token", "token-b\n")
      const a = write("rel/a/config", `current-context: x\nclusters:\n- { name: c, cluster: { server: "https://c:1", certificate-authority: ca.pem } }\n`)
      const b = write("rel/b/config", `contexts:\n- { name: x, context: { cluster: c, user: u } }\nusers:\n- { name: u, user: { tokenFile: token } }\n`)
      const loaded = yield* loadKubeconfigFiles(undefined, env([a, b].join(path.delimiter)))
      const r = yield* resolveLoadedContext(loaded, undefined)
      expect(r.client).toEqual({ baseUrl: "https://c:1", token: "token-b", tokenFile: path.join(dir, "rel/b/token"), tls: { ca: "CA-A" } })
    }))
})
