"""Snapshots of what a stage run overwrites, so that ``specward restore RUN_ID`` can undo it
(issue 15, "Approval, safety, undo"; ``docs/stages.md``, "Undoing a run").

``.specward/snapshots/<run_id>/`` holds ``manifest.json`` and one ``N.orig`` file per file
the run overwrote (its bytes before the run). The manifest lists every target of the run:
its path, whether it existed before, the sha256 of the bytes kept, and the sha256 of what
the run then wrote (``written``; null until it was written). A target already in the
manifest keeps its first entry: a resumed run never snapshots its own output.

Every path goes through ``resolve_inside``; the manifest is replaced atomically, and is
read back strictly (``SnapshotError``: a damaged manifest changes nothing).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from specward.analyzers.stages.confine import PathRefused

from . import runs_cli
from .approval import replace_file
from .engine.reading import read_data
from .stage_run import specward_dir, valid_run_id
from .stages_paths import resolve_inside

MANIFEST_NAME = "manifest.json"
VERSION = 1
MAX_BYTES = 64 * 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class SnapshotError(Exception):
    """A snapshot that cannot be written or read back; the message says which and why."""


@dataclass
class Entry:
    """One target of a run: ``existed`` before it, ``blob`` the name of its kept bytes
    (None when it did not exist), ``before`` their sha256, ``written`` the sha256 of what
    the run wrote (None: not written)."""

    path: str
    existed: bool
    blob: str | None
    before: str | None
    written: str | None = None

    def to_json(self) -> dict:
        return {"path": self.path, "existed": self.existed, "blob": self.blob, "before": self.before,
                "written": self.written}


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def folder_rel(run_id: str) -> str:
    return f"{runs_cli.FOLDER}/snapshots/{run_id}"


def _check_id(run_id: str) -> None:
    if not valid_run_id(run_id):
        raise SnapshotError(f"{run_id!r}: not a run id")


def _read(root: Path, rel: str) -> bytes | None:
    """The bytes of a workspace file (None when it does not exist); SnapshotError when it
    cannot be read."""
    found = resolve_inside(root, rel)
    if not os.path.lexists(found.real):
        return None
    data, why = read_data(str(root), found.real_rel, MAX_BYTES)
    if data is None:
        raise SnapshotError(f"{rel}: {why}")
    return data


def load(root: Path, run_id: str) -> list[Entry]:
    """The entries of run ``run_id``'s snapshot, or SnapshotError (none, damaged, a path
    that no longer stays in the workspace)."""
    _check_id(run_id)
    rel = f"{folder_rel(run_id)}/{MANIFEST_NAME}"
    try:
        found = resolve_inside(root, rel)
    except PathRefused as exc:
        raise SnapshotError(f"{rel}: {exc.reason}") from None
    if not os.path.lexists(found.real):
        raise SnapshotError(f"no snapshot of run {run_id}: {rel} does not exist")
    data, why = read_data(str(root), found.real_rel, MAX_BYTES)
    if data is None:
        raise SnapshotError(f"{rel}: {why}")
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SnapshotError(f"{rel}: damaged or half-written ({exc}); nothing changed") from None
    if not isinstance(obj, dict) or obj.get("v") != VERSION or obj.get("run_id") != run_id \
            or not isinstance(obj.get("files"), list):
        raise SnapshotError(f"{rel}: not a version-{VERSION} snapshot of run {run_id}; nothing changed")
    out: list[Entry] = []
    for i, e in enumerate(obj["files"]):
        ok = (isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("existed"), bool)
              and all(e.get(k) is None or isinstance(e.get(k), str) for k in ("blob", "before", "written"))
              and (e.get("blob") is not None) == e["existed"] and (e.get("before") is not None) == e["existed"])
        if not ok:
            raise SnapshotError(f"{rel}: entry {i + 1} is damaged; nothing changed")
        blob = e["blob"]
        if blob is not None and (not blob.endswith(".orig") or not blob[:-5].isdigit()):
            raise SnapshotError(f"{rel}: entry {i + 1} names a kept file {blob!r} that is not one; nothing changed")
        try:
            resolve_inside(root, e["path"])
        except PathRefused as exc:
            raise SnapshotError(f"{rel}: entry {i + 1} ({e['path']!r}): {exc.reason}; nothing changed") from None
        out.append(Entry(e["path"], e["existed"], blob, e["before"], e["written"]))
    return out


def _save(root: Path, run_id: str, entries: list[Entry]) -> None:
    folder = specward_dir(root, "snapshots", run_id)
    text = json.dumps({"v": VERSION, "run_id": run_id, "files": [e.to_json() for e in entries]}, indent=1,
                      ensure_ascii=False) + "\n"
    replace_file(folder / MANIFEST_NAME, text)


def snapshot(root: Path, run_id: str, rels: Iterable[str]) -> None:
    """Before a run writes ``rels``: keep the bytes of each that exists, and list them all
    in the run's manifest (a target already listed keeps its entry). Raises SnapshotError;
    the stage then writes nothing."""
    _check_id(run_id)
    try:
        folder = specward_dir(root, "snapshots", run_id)
        manifest = folder / MANIFEST_NAME
        entries = load(root, run_id) if os.path.lexists(manifest) else []
        known = {e.path for e in entries}
        for rel in rels:
            path = resolve_inside(root, rel).path
            if path in known:
                continue
            data = _read(root, path)
            blob = None
            if data is not None:
                blob = f"{len(entries) + 1}.orig"
                fd = os.open(folder / blob, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            entries.append(Entry(path, data is not None, blob, sha256_bytes(data) if data is not None else None))
            known.add(path)
        _save(root, run_id, entries)
    except (OSError, PathRefused, runs_cli.RunLogError) as exc:
        raise SnapshotError(f"cannot snapshot the files run {run_id} overwrites: {exc}; nothing written") from None


def record_written(root: Path, run_id: str, rel: str, text: str) -> None:
    """The run wrote ``text`` at ``rel`` (snapshotted before): its sha256 in the manifest."""
    entries = load(root, run_id)
    path = resolve_inside(root, rel).path
    for e in entries:
        if e.path == path:
            e.written = sha256_bytes(text.encode("utf-8"))
    try:
        _save(root, run_id, entries)
    except (OSError, PathRefused, runs_cli.RunLogError) as exc:
        raise SnapshotError(f"cannot record {rel} in the snapshot of run {run_id}: {exc}") from None


def kept_bytes(root: Path, run_id: str, entry: Entry) -> bytes:
    """The bytes ``entry`` kept, checked against their sha256; SnapshotError else."""
    rel = f"{folder_rel(run_id)}/{entry.blob}"
    data = _read(root, rel)
    if data is None or sha256_bytes(data) != entry.before:
        raise SnapshotError(f"{rel}: the kept copy of {entry.path} is missing or damaged; nothing changed")
    return data


def current_hash(root: Path, rel: str) -> str | None:
    """The sha256 of the file at ``rel`` now (None when it does not exist)."""
    data = _read(root, rel)
    return None if data is None else sha256_bytes(data)
