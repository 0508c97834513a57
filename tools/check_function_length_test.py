#!/usr/bin/env python3
"""Tests of tools/check_function_length.py on small planted trees."""

import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "check_function_length.py"


def run(root, limit=10):
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), "--max", str(limit)],
                          capture_output=True, text=True, check=False)


def plant(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def body(lines):
    return "".join(f"  x += {i};\n" for i in range(lines))


class CheckFunctionLengthTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_functions_at_the_limit_pass(self):
        # 1 signature line + 8 statements + 1 closing brace = 10 lines.
        plant(self.root, "src/sink/a.cc", "namespace braid {\nvoid Short(int x) {\n" + body(8) +
              "}\n}  // namespace braid\n")
        result = run(self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")

    def test_a_long_function_fails_naming_file_line_and_length(self):
        plant(self.root, "src/sink/a.cc", "#include <x>\n\nvoid Sink::Run(int x) const {\n" +
              body(9) + "}\n")
        result = run(self.root)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.stdout.strip(),
                         "src/sink/a.cc:3: Sink::Run is 11 lines (at most 10; split it into "
                         "named steps)")

    def test_members_defined_in_a_class_and_multi_line_signatures_count(self):
        plant(self.root, "transport/b.h", "class A {\n public:\n  void Go(int x,\n"
              "          int y) override {\n" + body(9) + "  }\n};\n")
        result = run(self.root)
        self.assertIn("transport/b.h:3: Go is 12 lines", result.stdout)

    def test_lambdas_braces_in_strings_and_comments_belong_to_their_function(self):
        plant(self.root, "security/c.cc", "Foo::Foo(int x) : x_(x), y_{2} {\n"
              "  auto f = [&] {\n" + body(4) + "  };\n  const char* s = \"}}}\";  // }\n" +
              body(3) + "}\n")
        result = run(self.root)
        self.assertIn("security/c.cc:1: Foo::Foo is 12 lines", result.stdout)
        self.assertEqual(len(result.stdout.splitlines()), 1, result.stdout)

    def test_control_blocks_and_initializers_are_not_functions(self):
        plant(self.root, "src/d.cc", "const int kTable[] = {\n" + "  1,\n" * 20 + "};\n"
              "void F() {\n  if (true) {\n  }\n}\n")
        result = run(self.root)
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_declarative_tables_are_allowed_and_tests_are_not_checked(self):
        plant(self.root, "src/cli/command_line.cc",
              "void DefineOptions(CLI::App& app) {\n" + body(30) + "}\n")
        plant(self.root, "tests/unit/e_test.cc", "void LongTest(int x) {\n" + body(30) + "}\n")
        result = run(self.root)
        self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    unittest.main()
