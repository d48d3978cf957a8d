"""The fix-history ledgers on disk: where they are, reading them, appending, pruning.

``analyzers/ledger.py`` parses; this module does the I/O (``docs/ledger.md``):

- ``<root>/.ai-spec-fix-history.json``: ai-spec's ledger, read as it is, never written;
- ``<root>/.specward/fix-history.jsonl``: specward's, committed to git (the folder's
  ``.gitignore`` ignores the cache, not the ledger; ``.gitattributes`` there asks git for a
  union merge);
- the user's ledger (opt-in): ``$XDG_DATA_HOME/specward/fix-history.jsonl``
  (``~/.local/share`` without it; ``~/Library/Application Support`` on macOS,
  ``%LOCALAPPDATA%`` on Windows), which carries patterns across projects.

An append is one ``os.write`` of one whole line to a file opened ``O_APPEND``: writers in
other processes never interleave with it, and a writer killed in the middle leaves at most
one partial last line, which readers ignore (with a warning) and the next append steps over
(it starts with a newline when the file does not end with one). Appenders and ``prune``
also take an ``flock`` on the file: ``prune`` (the only operation that drops records)
rewrites it through a temporary file and ``os.replace``, and an appender that waited for
it writes to the new file, never to the one replaced. Nothing is written through a link:
a ``.specward`` (or ledger) that is a symlink is refused, as the cache refuses it.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

from specward.analyzers import ledger as core
from specward.analyzers.model import Finding, Span

from .reading import read_data

try:
    import fcntl
except ImportError:  # Windows: O_APPEND alone (no prune lock)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

LEDGER_NAME = "fix-history.jsonl"
# the .specward/.gitignore the cache and the ledger write: the cache is ignored, the ledger
# (and these two files, so that a clone gets them) are committed
GITIGNORE = "*\n!.gitignore\n!.gitattributes\n!fix-history.jsonl\n"
OLD_GITIGNORE = "*\n"  # what the cache wrote before the ledger existed: replaced by GITIGNORE
GITATTRIBUTES = "fix-history.jsonl merge=union\n"
MAX_LEDGER_BYTES = 256 * 1024 * 1024

_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LedgerError(Exception):
    """A ledger that cannot be written (a link out of the workspace, a disk error, ...)."""


# --------------------------------------------------------------------------- paths


def ledger_path(root: Path) -> Path:
    """specward's ledger of the workspace ``root``."""
    return Path(root) / ".specward" / LEDGER_NAME


def ai_spec_path(root: Path) -> Path:
    return Path(root) / core.AI_SPEC_LEDGER


def user_data_dir(environ: dict | None = None, platform: str | None = None) -> Path | None:
    """The user's data folder for specward (None when it cannot be told: no home)."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform.startswith("win"):
        base = env.get("LOCALAPPDATA") or env.get("APPDATA")
        return Path(base) / "specward" if base else None
    xdg = env.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):  # the spec: a relative value is ignored
        return Path(xdg) / "specward"
    home = env.get("HOME")
    if not home:
        return None
    if platform == "darwin":
        return Path(home) / "Library" / "Application Support" / "specward"
    return Path(home) / ".local" / "share" / "specward"


def user_ledger_path(environ: dict | None = None, platform: str | None = None) -> Path | None:
    """The opt-in user-level ledger (patterns carried across projects)."""
    folder = user_data_dir(environ, platform)
    return folder / LEDGER_NAME if folder is not None else None


# --------------------------------------------------------------------------- reading


def _read_plain(path: Path) -> tuple[bytes | None, str | None]:
    """The user's ledger: the user's own file, read without following a final link."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None, "the file no longer exists"
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        if st.st_size > MAX_LEDGER_BYTES:
            return None, f"larger than the {MAX_LEDGER_BYTES:,}-byte limit ({st.st_size:,} bytes): prune it"
        return _read_all(fd), None
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    os.lseek(fd, 0, os.SEEK_SET)
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def read_ledger(path: Path, name: str, root: Path | None = None) -> tuple[tuple[core.Record, ...], tuple[Finding, ...]]:
    """The records of one ledger and its ``ledger-invalid`` findings (``name`` is the file
    as findings and records name it: workspace-relative for a workspace's ledgers). With
    ``root``, the file is read as every workspace file is (never through a link out of it).
    A ledger that does not exist has no records."""
    path = Path(path)
    if root is not None:
        rel = path.relative_to(root).as_posix()
        if not os.path.lexists(path):
            return (), ()
        data, why = read_data(str(root), rel, MAX_LEDGER_BYTES)
    else:
        if not os.path.lexists(path):
            return (), ()
        data, why = _read_plain(path)
    if data is None:
        if why == "the file no longer exists":
            return (), ()
        return (), (Finding("ledger-invalid", core.CODES["ledger-invalid"].severity,
                            f"the ledger is not read: {why}", name, Span(0, 0)),)
    if name.endswith(".json"):
        return core.parse_ai_spec(data.decode("utf-8", "surrogateescape"), name)
    return core.parse_jsonl(data, name)


def load(root: Path, user: bool = False, user_path: Path | None = None) -> tuple[core.Patterns, tuple[Finding, ...]]:
    """Every record of the workspace's ledgers (ai-spec's and specward's; with ``user``, the
    user's ledger too) as patterns, and the ``ledger-invalid`` findings of the workspace's
    ledgers (workspace-relative files). The user ledger's problems are logged, not returned:
    they are on no file of the workspace."""
    root = Path(root)
    records: list[core.Record] = []
    findings: list[Finding] = []
    for path in (ai_spec_path(root), ledger_path(root)):
        got, problems = read_ledger(path, path.relative_to(root).as_posix(), root)
        records += got
        findings += problems
    if user:
        upath = user_path if user_path is not None else user_ledger_path()
        if upath is not None:
            got, problems = read_ledger(upath, str(upath))
            records += got
            for p in problems:
                log.warning("user ledger %s: %s", upath, p.message)
    return core.Patterns(records), tuple(findings)


# --------------------------------------------------------------------------- writing


def _checked_folder(path: Path, root: Path | None, create: bool) -> None:
    """With ``root``: the ledger's folder (created with its ``.gitignore`` and
    ``.gitattributes`` when ``create``) and files must really be inside the workspace."""
    if root is None:
        if create:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise LedgerError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
        return
    root = Path(root)
    folder = path.parent
    real_root = root.resolve()
    try:
        rel = folder.relative_to(root)
    except ValueError:
        raise LedgerError(f"{path} is not inside the workspace {root}") from None
    if create and not os.path.lexists(folder):
        try:
            folder.mkdir()
        except FileExistsError:
            pass
        except OSError as exc:
            raise LedgerError(f"cannot create {folder}: {exc.strerror or exc}") from None
    ignore, attributes = folder / ".gitignore", folder / ".gitattributes"
    for p in (folder, path, ignore, attributes):
        if p.is_symlink() or (p.exists() and p.resolve() != real_root / rel / p.relative_to(folder)):
            raise LedgerError(f"{p} is a link (to {p.resolve()}): nothing is written through it")
    if folder.is_symlink() or not folder.is_dir():
        raise LedgerError(f"{folder} is not a folder")
    if create and folder.name == ".specward":
        _write_new(ignore, GITIGNORE, replace_if=OLD_GITIGNORE)
        _write_new(attributes, GITATTRIBUTES)


def _write_new(path: Path, text: str, replace_if: str | None = None) -> None:
    """Create ``path`` with ``text`` (never through a link); replace it when it holds
    ``replace_if``. Failures are logged: the ledger itself may still be written."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    except FileExistsError:
        if replace_if is None:
            return
        try:
            with open(path, "r", encoding="utf-8") as fh:
                if fh.read(len(replace_if) + 1) != replace_if:
                    return
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".gitignore.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except OSError as exc:
            log.debug("cannot update %s: %s", path, exc)
        return
    except OSError as exc:
        log.debug("cannot write %s: %s", path, exc)
        return
    try:
        os.write(fd, text.encode("utf-8"))
    except OSError as exc:
        log.debug("cannot write %s: %s", path, exc)
    finally:
        os.close(fd)


def _open_locked(path: Path) -> int:
    """The ledger opened for appending, locked, and still the file ``path`` names (a prune
    may have replaced it while this waited for the lock)."""
    for _ in range(100):
        try:
            fd = os.open(path, _OPEN_FLAGS | _NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise LedgerError(f"{path} is a link: nothing is written through it") from None
            raise LedgerError(f"cannot open {path}: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise LedgerError(f"{path} is not a regular file")
            if fcntl is None:
                return fd
            fcntl.flock(fd, fcntl.LOCK_EX)
            now = os.stat(path, follow_symlinks=False)
            if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                return fd
        except FileNotFoundError:
            pass  # replaced and not there yet: open again
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    raise LedgerError(f"{path} keeps being replaced")


def append(path: Path, record: core.Record, root: Path | None = None) -> None:
    """Append ``record`` to the ledger ``path`` as one line, written by one ``os.write``
    (preceded by a newline when the file does not end with one: the remains of a crash).
    With ``root`` (a workspace's ledger), its folder is created with its ``.gitignore`` and
    ``.gitattributes``, and a folder or file that is a link is refused. Raises LedgerError."""
    path = Path(path)
    _checked_folder(path, root, create=True)
    line = core.record_line(record).encode("ascii")
    fd = _open_locked(path)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        written = os.write(fd, line)  # one write: never a second one that could interleave
        if written != len(line):
            raise LedgerError(f"{path}: only {written} of {len(line)} bytes written (disk full?)")
        try:
            os.fsync(fd)
        except OSError:
            pass
    except OSError as exc:
        raise LedgerError(f"cannot append to {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)  # releases the lock


def new_run_id(prefix: str = "specward", now: float | None = None) -> str:
    t = time.gmtime(time.time() if now is None else now)
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S', t)}-{os.getpid():x}"


def record_fix(root: Path, source: str, names: tuple[str, ...], reason: str, file: str, line: int, fix_kind: str,
               fix_target: str, stage: str = "editor", user: bool = False, run_id: str | None = None,
               user_path: Path | None = None, now: float | None = None) -> core.Record:
    """Record a fix that was just applied: one record appended to the workspace's ledger
    (and to the user's, with ``user``; a failure there is logged). Raises LedgerError when
    the workspace's ledger cannot be written."""
    now = time.time() if now is None else now
    record = core.make_record(source, names, reason, file, line, fix_kind, fix_target, stage, core.format_ts(now),
                              run_id or new_run_id(stage, now))
    append(ledger_path(root), record, root=Path(root))
    if user:
        upath = user_path if user_path is not None else user_ledger_path()
        if upath is not None:
            try:
                append(upath, record)
            except LedgerError as exc:
                log.warning("user ledger not written: %s", exc)
    return record


def prune(path: Path, older_than_days: float, root: Path | None = None, now: float | None = None) -> tuple[int, int]:
    """Drop the records older than ``older_than_days`` days from a specward ledger: the only
    operation that drops records. Fragments of interrupted writes (lines that are not JSON)
    go too; other lines that are not records are kept as they are (a person decides). The file is rewritten atomically (a temporary file, then
    ``os.replace``) under the lock appenders take. Returns (records removed, records kept)."""
    path = Path(path)
    if not os.path.lexists(path):
        return 0, 0
    _checked_folder(path, root, create=False)
    cutoff = (time.time() if now is None else now) - older_than_days * 86400
    fd = _open_locked(path)
    try:
        data = _read_all(fd)
        records, problems = core.parse_jsonl(data, path.name)
        old = {r.line for r in records if (core.parse_ts(r.ts) or 0.0) < cutoff}
        if not old:
            return 0, len(records)
        # fragments of interrupted writes go too (never a record); other lines stay
        fragments = {data.count(b"\n", 0, p.span.start) + 1 for p in problems if core.NOT_JSON in p.message}
        out = []
        for number, raw in enumerate(data.split(b"\n"), 1):
            if number in old or number in fragments or not raw.strip():
                continue
            out.append(raw + b"\n")
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        tmp_fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(tmp_fd, "wb") as fh:
                fh.write(b"".join(out))
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return len(old), len(records) - len(old)
    except OSError as exc:
        raise LedgerError(f"cannot prune {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
