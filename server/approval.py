"""What the command line's stages show before they write a file, and the user's approval
(``export``, ``generate``): a unified diff against the file there, then ``--yes`` or a yes
typed at a terminal; without a terminal and without ``--yes``, no. And how they replace a
file (``replace_file``)."""

from __future__ import annotations

import difflib
import os
import secrets
import sys
from pathlib import Path


def approved(rel: str, old: str | None, text: str, yes: bool, protected: str | None = None) -> bool:
    """Print that ``rel`` will be created (``old`` None) or overwritten, with the diff, and
    return whether it may be written. ``rel`` is printed as given (already made safe).
    ``protected`` (why the path is protected: ``.git/``, a workflow, specward's own
    configuration): ``--yes`` does not count, the user must type the path at a terminal."""
    print(f"specward will {'overwrite' if old is not None else 'create'} {rel}:")
    diff = difflib.unified_diff((old or "").splitlines(keepends=True), text.splitlines(keepends=True),
                                fromfile=f"a/{rel}" if old is not None else "/dev/null", tofile=f"b/{rel}")
    for line in diff:
        sys.stdout.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    sys.stdout.flush()
    if protected is not None:
        print(f"specward: {rel} reaches a protected path ({protected}): it is written only when you confirm "
              "this file by typing its path; --yes does not count", file=sys.stderr)
        return confirmed(rel, f"Type {rel} to write it (anything else skips it): ", typed=rel,
                         no_terminal="a protected path needs a confirmation at a terminal")
    return yes or confirmed(rel, f"Write {rel}? [y/N] ")


def confirmed(rel: str, question: str, verb: str = "write", done: str = "written", typed: str | None = None,
              no_terminal: str | None = None) -> bool:
    """Ask ``question`` at the terminal: yes (``y``/``yes``, or exactly ``typed`` when
    given) or no. Without a terminal: no, with a message saying why ``rel`` was not
    ``done``."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        why = no_terminal or f"no terminal to ask; pass --yes to {verb} it"
        print(f"specward: {rel} not {done}: {why}", file=sys.stderr)
        return False
    try:
        reply = input(question).strip()
    except EOFError:
        reply = ""
    if (reply != typed) if typed is not None else (reply.lower() not in ("y", "yes")):
        print(f"specward: {rel} not {done}", file=sys.stderr)
        return False
    return True


def replace_file(path: Path, text: str) -> None:
    """``path`` replaced by ``text`` atomically: a new temporary file beside it (never one
    that exists, never through a link), then a rename, which replaces a link at ``path``
    rather than following it. Raises ``OSError``; the temporary file does not survive."""
    tmp = path.with_name(f".{path.name}.specward-{os.getpid()}-{secrets.token_hex(3)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
