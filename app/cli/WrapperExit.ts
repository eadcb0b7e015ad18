/**
 * Ending with the package runner that started this process. `npx clustersim serve` runs `npm exec`, which runs
 * `sh -c "clustersim serve"`, which runs node: a SIGTERM to npm reaches the shell only (npm's run-script forwards
 * it to its own child), the shell dies, and node went on serving, re-parented to init. Under `npm exec` / `npx`
 * (npm sets `npm_command=exec`) the parent's going away is the signal: this process then sends itself the SIGTERM
 * the wrapper got, so `run` still writes its partial artifact (exit 143) and `serve` closes its port.
 * Not otherwise: a server started with `nohup clustersim serve &`, or by an npm script that ends with
 * `clustersim serve &`, is meant to outlive its shell.
 */

/** How often the parent is checked (Node has no parent-death signal; `process.ppid` is read anew each time). */
const checkEveryMs = 250

/** Starts watching; returns a function that stops it. `env` and `signal` are for tests. */
export const exitWithWrapper = (
  env: NodeJS.ProcessEnv = process.env,
  signal: () => void = () => void process.kill(process.pid, "SIGTERM")
): (() => void) => {
  if (env.npm_command !== "exec") return () => {}
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    signal()
  }, checkEveryMs)
  timer.unref()
  return () => clearInterval(timer)
}
