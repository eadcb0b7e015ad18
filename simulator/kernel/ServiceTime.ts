/**
 * Moved to `simulator/apiserver/ServiceTime.ts` (the latency model belongs to the API server). This re-export keeps
 * `simulator/nodeagent/NodeAgentShard.ts` building until its owner switches the import; the layer test lists it as
 * a known violation (`test/architecture/layers.test.ts`).
 */
export type { ServiceTimeModel } from "../apiserver/ServiceTime.js"
