/**
 * Keeps a developer's own cluster out of the tests: `run` and `compare` without `--target` follow client-go's
 * loading rules ($KUBECONFIG, then ~/.kube/config; docs/credentials.md), so on a machine that has either, a test
 * that relies on the embedded server would reach that cluster instead. Here neither is seen, by this process or by
 * the processes it starts. A machine without them (CI) is left as it is.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

delete process.env.KUBECONFIG
if (fs.existsSync(path.join(os.homedir(), ".kube", "config"))) {
  process.env.HOME = fs.mkdtempSync(path.join(os.tmpdir(), "clustersim-test-home-"))
}
