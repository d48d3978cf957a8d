"""The SQLite cache of per-file facts, keyed by content hash and extractor version.

It lives inside the workspace (``.specward/cache.sqlite``, ignored by git through its own
``.gitignore``) because specward never writes outside the workspace. Rows are decoded by
``analyzers.serial``'s restricted unpickler, which builds analyzer dataclasses and nothing
else, so a planted cache cannot run code. The cache is never fatal:

- a corrupt file (not a database, malformed) is dropped and rebuilt;
- a cache another process holds (busy, locked) is waited for a little (``BUSY_TIMEOUT_S``),
  then that one read or write is skipped: it is never dropped for it;
- a cache that cannot be written (disk full, read-only, no permission, I/O error) is
  bypassed for the rest of the run, with one log line: reads go on while they work.

Every row is valid on its own (facts: for one content digest; link results: for the
digests of every file they read) and is written in a transaction, so a process killed at
any point, or several processes writing at once, leave a consistent cache (WAL journal).
"""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import time
from pathlib import Path

from specward.analyzers import serial

log = logging.getLogger(__name__)

SCHEMA = 7  # 6: paths are stored as their bytes (a file name need not be UTF-8); 7: one blob per link row
BUSY_TIMEOUT_S = 2.0  # wait for another process's write before skipping a read or write

# SQLite primary result codes (``sqlite3.Error.sqlite_errorcode & 0xff``)
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


def _kind(exc: BaseException) -> str:
    """"busy" (another process holds the database), "corrupt" (not a usable database) or
    "unusable" (cannot be written or opened: full, read-only, permissions, I/O)."""
    if not isinstance(exc, sqlite3.Error):
        return "unusable"
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        code &= 0xFF
        if code in _BUSY_CODES:
            return "busy"
        if code in _CORRUPT_CODES:
            return "corrupt"
        return "unusable"
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return "busy"
    if "malformed" in text or "not a database" in text:
        return "corrupt"
    return "unusable"


def _key(path: str) -> bytes:
    """A path as SQLite keeps it: its bytes. A file name that is not UTF-8 reaches Python
    with surrogate escapes (``os.fsdecode``), which SQLite text cannot hold."""
    return path.encode("utf-8", "surrogateescape")


def _path(key: bytes | str) -> str:
    return key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else key


class FactsCache:
    def __init__(self, root: Path, version: str, enabled: bool = True) -> None:
        self.version = version
        self.path = root / ".specward" / "cache.sqlite"
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._writable = True
        self._closing = False
        if enabled:
            self._open()

    def _open(self) -> None:
        try:
            self.path.parent.mkdir(exist_ok=True)
        except OSError as exc:
            log.warning("cache %s cannot be created (%s): indexing without it", self.path, exc)
            return
        # the cache folder or its files may be links out of the workspace (a hostile
        # repository): nothing is written through them
        root = self.path.parent.parent.resolve()
        for p in (self.path.parent, self.path, self.path.parent / ".gitignore"):
            real = p.resolve()
            if (p.is_symlink() or p.exists()) and real != root / p.relative_to(self.path.parent.parent):
                log.warning("cache %s not used: %s is a link (to %s)", self.path, p, real)
                self._writable = False
                return
        ignore = self.path.parent / ".gitignore"
        try:
            if not ignore.exists():
                # everything, itself included: a workspace without a fix-history ledger
                # keeps nothing of .specward/ (writing the ledger opens it up for the ledger)
                ignore.write_text("*\n")
        except OSError as exc:  # the cache itself may still work (or fail below, and say so)
            log.debug("cannot write %s: %s", ignore, exc)
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self._db = self._connect()
                return
            except (sqlite3.Error, OSError) as exc:
                kind = _kind(exc)
                # (turning a new file to WAL does not wait for another process doing it:
                # SQLite answers "locked" at once, so the wait is here)
                if kind == "busy" and time.monotonic() < deadline:
                    time.sleep(random.uniform(0.01, 0.05))
                    continue
                if kind == "corrupt":
                    log.warning("cache %s unusable (%s); rebuilding it", self.path, exc)
                    self._reset()
                else:  # held by another process, or not writable: never deleted for that
                    log.warning("cache %s cannot be opened (%s): indexing without it", self.path, exc)
                return

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                # a new cache (or another schema): created in one write transaction, checked
                # again inside it, so that processes starting together create it once
                db.execute("BEGIN IMMEDIATE")
                try:
                    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                        db.execute("DROP TABLE IF EXISTS facts")
                        db.execute("DROP TABLE IF EXISTS links")
                        db.execute("CREATE TABLE facts (path TEXT PRIMARY KEY, digest TEXT NOT NULL, "
                                   "version TEXT NOT NULL, data BLOB NOT NULL)")
                        # per-file link results, valid while every path they read has the recorded digest
                        db.execute("CREATE TABLE links (path TEXT PRIMARY KEY, version TEXT NOT NULL, "
                                   "data BLOB NOT NULL)")
                        db.execute(f"PRAGMA user_version={SCHEMA}")
                    db.execute("COMMIT")
                except BaseException:
                    _rollback(db)
                    raise
            db.execute("SELECT count(*) FROM facts").fetchone()  # fails early on a corrupt file
        except BaseException:
            db.close()
            raise
        return db

    @property
    def enabled(self) -> bool:
        return self._db is not None

    @property
    def writable(self) -> bool:
        """Open, and no write has failed for a reason that would make the next one fail too."""
        return self._db is not None and self._writable

    def _usable(self) -> sqlite3.Connection | None:
        """The connection (under ``self._lock``), or None: closed, or closing now."""
        if self._closing and self._db is not None:
            self._close_locked()
        return self._db

    def _failed(self, exc: sqlite3.Error, what: str) -> None:
        """A read or write failed (under ``self._lock``): say so, and rebuild a corrupt cache
        or stop writing to one that cannot be written."""
        kind = _kind(exc)
        if kind == "corrupt":
            log.warning("cache %s corrupt (%s); rebuilding it", self.path, exc)
            self._reset()
        elif kind == "busy":
            log.warning("cache %s busy (%s): %s skipped", self.path, exc, what)
        elif what != "read" and self._writable:
            self._writable = False
            log.warning("cannot write the cache %s (%s): not writing to it any more this run", self.path, exc)
        else:
            log.warning("cannot read the cache %s (%s)", self.path, exc)

    def _read(self, sql: str, args: tuple = ()) -> list:
        with self._lock:
            db = self._usable()
            if db is None:
                return []
            try:
                return db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                self._failed(exc, "read")
                return []

    def _write(self, sql: str, rows: list) -> bool:
        """All the rows in one transaction (all or none are stored). True when stored."""
        if not rows:
            return True
        with self._lock:
            db = self._usable()
            if db is None or not self._writable:
                return False
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(sql, rows)
                db.execute("COMMIT")
                return True
            except sqlite3.Error as exc:
                _rollback(db)
                self._failed(exc, f"a write of {len(rows)} row(s)")
                return False

    def digests(self) -> dict[str, str]:
        """path -> content digest of the facts stored for the current extractor version."""
        return {_path(p): d for p, d in self._read("SELECT path, digest FROM facts WHERE version=?", (self.version,))}

    def load(self, path: str, digest: str) -> object | None:
        """The facts of one file, if stored for this exact content; None otherwise."""
        rows = self._read("SELECT data FROM facts WHERE path=? AND digest=? AND version=?",
                          (_key(path), digest, self.version))
        if not rows:
            return None
        try:
            return serial.loads(rows[0][0])
        except Exception as exc:  # a damaged row is dropped, never trusted
            log.debug("dropping cached row %s: %s", path, exc)
            return None

    def store(self, rows: list[tuple[str, str, object]]) -> bool:
        """(path, digest, facts) rows. True when stored."""
        if not self.writable:
            return False
        return self.store_encoded([(p, d, serial.dumps(f)) for p, d, f in rows])

    def store_encoded(self, rows: list[tuple[str, str, bytes]]) -> bool:
        return self._write("INSERT OR REPLACE INTO facts VALUES (?,?,?,?)",
                           [(_key(p), d, self.version, b) for p, d, b in rows])

    def load_links(self, version: str) -> dict[str, tuple[dict[str, str], frozenset[str], list, tuple]]:
        """path -> (present {path: digest}, absent paths, calls, extras): one file's link
        results, valid while every present path has its digest and no absent path exists."""
        out = {}
        for path, data in self._read("SELECT path, data FROM links WHERE version=?", (version,)):
            try:
                present, absent, calls, extras = serial.loads(data)  # type: ignore[misc]
                out[_path(path)] = (dict(present), frozenset(absent), list(calls), tuple(extras))
            except Exception as exc:  # noqa: BLE001 - a damaged row is recomputed
                log.debug("dropping cached links of %s: %s", path, exc)
        return out

    def store_links(self, version: str, rows: list[tuple[str, dict[str, str | None], list, tuple]]) -> bool:
        """(path, {path read: its digest, None when absent}, calls, extras) rows."""
        if not self.writable:
            return False
        return self._write("INSERT OR REPLACE INTO links VALUES (?,?,?)", [
            (_key(p), version, serial.dumps(({d: dg for d, dg in deps.items() if dg is not None},
                                             tuple(d for d, dg in deps.items() if dg is None),
                                             list(calls), tuple(extras))))
            for p, deps, calls, extras in rows])

    def forget(self, paths: list[str]) -> None:
        if not paths:
            return
        with self._lock:
            db = self._usable()
            if db is None or not self._writable:
                return
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("DELETE FROM facts WHERE path=?", [(_key(p),) for p in paths])
                db.executemany("DELETE FROM links WHERE path=?", [(_key(p),) for p in paths])
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback(db)
                self._failed(exc, "forgetting deleted files")

    def _reset(self) -> None:
        """Drop the cache files and start an empty cache (or none, if that fails too)."""
        with self._lock:
            try:
                if self._db is not None:
                    self._db.close()
            except sqlite3.Error:
                pass
            self._db = None
            try:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(str(self.path) + suffix).unlink(missing_ok=True)
                self._db = self._connect()
            except (sqlite3.Error, OSError) as exc:
                log.warning("cache disabled: %s", exc)
                self._db = None

    def close(self) -> None:
        """Close now, or, when another thread is in the middle of a read or write (the
        cache writer), as that one ends: never waits for it (a shutdown must be quick)."""
        self._closing = True
        if self._lock.acquire(timeout=0.05):
            try:
                self._close_locked()
            finally:
                self._lock.release()

    def _close_locked(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None


def _rollback(db: sqlite3.Connection) -> None:
    try:
        if db.in_transaction:
            db.execute("ROLLBACK")
    except sqlite3.Error:
        pass
