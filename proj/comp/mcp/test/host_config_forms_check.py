"""Parses each `clada mcp config --host H` output as host H does.

Usage: host_config_forms_check.py DIR BINARY ROOT HOST...; DIR holds H.out.
Sections start with '# ' comment lines; JSON bodies are parsed strictly
(json.loads), codex's whole output by tomllib (its comments are TOML's),
and `claude mcp add` by shlex as a POSIX shell splits it.
"""
import json
import shlex
import sys
import tomllib

KEYS = {
    "claude-desktop": "mcpServers",
    "claude-code": "mcpServers",
    "vscode": "servers",
    "cursor": "mcpServers",
    "gemini": "mcpServers",
    "windsurf": "mcpServers",
    "zed": "context_servers",
}


def sections(text):
    out, in_body = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("# "):
            if not out or in_body:
                out.append(["", ""])
            out[-1][0] += line
            in_body = False
        else:
            if not out:
                out.append(["", ""])
            out[-1][1] += line
            in_body = True
    return out


def main():
    directory, binary, root, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    want_args = ["mcp", "--root", root]
    failures = []

    def check(host, what, command, args):
        if command != binary:
            failures.append(f"{host} {what}: command {command!r}, expected {binary!r}")
        if args != want_args:
            failures.append(f"{host} {what}: args {args!r}, expected {want_args!r}")

    for host in hosts:
        with open(f"{directory}/{host}.out", encoding="utf-8") as f:
            text = f.read()
        if host == "codex":
            doc = tomllib.loads(text)
            entry = doc["mcp_servers"]["clada"]
            check(host, "config.toml", entry["command"], entry["args"])
            continue
        parts = sections(text)
        if not all(comment for comment, _ in parts):
            failures.append(f"{host}: a section does not say where it goes")
        bodies = [body for _, body in parts]
        if host == "claude-code":
            words = shlex.split(bodies[0])
            if words[:6] != ["claude", "mcp", "add", "--transport", "stdio", "clada"] or words[6] != "--":
                failures.append(f"claude-code: command line {words!r}")
            check(host, "claude mcp add", words[7], words[8:])
            bodies = bodies[1:]
        if len(bodies) != 1:
            failures.append(f"{host}: {len(bodies)} JSON sections, expected 1")
            continue
        doc = json.loads(bodies[0])
        entry = doc[KEYS[host]]["clada"]
        check(host, "json", entry["command"], entry["args"])
        if host in ("vscode", "claude-code") and entry.get("type") != "stdio":
            failures.append(f"{host}: type {entry.get('type')!r}, expected 'stdio'")
    for failure in failures:
        print(failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


main()
