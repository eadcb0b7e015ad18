/**
 * `run --out DIR` checked before the run: a run of many minutes whose `run.json` cannot be written at its end
 * would be lost. The check does what the end will do — make the directory, write a temporary file beside where
 * `run.json` goes and remove it — so a path under a file, a read-only or forbidden directory, or a directory named
 * `run.json` is refused at once (exit 2). A disk that fills during the run is still found only at the end.
 *
 * Output files named by a flag (`--junit FILE`, `--metrics-out FILE`) are checked the same way, in a directory that
 * must exist already: a file flag writes a file, it makes no directories (`outFileProblem`).
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

/** Why `run.json` cannot be written in `dir`, or undefined when it can (the directory is made if missing). */
export const outDirProblem = (dir: string): string | undefined => {
  try {
    mkdirSync(dir, { recursive: true })
  } catch (e) {
    return reasonOf(e, dir)
  }
  return writableFileProblem(join(dir, "run.json"), dir)
}

/**
 * Why the file `path` cannot be written at the run's end, or undefined when it can: its directory must exist (it is
 * not made), and then as for `run.json`.
 */
export const outFileProblem = (path: string): string | undefined => {
  const dir = dirname(resolve(path))
  try {
    if (!statSync(dir).isDirectory()) return `${fileOnPath(dir) ?? dir} is a file, not a directory`
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT") return `no such directory: ${dir}`
    return code === "ENOTDIR" ? `${fileOnPath(dir) ?? dir} is a file, not a directory` : reasonOf(e, dir)
  }
  return writableFileProblem(resolve(path), dir)
}

/**
 * In an existing directory `dir`: `path` must not be a directory, and the temporary file the end's atomic write makes
 * beside it (`writeAtomically`) is written and removed.
 */
const writableFileProblem = (path: string, dir: string): string | undefined => {
  try {
    if (statSync(path).isDirectory()) return `${path} is a directory`
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") return reasonOf(e, dir)
  }
  const probe = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(probe, "")
  } catch (e) {
    return reasonOf(e, dir)
  } finally {
    rmSync(probe, { force: true })
  }
  return undefined
}

/** The first component of `dir` (itself or an ancestor) that exists but is not a directory. */
const fileOnPath = (dir: string): string | undefined => {
  for (let p = dir; ; p = dirname(p)) {
    try {
      if (!statSync(p).isDirectory()) return p
    } catch {
      // missing: look further up
    }
    if (dirname(p) === p) return undefined
  }
}

/** A file-system error as a reason a person can act on. */
export const reasonOf = (e: unknown, dir: string): string => {
  const code = (e as NodeJS.ErrnoException).code
  switch (code) {
    case "ENOTDIR":
    case "EEXIST": {
      const file = fileOnPath(dir)
      return file !== undefined ? `${file} is a file, not a directory` : (e as Error).message
    }
    case "EROFS":
      return "read-only file system"
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "ENOSPC":
      return "no space left on device"
    case "EDQUOT":
      return "disk quota exceeded"
    default:
      return (e as Error).message
  }
}
