#!/usr/bin/env bash
# Benchmarks `clada mcp` through the official MCP SDK client against the
# reference filesystem server (npm @modelcontextprotocol/server-filesystem,
# pinned in proj/comp/mcp/test/client/package-lock.json) and a floor server
# that answers without doing anything, also answering with clada's own bytes
# and with the reference's (what the client alone spends on each answer):
# start-up (spawn to initialize answered), tools/call file_read of a 1 KB
# file (the calls taken in ten rounds, every server in each, so that the
# machine's drift falls on all alike), RSS. Prints the ratios; with RUNS
# over 1, each run's and their medians (the machine's state drifts between
# runs of a few seconds more than within one).
#
#   tools/bench-mcp.sh [STARTS] [CALLS] [RUNS]   default 20 starts, 1000 calls, 1 run
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build //proj:clada >&2
modules=$(proj/comp/mcp/test/client/install.sh --full)
CLADA_BIN=$PWD/bazel-bin/proj/clada CLADA_MCP_NODE_MODULES=$modules \
  node proj/comp/mcp/test/client/bench.mjs "${1:-20}" "${2:-1000}" "${3:-1}"
