/**
 * The process's open-file limit and the connection cap it allows (docs/limits.md "Open connections"). Node has no
 * setrlimit, but needs none: at start-up it raises its own soft limit to the hard one (node's `PlatformInit` in
 * src/node.cc), so the soft limit read here is already as high as this process can go. A cap above it would let
 * idle connections use up the descriptors, and then accept() fails and every other client gets no answer at all.
 */
import { readFileSync } from "node:fs"

/** Descriptors kept for the process's own files: ~20 in use while serving (stdio, epoll, libuv's pipes, the listener), the rest for reads and 429 answers. */
export const ownDescriptors = 64

/** The soft "Max open files" of a `/proc/<pid>/limits` text; undefined when unlimited or absent. */
export const parseOpenFilesLimit = (limits: string): number | undefined => {
  const m = /^Max open files\s+(\S+)/m.exec(limits)
  if (m === null || m[1] === "unlimited") return undefined
  const n = Number(m[1])
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** This process's open-file limit (Linux), undefined where /proc cannot tell. */
export const openFilesLimit = (): number | undefined => {
  try {
    return parseOpenFilesLimit(readFileSync("/proc/self/limits", "utf8"))
  } catch {
    return undefined
  }
}

/** The connections the server may hold open: the requested cap, lowered to leave {@link ownDescriptors} of the limit (at least 1). */
export const connectionCap = (requested: number, limit: number | undefined): number =>
  limit === undefined ? requested : Math.min(requested, Math.max(1, limit - ownDescriptors))
