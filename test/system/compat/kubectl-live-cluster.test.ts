/**
 * Every kubectl on the machine against one `clustersim serve --nodes 20` (its own process, a live cluster on the real
 * clock): `kubectl apply` of a Deployment then `kubectl rollout status` succeeds; `kubectl scale` then `rollout status`
 * again, and the pod count is the new one, each pod Running on a simulated node; `kubectl logs` and `logs -f` print
 * the pod's simulated container log; `kubectl get events` shows the scheduler's and the kubelet's events for a pod;
 * `kubectl describe node` shows the node's Lease with a RenewTime that moves on; a Deployment whose selector does not
 * match its template, and a selector change, are refused with upstream's 422; every namespace has the ServiceAccount
 * `default` and `kubectl create token default` works. Fails when no kubectl is installed.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { writeFileSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, compatDir, findKubectls, python, run } from "./support/clients.js"

const kubectls = findKubectls()
const viteNode = "node_modules/.bin/vite-node"
let serve: ChildProcess | undefined
let url = ""
let stderr = ""
const dir = mkdtempSync(join(tmpdir(), "clustersim-live-"))

const until = async (what: () => Promise<boolean> | boolean, ms: number) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await what()) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return false
}

/** A Deployment of 3 `nginx:1.27` pods selected by `app`: `name`, or the labels given. */
const manifest = (name: string, labels: { readonly selector: string; readonly template: string } = { selector: name, template: name }) => {
  const file = join(dir, `${name}.yaml`)
  writeFileSync(
    file,
    [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      `  name: ${name}`,
      "spec:",
      "  replicas: 3",
      "  selector:",
      `    matchLabels: { app: ${labels.selector} }`,
      "  template:",
      "    metadata:",
      `      labels: { app: ${labels.template} }`,
      "    spec:",
      "      containers:",
      "      - name: web",
      "        image: nginx:1.27",
      ""
    ].join("\n")
  )
  return file
}

const renewTime = (describeOut: string) => /RenewTime:\s+(.+)/.exec(describeOut)?.[1]?.trim()

beforeAll(async () => {
  const child = spawn(viteNode, ["test/support/cliProcess.ts", "serve", "--port", "0", "--nodes", "20"], { stdio: ["ignore", "pipe", "pipe"] })
  serve = child
  let out = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const listening = /listening on (http:\/\/\S+)/.exec(out)
      if (listening) {
        url = listening[1]!
        resolve()
      }
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${out} ${stderr}`)))
  })
  // the agents register their nodes within the 2 s start spread
  const ready = await until(async () => {
    const nodes = await call(url, "GET", "/api/v1/nodes")
    return nodes.items.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === "Ready" && c.status === "True")).length === 20
  }, 30_000)
  expect(ready).toBe(true)
}, 120_000)

afterAll(() => {
  serve?.kill("SIGINT")
})

describe("kubectl against serve --nodes 20 (a live cluster)", () => {
  it("says on stderr what runs", () => {
    expect(stderr).toContain(
      "clustersim: live cluster (--nodes 20): 20 simulated nodes (node agents: registration, leases, pod start-up, container logs), node lifecycle controller, scheduler, deployment, replicaset and service account controllers, garbage collector, events; each controller under leader election\n"
    )
  })

  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  describe.concurrent.each(kubectls)("kubectl $version", ({ path, version }) => {
    const kubectl = (...args: ReadonlyArray<string>) => run(path, ["--server", url, ...args], 90_000)
    const name = `web-${version.replace(".", "-")}`

    it("apply → rollout status; scale → rollout status and the pod count; logs, logs -f; events", async () => {
      const applied = await kubectl("apply", "-f", manifest(name))
      expect([applied.code, applied.stdout, applied.stderr]).toEqual([0, `deployment.apps/${name} created\n`, ""])
      const rolled = await kubectl("rollout", "status", `deploy/${name}`, "--timeout=60s")
      expect(rolled.code).toBe(0)
      expect(rolled.stdout.trim().split("\n").at(-1)).toBe(`deployment "${name}" successfully rolled out`)

      const scaled = await kubectl("scale", "deploy", name, "--replicas=5")
      expect([scaled.code, scaled.stdout]).toEqual([0, `deployment.apps/${name} scaled\n`])
      const rolledAgain = await kubectl("rollout", "status", `deploy/${name}`, "--timeout=60s")
      expect(rolledAgain.code).toBe(0)
      expect(rolledAgain.stdout.trim().split("\n").at(-1)).toBe(`deployment "${name}" successfully rolled out`)
      const pods = await kubectl("get", "pods", "-l", `app=${name}`, "-o", "jsonpath={range .items[*]}{.metadata.name} {.status.phase} {.spec.nodeName}{\"\\n\"}{end}")
      const rows = pods.stdout.trim().split("\n").map((l) => l.split(" "))
      expect(rows).toHaveLength(5)
      for (const [pod, phase, node] of rows) {
        expect(pod).toMatch(new RegExp(`^${name}-[bcdfghjklmnpqrstvwxz2456789]+-[a-z0-9]{5}$`))
        expect(phase).toBe("Running")
        expect(node).toMatch(/^node-\d+$/)
      }
      const deploy = await kubectl("get", "deploy", name, "--no-headers")
      expect(deploy.stdout.trim().split(/\s+/).slice(0, 4)).toEqual([name, "5/5", "5", "5"])

      const [pod, , node] = rows[0]!
      const logs = await kubectl("logs", pod!)
      expect(logs.stderr).toBe("")
      expect(logs.stdout).toBe(
        [`Successfully assigned default/${pod} to ${node}`, 'Pulling image "nginx:1.27"', 'Successfully pulled image "nginx:1.27"', "Created container web", "Started container web", "Container web is ready", ""].join("\n")
      )
      // -f: the lines, then it follows until the pod goes
      const follow = spawn(path, ["--server", url, "logs", "-f", pod!], { stdio: ["ignore", "pipe", "pipe"] })
      let followed = ""
      follow.stdout.on("data", (c: Buffer) => (followed += c.toString()))
      const exited = new Promise<number | null>((resolve) => follow.on("exit", (code) => resolve(code)))
      try {
        expect(await until(() => followed.includes("Container web is ready\n"), 20_000)).toBe(true)
        expect(followed).toBe(logs.stdout)
        expect(follow.exitCode).toBe(null)
        expect((await kubectl("delete", "pod", pod!, "--wait=false")).code).toBe(0)
        expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("still following"), 20_000))])).toBe(0)
      } finally {
        follow.kill()
      }

      const events = await kubectl("get", "events", "--field-selector", `involvedObject.name=${rows[1]![0]}`, "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}")
      expect(events.code).toBe(0)
      const seen = events.stdout.trim().split("\n")
      const other = rows[1]!
      expect(seen).toEqual(
        expect.arrayContaining([
          `Scheduled: Successfully assigned default/${other[0]} to ${other[2]}`,
          'Pulling: Pulling image "nginx:1.27"',
          "Created: Created container web",
          "Started: Started container web"
        ])
      )
      expect(seen.some((l) => /^Pulled: Successfully pulled image "nginx:1\.27" in \S+ \(\S+ including waiting\)$/.test(l))).toBe(true)
      const all = await kubectl("get", "events")
      expect(all.stdout).toMatch(new RegExp(`Normal\\s+ScalingReplicaSet\\s+deployment/${name}\\s+Scaled up replica set ${name}-`))

      // a Service gets upstream's defaults and a cluster IP; a NodePort one a node port
      expect((await kubectl("expose", "deploy", name, "--port", "80", "--target-port", "8080")).stdout).toBe(`service/${name} exposed\n`)
      const svc = (await kubectl("get", "svc", name, "-o", "wide", "--no-headers")).stdout.trim().split(/\s+/)
      expect([svc[0], svc[1], svc[3], svc[4], svc[6]]).toEqual([name, "ClusterIP", "<none>", "80/TCP", `app=${name}`])
      expect(svc[2]).toMatch(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/)
      expect((await kubectl("create", "svc", "nodeport", `${name}-np`, "--tcp=80:8080")).code).toBe(0)
      const np = (await kubectl("get", "svc", `${name}-np`, "--no-headers")).stdout.trim().split(/\s+/)
      expect(np[1]).toBe("NodePort")
      expect(np[4]).toMatch(/^80:(3[0-2]\d{3})\/TCP$/)
      // `get all`: the kinds discovery puts in the `all` category
      const everything = await kubectl("get", "all")
      expect(everything.stderr).toBe("")
      for (const row of [`pod/${name}-`, `service/${name} `, `deployment.apps/${name} `, `replicaset.apps/${name}-`]) expect(everything.stdout).toContain(row)
    }, 120_000)

    it("a Deployment whose selector does not match its template is refused (upstream's 422), as is a selector change; the server answers on", async () => {
      const tag = version.replace(".", "-")
      const bad = `mismatch-${tag}`
      const refused = await kubectl("apply", "-f", manifest(bad, { selector: "a", template: "b" }))
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        1,
        "",
        `The Deployment "${bad}" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: \`selector\` does not match template \`labels\`\n`
      ])
      const other = `selector-${tag}`
      expect((await kubectl("create", "deployment", other, "--image=nginx:1.27")).code).toBe(0)
      const moved = { spec: { selector: { matchLabels: { app: other, x: "y" } }, template: { metadata: { labels: { app: other, x: "y" } } } } }
      const patched = await kubectl("patch", "deploy", other, "--type=merge", "-p", JSON.stringify(moved))
      expect([patched.code, patched.stderr]).toEqual([
        1,
        `The Deployment "${other}" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"${other}", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable\n`
      ])
      expect((await kubectl("get", "--raw", "/version")).code).toBe(0)
      expect((await kubectl("get", "deploy", bad)).code).toBe(1)
    }, 60_000)
  })

  it("get nodes -o wide: the kubelet version, InternalIP, OS image, kernel and runtime the node agents report", async () => {
    const kubectl = kubectls.at(-1)!
    const got = await run(kubectl.path, ["--server", url, "get", "nodes", "-o", "wide", "--no-headers"])
    const rows = got.stdout.trim().split("\n").map((l) => l.split(/\s{2,}/))
    expect(rows).toHaveLength(20)
    for (const row of rows) {
      const ordinal = Number(row[0]!.slice("node-".length))
      expect([row[1], row[4], row[5], row[6], row[7], row[8], row[9]]).toEqual(["Ready", "v1.26.0", `172.16.0.${ordinal + 2}`, "<none>", "clustersim simulated node", "6.1.0-clustersim", "clustersim://1.26.0"])
    }
  })

  it("the official Python client reads every node and pod (list_node, list_namespaced_pod)", async () => {
    const ran = await run(python, [`${compatDir}python/checks.py`, url, "live-read"])
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    const { nodes, pods } = JSON.parse(ran.stdout)
    expect(nodes).toHaveLength(20)
    for (const [name, version, bootID, podCIDR, addresses] of nodes) {
      const ordinal = Number(name.slice("node-".length))
      expect([version, podCIDR, addresses]).toEqual(["v1.26.0", `10.244.${ordinal}.0/24`, [["InternalIP", `172.16.0.${ordinal + 2}`], ["Hostname", name]]])
      expect(bootID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }
    const running = pods.filter((p: any) => p[1] === "Running")
    expect(running.length).toBeGreaterThan(0)
    for (const [, , podIP, hostIP, containers] of running) {
      expect(podIP).toMatch(/^10\.244\.\d+\.\d+$/)
      expect(podIP.split(".")[2]).toBe(String(Number(hostIP.split(".")[3]) - 2))
      for (const [, image, imageID, containerID] of containers) {
        expect(image).toBe("docker.io/library/nginx:1.27")
        expect(imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/)
        expect(containerID).toMatch(/^clustersim:\/\/[0-9a-f]{64}$/)
      }
    }
  }, 60_000)

  it("every namespace has the ServiceAccount `default` (the service accounts controller), a new one too; `kubectl create token default` issues a token", async () => {
    const kubectl = (...args: ReadonlyArray<string>) => run(kubectls.at(-1)!.path, ["--server", url, ...args])
    const accounts = await kubectl("get", "sa", "-A", "--no-headers", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name")
    const namespaces = await kubectl("get", "ns", "--no-headers", "-o", "custom-columns=NAME:.metadata.name")
    expect(accounts.stdout.trim().split("\n").map((l) => l.split(/\s+/))).toEqual(expect.arrayContaining(namespaces.stdout.trim().split("\n").map((ns) => [ns, "default"])))
    expect((await kubectl("create", "namespace", "team-sa")).code).toBe(0)
    expect(await until(async () => (await kubectl("get", "sa", "default", "-n", "team-sa", "-o", "name")).stdout === "serviceaccount/default\n", 10_000)).toBe(true)
    const token = await kubectl("create", "token", "default", "-n", "team-sa")
    expect([token.code, token.stderr]).toEqual([0, ""])
    expect(token.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
  }, 30_000)

  it("describe node shows the node's Lease, renewed as time passes (every 10 s)", async () => {
    const kubectl = kubectls.at(-1)!
    const describeNode = () => run(kubectl.path, ["--server", url, "describe", "node", "node-7"])
    const first = await describeNode()
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/Lease:\n\s+HolderIdentity:\s+node-7\n/)
    const before = renewTime(first.stdout)
    expect(before).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/)
    expect(first.stdout).not.toContain("Mon, 01 Jan 0001")
    expect(await until(async () => renewTime((await describeNode()).stdout) !== before, 15_000)).toBe(true)
    const after = renewTime((await describeNode()).stdout)!
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(before!))
  }, 30_000)
})
