/** The node agents' settings of the node-agent unit tests: upstream's defaults, 50/100 QPS, 110 pods. */
import type { NodeAgentSettings } from "../../simulator/nodeagent/AgentEnvironment.js"

export const agentSettings: NodeAgentSettings = {
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 300_000,
  nodeLeaseDurationSeconds: 40,
  platformAPIQPS: 50,
  platformAPIBurst: 100,
  maxPods: 110,
  podsPerCore: 0
}
