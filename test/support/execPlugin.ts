/**
 * A real exec credential plugin for tests, a shell script: it counts its runs in `$STATE/count`, keeps what it
 * was given (`info-<n>`, `args-<n>`, `env-<n>` for `$GREETING`), and answers token `tok-<n>` (expiring at `$EXPIRY`
 * when set); `$ANSWER` replaces the answer (`{n}` in it becomes the run number), `$EXIT` makes it fail.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"

export const writeExecPlugin = (dir: string): string => {
  const plugin = path.join(dir, "plugin.sh")
  writeFileSync(
    plugin,
    `#!/bin/sh
n=$(( $(cat "$STATE/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$STATE/count"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$STATE/info-$n"
printf '%s' "$*" > "$STATE/args-$n"
printf '%s' "$GREETING" > "$STATE/env-$n"
if [ -n "$EXIT" ]; then echo "plugin failed" >&2; exit $EXIT; fi
if [ -n "$ANSWER" ]; then printf '%s' "$ANSWER" | sed "s/{n}/$n/g"; exit 0; fi
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tok-%s"%s}}' $n "\${EXPIRY:+,\\"expirationTimestamp\\":\\"$EXPIRY\\"}"
`
  )
  chmodSync(plugin, 0o755)
  return plugin
}

/** A fresh state directory for one plugin; how often it ran and what it was given. */
export const pluginState = (state: string) => {
  rmSync(state, { recursive: true, force: true })
  mkdirSync(state, { recursive: true })
  return {
    dir: state,
    runs: (): number => {
      try {
        return Number(readFileSync(path.join(state, "count"), "utf8"))
      } catch {
        return 0
      }
    },
    given: (n: number, what: "info" | "args" | "env"): string => readFileSync(path.join(state, `${what}-${n}`), "utf8")
  }
}
