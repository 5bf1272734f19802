#!/usr/bin/env bash
# tools/release.sh [--allow-dirty]: builds a release of clada from this
# checkout (which must be clean: what is released is a commit) into dist/:
#   clada-<version>-linux-x86_64.tar.gz  the binary, README, the license
#       notices of the libraries linked into it, bash/zsh/fish completions,
#       a man page and the help text;
#   clada-<version>.tgz  the npm package (`npm pack`): `bin` puts `clada` on
#       PATH, packaging/npm/bin/clada.js picks the platform's binary;
#   SHA256SUMS
# then checks them: the binary's shared libraries (exactly the expected
# set), the tarball's binary run with an empty environment, the npm package
# installed offline into an empty prefix running `clada --version`,
# answering an MCP server/discover and passing the official MCP SDK
# client's test. Needs bazel, npm, node, sha256sum.
set -euo pipefail
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
cd "$(dirname "$0")/.."
top=$(pwd)

if [ "${1:-}" != "--allow-dirty" ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "release: the checkout has uncommitted changes; commit them (or pass --allow-dirty for a trial build)" >&2
  exit 2
fi

version=$(sed -n 's/^inline constexpr char kVersion\[\] = "\(.*\)";$/\1/p' proj/src/cli.h)
[ -n "$version" ] || { echo "release: no kVersion in proj/src/cli.h" >&2; exit 2; }
commit=$(git rev-parse HEAD)
# Reproducible archives: every file's time is the commit's.
epoch=$(git log -1 --format=%ct HEAD)

bazel build -c opt //proj:clada
binary=$(bazel info -c opt bazel-bin 2>/dev/null)/proj/clada
[ -x "$binary" ] || { echo "release: $binary was not built" >&2; exit 1; }

dist=$top/dist
rm -rf "$dist"
mkdir -p "$dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- what the binary needs at run time: the C library alone. Every other
# library is linked in; Debian's libgit2.a refers to GSSAPI (HTTP Negotiate
# auth, never reached: clada opens no remote), answered by
# tools/bazel_repos/no_gssapi.c instead of MIT Kerberos' shared libraries.
expected="ld-linux-x86-64.so.2 libc.so.6 libm.so.6 linux-vdso.so.1"
needed=$(ldd "$binary" | awk '{print $1}' | sed 's|.*/||' | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$needed" != "$expected" ]; then
  echo "release: the binary needs other shared libraries than expected:" >&2
  echo "  needed:   $needed" >&2
  echo "  expected: $expected" >&2
  exit 1
fi
glibc=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)

# --- license notices of what is linked in, from the Debian packages that
# provided each static archive (and the header-only nlohmann-json).
notices() {
  local dir=$1 lib pkg
  mkdir -p "$dir"
  for lib in libgit2 libmbedtls libmbedx509 libmbedcrypto libhttp_parser libssh2 libpcre2-8 libz libcrypto \
             libyaml-cpp libre2 libpugixml libabsl_base; do
    pkg=$(dpkg -S "/usr/lib/x86_64-linux-gnu/$lib.a" | cut -d: -f1)
    cp "/usr/share/doc/$pkg/copyright" "$dir/$pkg.copyright"
  done
  pkg=$(dpkg -S "$(gcc -print-file-name=libstdc++.a | xargs realpath)" | cut -d: -f1)
  cp "/usr/share/doc/$pkg/copyright" "$dir/$pkg.copyright"
  cp /usr/share/doc/nlohmann-json3-dev/copyright "$dir/nlohmann-json3-dev.copyright"
  {
    echo "clada $version ($commit) links these libraries statically; each file here is the"
    echo "copyright and license notice of the Debian 12 package that provided it."
    echo "At run time it uses the system's C library only."
    ls "$dir" | grep -v '^README$' | sed 's/^/  /'
  } >"$dir/README"
}

# --- the man page, from the help the binary prints (it cannot drift).
manpage() {
  local out=$1 cmd
  {
    echo ".TH CLADA 1 \"$(date -u -d "@$epoch" +%Y-%m-%d)\" \"clada $version\" \"User Commands\""
    echo ".SH NAME"
    echo "clada \\- apply the action blocks of an LLM's answer to a project, reversibly"
    echo ".SH DESCRIPTION"
    echo ".nf"
    "$binary" --help | sed 's/\\/\\e/g; s/^\./\\\&./; s/^'"'"'/\\\&'"'"'/'
    echo ".fi"
    echo ".SH COMMANDS"
    for cmd in run validate parse instructions schema config approve context undo step-back step-forward squash \
               log listen mcp help version; do
      echo ".SS $cmd"
      echo ".nf"
      "$binary" "$cmd" --help | sed 's/\\/\\e/g; s/^\./\\\&./; s/^'"'"'/\\\&'"'"'/'
      echo ".fi"
    done
  } >"$out"
}

name=clada-$version-linux-x86_64
stage=$work/$name
mkdir -p "$stage/bin" "$stage/completions" "$stage/man/man1"
install -m 0755 "$binary" "$stage/bin/clada"
cp README.md "$stage/"
notices "$stage/LICENSES"
cp packaging/completions/clada.bash packaging/completions/_clada packaging/completions/clada.fish "$stage/completions/"
manpage "$stage/man/man1/clada.1"
"$binary" --help >"$stage/clada-help.txt"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$work" -cf - "$name" |
  gzip -n >"$dist/$name.tar.gz"

# --- the npm package.
npm_stage=$work/npm
mkdir -p "$npm_stage/bin" "$npm_stage/vendor/x86_64-unknown-linux-gnu"
sed "s/@VERSION@/$version/" packaging/npm/package.json.in >"$npm_stage/package.json"
install -m 0755 packaging/npm/bin/clada.js "$npm_stage/bin/clada.js"
install -m 0755 "$binary" "$npm_stage/vendor/x86_64-unknown-linux-gnu/clada"
cp README.md "$npm_stage/"
cp -r "$stage/LICENSES" "$npm_stage/"
(cd "$npm_stage" && SOURCE_DATE_EPOCH=$epoch npm pack --silent --pack-destination "$dist" >/dev/null)
[ -f "$dist/clada-$version.tgz" ] || { echo "release: npm pack made no clada-$version.tgz" >&2; exit 1; }

(cd "$dist" && sha256sum "$name.tar.gz" "clada-$version.tgz" >SHA256SUMS)

# --- checks on what was made.
check=$work/check
mkdir -p "$check/tar" "$check/prefix" "$check/home"
tar -xzf "$dist/$name.tar.gz" -C "$check/tar"
got=$(env -i "$check/tar/$name/bin/clada" --version)
[ "$got" = "clada $version" ] || { echo "release: the tarball's binary with an empty environment said '$got'" >&2; exit 1; }
for f in completions/clada.bash completions/_clada completions/clada.fish; do
  for cmd in $("$binary" no-such-command 2>&1 | sed -n 's/^commands: \(.*\) (see.*/\1/p' | tr -d ','); do
    grep -qw -- "$cmd" "$check/tar/$name/$f" || { echo "release: $f does not complete '$cmd'" >&2; exit 1; }
  done
done
# Offline, into an empty prefix, with an empty npm cache and HOME.
HOME=$check/home npm install -g --offline --no-audit --no-fund --prefix "$check/prefix" "$dist/clada-$version.tgz" >/dev/null
got=$("$check/prefix/bin/clada" --version)
[ "$got" = "clada $version" ] || { echo "release: the npm package's clada --version said '$got'" >&2; exit 1; }
# On a platform the package carries no binary for, the launcher says so.
echo "Object.defineProperty(process, 'platform', { value: 'darwin' });" >"$check/darwin.js"
if out=$(node --require "$check/darwin.js" "$check/prefix/lib/node_modules/clada/bin/clada.js" --version 2>&1); then
  echo "release: the launcher ran on a platform it has no binary for: $out" >&2
  exit 1
fi
case $out in
  *"no binary for darwin x64"*) ;;
  *) echo "release: the launcher's message on an unsupported platform: $out" >&2; exit 1 ;;
esac
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
reply=$(printf '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{%s}}\n' "$meta" |
        "$check/prefix/bin/clada" mcp --root "$check/home" --no-git 2>/dev/null)
case $reply in
  *'"supportedVersions":["2026-07-28"]'*) ;;
  *) echo "release: the npm package's clada mcp answered server/discover with: $reply" >&2; exit 1 ;;
esac

# The official MCP SDK client's test (proj/comp/mcp/test/client, packages
# pinned by its lock; tools/ensure-deps.sh caches them) against the npm
# package's `clada`: the launcher in front of the binary.
modules=$(proj/comp/mcp/test/client/install.sh)
if ! (cd "$check" && CLADA_BIN=$check/prefix/bin/clada CLADA_MCP_NODE_MODULES=$modules \
        node "$top/proj/comp/mcp/test/client/sdk_client_test.mjs" >"$check/sdk.log" 2>&1); then
  tail -20 "$check/sdk.log" >&2
  echo "release: the MCP SDK client test failed against the npm package's clada mcp" >&2
  exit 1
fi
tail -1 "$check/sdk.log" | sed 's/^/release: the npm package, SDK client test: /'

echo "release: clada $version ($commit) in dist/:"
(cd "$dist" && ls -l "$name.tar.gz" "clada-$version.tgz" SHA256SUMS | awk '{print "  " $5 "  " $9}')
echo "  needs glibc >= $glibc at run time, and no other library"
