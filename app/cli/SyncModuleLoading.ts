/**
 * Node's ESM loader reads every file of a module graph at once, each read holding a descriptor: loading the CLI
 * takes ~300 descriptors, so under a hard open-file limit of 256 it failed with EMFILE (or a misleading "Cannot
 * find package"). With a low limit, a loader hook reads each module synchronously, so a read holds its descriptor
 * only while it runs. Not used otherwise: the hook runs on a thread of its own and slows start-up.
 */
import * as nodeModule from "node:module"
import { openFilesLimit } from "./DescriptorLimit.js"

/** Below this limit the modules are read one at a time. */
export const syncLoadingBelow = 1024

/** The hook (node:module `load`), as source: it runs on the loader's own thread, from the sources or from dist. */
export const syncLoadHook = `
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
export async function load(url, context, nextLoad) {
  if (context.format === "module" && url.startsWith("file:"))
    return { format: "module", source: readFileSync(fileURLToPath(url)), shortCircuit: true }
  return nextLoad(url, context)
}
`

/** Registers the hook when the open-file limit is low (and node can register hooks); says whether it did. */
export const loadModulesSynchronouslyIfLimitLow = (limit: number | undefined = openFilesLimit()): boolean => {
  if (limit === undefined || limit >= syncLoadingBelow || typeof nodeModule.register !== "function") return false
  nodeModule.register(`data:text/javascript,${encodeURIComponent(syncLoadHook)}`)
  return true
}
