/** `clustersim serve ARGS…` as the embedded server's own process (./ServerProcess.ts); it ends with its parent. */
import { exitWithParent } from "./ChildEntry.js"
import { main } from "./main.js"

exitWithParent()
main(["serve", ...process.argv.slice(2)]).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`clustersim serve: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    process.exit(1)
  }
)
