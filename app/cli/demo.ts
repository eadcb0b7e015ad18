/**
 * The objects `npm start` / `serve --demo` seed into its small live cluster (3 simulated nodes, app/cli/serveCluster.ts):
 * a Deployment whose controllers make its ReplicaSet and pods, which the scheduler places and the node agents start,
 * and a config map.
 */
import { Effect } from "effect"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { ConfigMaps, Deployments } from "../../src/api/Resources.js"

export const seedDemoCluster = Effect.gen(function* () {
  const api = yield* ApiServer
  yield* api.create(
    Deployments,
    {
      value: {
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "web" } },
          template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.27", resources: { requests: { cpu: "100m", memory: "128Mi" } } }] } }
        }
      }
    },
    { namespace: "default" }
  )
  yield* api.create(ConfigMaps, { value: { metadata: { name: "settings" }, data: { mode: "demo" } } }, { namespace: "default" })
  return `seeded demo cluster: Deployment "web" (3 pods) and 1 config map in "default"`
}).pipe(Effect.orDie)
