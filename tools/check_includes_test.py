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
        plant(self.root, "src/agent/agent.cc",
              '#include "agent/agent.h"\n#include "agent/report/report.h"\n'
              '#include "transport/data_frame.h"\n#include <vector>\n')

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
              '#include "cli/command_line.h"\n\n#include "agent/agent.h"\n')
        plant(self.root, "transport/data_socket.h", '#pragma once\n#include "sink/sink_files.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn('src/cli/command_line.cc:3: includes "agent/agent.h": layer cli may include '
                      "braid, cli", result.stdout)
        self.assertIn('transport/data_socket.h:2: includes "sink/sink_files.h"', result.stdout)
        self.assertEqual(len(result.stdout.splitlines()), 2, result.stdout)

    def test_the_agent_reaches_ssh_only_through_launch(self):
        plant(self.root, "src/launch/server_launcher.cc",
              '#include "launch/server_launcher.h"\n#include "security/ssh/ssh_connection.h"\n')
        plant(self.root, "src/agent/server_end.cc",
              '#include "agent/server_end.h"\n#include "security/ssh/ssh_connection.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.stdout.splitlines(),
                         ['src/agent/server_end.cc:2: includes "security/ssh/ssh_connection.h": '
                          "layer agent may include agent, braid, crypto, fanout, launch, proto, "
                          "report, session, transport (tools/check_includes.py)"])

    def test_the_vocabulary_includes_nothing_above_it(self):
        plant(self.root, "include/braid/options.h",
              '#pragma once\n#include "security/crypto/session_secret.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn("include/braid/options.h:2:", result.stdout)

    def test_sink_may_include_resume_but_not_the_reverse(self):
        plant(self.root, "src/sink/sink_resume.cc", '#include "resume/checkpointer.h"\n')
        plant(self.root, "src/resume/checkpointer.h",
              '#pragma once\n#include "sink/sink_files.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout.splitlines(),
                         ['src/resume/checkpointer.h:2: includes "sink/sink_files.h": layer resume '
                          "may include braid, crypto, proto, resume, session "
                          "(tools/check_includes.py)"])

    def test_a_nested_folder_is_its_own_layer(self):
        # src/agent/report/ is report, not agent: it may not include the agent above it.
        plant(self.root, "src/agent/report/report.cc",
              '#include "agent/report/report.h"\n#include "agent/agent.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout.splitlines(),
                         ['src/agent/report/report.cc:2: includes "agent/agent.h": layer report '
                          "may include braid, proto, report (tools/check_includes.py)"])

    def test_crypto_may_not_include_ssh(self):
        # transport links braid_crypto, never libssh2: neither may reach security/ssh/.
        plant(self.root, "security/crypto/stream_handshake.cc",
              '#include "security/ssh/ssh_auth.h"\n')
        plant(self.root, "transport/data_listener.cc", '#include "security/ssh/ssh_session.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(len(result.stdout.splitlines()), 2, result.stdout)

    def test_an_include_of_a_folder_that_is_no_layer_fails(self):
        plant(self.root, "src/serve/server.cc", '#include "security/stream_handshake.h"\n')
        result = run(self.root)
        self.assertEqual(result.returncode, 1)
        self.assertIn('src/serve/server.cc:1: includes "security/stream_handshake.h", '
                      "which is in no layer", result.stdout)

    def test_an_empty_root_is_an_error_not_a_pass(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertEqual(run(pathlib.Path(empty)).returncode, 2)


if __name__ == "__main__":
    unittest.main()
