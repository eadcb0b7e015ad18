/**
 * Every kubectl on the machine against `clustersim serve` (its own process): `kubectl logs` prints the pod's
 * simulated log (not the Pod's JSON), `kubectl logs -f` prints a line the pod's status adds and ends when the pod
 * is deleted, `kubectl logs` of a pod still creating is upstream's 400, `kubectl scale deploy --replicas=2` goes
 * through `deployments/scale` (found by discovery) and sets the Deployment's replicas. Fails when no kubectl is
 * installed.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, findKubectls, run } from "./support/clients.js"

const kubectls = findKubectls()
const viteNode = "node_modules/.bin/vite-node"
let serve: ChildProcess | undefined
let url = ""
const pods = "/api/v1/namespaces/default/pods"

const started = "2026-01-01T00:00:05Z"
const status = (ready: boolean) => ({
  phase: "Running",
  conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }, ...(ready ? [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:09Z" }] : [])],
  containerStatuses: [{ name: "c", image: "nginx", imageID: "", ready, restartCount: 0, containerID: "sim://c", state: { running: { startedAt: started } } }]
})

const makePod = async (name: string, podStatus: unknown) => {
  const pod = await call(url, "POST", pods, { metadata: { name }, spec: { nodeName: "n1", containers: [{ name: "c", image: "nginx" }] } })
  if (podStatus) await call(url, "PUT", `${pods}/${name}/status`, { ...pod, status: podStatus })
}

const setStatus = async (name: string, podStatus: unknown) => {
  const pod = await call(url, "GET", `${pods}/${name}`)
  await call(url, "PUT", `${pods}/${name}/status`, { ...pod, status: podStatus })
}

beforeAll(async () => {
  const child = spawn(viteNode, ["test/support/cliProcess.ts", "serve", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] })
  serve = child
  let out = ""
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(out)
      if (listening) {
        url = listening[1]!
        resolve()
      }
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
  await call(url, "POST", "/api/v1/nodes", { metadata: { name: "n1" }, status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] } })
}, 120_000)

afterAll(() => {
  serve?.kill("SIGINT")
})

describe("kubectl logs and scale against clustersim serve", () => {
  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  describe.each(kubectls)("kubectl $version", ({ path, version }) => {
    const kubectl = (...args: ReadonlyArray<string>) => run(path, ["--server", url, ...args])
    const suffix = version.replace(".", "-")

    it("logs: the simulated lifecycle lines; --tail; a pod still creating is upstream's 400", async () => {
      const name = `web-${suffix}`
      await makePod(name, status(true))
      const out = await kubectl("logs", name)
      expect(out.stderr).toBe("")
      expect(out.stdout).toBe(
        [`Successfully assigned default/${name} to n1`, 'Pulling image "nginx"', 'Successfully pulled image "nginx"', "Created container c", "Started container c", "Container c is ready", ""].join("\n")
      )
      expect((await kubectl("logs", name, "--tail=1", "--timestamps")).stdout).toBe("2026-01-01T00:00:09.000000000Z Container c is ready\n")
      const creating = `creating-${suffix}`
      await makePod(creating, { phase: "Pending", containerStatuses: [{ name: "c", image: "nginx", imageID: "", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }] })
      const refused = await kubectl("logs", creating)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe(`Error from server (BadRequest): container "c" in pod "${creating}" is waiting to start: ContainerCreating\n`)
    })

    it("logs -f: prints the line a status change adds, ends when the pod is deleted", async () => {
      const name = `follow-${suffix}`
      await makePod(name, status(false))
      const child = spawn(path, ["--server", url, "logs", "-f", name, "--tail=1"], { stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      child.stdout.on("data", (c: Buffer) => (out += c.toString()))
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      const until = async (what: () => boolean) => {
        for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 20))
      }
      try {
        await until(() => out.includes("\n"))
        expect(out).toBe("Started container c\n")
        await setStatus(name, status(true))
        await until(() => out.includes("ready"))
        expect(out).toBe("Started container c\nContainer c is ready\n")
        await call(url, "DELETE", `${pods}/${name}?gracePeriodSeconds=0`)
        expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), 10_000))])).toBe(0)
      } finally {
        child.kill()
      }
    }, 30_000)

    it("scale deploy --replicas=2: through deployments/scale, the Deployment's replicas set", async () => {
      const name = `hello-${suffix}`
      await call(url, "POST", "/apis/apps/v1/namespaces/default/deployments", {
        metadata: { name },
        spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } } }
      })
      const out = await kubectl("scale", "deploy", name, "--replicas=2")
      expect(out.stderr).toBe("")
      expect(out.stdout).toBe(`deployment.apps/${name} scaled\n`)
      expect((await call(url, "GET", `/apis/apps/v1/namespaces/default/deployments/${name}`)).spec.replicas).toBe(2)
      // --current-replicas is a precondition read from the Scale.
      const stale = await kubectl("scale", "deploy", name, "--current-replicas=5", "--replicas=3")
      expect(stale.code).toBe(1)
      expect((await call(url, "GET", `/apis/apps/v1/namespaces/default/deployments/${name}`)).spec.replicas).toBe(2)
    })
  })
})
