#!/usr/bin/env bash
# //proj/comp/mcp:host_config_forms_test: `clada mcp config --host H --root
# DIR` from the built binary, for every host, with a root whose name has a
# space, a quote and non-ASCII text; host_config_forms_check.py parses each
# form as the host does (json, tomllib, shlex) and checks the command is the
# binary's absolute path and the arguments start `clada mcp --root DIR`.
set -euo pipefail
runfiles=${TEST_SRCDIR:-$(cd "$(dirname "$0")" && pwd)}/${TEST_WORKSPACE:-clada}
clada=$runfiles/proj/clada
tmp=${TEST_TMPDIR:-$(mktemp -d)}
root="$tmp/my \"proj\" it's é"
mkdir -p "$root"
real_root=$(cd "$root" && pwd -P)
real_clada=$(readlink -f "$clada")
hosts="claude-desktop claude-code vscode cursor codex gemini windsurf zed"
for host in $hosts; do
  (cd "$tmp" && "$clada" mcp config --host "$host" --root "$root") >"$tmp/$host.out"
  # The same from inside the root, without --root.
  (cd "$root" && "$clada" mcp config --host="$host") >"$tmp/$host.cwd.out"
  cmp "$tmp/$host.out" "$tmp/$host.cwd.out" || { echo "$host: --root and the current directory differ" >&2; exit 1; }
done
python3 "$runfiles/proj/comp/mcp/test/host_config_forms_check.py" "$tmp" "$real_clada" "$real_root" $hosts
# An unknown host or a missing --host is a usage error that lists the hosts.
set +e
"$clada" mcp config --host emacs >/dev/null 2>"$tmp/err"; code=$?
set -e
[ "$code" = 2 ] || { echo "unknown host: exit $code, expected 2" >&2; exit 1; }
grep -q "claude-desktop, claude-code, vscode, cursor, codex, gemini, windsurf, zed" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
set +e
"$clada" mcp config >/dev/null 2>"$tmp/err"; code=$?
set -e
[ "$code" = 2 ] || { echo "no --host: exit $code, expected 2" >&2; exit 1; }
grep -q -- "--host" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "host_config_forms_test: every form parsed"
