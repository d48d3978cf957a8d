"""The SQLite cache of per-file facts, keyed by content hash and extractor version.

It lives inside the workspace (``.specward/cache.sqlite``, ignored by git through its own
``.gitignore``) because specward never writes outside the workspace. Rows are decoded by
``analyzers.serial``'s restricted unpickler, which builds analyzer dataclasses and nothing
else, so a planted cache cannot run code. A corrupt, locked or unwritable cache is
dropped and rebuilt, or simply not used: it is never fatal.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from pathlib import Path

from specward.analyzers import serial

log = logging.getLogger(__name__)

SCHEMA = 5


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
            self._reset()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=0.5, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA:
            db.execute("DROP TABLE IF EXISTS facts")
            db.execute("DROP TABLE IF EXISTS links")
            db.execute("CREATE TABLE facts (path TEXT PRIMARY KEY, digest TEXT NOT NULL, "
                       "version TEXT NOT NULL, data BLOB NOT NULL)")
            # per-file link results, valid while every path they read has the recorded digest
            db.execute("CREATE TABLE links (path TEXT PRIMARY KEY, version TEXT NOT NULL, "
                       "deps TEXT NOT NULL, calls BLOB NOT NULL, problems BLOB NOT NULL)")
            db.execute(f"PRAGMA user_version={SCHEMA}")
        db.execute("SELECT count(*) FROM facts").fetchone()  # fails early on a corrupt file
        return db

    @property
    def enabled(self) -> bool:
        return self._db is not None

    def _read(self, sql: str, args: tuple = ()) -> list:
        if self._db is None:
            return []
        try:
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            log.warning("cache unreadable (%s); rebuilding it", exc)
            self._reset()
            return []

    def _write(self, sql: str, rows: list) -> None:
        if self._db is None or not rows:
            return
        try:
            with self._lock:
                self._db.execute("BEGIN")
                self._db.executemany(sql, rows)
                self._db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            log.warning("cannot write the cache (%s); continuing without it", exc)
            try:
                with self._lock:
                    self._db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass

    def digests(self) -> dict[str, str]:
        """path -> content digest of the facts stored for the current extractor version."""
        return dict(self._read("SELECT path, digest FROM facts WHERE version=?", (self.version,)))

    def load(self, path: str, digest: str) -> object | None:
        """The facts of one file, if stored for this exact content; None otherwise."""
        rows = self._read("SELECT data FROM facts WHERE path=? AND digest=? AND version=?", (path, digest, self.version))
        if not rows:
            return None
        try:
            return serial.loads(rows[0][0])
        except Exception as exc:  # a damaged row is dropped, never trusted
            log.debug("dropping cached row %s: %s", path, exc)
            return None

    def store(self, rows: list[tuple[str, str, object]]) -> None:
        """(path, digest, facts) rows."""
        self.store_encoded([(p, d, serial.dumps(f)) for p, d, f in rows])

    def store_encoded(self, rows: list[tuple[str, str, bytes]]) -> None:
        self._write("INSERT OR REPLACE INTO facts VALUES (?,?,?,?)", [(p, d, self.version, b) for p, d, b in rows])

    def load_links(self, version: str) -> dict[str, tuple[dict, list, tuple]]:
        """path -> (deps {path: digest or None}, calls, (problems, routes, matches))."""
        out = {}
        for path, deps, calls, problems in self._read(
                "SELECT path, deps, calls, problems FROM links WHERE version=?", (version,)):
            try:
                out[path] = (json.loads(deps), list(serial.loads(calls)), serial.loads(problems))
            except Exception as exc:  # noqa: BLE001 - a damaged row is recomputed
                log.debug("dropping cached links of %s: %s", path, exc)
        return out

    def store_links(self, version: str, rows: list[tuple[str, dict, list, tuple]]) -> None:
        self._write("INSERT OR REPLACE INTO links VALUES (?,?,?,?,?)",
                    [(p, version, json.dumps(deps, separators=(",", ":")), serial.dumps(list(calls)), serial.dumps(tuple(extras)))
                     for p, deps, calls, extras in rows])

    def forget(self, paths: list[str]) -> None:
        if self._db is None or not paths:
            return
        try:
            with self._lock:
                self._db.executemany("DELETE FROM facts WHERE path=?", [(p,) for p in paths])
                self._db.executemany("DELETE FROM links WHERE path=?", [(p,) for p in paths])
        except sqlite3.DatabaseError as exc:
            log.warning("cannot update the cache: %s", exc)

    def _reset(self) -> None:
        """Drop the cache files and start an empty cache (or none, if that fails too)."""
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
