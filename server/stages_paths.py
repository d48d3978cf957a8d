"""The file-system half of confining a model's proposed path (issue 15, ``docs/stages.md``):
``analyzers/stages/confine.py`` judges the text; this resolves real paths and refuses a
path whose target lies outside the workspace's real root — a symlinked folder on the way
out, a symlink file pointing out (dangling or not), a symlink loop.

The answer holds at the moment of the check: the writer must still create files without
following a symlink that appears afterwards (``O_NOFOLLOW``, or write and rename in the
checked folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from specward.analyzers.stages.confine import PathRefused, confine, protection

from .engine.reading import is_within


@dataclass(frozen=True)
class ResolvedPath:
    """Where a write of the accepted relative path ``path`` really lands: ``real`` (an
    absolute real path inside the root) and ``real_rel`` (it, relative to the real root).
    ``protected`` is the stricter of the two classifications: a path that is harmless as
    written but reaches ``.git/`` through a symlink is protected too."""

    path: str
    real: Path
    real_rel: str
    protected: str | None


def resolve_inside(root: str | os.PathLike[str], rel: str) -> ResolvedPath:
    """``rel`` (checked again by ``confine``; normally already accepted) resolved under the
    workspace ``root``, or :class:`PathRefused` when its real target is outside the real
    root, is the root itself, or cannot be resolved (a symlink loop)."""
    accepted = confine(rel)
    root_real = os.path.realpath(os.fspath(root))
    real = os.path.realpath(os.path.join(root_real, *accepted.path.split("/")))
    if not is_within(real, root_real):
        raise PathRefused(rel, "a symlink leads out of the workspace")
    if real == root_real:
        raise PathRefused(rel, "a symlink makes it the workspace folder itself")
    real_rel = os.path.relpath(real, root_real).replace(os.sep, "/")
    # realpath leaves a link it could not resolve (a loop) in place: any link left is one
    probe = root_real
    for part in real_rel.split("/"):
        probe = os.path.join(probe, part)
        if os.path.islink(probe):
            raise PathRefused(rel, "a symlink loop")
    return ResolvedPath(accepted.path, Path(real), real_rel, accepted.protected or protection(real_rel))
