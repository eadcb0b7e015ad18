/**
 * The shipped scenarios not in the fast tier's test/scenario/ShippedArtifacts.test.ts, long simulations: the same
 * artifact and cluster result hash for the same seed, as recorded in test/fixtures/shipped-scenarios.json
 * (`RECORD_SHIPPED=1` records again). The system tier's other shipped runs, split into files that vitest's workers
 * run side by side: the load-only ones on the real clock in ShippedArtifacts.{tokens,relist,informers}.test.ts; the
 * two APF storms in ApfRelistStorm.test.ts (one run each for its thresholds and its fingerprint).
 */
import { describeShipped } from "./shippedCases.js"

describeShipped(["scenarios/cluster/capacity.yaml", "scenarios/cluster/realtime-5000.yaml", "scenarios/everything.yaml", "scenarios/registry-outage.yaml", "scenarios/relist-watchlist.yaml"], "simulated")
