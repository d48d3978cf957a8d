"""The SQLite cache of per-file facts, keyed by content hash and extractor version.

It lives inside the workspace (``.specward/cache.sqlite``, ignored by git through its own
``.gitignore``) because specward never writes outside the workspace. Rows are JSON of
plain data (``analyzers.serial``), never pickle. A corrupt, locked or unwritable cache is
dropped and rebuilt, or simply not used: it is never fatal.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from specward.analyzers import serial

log = logging.getLogger(__name__)

SCHEMA = 2


class FactsCache:
    def __init__(self, root: Path, version: str, enabled: bool = True) -> None:
        self.version = version
        self.path = root / ".specward" / "cache.sqlite"
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        if enabled:
            self._open()

    def _open(self) -> None:
        try:
            self.path.parent.mkdir(exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n")
            self._db = self._connect()
        except (sqlite3.DatabaseError, OSError) as exc:
            log.warning("cache %s unusable (%s); rebuilding it", self.path, exc)
            self._db = None
            try:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(str(self.path) + suffix).unlink(missing_ok=True)
                self._db = self._connect()
            except (sqlite3.DatabaseError, OSError) as exc2:
                log.warning("cache disabled: %s", exc2)
                self._db = None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=0.5, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA:
            db.execute("DROP TABLE IF EXISTS facts")
            db.execute("CREATE TABLE facts (path TEXT PRIMARY KEY, digest TEXT NOT NULL, "
                       "version TEXT NOT NULL, data BLOB NOT NULL)")
            db.execute(f"PRAGMA user_version={SCHEMA}")
        db.execute("SELECT count(*) FROM facts").fetchone()  # fails early on a corrupt file
        return db

    @property
    def enabled(self) -> bool:
        return self._db is not None

    def load_all(self) -> dict[str, tuple[str, object]]:
        """path -> (digest, facts) for rows of the current extractor version."""
        if self._db is None:
            return {}
        out: dict[str, tuple[str, object]] = {}
        try:
            with self._lock:
                rows = self._db.execute("SELECT path, digest, data FROM facts WHERE version=?",
                                        (self.version,)).fetchall()
        except sqlite3.DatabaseError as exc:
            log.warning("cache unreadable (%s); rebuilding it", exc)
            self._reset()
            return {}
        for path, digest, data in rows:
            try:
                out[path] = (digest, serial.loads(data))
            except Exception as exc:  # a damaged row is dropped, never trusted
                log.debug("dropping cached row %s: %s", path, exc)
        return out

    def store(self, rows: list[tuple[str, str, object]]) -> None:
        if self._db is None or not rows:
            return
        try:
            payload = [(p, d, self.version, serial.dumps(f)) for p, d, f in rows]
            with self._lock:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR REPLACE INTO facts VALUES (?,?,?,?)", payload)
                self._db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            log.warning("cannot write the cache (%s); continuing without it", exc)
            try:
                with self._lock:
                    self._db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass

    def forget(self, paths: list[str]) -> None:
        if self._db is None or not paths:
            return
        try:
            with self._lock:
                self._db.executemany("DELETE FROM facts WHERE path=?", [(p,) for p in paths])
        except sqlite3.DatabaseError as exc:
            log.warning("cannot update the cache: %s", exc)

    def _reset(self) -> None:
        try:
            if self._db is not None:
                self._db.close()
        except sqlite3.DatabaseError:
            pass
        self._db = None
        try:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
            self._db = self._connect()
        except (sqlite3.DatabaseError, OSError) as exc:
            log.warning("cache disabled: %s", exc)
            self._db = None

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.DatabaseError:
                pass
            self._db = None
