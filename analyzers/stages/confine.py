"""Confining the paths a model proposes to the workspace, by their text alone (issue 15,
``docs/stages.md``). Pure: the symlink half, which needs the file system, is
``server/stages_paths.py``, and runs on a path this module accepted.

:func:`confine` refuses (:class:`PathRefused`):

- an empty path, or one holding NUL or any other control character;
- an absolute path: POSIX (``/etc/passwd``), Windows drive forms (``C:\\x``, ``C:x``),
  UNC and device forms (``\\\\server\\share``, ``\\\\?\\C:\\x``), and ``~`` (a shell
  would expand it to the home folder);
- any ``:`` at all (drive letters, ``file:`` URIs, NTFS alternate data streams; no
  framework's file layout needs one);
- a path that climbs out of the workspace once normalised (``../x``, ``a/../../x``), or
  that normalises to the workspace itself (``.``, ``a/..``), or ends in a slash (a folder,
  not a file).

``\\`` is read as a separator (models trained on Windows paths write ``src\\api\\x.ts``).
An accepted path comes back normalised: POSIX separators, no ``.``/``..``/empty segments.

:func:`protection` classifies the accepted paths that a write needs the user's explicit
confirmation for, file by file (case-insensitively: macOS and Windows file systems are):
``.git/`` and ``.vscode/`` at any depth, ``.github/workflows/`` at any depth, ``*.pth``
files (Python runs them at start-up), specward's configuration (``specward.toml``,
``pyproject.toml`` whose ``[tool.specward]`` table is configuration, both at any depth
because a nested folder can be a workspace root of its own), everything under
``.specward/`` (the fix-history ledger, the run log, the cache, the snapshots) and the
ai-spec ledger ``.ai-spec-fix-history.json`` that specward reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..ledger import AI_SPEC_LEDGER, LEDGER

SPECWARD_FOLDER = LEDGER.split("/")[0]  # ".specward"
CONFIG_FILES = ("specward.toml", "pyproject.toml")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")


class PathRefused(ValueError):
    """A proposed path that may not be written at all. ``path`` is the path as proposed
    (``repr`` in the message, so control characters show), ``reason`` why."""

    def __init__(self, path: object, reason: str):
        self.path = path
        self.reason = reason
        shown = repr(path) if not isinstance(path, str) or len(path) <= 200 else repr(path[:200] + "...")
        super().__init__(f"path {shown} refused: {reason}")


@dataclass(frozen=True)
class ConfinedPath:
    """An accepted path: normalised, relative to the workspace root, POSIX separators.
    ``protected`` is None, or why writing it needs the user's confirmation of this file."""

    path: str
    protected: str | None


def normalise(path: str) -> str:
    """``path`` with ``\\`` as ``/`` and ``.``/``..``/empty segments resolved lexically.
    :class:`PathRefused` for everything :func:`confine` refuses."""
    if not isinstance(path, str):
        raise PathRefused(path, f"not a string but a {type(path).__name__}")
    if not path.strip():
        raise PathRefused(path, "empty")
    if "\x00" in path:
        raise PathRefused(path, "contains a NUL character")
    if _CONTROL.search(path):
        raise PathRefused(path, "contains a control character")
    unified = path.replace("\\", "/")
    if unified.startswith("//"):
        raise PathRefused(path, "absolute (a UNC or device path)")
    if unified.startswith("/"):
        raise PathRefused(path, "absolute")
    if _DRIVE.match(unified):
        raise PathRefused(path, "absolute (a Windows drive path)")
    if ":" in unified:
        raise PathRefused(path, "contains ':' (a drive, a URI or an alternate data stream)")
    if unified == "~" or unified.startswith("~/"):
        raise PathRefused(path, "starts with '~' (the home folder)")
    if unified.endswith("/"):
        raise PathRefused(path, "ends with '/': a folder, not a file")
    parts: list[str] = []
    for segment in unified.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                raise PathRefused(path, "climbs out of the workspace ('..')")
            parts.pop()
            continue
        parts.append(segment)
    if not parts:
        raise PathRefused(path, "names the workspace folder itself, not a file")
    return "/".join(parts)


def protection(path: str) -> str | None:
    """Why writing the normalised relative ``path`` needs explicit confirmation, or None."""
    parts = [p.casefold() for p in path.split("/")]
    name = parts[-1]
    folders = parts[:-1]
    if ".git" in parts:
        return "git metadata (.git/)"
    if ".vscode" in folders:
        return "editor configuration that can run tasks (.vscode/)"
    if any(a == ".github" and b == "workflows" for a, b in zip(folders, folders[1:])):
        return "a CI workflow (.github/workflows/)"
    if SPECWARD_FOLDER in folders:
        return f"specward's ledger, run log or cache ({SPECWARD_FOLDER}/)"
    if name.endswith(".pth"):
        return "a Python path file, executed at interpreter start-up (*.pth)"
    if name in CONFIG_FILES:
        return f"specward's configuration ({parts[-1]})"
    if name == AI_SPEC_LEDGER.casefold():
        return f"the ai-spec fix-history ledger ({AI_SPEC_LEDGER})"
    return None


def confine(path: str) -> ConfinedPath:
    """The normalised path and its protection, or :class:`PathRefused`."""
    rel = normalise(path)
    return ConfinedPath(rel, protection(rel))
