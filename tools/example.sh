#!/usr/bin/env bash
# Runs clada on the shipped example: copies examples/hello/project to a
# scratch directory, applies examples/hello/answer.md to it, and shows the
# report and the changed file. Installs missing dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/ensure-deps.sh

scratch=$(mktemp -d /tmp/clada-example.XXXXXX)
cp -r examples/hello/project/. "$scratch/"
git -C "$scratch" init -q
git -C "$scratch" -c user.name=you -c user.email=you@example.com add -A
git -C "$scratch" -c user.name=you -c user.email=you@example.com commit -qm "example project"

echo "== applying examples/hello/answer.md to $scratch"
status=0
bazel run -c opt //proj:clada -- run "$PWD/examples/hello/answer.md" --root "$scratch" || status=$?

echo
echo "== src/greet.py after the run"
cat "$scratch/src/greet.py"
echo "== git log in $scratch"
git -C "$scratch" log --oneline
# One block of the example is malformed on purpose, so clada exits 1.
if [[ $status -eq 1 ]]; then exit 0; fi
exit "$status"
