/**
 * Hashes of the simulated cluster's result documents (the `wall` part left out), for checking that a refactoring
 * keeps every run the same: the benchmark's control-plane configuration and the shipped cluster scenario's sections
 * (./resultHashConfigurations.ts; test/cluster/ResultHash.test.ts keeps them).
 *
 *   npx tsc -p . && node dist/bench/resultHash.js          # prints one `name sha256` line per configuration
 *   node dist/bench/resultHash.js --no-apf                 # API Priority and Fairness off, `serverModel` left out:
 *                                                          # the runs as they were before APF (issue 20)
 */
import { configurations, resultHash } from "./resultHashConfigurations.js"

const withoutApf = process.argv.includes("--no-apf")

for (const [name, options] of configurations) console.log(`${resultHash(options(), withoutApf)}  ${name}`)
