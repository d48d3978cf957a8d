"""The project's build or test command run on generated files *before* the user accepts
them (issue 15, "Verification": "when configured, the project's build or test command,
feeding grouped errors back"; ``docs/stages.md``, "Generating a slice").

The files are not written into the workspace for that: the workspace is copied into a
scratch folder inside it, ``.specward/scratch/<run_id>/`` (never outside the workspace),
the proposed files are written there, and the command runs in that copy. The root's
``node_modules`` and virtual environment are linked into the copy, not copied; folders that are dependencies or outputs (``node_modules``, virtual
environments, ``.git``, ``.specward``, ``dist``, ``build``, caches) are left out, and so are
symlinks (never followed) and files over 5 MB. A workspace too large to copy (over 20,000
files or 200 MB) is not built before approval, and the note says so. The scratch folder is
removed afterwards, whatever happened.

Which command: ``--build CMD`` on the command line (the user's own), else the ``build``
setting of the workspace configuration, but only in a workspace the user trusts
(``stage_run.workspace_trusted``): a repository never makes specward run a command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .score_cli import CompileResult, run_build
from .stage_run import specward_dir, workspace_trusted

SKIP_DIRS = frozenset({"node_modules", ".git", ".specward", ".venv", "venv", "env", "__pycache__", "dist", "build",
                       ".next", ".nuxt", ".svelte-kit", ".turbo", ".cache", ".mypy_cache", ".pytest_cache",
                       ".ruff_cache", "coverage", ".tox", ".idea", ".vscode"})
LINKED = ("node_modules", ".venv", "venv")  # linked from the copy's root, not copied
MAX_FILE_BYTES = 5_000_000
MAX_FILES = 20_000
MAX_TOTAL_BYTES = 200_000_000


class TooLarge(Exception):
    pass


def build_command(root: Path, given: str | None) -> tuple[str | None, str]:
    """(the command to run or None, where it comes from or why there is none)."""
    if given is not None and given.strip():
        return given, "--build"
    from .engine.config import load_config

    try:
        configured = getattr(load_config(root).settings, "build", None)
    except Exception:  # noqa: BLE001 - a broken configuration names no command
        configured = None
    if not configured:
        return None, "no build command: give --build CMD (or `build` in a workspace you trust)"
    if not workspace_trusted(root):
        return None, ("the workspace configuration names a build command, but the workspace is not trusted: "
                      "it was not run (list the folder in trusted_workspaces of your user settings)")
    return configured, "the workspace configuration (trusted)"


def _copy_tree(root: Path, dest: Path) -> None:
    count = total = 0
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not os.path.islink(os.path.join(folder, d))]
        target_folder = dest if rel_folder == "." else dest / rel_folder
        target_folder.mkdir(parents=True, exist_ok=True)
        for name in files:
            src = os.path.join(folder, name)
            if os.path.islink(src):
                continue
            try:
                size = os.path.getsize(src)
            except OSError:
                continue
            if size > MAX_FILE_BYTES:
                continue
            count += 1
            total += size
            if count > MAX_FILES or total > MAX_TOTAL_BYTES:
                raise TooLarge(f"the workspace has more than {MAX_FILES:,} files or {MAX_TOTAL_BYTES // 1_000_000} MB "
                               "to copy")
            try:
                shutil.copyfile(src, target_folder / name, follow_symlinks=False)
            except OSError:
                continue


def scratch_build(root: Path, run_id: str, files: dict[str, str], command: str,
                  timeout: float | None = None) -> CompileResult:
    """``command`` run in a copy of the workspace holding ``files`` (confined relative
    paths -> text). ``value`` 1.0 when it exits 0, 0.0 otherwise, None when the copy could
    not be made (``note`` says why)."""
    root = Path(root)
    base = None
    try:
        base = specward_dir(root, "scratch")
        dest = base / run_id
        if dest.exists():
            shutil.rmtree(dest)
        _copy_tree(root, dest)
        for name in LINKED:  # the project's dependencies, used in place (npx, tsc, python -m)
            if (root / name).is_dir() and not (root / name).is_symlink():
                os.symlink(root / name, dest / name, target_is_directory=True)
        for rel, text in files.items():
            path = dest.joinpath(*rel.split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink():
                path.unlink()
            path.write_text(text, encoding="utf-8")
        kwargs = {} if timeout is None else {"timeout": timeout}
        return run_build(dest, command, **kwargs)
    except TooLarge as exc:
        return CompileResult(None, command, note=f"not built before approval: {exc}")
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return CompileResult(None, command, note=f"not built before approval: the scratch copy failed: {exc}")
    finally:
        if base is not None:
            shutil.rmtree(base / run_id, ignore_errors=True)
