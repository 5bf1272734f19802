#!/usr/bin/env python3
"""Writes benchmark inputs for sham_parser_bench.

  python3 proj/comp/sham-parser/bench/gen_input.py OUT_DIR

OUT_DIR/clean.txt   ~5 MB: 1,000 SHAM blocks between paragraphs of prose,
                    each with quoted values (some with escapes) and one
                    70-90-line heredoc; parses without errors.
OUT_DIR/errors.txt  the same blocks with one syntax error in every block.

The output is deterministic (fixed seed).
"""
import argparse
import os
import random

WORDS = ("the parser reads each block and keeps going when one is broken so the model "
         "only has to fix what failed while every valid action still runs against the "
         "working tree function value return index buffer line column error").split()

ERROR_LINES = [
    'bad key = "spaces are not allowed"',
    'mode = unquoted',
    'note = "never closed',
    'flag := "wrong operator"',
    '// comments are not allowed',
    'path = "/tmp/x" trailing',
    '= "no key"',
    'count = "\\q is not an escape"',
]


def prose(rng, lines):
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))) for _ in range(lines))


def code_line(rng, i):
    indent = "  " * rng.randint(0, 3)
    name = rng.choice(WORDS) + "_" + str(i)
    return (f"{indent}const {name} = compute({rng.choice(WORDS)}, {rng.randint(0, 999)}, "
            f"{rng.choice(WORDS)}); // {rng.choice(WORDS)} {rng.choice(WORDS)}")


def block(rng, n, with_error):
    bid = "b%05d" % n
    out = [f"#!SHAM [@three-char-SHA-256: {bid}]",
           'action = "write_file"',
           f'path = "/home/user/project/src/module_{n}/file_{n}.ts"',
           f'description = "Update \\"{rng.choice(WORDS)}\\" handling\\n\\tand fix C:\\\\path\\\\{n} \\u00e9"']
    if with_error:
        out.append(ERROR_LINES[n % len(ERROR_LINES)])
    out.append(f"content = <<'EOT_SHAM_{bid}'")
    out.extend(code_line(rng, i) for i in range(rng.randint(70, 90)))
    out.append(f"EOT_SHAM_{bid}")
    out.append(f"#!END_SHAM_{bid}")
    return "\n".join(out)


def render(with_error):
    rng = random.Random(20240601)
    parts = []
    for n in range(1000):
        parts.append(prose(rng, rng.randint(1, 4)))
        parts.append(block(rng, n, with_error))
    return "\n\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="\n".join(__doc__.splitlines()[3:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", metavar="OUT_DIR",
                        help="directory to write clean.txt and errors.txt to "
                             "(created if missing)")
    out_dir = parser.parse_args().out_dir
    os.makedirs(out_dir, exist_ok=True)
    for name, with_error in (("clean.txt", False), ("errors.txt", True)):
        path = os.path.join(out_dir, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(render(with_error))
        print(f"{path}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
