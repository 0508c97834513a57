#!/usr/bin/env python3
"""Tests of tools/check_includes.py on small planted trees."""

import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "check_includes.py"


def run(root):
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root)],
                          capture_output=True, text=True, check=False)


def plant(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class CheckIncludesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        plant(self.root, "include/braid/error.h", "#pragma once\n")
        plant(self.root, "src/engine/agent.cc",
              '#include "engine/agent.h"\n#include "transport/data_frame.h"\n#include <vector>\n')

    def tearDown(self):
        self.tmp.cleanup()

    def test_right_way_includes_pass(self):
        plant(self.root, "src/cli/command_line.cc",
              '#include "cli/command_line.h"\n#include "braid/options.h"\n#include <CLI/CLI.hpp>\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")

    def test_a_wrong_way_include_fails_naming_file_and_line(self):
        plant(self.root, "src/cli/command_line.cc",
              '#include "cli/command_line.h"\n\n#include "engine/agent.h"\n')
        plant(self.root, "transport/data_socket.h", '#pragma once\n#include "engine/sink_files.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn('src/cli/command_line.cc:3: includes "engine/agent.h": layer cli may include '
                      "braid, cli", result.stdout)
        self.assertIn('transport/data_socket.h:2: includes "engine/sink_files.h"', result.stdout)
        self.assertEqual(len(result.stdout.splitlines()), 2, result.stdout)

    def test_the_vocabulary_includes_nothing_above_it(self):
        plant(self.root, "include/braid/options.h", '#pragma once\n#include "security/secret.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("include/braid/options.h:2:", result.stdout)

    def test_an_empty_root_is_an_error_not_a_pass(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(run(pathlib.Path(empty)).returncode, 2)


if __name__ == "__main__":
    unittest.main()
