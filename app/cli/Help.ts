/**
 * The help text of `clustersim` and its commands, laid out as cobra's (kubectl, k6): a description, one usage line
 * (`clustersim run [flags] <scenario.yaml>`), examples, arguments, flags with their defaults, the exit codes.
 *
 * The arguments and flags come from each command's `@effect/cli` descriptor (`CommandDescriptor.getHelp`), so a
 * flag added to a command shows up here without a second list. @effect/cli 0.77 cannot be configured to leave out
 * the type's stock sentence ("A user-defined piece of text."), "This setting is optional.", or to print the usage
 * without `$ ` and the parent's name (`CliConfig` offers `showBuiltIns`, `showTypes`, `showAllNames`,
 * `autoCorrectLimit`, `isCaseSensitive`, `finalCheckBuiltIn` only); so this module reads the descriptor's
 * `HelpDoc` and drops those sentences. Its help shows no default that is not an `Option` either, so a flag's
 * default is given with `defaultsTo`, which also writes it into the description.
 */
import { type CliConfig, CommandDescriptor, type HelpDoc, Options } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"

/** One argument or flag: how it is written (`--port N`) and what it means, in paragraphs. */
export interface HelpEntry {
  readonly term: string
  readonly text: ReadonlyArray<string>
}

export interface CommandHelp {
  /** The command's description, in paragraphs; the first sentence is its summary in the command list. */
  readonly description: ReadonlyArray<string>
  readonly args: ReadonlyArray<HelpEntry>
  readonly flags: ReadonlyArray<HelpEntry>
}

export interface Example {
  /** What it does, printed as a `#` comment above the command. */
  readonly comment: string
  readonly command: string
}

const spanText = (s: Span): string => {
  switch (s._tag) {
    case "Text":
    case "URI":
      return s.value
    case "Sequence":
      return spanText(s.left) + spanText(s.right)
    default:
      return spanText(s.value)
  }
}

/** The sentences every argument or option of a type gets from @effect/cli (internal/primitive.ts, options.ts, args.ts). */
const stockSentence =
  /^(A user-defined piece of text( that is confidential)?\.|A true or false value\.|An integer\.|A floating point number\.|A date without a time-zone.*|This setting is optional\.|This argument must be repeated at least \d+ times?\.|This (argument|option) may be repeated zero or more times\.|This option must be repeated at least \d+ times?\.|(A|An existing) (file|directory|file or directory)( that must not exist)?\.)$/

const defaultSentence = /^This setting is optional\. Defaults to: (.*)$/

/** `Options.withDefault`, and "(default X)" at the end of the flag's description (`shown`, else the value). */
export const defaultsTo =
  <const B>(fallback: B, shown: string = String(fallback)) =>
  <A>(self: Options.Options<A>): Options.Options<A | B> =>
    Options.withDescription(Options.withDefault(self, fallback), `(default ${shown})`)

const shownDefault = /^\(default .*\)$/

/** An entry's paragraphs without the stock sentences; its default (other than `false`) closes the description. */
const cleanEntry = (term: string, paragraphs: ReadonlyArray<string>): HelpEntry => {
  const text: Array<string> = []
  let suffix = ""
  for (const p of paragraphs) {
    const d = defaultSentence.exec(p)
    if (d) {
      if (d[1] !== "false" && d[1] !== "") suffix += ` (default ${d[1]})`
    } else if (shownDefault.test(p)) suffix += ` ${p}`
    else if (!stockSentence.test(p)) text.push(p)
  }
  if (suffix !== "") {
    if (text.length === 0) text.push(suffix.trim())
    else text[text.length - 1] = text[text.length - 1]! + suffix
  }
  // `(--ca, --certificate-authority FILE)` → `--ca, --certificate-authority FILE`; `<file> 1+` → `<file>...`
  return { term: term.replace(/^\((.*)\)(\.\.\.)?$/, "$1$2").replace(/ \d+\+$/, "..."), text }
}

const paragraphsOf = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Paragraph":
    case "Header":
      return [spanText(doc.value)]
    case "Sequence":
      return [...paragraphsOf(doc.left), ...paragraphsOf(doc.right)]
    case "Enumeration":
      return doc.elements.flatMap(paragraphsOf)
    case "DescriptionList":
      return doc.definitions.flatMap(([s, d]) => [spanText(s), ...paragraphsOf(d)])
    case "Empty":
      return []
  }
}

/** Flattens the descriptor's help into its sections (DESCRIPTION, ARGUMENTS, OPTIONS). */
export const commandHelpOf = (descriptor: CommandDescriptor.Command<unknown>, config: CliConfig.CliConfig): CommandHelp => {
  const blocks: Array<HelpDoc.HelpDoc> = []
  const flatten = (d: HelpDoc.HelpDoc): void => {
    if (d._tag === "Sequence") flatten(d.left), flatten(d.right)
    else if (d._tag !== "Empty") blocks.push(d)
  }
  flatten(CommandDescriptor.getHelp(descriptor, config))
  const sections: Record<string, Array<HelpDoc.HelpDoc>> = {}
  let current = "DESCRIPTION"
  for (const b of blocks) {
    if (b._tag === "Header") current = spanText(b.value)
    else (sections[current] ??= []).push(b)
  }
  const entries = (name: string) =>
    (sections[name] ?? []).flatMap((b) => (b._tag === "DescriptionList" ? b.definitions.map(([s, d]) => cleanEntry(spanText(s), paragraphsOf(d))) : []))
  return { description: (sections.DESCRIPTION ?? []).flatMap(paragraphsOf), args: entries("ARGUMENTS"), flags: entries("OPTIONS") }
}

/** The first sentence of a description: the command list's summary. */
export const summaryOf = (description: ReadonlyArray<string>): string => {
  const first = description[0] ?? ""
  const end = first.search(/\.(\s|$)/)
  return end < 0 ? first : first.slice(0, end + 1)
}

/** Words of `text` in lines of at most `width` columns (a longer word keeps its own line), each after `indent`. */
export const wrap = (text: string, indent: number, width: number): string => {
  const pad = " ".repeat(indent)
  const lines: Array<string> = []
  for (const para of text.split("\n")) {
    let line = ""
    for (const word of para.split(/\s+/).filter((w) => w !== "")) {
      if (line !== "" && indent + line.length + 1 + word.length > width) lines.push(line), (line = word)
      else line = line === "" ? word : `${line} ${word}`
    }
    lines.push(line)
  }
  return lines.map((l) => (l === "" ? "" : pad + l)).join("\n")
}

export interface Style {
  /** Headings and flag names in bold (a terminal that wants colour, ./Color.ts). */
  readonly color: boolean
  /** Columns of the text (80, cobra's and kubectl's width for descriptions). */
  readonly width: number
}

const bold = (style: Style, s: string) => (style.color ? `\x1b[1m${s}\x1b[22m` : s)

const section = (style: Style, title: string, body: string) => `${bold(style, `${title}:`)}\n${body}\n`

const entryList = (style: Style, entries: ReadonlyArray<HelpEntry>) =>
  entries.map((e) => [`  ${bold(style, e.term)}`, ...e.text.map((t) => wrap(t, 6, style.width))].join("\n")).join("\n")

const exampleList = (examples: ReadonlyArray<Example>) => examples.map((e) => `  # ${e.comment}\n  ${e.command}`).join("\n\n")

/** `clustersim run [flags] <scenario.yaml>`: the positional arguments as the descriptor writes them. */
export const usageLine = (executable: string, name: string, help: CommandHelp): string => {
  return [executable, name, ...(help.flags.length > 0 ? ["[flags]"] : []), ...help.args.map((a) => a.term)].join(" ")
}

/** A command's help text. */
export const renderCommandHelp = (
  o: { readonly executable: string; readonly name: string; readonly help: CommandHelp; readonly examples: ReadonlyArray<Example>; readonly footer: string },
  style: Style
): string =>
  [
    o.help.description.map((p) => wrap(p, 0, style.width)).join("\n\n") + "\n",
    section(style, "Usage", `  ${usageLine(o.executable, o.name, o.help)}`),
    ...(o.examples.length > 0 ? [section(style, "Examples", exampleList(o.examples))] : []),
    ...(o.help.args.length > 0 ? [section(style, "Arguments", entryList(style, o.help.args))] : []),
    ...(o.help.flags.length > 0 ? [section(style, "Flags", entryList(style, o.help.flags))] : []),
    wrap(o.footer, 0, style.width) + "\n"
  ].join("\n")

/** The top-level help: the commands with their summaries. */
export const renderRootHelp = (
  o: {
    readonly executable: string
    readonly version: string
    readonly description: string
    readonly commands: ReadonlyArray<{ readonly name: string; readonly summary: string }>
    readonly examples: ReadonlyArray<Example>
    readonly flags: ReadonlyArray<HelpEntry>
    readonly footer: string
  },
  style: Style
): string => {
  const nameWidth = Math.max(...o.commands.map((c) => c.name.length)) + 2
  const commands = o.commands
    .map((c) => `  ${bold(style, c.name)}${" ".repeat(nameWidth - c.name.length)}${wrap(c.summary, 2 + nameWidth, style.width).trimStart()}`)
    .join("\n")
  return [
    wrap(`${o.executable} ${o.version}: ${o.description}`, 0, style.width) + "\n",
    section(style, "Usage", `  ${o.executable} <command> [flags]`),
    section(style, "Commands", commands),
    section(style, "Examples", exampleList(o.examples)),
    section(style, "Flags", entryList(style, o.flags)),
    wrap(o.footer, 0, style.width) + "\n"
  ].join("\n")
}
