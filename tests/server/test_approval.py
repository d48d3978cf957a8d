"""The command line's approval (`server/approval.py`) at a real pseudo-terminal: the yes
prompt, and a protected path that `--yes` never writes, confirmed only by typing its path."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest

SNIPPET = ("import sys\n"
           "from specward.server.approval import approved\n"
           "yes, protected = sys.argv[1] == 'yes', (sys.argv[2] or None)\n"
           "ok = approved('.github/workflows/ci.yml' if protected else 'web/a.ts', None, 'x = 1\\n', yes, protected)\n"
           "print('RESULT', ok, file=sys.stderr)\n")


def at_terminal(args: list[str], prompt: str, reply: str) -> tuple[str, str]:
    """Run the snippet on a pseudo-terminal; ``reply`` typed once ``prompt`` shows."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", SNIPPET, *args], stdin=follower, stdout=follower,
                            stderr=subprocess.PIPE, text=True)
    os.close(follower)
    seen, sent = "", False
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if select.select([leader], [], [], 0.1)[0]:
            try:
                seen += os.read(leader, 4096).decode("utf-8", "replace")
            except OSError:
                break
        if not sent and prompt in seen:  # the diff is shown: the question follows
            os.write(leader, reply.encode())
            sent = True
    proc.wait(30)
    os.close(leader)
    return seen, proc.stderr.read()


@pytest.mark.parametrize("reply, expected", [("y\n", "RESULT True"), ("n\n", "RESULT False"), ("\n", "RESULT False")])
def test_the_yes_prompt_at_a_terminal(reply: str, expected: str):
    seen, err = at_terminal(["no", ""], "+x = 1", reply)
    assert "specward will create web/a.ts" in seen and "+x = 1" in seen
    assert "Write web/a.ts? [y/N]" in seen + err
    assert expected in err


def test_a_protected_path_needs_its_path_typed_even_with_yes():
    _seen, err = at_terminal(["yes", ".github/workflows/"], "+x = 1", "y\n")
    assert "--yes does not count" in err and "RESULT False" in err
    _seen, err = at_terminal(["yes", ".github/workflows/"], "+x = 1", ".github/workflows/ci.yml\n")
    assert "RESULT True" in err


def test_a_protected_path_is_never_written_without_a_terminal():
    proc = subprocess.run([sys.executable, "-c", SNIPPET, "yes", ".git/"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert "needs a confirmation at a terminal" in proc.stderr and "RESULT False" in proc.stderr
