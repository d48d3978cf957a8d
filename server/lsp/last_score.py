"""``specward/lastScore``: the harness score of the workspace's last scored run, for a
client's status display (the VS Code extension's "specward 8.8 PASS" item); other clients
ignore the notification.

Params: ``{runId, score, verdict}`` of the last record of ``.specward/runs.jsonl`` that has
a score (read with ``runs_cli.read_runs``: bad lines skipped), or ``null`` when there is
none. Sent once after ``initialized`` (:func:`start`), then whenever the log changes (its
size, time or inode, looked at once a second: the log lives in ``.specward/``, which the
index does not track) and after every stage run from the editor (:func:`send_last_score`);
a value equal to the last one sent is not sent again."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import SpecwardServer

log = logging.getLogger(__name__)

LAST_SCORE_NOTIFICATION = "specward/lastScore"
POLL_S = 1.0
_UNSENT = object()


def last_score(root: Path) -> dict | None:
    """``{runId, score, verdict}`` of the last scored run in ``root``'s log, or None (no
    log, no scored run, or a log that cannot be read)."""
    from ..runs_cli import RunLogError, read_runs

    try:
        records, _problems = read_runs(root)
    except (RunLogError, OSError, ValueError) as exc:
        log.info("the run log cannot be read: %s", exc)
        return None
    for rec in reversed(records):
        if rec.score is not None:
            return {"runId": rec.run_id, "score": rec.score, "verdict": rec.verdict}
    return None


def _root(ls: SpecwardServer) -> Path:
    from .startup import workspace_root

    session = ls.session
    return session.root if session is not None else workspace_root(ls).resolve()


def _stamp(root: Path) -> tuple | None:
    try:
        st = os.stat(root / ".specward" / "runs.jsonl")
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


async def send_last_score(ls: SpecwardServer, force: bool = False) -> None:
    """Read the log (on a worker thread) and send the notification when its value
    changed since the last one sent (always with ``force``). Never raises."""
    try:
        root = _root(ls)
        value = await asyncio.get_running_loop().run_in_executor(ls.thread_pool, last_score, root)
        if not force and getattr(ls, "_specward_last_score", _UNSENT) == value:
            return
        ls._specward_last_score = value  # type: ignore[attr-defined]
        ls.protocol.notify(LAST_SCORE_NOTIFICATION, value)
    except Exception:  # noqa: BLE001 - a status display is never worth a failure
        log.exception("sending %s failed", LAST_SCORE_NOTIFICATION)


async def _follow(ls: SpecwardServer) -> None:
    await send_last_score(ls, force=True)
    root = _root(ls)
    seen = _stamp(root)
    while not getattr(ls, "terminating", False):
        await asyncio.sleep(POLL_S)
        if ls.session is not None and ls.session.closing:
            return
        root = _root(ls)
        now = _stamp(root)
        if now != seen:
            seen = now
            await send_last_score(ls)


def start(ls: SpecwardServer) -> None:
    """Send the score after initialization and follow the log (once per server)."""
    if getattr(ls, "_specward_score_task", None) is not None:
        return
    ls._specward_score_task = asyncio.get_running_loop().create_task(_follow(ls))  # type: ignore[attr-defined]
