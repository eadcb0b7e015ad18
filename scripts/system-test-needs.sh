#!/usr/bin/env bash
# What `npm run test:system` drives besides this package (README "Tests"), run before it as `pretest:system`: the
# official Node client's own package with node@22 (test/system/compat/client-node), installed here when missing;
# from Debian openssl (the fast tier uses it too), the official Python client, Chromium and Prometheus, named with the command
# that installs them when missing (.ci/run installs them). kubectl is used where the machine has it
# (test/system/compat/support/clients.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
helper=test/system/compat/client-node
if [ ! -x "$helper/node_modules/node/bin/node" ] || [ ! -d "$helper/node_modules/@kubernetes/client-node" ]; then
  npm ci --no-audit --no-fund --prefix "$helper"
fi
missing=()
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || missing+=(python3-kubernetes)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || missing+=(prometheus)
if ((${#missing[@]})); then
  echo "test:system needs Debian packages: apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
