"""What the command line's stages show before they write a file, and the user's approval
(``export``, ``generate``): a unified diff against the file there, then ``--yes`` or a yes
typed at a terminal; without a terminal and without ``--yes``, no."""

from __future__ import annotations

import difflib
import sys


def approved(rel: str, old: str | None, text: str, yes: bool) -> bool:
    """Print that ``rel`` will be created (``old`` None) or overwritten, with the diff, and
    return whether it may be written. ``rel`` is printed as given (already made safe)."""
    print(f"specward will {'overwrite' if old is not None else 'create'} {rel}:")
    diff = difflib.unified_diff((old or "").splitlines(keepends=True), text.splitlines(keepends=True),
                                fromfile=f"a/{rel}" if old is not None else "/dev/null", tofile=f"b/{rel}")
    for line in diff:
        sys.stdout.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    sys.stdout.flush()
    if yes:
        return True
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(f"specward: {rel} not written: no terminal to ask; pass --yes to write it", file=sys.stderr)
        return False
    try:
        reply = input(f"Write {rel}? [y/N] ")
    except EOFError:
        reply = ""
    if reply.strip().lower() not in ("y", "yes"):
        print(f"specward: {rel} not written", file=sys.stderr)
        return False
    return True
