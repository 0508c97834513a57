#!/usr/bin/env python3
"""Checks that no function in braid's product code is longer than a screen.

A function's length is counted from the line its declaration starts on to the
line of its closing brace; lambdas and local classes count towards the
function that holds them. Declarative tables (the CLI11 option list, a codec's
switch over message types) are allowed to be long: they are named in TABLES
below, each with the reason.

Usage: tools/check_function_length.py [--root DIR] [--max N]
Prints one line per function over the limit, as FILE:LINE: NAME is N lines,
and exits 1 if there is any, 0 if there is none.
"""

import argparse
import pathlib
import re
import sys

# The folders whose functions are checked (tests, fuzzers and tools are not).
FOLDERS = ("src", "transport", "security", "include")

# file:function -> why it may be long. Keep this short.
TABLES = {
    "src/cli/command_line.cc:DefineOptions": "the CLI11 option list, one option per statement",
    "src/proto/control_message.cc:DecodeBody": "one case per message type",
}

SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b|\bextern\s*$")
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|try|return)\b")
# What may stand between a parameter list's ")" and the body's "{".
TAIL = re.compile(r"\)\s*(const|noexcept|override|final|mutable|&|&&|->\s*[\w:<>,\s*&]+|\s)*$")
# A constructor's member initializer list so far, ending in a member's name.
INITIALIZER = re.compile(r"\)\s*:\s*[\w:]+\s*[({].*[\w>]\s*$|\)\s*:\s*[\w:<>]+\s*$")
NAME = re.compile(r"([~\w:]+|operator\s*[^\s(]+)\s*\($")


def strip_comments_and_strings(text):
    """Blanks comments and literals, keeping newlines, so braces in them do not count."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"'
                         r"|'(?:\\.|[^'\\\n])*'", re.S)
    text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    # Preprocessor lines and access labels end whatever came before them.
    text = re.sub(r"(?m)^[ \t]*#.*$", ";", text)
    return re.sub(r"\b(public|private|protected)\s*:(?!:)", lambda m: " " * (len(m.group(0)) - 1) + ";",
                  text)


def function_name(head):
    """The name before the parameter list of `head` (text from the declaration to "{")."""
    head = re.sub(r"\s+", " ", head)
    # Drop a constructor's member initializers: the name precedes the first "(".
    depth = 0
    for i, ch in enumerate(head):
        if ch == "(":
            if depth == 0:
                match = NAME.search(head[:i + 1])
                return match.group(1) if match else None
            depth += 1
    return None


def is_function_head(head):
    flat = re.sub(r"\s+", " ", head).strip()
    if not flat or CONTROL.match(flat) or flat.startswith(("[", "(")):
        return False
    if "(" not in flat or "=" in flat.split("(")[0]:
        return False
    if TAIL.search(flat):
        return True
    # A constructor with member initializers: Name(args) : a_(x), b_{y} {
    return re.search(r"\)\s*:\s*[\w:]+\s*[({]", flat) is not None


def long_functions(path, text, limit):
    """Yields (line, name, length) for each function body in `text` over `limit` lines."""
    code = strip_comments_and_strings(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, ch in enumerate(code):
        line_of[i] = line
        if ch == "\n":
            line += 1
    head_start = 0
    i = 0
    while i < len(code):
        ch = code[i]
        if ch in ";}":
            head_start = i + 1
        elif ch == "{":
            head = code[head_start:i]
            if INITIALIZER.search(re.sub(r"\s+", " ", head)):
                i = matching_brace(code, i) + 1  # a member's braced initializer: still the head
                continue
            if SCOPE.search(head) and "(" not in head:
                head_start = i + 1  # step into a namespace or class
            else:
                end = matching_brace(code, i)
                if is_function_head(head):
                    first = line_of[head_start + len(head) - len(head.lstrip())]
                    length = line_of[end] - first + 1
                    if length > limit:
                        yield first, function_name(head) or "?", length
                i = end
                head_start = i + 1
        i += 1


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent,
                        type=pathlib.Path)
    parser.add_argument("--max", type=int, default=80)
    args = parser.parse_args()
    failures = 0
    for folder in FOLDERS:
        for path in sorted((args.root / folder).rglob("*")):
            if path.suffix not in (".cc", ".h") or not path.is_file():
                continue
            relative = path.relative_to(args.root).as_posix()
            text = path.read_text(encoding="utf-8", errors="replace")
            for line, name, length in long_functions(relative, text, args.max):
                short = name.split("::")[-1]
                if f"{relative}:{short}" in TABLES:
                    continue
                print(f"{relative}:{line}: {name} is {length} lines (at most {args.max}; "
                      "split it into named steps)")
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
