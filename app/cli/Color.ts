/**
 * Whether the command line writes colour (ANSI escapes): only to a terminal, and never when `NO_COLOR` is set to a
 * non-empty value (https://no-color.org). @effect/cli's own messages (parse errors, `--version`) are plain
 * paragraphs without escapes; the help (./Help.ts) asks here.
 */

/** Colour for a stream: a TTY, and `NO_COLOR` unset or empty. */
export const wantsColor = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")
