#!/usr/bin/env bash
# //proj/comp/mcp:sdk_client_test: runs client/sdk_client_test.mjs (the
# official MCP TypeScript SDK client) against the built `clada mcp`. The
# pinned packages come from client/install.sh (npm ci into a cache keyed by
# the lock's hash; tools/ensure-deps.sh installs them beforehand). Tagged
# local: it needs the cache outside the sandbox, and npm the network the
# first time.
set -euo pipefail
runfiles=${TEST_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/${TEST_WORKSPACE:-clada}
client=$runfiles/proj/comp/mcp/test/client
command -v node >/dev/null || { echo "sdk_client_test: node is missing (tools/ensure-deps.sh installs nodejs)" >&2; exit 1; }
modules=$("$client/install.sh")
export CLADA_BIN=$runfiles/proj/clada
export CLADA_MCP_NODE_MODULES=$modules
exec node "$client/sdk_client_test.mjs"
