#!/usr/bin/env bash
# Installs what clada's build needs (Debian packages) when any of it is missing.
# Safe to run every time: it does nothing when everything is present.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-cc bazel-rules-java bazel-platforms
  g++ pkg-config git
  # GNU diff and patch: the oracles of the unified-diff tests.
  diffutils patch
  libabsl-dev nlohmann-json3-dev libgit2-dev libyaml-cpp-dev libre2-dev libpugixml-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev python3
  # Interpreters of the exec action, so its per-language tests run.
  ruby nodejs
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "ensure-deps: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >&2
fi

# The MCP SDK client of //proj/comp/mcp:sdk_client_test, pinned by its
# package-lock.json: npm ci into a cache keyed by the lock's hash, once.
# npm comes with NodeSource's nodejs; Debian's nodejs needs its npm package.
if ! command -v npm >/dev/null; then
  echo "ensure-deps: installing npm" >&2
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq npm >&2
fi
proj/comp/mcp/test/client/install.sh >/dev/null || echo "ensure-deps: could not install the MCP SDK client; //proj/comp/mcp:sdk_client_test will try again" >&2
