/**
 * A large JSON answer parsed in slices: the top-level `items` array — nearly all of a LIST answer's bytes — is
 * split at item boundaries by scanning the bytes (strings, escapes, nesting), and each slice of about `sliceBytes`
 * is parsed on its own, so no single call parses more than one slice (plus one item). The rest of the document (the
 * envelope: `kind`, `metadata`, …) is parsed once with an empty `items` that the parsed items then fill. A relist
 * storm delivers many answers of a megabyte; parsed whole, each holds the event loop for tens of milliseconds
 * (docs/benchmarks.md, "Load generator").
 *
 * The value is the one `JSON.parse` gives for the whole text, key order included. Anything the scanner does not
 * expect — no top-level `items` array, a second top-level `items` key, a malformed separator, a slice that does
 * not parse — ends in `JSON.parse` of the whole text, which gives its value or its exact error.
 */

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const colon = 0x3a
const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d

const isWhitespace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

/** The scanner met something it does not handle; the whole text is parsed instead. */
class Unexpected extends Error {}

const skipWhitespace = (bytes: Buffer, at: number): number => {
  while (isWhitespace(bytes[at])) at++
  return at
}

/** `at` is an opening quote; the index after the closing one. A quote after an odd run of backslashes is escaped. */
const skipString = (bytes: Buffer, at: number): number => {
  let close = at
  for (;;) {
    close = bytes.indexOf(quote, close + 1)
    if (close < 0) throw new Unexpected()
    let escapes = 0
    while (bytes[close - 1 - escapes] === backslash) escapes++
    if (escapes % 2 === 0) return close + 1
  }
}

/** `at` starts a value; the index after it. Objects and arrays by nesting depth, scalars up to a delimiter. */
const skipValue = (bytes: Buffer, at: number): number => {
  const first = bytes[at]
  if (first === quote) return skipString(bytes, at)
  if (first !== openBrace && first !== openBracket) {
    let end = at
    for (let b = bytes[end]; b !== undefined && b !== comma && b !== closeBracket && b !== closeBrace && !isWhitespace(b); b = bytes[++end]);
    if (end === at) throw new Unexpected()
    return end
  }
  let depth = 0
  let i = at
  while (i < bytes.length) {
    const b = bytes[i]!
    if (b === quote) {
      i = skipString(bytes, i)
      continue
    }
    if (b === openBrace || b === openBracket) depth++
    else if (b === closeBrace || b === closeBracket) {
      depth--
      if (depth === 0) return i + 1
    }
    i++
  }
  throw new Unexpected()
}

/** Whether the key string at `[start, end)` (quotes included) is `items`, escapes decoded as `JSON.parse` would. */
const isItemsKey = (bytes: Buffer, start: number, end: number): boolean => {
  if (end - start === 7) return bytes.toString("latin1", start, end) === '"items"'
  for (let i = start; i < end; i++) if (bytes[i] === backslash) return JSON.parse(bytes.toString("utf8", start, end)) === "items"
  return false
}

/**
 * The members of the top-level object from `at` — just after its `{`, or (`afterValue`) just after a member's value —
 * to its `}`, which must end the text. With `stopAtItems`, stops at the first `items` member whose value is an array
 * and gives that array's `[`; else gives -1, and whether an `items` member was met.
 */
const scanMembers = (bytes: Buffer, at: number, afterValue: boolean, stopAtItems: boolean): { readonly itemsAt: number; readonly sawItems: boolean } => {
  let i = skipWhitespace(bytes, at)
  let sawItems = false
  let more = bytes[i] !== closeBrace
  if (more && afterValue) {
    if (bytes[i] !== comma) throw new Unexpected()
    i = skipWhitespace(bytes, i + 1)
  }
  while (more) {
    if (bytes[i] !== quote) throw new Unexpected()
    const keyEnd = skipString(bytes, i)
    const items = isItemsKey(bytes, i, keyEnd)
    i = skipWhitespace(bytes, keyEnd)
    if (bytes[i] !== colon) throw new Unexpected()
    i = skipWhitespace(bytes, i + 1)
    if (items) {
      if (stopAtItems && bytes[i] === openBracket) return { itemsAt: i, sawItems: true }
      sawItems = true
    }
    i = skipWhitespace(bytes, skipValue(bytes, i))
    more = bytes[i] !== closeBrace
    if (more) {
      if (bytes[i] !== comma) throw new Unexpected()
      i = skipWhitespace(bytes, i + 1)
    }
  }
  if (skipWhitespace(bytes, i + 1) !== bytes.length) throw new Unexpected()
  return { itemsAt: -1, sawItems }
}

/** Parses `bytes` (UTF-8 JSON) a slice per `step()`; `value` once `step()` has returned true. */
export class ListInSlices {
  private itemsOpen = -1
  /** Where the next item (or the array's `]`) starts. */
  private cursor = 0
  private readonly slices: Array<Array<unknown>> = []
  private result: unknown = undefined

  constructor(
    private readonly bytes: Buffer,
    private readonly sliceBytes: number
  ) {}

  /** The parsed value; valid once `step()` returned true. */
  get value(): unknown {
    return this.result
  }

  /** Parses the next slice; true when the value is complete. A malformed text throws `JSON.parse`'s error. */
  step(): boolean {
    try {
      if (this.itemsOpen < 0 && this.start()) return true
      return this.nextSlice()
    } catch (e) {
      if (!(e instanceof Unexpected) && !(e instanceof SyntaxError)) throw e
      this.result = JSON.parse(this.bytes.toString("utf8"))
      return true
    }
  }

  /** Finds the top-level `items` array; without one the whole text is parsed now. */
  private start(): boolean {
    const bytes = this.bytes
    const open = skipWhitespace(bytes, 0)
    if (bytes[open] !== openBrace) throw new Unexpected()
    const { itemsAt } = scanMembers(bytes, open + 1, false, true)
    if (itemsAt < 0) throw new Unexpected()
    this.itemsOpen = itemsAt
    this.cursor = skipWhitespace(bytes, itemsAt + 1)
    if (bytes[this.cursor] === closeBracket) return this.finish(this.cursor)
    return false
  }

  /** Items from the cursor until a slice's worth of bytes, parsed as one array. */
  private nextSlice(): boolean {
    const bytes = this.bytes
    const from = this.cursor
    let i = from
    for (;;) {
      const end = skipValue(bytes, i)
      i = skipWhitespace(bytes, end)
      if (bytes[i] === closeBracket) {
        this.slices.push(JSON.parse(`[${bytes.toString("utf8", from, end)}]`) as Array<unknown>)
        return this.finish(i)
      }
      if (bytes[i] !== comma) throw new Unexpected()
      if (end - from >= this.sliceBytes) {
        this.slices.push(JSON.parse(`[${bytes.toString("utf8", from, end)}]`) as Array<unknown>)
        this.cursor = skipWhitespace(bytes, i + 1)
        return false
      }
      i = skipWhitespace(bytes, i + 1)
    }
  }

  /** `close` is the items array's `]`: the envelope around an empty array, then the items put in. */
  private finish(close: number): boolean {
    const bytes = this.bytes
    // a later `items` key would win in `JSON.parse`: the whole text decides then
    if (scanMembers(bytes, close + 1, true, false).sawItems) throw new Unexpected()
    const envelope = JSON.parse(bytes.toString("utf8", 0, this.itemsOpen + 1) + bytes.toString("utf8", close)) as Record<string, unknown>
    envelope["items"] = this.slices.length === 1 ? this.slices[0]! : ([] as Array<unknown>).concat(...this.slices)
    this.result = envelope
    return true
  }
}
