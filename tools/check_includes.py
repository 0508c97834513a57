#!/usr/bin/env python3
"""Checks that every #include in braid's sources points the way the layers allow.

Each source folder is a layer; a file may include headers of the layers listed
for its own layer below, and nothing else of braid's. docs/architecture.md
("Modules") shows the same table as a picture: change both together. Includes
that name no layer (system and library headers, "gtest/...") are not checked;
tests, fuzzers and tools may include any layer.

Usage: tools/check_includes.py [--root DIR]
Prints one line per wrong-way include, as FILE:LINE: ..., and exits 1 if
there is any, 0 if there is none.
"""

import argparse
import pathlib
import re
import sys

# Folder (relative to the repository root) -> the layer its files belong to.
# The longest matching prefix wins.
FOLDERS = {
    "include/braid/": "braid",
    "security/": "security",
    "transport/": "transport",
    "src/proto/": "proto",
    "src/engine/": "engine",
    "src/server/": "server",
    "src/cli/": "cli",
    "src/main.cc": "main",
}

# Layer -> the layers its files may include (its own always among them).
# An include names a layer by its first path component: "engine/agent.h".
ALLOWED = {
    "braid": {"braid"},
    "security": {"braid", "security"},
    "transport": {"braid", "security", "transport"},
    "proto": {"braid", "security", "proto"},
    "engine": {"braid", "security", "transport", "proto", "engine"},
    "server": {"braid", "transport", "proto", "engine", "server"},
    "cli": {"braid", "cli"},
    "main": {"braid", "cli", "engine", "server"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".cc")


def layer_of(relative):
    """The layer a file (path relative to the root, with '/') belongs to, or None."""
    best = None
    for prefix, layer in FOLDERS.items():
        if relative == prefix or (prefix.endswith("/") and relative.startswith(prefix)):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return best[1] if best else None


def check_file(root, path):
    """Yields one message per wrong-way include in `path`."""
    relative = path.relative_to(root).as_posix()
    layer = layer_of(relative)
    if layer is None:
        return
    allowed = ALLOWED[layer]
    text = path.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        match = INCLUDE.match(line)
        if not match:
            continue
        target = match.group(1).split("/")[0]
        if target in ALLOWED and target not in allowed:
            yield (f"{relative}:{number}: includes \"{match.group(1)}\": layer {layer} "
                   f"may include {', '.join(sorted(allowed))} (tools/check_includes.py)")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent,
                        type=pathlib.Path, help="repository root (default: this script's)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    problems = []
    checked = 0
    for prefix in FOLDERS:
        base = root / prefix
        files = [base] if base.is_file() else sorted(base.rglob("*")) if base.is_dir() else []
        for path in files:
            if path.is_file() and path.suffix in SOURCES:
                checked += 1
                problems.extend(check_file(root, path))
    for problem in problems:
        print(problem)
    if checked == 0:
        print(f"no sources found under {root}", file=sys.stderr)
        return 2
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
