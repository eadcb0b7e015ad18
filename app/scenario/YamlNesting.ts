/**
 * The nesting depth of a YAML text, found without recursion: `yaml`'s parser and composer recurse once per level
 * (the parser when it closes many block levels at once), so a file nested a few hundred levels deep overflowed the
 * stack inside them and was reported as "Maximum call stack size exceeded" at whatever position the stack ran out.
 * This scan reads the text line by line before `yaml` sees it and names a fixed place.
 *
 * Levels are counted as YAML nests them, close enough for a bound: each deeper indentation opens one, each `- `
 * opens the sequence and its item, each `[` or `{` opens one (outside quotes and comments), and the lines of a
 * block scalar (`|`, `>`) are text. A sequence written at its key's indentation counts one level short, so the
 * count is at least half the true depth.
 */

/**
 * Nesting deeper than this is refused. Real scenarios nest a few dozen levels (an object template's own nesting
 * included); `yaml` overflows node's default stack at ~800.
 */
export const MaxYamlNesting = 256

/** The offset where the text first nests deeper than `max`, or undefined. */
export const nestingPastBound = (text: string, max: number = MaxYamlNesting): number | undefined => {
  // indentations of the open block levels, innermost last
  const indents: Array<number> = []
  let flow = 0
  // a block scalar's lines: those indented deeper than this (-1: none)
  let scalarAbove = -1
  let lineStart = 0
  while (lineStart <= text.length) {
    const end = text.indexOf("\n", lineStart) === -1 ? text.length : text.indexOf("\n", lineStart)
    const line = text.slice(lineStart, end)
    const indent = line.length - line.trimStart().length
    const content = line.trim()
    const blank = content === "" || content.startsWith("#")
    if (scalarAbove >= 0 && (blank || indent > scalarAbove)) {
      lineStart = end + 1
      continue
    }
    scalarAbove = -1
    if (!blank && flow === 0) {
      while (indents.length > 0 && indents[indents.length - 1]! > indent) indents.pop()
      if (indents.length === 0 || indents[indents.length - 1]! < indent) indents.push(indent)
      if (indents.length > max) return lineStart + indent
      // compact sequences: `- - x` opens a sequence and an item per dash
      let at = indent
      while (line.startsWith("- ", at) || (line[at] === "-" && at + 1 === line.length)) {
        indents.push(at + 2)
        if (indents.length > max) return lineStart + at
        at += 2
        while (line[at] === " ") at++
      }
    }
    if (!blank) {
      // brackets outside quotes and comments
      let quote: string | undefined
      for (let i = indent; i < line.length; i++) {
        const c = line[i]!
        if (quote !== undefined) {
          if (c === "\\" && quote === '"') i++
          else if (c === quote) quote = undefined
        } else if (c === '"' || c === "'") {
          if (i === 0 || /[\s[{,:]/.test(line[i - 1]!)) quote = c
        } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) break
        else if (c === "[" || c === "{") {
          flow++
          if (indents.length + flow > max) return lineStart + i
        } else if ((c === "]" || c === "}") && flow > 0) flow--
      }
      if (flow === 0 && /(^|[\s:])[|>][-+0-9]*\s*(#.*)?$/.test(content)) scalarAbove = indent
    }
    lineStart = end + 1
  }
  return undefined
}
