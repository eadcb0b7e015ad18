/**
 * Starting one of the CLI's entry files as a Node process of its own, with an IPC channel: the embedded server
 * (`serveEntry`) and generator workers (`workerEntry`). Compiled, the entry is `node dist/app/cli/<entry>.js`; from
 * the TypeScript sources (the tests) it runs through vite-node, as test/support/cliProcess.ts does for the CLI.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export type Entry = "serveEntry" | "workerEntry" | "cliEntry"

const entryCommand = (entry: Entry): { readonly command: string; readonly args: ReadonlyArray<string> } => {
  const here = import.meta.url
  if (here.endsWith(".js")) return { command: process.execPath, args: [fileURLToPath(new URL(`./${entry}.js`, here))] }
  const root = fileURLToPath(new URL("../..", here))
  return { command: join(root, "node_modules/.bin/vite-node"), args: [join(root, "app/cli", `${entry}.ts`)] }
}

/**
 * The child's stdout is piped (the server prints its URL there); stderr is the parent's unless piped too.
 * `ownProcessGroup`: a terminal's Ctrl-C reaches the parent only, which passes it on once (a child in the terminal's
 * group would get it twice, and a second SIGINT ends a run before it writes its artifact).
 */
export const spawnEntry = (entry: Entry, args: ReadonlyArray<string>, o: { readonly pipeStderr?: boolean; readonly ownProcessGroup?: boolean } = {}): ChildProcess => {
  const { command, args: entryArgs } = entryCommand(entry)
  return spawn(command, [...entryArgs, ...args], { stdio: ["ignore", "pipe", o.pipeStderr ? "pipe" : "inherit", "ipc"], ...(o.ownProcessGroup ? { detached: true } : {}) })
}

/** In a child: exit when the parent goes away (its IPC channel closes), however it ended — no orphaned servers. */
export const exitWithParent = (): void => {
  process.on("disconnect", () => process.exit(0))
}
