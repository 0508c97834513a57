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
# The longest matching prefix wins (src/agent/report/ is not src/agent/).
FOLDERS = {
    "include/braid/": "braid",
    "security/crypto/": "crypto",
    "security/ssh/": "ssh",
    "transport/": "transport",
    "src/proto/": "proto",
    "src/session/": "session",
    "src/autostreams/": "autostreams",
    "src/resume/": "resume",
    "src/source/": "source",
    "src/sink/": "sink",
    "src/serve/": "serve",
    "src/agent/report/": "report",
    "src/agent/fanout/": "fanout",
    "src/launch/": "launch",
    "src/agent/": "agent",
    "src/cli/": "cli",
    "src/main.cc": "main",
}

# How an include names a layer: the path it is included by. The longest
# matching prefix wins ("agent/report/x.h" is report, "agent/x.h" agent).
PREFIXES = {
    "braid/": "braid",
    "security/crypto/": "crypto",
    "security/ssh/": "ssh",
    "transport/": "transport",
    "proto/": "proto",
    "session/": "session",
    "autostreams/": "autostreams",
    "resume/": "resume",
    "source/": "source",
    "sink/": "sink",
    "serve/": "serve",
    "agent/report/": "report",
    "agent/fanout/": "fanout",
    "launch/": "launch",
    "agent/": "agent",
    "cli/": "cli",
}

# Layer -> the layers its files may include (its own always among them), one
# row per folder, lowest first. docs/architecture.md ("Modules") shows it.
ALLOWED = {
    "braid": {"braid"},
    "crypto": {"braid", "crypto"},
    "ssh": {"braid", "ssh"},
    "transport": {"braid", "crypto", "transport"},
    "proto": {"braid", "crypto", "proto"},
    "session": {"braid", "crypto", "transport", "proto", "session"},
    "autostreams": {"braid", "proto", "autostreams"},
    "resume": {"braid", "crypto", "proto", "session", "resume"},
    "source": {"braid", "crypto", "transport", "proto", "session", "source"},
    "sink": {"braid", "crypto", "transport", "proto", "session", "resume", "sink"},
    "serve": {"braid", "crypto", "transport", "proto", "session", "autostreams", "source", "sink",
              "serve"},
    "report": {"braid", "proto", "report"},
    # Pure: the planner of a copy to many destinations knows only what it is told.
    "fanout": {"braid", "fanout"},
    # transport: the fd stream its channels read and write; proto and crypto:
    # the protocol version and SHA-256 that --deploy checks (launch/deploy).
    "launch": {"braid", "ssh", "transport", "crypto", "proto", "launch"},
    # No ssh: the agent starts its ends through launch's ServerLauncher.
    "agent": {"braid", "crypto", "transport", "proto", "session", "report", "fanout", "launch", "agent"},
    "cli": {"braid", "cli"},
    # launch: main hands the agent the launcher that starts real processes.
    "main": {"braid", "cli", "agent", "launch", "serve"},
}

# An include that starts like a layer but names none ("security/secret.h",
# a folder that moved) is reported too.
TOP_FOLDERS = {prefix.split("/")[0] for prefix in PREFIXES}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = (".h", ".cc")


def longest_prefix(path, table):
    """The value of the longest key of `table` that `path` equals or starts with (a key ending
    in '/' is a folder), or None."""
    best = None
    for prefix, value in table.items():
        if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, value)
    return best[1] if best else None


def layer_of(relative):
    """The layer a file (path relative to the root, with '/') belongs to, or None."""
    return longest_prefix(relative, FOLDERS)


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
        included = match.group(1)
        target = longest_prefix(included, PREFIXES)
        if target is None and included.split("/")[0] in TOP_FOLDERS:
            yield (f"{relative}:{number}: includes \"{included}\", which is in no layer "
                   f"(tools/check_includes.py)")
        elif target is not None and target not in allowed:
            yield (f"{relative}:{number}: includes \"{included}\": layer {layer} "
                   f"may include {', '.join(sorted(allowed))} (tools/check_includes.py)")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent,
                        type=pathlib.Path, help="repository root (default: this script's)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    files = set()
    for prefix in FOLDERS:  # nested folders (src/agent/report/) are found twice: a set
        base = root / prefix
        found = [base] if base.is_file() else base.rglob("*") if base.is_dir() else []
        files.update(path for path in found if path.is_file() and path.suffix in SOURCES)
    problems = []
    for path in sorted(files):
        problems.extend(check_file(root, path))
    for problem in problems:
        print(problem)
    if not files:
        print(f"no sources found under {root}", file=sys.stderr)
        return 2
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
