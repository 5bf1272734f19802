#!/usr/bin/env bash
# Installs the packages pinned in package-lock.json (beside this script) with
# `npm ci`, once, into a cache directory keyed by the lock's hash, and prints
# the node_modules path. Used by tools/ensure-deps.sh, by the SDK client test
# when the packages are missing, and by tools/bench-mcp.sh.
#
#   install.sh            the test's packages (@modelcontextprotocol/sdk)
#   install.sh --full     also the devDependencies (the reference server, for the benchmark)
#
# Cache: $CLADA_MCP_CLIENT_CACHE, default /var/tmp/clada-mcp-client-$UID.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
full=0
if [[ ${1:-} == --full ]]; then full=1; fi
hash=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
cache=${CLADA_MCP_CLIENT_CACHE:-/var/tmp/clada-mcp-client-$(id -u)}
dest=$cache/$hash$([[ $full -eq 1 ]] && echo -full || true)
if [[ ! -f $dest/installed ]]; then
  command -v npm >/dev/null || { echo "install.sh: npm is missing (tools/ensure-deps.sh installs it)" >&2; exit 1; }
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.install.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cp "$here/package.json" "$here/package-lock.json" "$tmp/"
  omit=(--omit=dev)
  if [[ $full -eq 1 ]]; then omit=(); fi
  echo "install.sh: npm ci ${omit[*]} into $dest" >&2
  (cd "$tmp" && npm ci "${omit[@]}" --no-audit --no-fund --loglevel=error --cache "$tmp/.npm-cache") >&2
  rm -rf "$tmp/.npm-cache"
  touch "$tmp/installed"
  # Another install may have won the race: theirs is the same.
  if ! mv -T "$tmp" "$dest" 2>/dev/null; then rm -rf "$tmp"; fi
  trap - EXIT
fi
echo "$dest/node_modules"
