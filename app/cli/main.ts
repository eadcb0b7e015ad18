#!/usr/bin/env node
/**
 * The `clustersim` executable. The command line itself is ./commandLine.ts, loaded only once module loading is
 * safe under this process's open-file limit (./SyncModuleLoading.ts): its static imports would otherwise all be
 * read at once, before any code here could run.
 */
import { realpathSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { loadModulesSynchronouslyIfLimitLow } from "./SyncModuleLoading.js"
import { exitWithWrapper } from "./WrapperExit.js"

/** Runs the command line on `args` (without node and the script); resolves to the exit code. */
export const main = async (args: ReadonlyArray<string>): Promise<number> => {
  loadModules()
  const commandLine = await import("./commandLine.js")
  return commandLine.main(args)
}

let hooked = false
const loadModules = () => {
  if (hooked) return
  hooked = true
  loadModulesSynchronouslyIfLimitLow()
}

/** Run when executed (also through npm's `.bin` symlink), not when imported by a test. */
const invokedDirectly = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])
  } catch {
    return false
  }
})()
/** This process is the CLI: its arguments run, its exit code is the command's. */
export const runAsProcess = (): void => {
  exitWithWrapper()
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`clustersim: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
      process.exit(1)
    }
  )
}
if (invokedDirectly) runAsProcess()
