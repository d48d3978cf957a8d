"""Reading one workspace file safely: binary, non-UTF-8, oversized, unreadable and
non-regular files come back with ``text=None`` and a reason instead of raising, and a file
whose real path is outside the workspace (a symlink out of it) is never opened.

Standard library only, so parser processes can read files without importing the
server's configuration (pydantic) and ignore-file (pathspec) modules.
"""

from __future__ import annotations

import errno
import functools
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
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@functools.lru_cache(maxsize=16)
def real_root(root: str) -> str:
    """The real path of a workspace root (cached: a root does not move while indexed)."""
    return os.path.realpath(root)


def is_within(real: str, root_real: str) -> bool:
    """Whether the real path ``real`` is ``root_real`` or below it."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def outside(root: str, rel: str) -> str | None:
    """The real path of ``root/rel`` when it lies outside the workspace ``root`` (a symlink,
    or a symlinked folder on the way, leads out of it); None when it is inside."""
    real = os.path.realpath(os.path.join(root, rel))
    return None if is_within(real, real_root(root)) else real


def refused(real: str) -> str:
    return f"a symlink to {shown(real)}, outside the workspace: not read"


def shown(path: str) -> str:
    """A path for people: a file name that is not UTF-8 (bytes kept as surrogates, see
    ``os.fsdecode``) gets ``\\xNN`` escapes instead of failing to print."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


_real_dirs: dict[str, str] = {}  # folder -> its real path (checked again on every open)
_REAL_DIRS_MAX = 8192


def real_dir(folder: str) -> str:
    """The real path of ``folder``, cheaply: from its parent's, cached, with one ``lstat``
    when the last part is no symlink (``os.path.realpath`` costs an ``lstat`` per part of
    the path: 35 us a file at 8 levels, and quadratic in the depth of a deep tree). A stale
    entry (a folder replaced by a symlink since) is caught by the check of the opened file."""
    hit = _real_dirs.get(folder)
    if hit is not None:
        return hit
    real = None
    head, tail = os.path.split(folder)
    parent = _real_dirs.get(head) if tail not in ("", ".", "..") else None
    if parent is not None:
        candidate = os.path.join(parent, tail)
        try:
            if not stat.S_ISLNK(os.lstat(candidate).st_mode):
                real = candidate
        except OSError:
            pass
    if real is None:
        real = os.path.realpath(folder)
    if len(_real_dirs) >= _REAL_DIRS_MAX:
        _real_dirs.clear()
    _real_dirs[folder] = real
    return real


def _opened_path(fd: int) -> str | None:
    """The real path of what ``fd`` is open on (Linux), or None when unknown."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def read_data(root: str, rel: str, limit: int, outside_ok: bool = False) -> tuple[bytes | None, str | None]:
    """The bytes of ``root/rel`` (``rel`` a workspace-relative posix path), or None and why
    not. Never opens a file whose real path is outside ``root`` (unless ``outside_ok``: a
    contract named explicitly), never blocks on a named pipe or a device, never reads more
    than ``limit`` bytes.

    The real path is resolved before opening (the folder's, cached, and the file's own when
    it is a symlink: the open refuses to follow one), and what was opened is checked again
    before reading (``/proc/self/fd``): a folder swapped for a symlink meanwhile is caught."""
    path = os.path.join(root, rel)
    flags = _READ_FLAGS
    top = real_root(root)
    if not outside_ok:
        folder, name = os.path.split(path)
        real = os.path.join(real_dir(folder), name) if name not in ("", ".", "..") else os.path.realpath(path)
        if not is_within(real, top):
            return None, refused(os.path.realpath(path))
        flags |= _NOFOLLOW
    try:
        # non-blocking open: a named pipe with a source file's name must not hang the index
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            if outside_ok or exc.errno != errno.ELOOP:
                raise
            # the file is a symlink: where it leads decides
            real = os.path.realpath(path)
            if not is_within(real, top):
                return None, refused(real)
            fd = os.open(real, flags)
    except FileNotFoundError:
        return None, "the file no longer exists"
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    try:
        if not outside_ok:
            opened = _opened_path(fd)
            if opened is not None and not is_within(opened, top):
                return None, refused(opened)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        if st.st_size > limit:
            return None, f"larger than the {limit:,}-byte limit ({st.st_size:,} bytes)"
        chunks: list[bytes] = []
        size = 0
        with io.FileIO(fd, closefd=False) as fh:
            while size <= limit:  # a file growing meanwhile is still read no further
                chunk = fh.read(limit + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    return data, None


def read_file(root: str, rel: str, limit: int, outside_ok: bool = False) -> FileText:
    """Read ``root/rel`` (``rel`` a workspace-relative posix path) as UTF-8 text; see
    ``read_data`` for what is refused."""
    data, reason = read_data(root, rel, limit, outside_ok)
    if data is None:
        return FileText(rel, None, "", reason)
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
