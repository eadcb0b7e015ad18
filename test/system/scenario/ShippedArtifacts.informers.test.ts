/**
 * The shipped quickstart and list-watch-relist scenarios on the real clock against the in-process server: the shape
 * recorded in test/fixtures/shipped-scenarios.json (scenario, target, series keys, actions, thresholds judged), what
 * a refactoring of the run pipeline must keep. About 50 real seconds; the other shipped runs: ShippedArtifacts.test.ts.
 */
import { describeShipped } from "./shippedCases.js"

describeShipped(["scenarios/list-watch-relist.yaml", "scenarios/quickstart.yaml"], "load-only")
