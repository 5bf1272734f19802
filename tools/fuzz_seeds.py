#!/usr/bin/env python3
"""Writes fuzzing seeds into DIR: one file per answer-shaped test input."""
import glob
import hashlib
import json
import os
import re
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
seeds = []

for path in glob.glob("../shared/conformance/nesl/*.jsonl"):
    with open(path, encoding="utf-8") as f:
        seeds += [json.loads(line)["input"] for line in f if line.strip()]

# The peer edit-format cases: whole patches and answers.
for path in glob.glob("../shared/peers/*.jsonl"):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                case = json.loads(line)
                seeds += [case[k] for k in ("patch", "answer") if isinstance(case.get(k), str)]

fence = re.compile(r"^(`{3,})[^\n]*\n(.*?)\n\1$", re.S | re.M)
for path in glob.glob("proj/test-data/**/*.md", recursive=True) + glob.glob(
        "proj/comp/*/test-data/**/*.md", recursive=True):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    seeds += [m.group(2) for m in fence.finditer(text) if "#!" in m.group(2)]

# CML and CSL answers, whole (the readers' cases are answers, not fenced blocks).
for path in glob.glob("proj/comp/cml-parser/test-data/cases/*.md") + glob.glob(
        "proj/comp/csl-parser/test-data/cases/*.md"):
    with open(path, encoding="utf-8", errors="replace") as f:
        seeds.append(f.read())

# Replacer answers, whole (the seeds' examples and instructions).
for path in glob.glob("proj/comp/replacer-reader/test-data/seed/*"):
    with open(path, encoding="utf-8", errors="replace") as f:
        seeds.append(f.read())

def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from strings(item)

for path in glob.glob("proj/comp/*/test-data/**/*.json", recursive=True):
    try:
        with open(path, encoding="utf-8") as f:
            seeds += [s for s in strings(json.load(f)) if len(s) > 8]
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass

# MCP transcripts: the client's lines of each, as one stream.
for path in glob.glob("proj/comp/mcp/test-data/*.jsonl"):
    with open(path, encoding="utf-8") as f:
        sent = [line.split(" ", 1)[1] for line in f if line.startswith(">") and " " in line]
    seeds.append("".join(sent))

for seed in seeds:
    data = seed.encode("utf-8", "surrogatepass")
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"fuzz seeds: {len(seeds)} inputs in {out}", file=sys.stderr)
