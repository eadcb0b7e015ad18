/**
 * Runs the CLI's `main` in this process and captures what it writes: stdout and stderr (both the streams and
 * `console.log` / `console.error`), optionally without colour escapes. The mocks are restored when it returns.
 */
import { vi } from "@effect/vitest"
import { main } from "../../app/cli/main.js"

export interface Captured {
  readonly code: number
  readonly out: string
  readonly err: string
}

const noColour = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "")

export const captureMain = async (args: ReadonlyArray<string>, o: { readonly stripColour?: boolean } = {}): Promise<Captured> => {
  const out: Array<string> = []
  const err: Array<string> = []
  const text = o.stripColour === true ? noColour : (s: string) => s
  vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(text(String(s))), true))
  vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(text(String(s))), true))
  vi.spyOn(console, "log").mockImplementation((...xs) => void out.push(text(xs.join(" ")) + "\n"))
  vi.spyOn(console, "error").mockImplementation((...xs) => void err.push(text(xs.join(" ")) + "\n"))
  try {
    const code = await main(args)
    return { code, out: out.join(""), err: err.join("") }
  } finally {
    vi.restoreAllMocks()
  }
}
