"""Reading one workspace file safely: binary, non-UTF-8, oversized, unreadable and
non-regular files come back with ``text=None`` and a reason instead of raising.

Standard library only, so parser processes can read files without importing the
server's configuration (pydantic) and ignore-file (pathspec) modules.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from dataclasses import dataclass


@dataclass(frozen=True)
class FileText:
    """A file read from disk: ``text`` is None when it was skipped, with ``reason``."""

    rel: str
    text: str | None
    digest: str
    reason: str | None = None


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def read_file(root: str, rel: str, limit: int) -> FileText:
    """Read ``root/rel`` (``rel`` a workspace-relative posix path) as UTF-8 text."""
    try:
        # non-blocking open: a named pipe with a source file's name must not hang the index
        fd = os.open(os.path.join(root, rel), _READ_FLAGS)
    except FileNotFoundError:
        return FileText(rel, None, "", "the file no longer exists")
    except OSError as exc:
        return FileText(rel, None, "", f"cannot be read: {exc.strerror or exc}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return FileText(rel, None, "", "not a regular file")
        if st.st_size > limit:
            return FileText(rel, None, "", f"larger than the {limit:,}-byte limit ({st.st_size:,} bytes)")
        with io.FileIO(fd, closefd=False) as fh:
            data = fh.readall()
    except OSError as exc:
        return FileText(rel, None, "", f"cannot be read: {exc.strerror or exc}")
    finally:
        os.close(fd)
    return decode(rel, data, limit)


def decode(rel: str, data: bytes, limit: int) -> FileText:
    digest = digest_of(data)
    if len(data) > limit:
        return FileText(rel, None, digest, f"larger than the {limit:,}-byte limit ({len(data):,} bytes)")
    if b"\0" in data[:8192]:
        return FileText(rel, None, digest, "binary file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileText(rel, None, digest, f"not UTF-8 (byte {exc.start})")
    if text.startswith("\ufeff"):
        text = text[1:]  # a BOM is not code; offsets stay consistent with the text we keep
    return FileText(rel, text, digest)
