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
