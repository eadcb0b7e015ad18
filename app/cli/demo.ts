/** A small seeded cluster for `npm start` / `serve --demo`: nodes, pods spread over them, config maps. */
import { Effect } from "effect"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { ConfigMaps, Nodes, Pods } from "../../src/api/Resources.js"

export const seedDemoCluster = Effect.gen(function* () {
  const api = yield* ApiServer
  const nodes = ["node-a", "node-b", "node-c"]
  for (const name of nodes) {
    yield* api.create(Nodes, {
      value: {
        metadata: { name, labels: { "platform.io/hostname": name } },
        status: { capacity: { cpu: "8", memory: "32Gi", pods: "110" }, conditions: [{ type: "Ready", status: "True" }] }
      }
    })
  }
  for (let i = 0; i < 6; i++) {
    yield* api.create(Pods, {
      value: {
        metadata: { name: `web-${i}`, labels: { app: "web" } },
        spec: { nodeName: nodes[i % nodes.length], containers: [{ name: "web", image: "nginx" }] },
        status: { phase: "Running" }
      }
    }, { namespace: "default" })
  }
  yield* api.create(ConfigMaps, { value: { metadata: { name: "settings" }, data: { mode: "demo" } } }, { namespace: "default" })
  return `seeded demo cluster: ${nodes.length} nodes, 6 pods in "default", 1 config map`
}).pipe(Effect.orDie)
