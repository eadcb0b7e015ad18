/**
 * The target and credential flags, defined once for every command that talks to a server (`run`, `start`,
 * `compare`, `calibrate`): their names, descriptions and the one conversion to `TargetValues` (./target.ts).
 * `compare` takes them per side: each flag once for every side, or once for all sides (docs/compare.md).
 * kubectl's names (`--certificate-authority`, `--client-certificate`) are aliases of the short ones.
 */
import { Options } from "@effect/cli"
import { Option } from "effect"
import type { TargetValues, UrlCredentialFlags } from "./target.js"

type TextKey = "target" | "kubeconfig" | "context" | "token" | "ca" | "clientCert" | "clientKey"

const textFlags: ReadonlyArray<{ readonly key: TextKey; readonly name: string; readonly alias?: string; readonly pseudo: string; readonly description: string }> = [
  {
    key: "target",
    name: "target",
    pseudo: "URL",
    description:
      "embedded (the simulated server on a loopback port), in-process (direct calls), in-cluster (the pod's service account, as client-go in a pod) or http(s)://HOST:PORT. Wins over a kubeconfig. Default: the kubeconfig context (see --kubeconfig), else embedded. A cluster scenario runs in virtual time in-process or on embedded by default, on the real clock otherwise."
  },
  {
    key: "kubeconfig",
    name: "kubeconfig",
    pseudo: "FILE",
    description: "Kubeconfig file. Default: $KUBECONFIG (a :-separated list, merged as kubectl does), else ~/.kube/config if it exists."
  },
  { key: "context", name: "context", pseudo: "NAME", description: "Kubeconfig context. Default: the kubeconfig's current-context." },
  { key: "token", name: "token", pseudo: "TOKEN", description: "Bearer token for --target URL." },
  { key: "ca", name: "ca", alias: "certificate-authority", pseudo: "FILE", description: "CA file (PEM) that verifies an https:// --target." },
  {
    key: "clientCert",
    name: "client-cert",
    alias: "client-certificate",
    pseudo: "FILE",
    description: "Client certificate file (PEM) for an https:// --target; with --client-key."
  },
  { key: "clientKey", name: "client-key", pseudo: "FILE", description: "Client key file (PEM) for --client-cert." }
]

const insecureDescription = "Do not verify an https:// --target's certificate (not with --ca)."

const text = (f: (typeof textFlags)[number]) => {
  const o = Options.text(f.name).pipe(Options.withPseudoName(f.pseudo), Options.withDescription(f.description))
  return f.alias !== undefined ? Options.withAlias(o, f.alias) : o
}

const byKey = <A>(make: (f: (typeof textFlags)[number]) => A): Record<TextKey, A> =>
  Object.fromEntries(textFlags.map((f) => [f.key, make(f)])) as Record<TextKey, A>

/** The flags of a command with one target (`run`, `start`, `calibrate`). */
export const targetOptions = {
  ...byKey((f) => Options.optional(text(f))),
  insecureSkipTlsVerify: Options.boolean("insecure-skip-tls-verify").pipe(Options.withDescription(insecureDescription))
}

/** The flags of `compare`: each text flag repeated, once per side or once for all. */
export const sideOptions = {
  ...byKey((f) => Options.optional(Options.repeated(text(f)))),
  insecureSkipTlsVerify: Options.boolean("insecure-skip-tls-verify").pipe(Options.withDescription(`${insecureDescription} Every side.`))
}

/** The names `flagProblem` (./flags.ts) accepts, aliases included. */
export const targetFlagNames = {
  values: textFlags.flatMap((f) => [`--${f.name}`, ...(f.alias !== undefined ? [`--${f.alias}`] : [])]),
  switches: ["--insecure-skip-tls-verify"],
  aliases: Object.fromEntries(textFlags.flatMap((f) => (f.alias !== undefined ? [[`--${f.alias}`, `--${f.name}`]] : [])))
}

export type TargetOptionValues = { readonly [K in TextKey]: Option.Option<string> } & { readonly insecureSkipTlsVerify: boolean }
export type SideOptionValues = { readonly [K in TextKey]: Option.Option<ReadonlyArray<string>> | ReadonlyArray<string> } & {
  readonly insecureSkipTlsVerify: boolean
}

const list = (v: Option.Option<ReadonlyArray<string>> | ReadonlyArray<string>): ReadonlyArray<string> => (Option.isOption(v) ? Option.getOrElse(v, () => []) : v)

/** One command's flags as `TargetValues`. */
export const targetValuesOf = (o: TargetOptionValues): TargetValues => ({
  ...byKey((f) => Option.getOrUndefined(o[f.key])),
  insecureSkipTlsVerify: o.insecureSkipTlsVerify
})

/**
 * A per-side flag's empty value as it reaches `sidesOf`. @effect/cli's repeated options drop an empty value (its
 * Variadic parser keeps only values of some length), so `--ca "" --ca b.crt` would read as one `--ca` for every
 * side; `perSideArgs` gives it this stand-in first. No command line can hold it: an argument ends at a NUL byte.
 */
export const unsetForSide = "\u0000unset"

/** An empty value of a per-side flag: unset for that side. */
export const isUnsetForSide = (v: string): boolean => v === "" || v === unsetForSide

/**
 * `compare`'s arguments as @effect/cli should read them: each empty value of a per-side flag (`--ca ""`, `--ca=`) as
 * `unsetForSide`, and `--flag=VALUE` as `--flag VALUE` (its repeated options take no `=` form). `perSide`: the flags'
 * names, aliases included. After `--` nothing is a flag.
 */
export const perSideArgs = (args: ReadonlyArray<string>, perSide: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") return [...out, ...args.slice(i)]
    const eq = arg.indexOf("=")
    const name = eq < 0 ? arg : arg.slice(0, eq)
    if (!perSide.includes(name)) {
      out.push(arg)
      continue
    }
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1)
    if (value === undefined) out.push(arg)
    else out.push(name, value === "" ? unsetForSide : value)
  }
  return out
}

/**
 * `compare`'s sides: as many as the most often given flag; each flag is given that often (side i takes its i-th
 * value) or once (every side takes it). An empty value ("") leaves that flag unset for its side.
 */
export const sidesOf = (o: SideOptionValues): { readonly sides: ReadonlyArray<TargetValues> } | { readonly error: string } => {
  const count = Math.max(0, ...textFlags.map((f) => list(o[f.key]).length))
  for (const f of textFlags) {
    const n = list(o[f.key]).length
    if (n > 1 && n !== count) return { error: `--${f.name}: given ${n} times for ${count} sides; give it once for every side, or once for all` }
  }
  const sides = Array.from({ length: count }, (_, i): TargetValues => {
    const pick = (k: TextKey) => {
      const values = list(o[k])
      const v = values.length === 1 ? values[0] : values[i]
      return v === undefined || isUnsetForSide(v) ? undefined : v
    }
    return { ...byKey((f) => pick(f.key)), insecureSkipTlsVerify: o.insecureSkipTlsVerify } satisfies TargetValues & UrlCredentialFlags
  })
  return { sides }
}

/** The flags again as a command line: what a child process needs to reach the same target as its parent. */
export const targetArgsOf = (o: TargetOptionValues): Array<string> => [
  ...textFlags.flatMap((f) => Option.match(o[f.key], { onNone: () => [], onSome: (v) => [`--${f.name}`, v] })),
  ...(o.insecureSkipTlsVerify ? ["--insecure-skip-tls-verify"] : [])
]
