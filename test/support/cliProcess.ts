/**
 * The CLI as its own process for tests that need one (signals, exit codes): `vite-node test/support/cliProcess.ts
 * run scenario.yaml …` runs `main` as `dist/app/cli/main.js` would, from the sources (ending with an npm wrapper too).
 */
import { main } from "../../app/cli/main.js"
import { exitWithWrapper } from "../../app/cli/WrapperExit.js"

exitWithWrapper()

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`clustersim: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    process.exit(1)
  }
)
