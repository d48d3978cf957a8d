"""What git knows about a workspace, asked through the ``git`` command (never a library that
reads the repository itself): HEAD, the blob ids of files in a commit, which files differ
from a commit, renames, the text of a file in a revision. Asked only when the workspace has
something that needs it (a context manifest), never by an ordinary build.

Every call has a timeout, runs in the workspace root with no terminal prompt and no
pager, reads only, and answers None (or nothing) when git is missing, the folder is not
in a repository, or git fails: staleness then falls back to the text alone.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)

TIMEOUT_S = 20.0


class GitError(Exception):
    pass


class Git:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.exe = shutil.which("git")
        self._top: str | None | bool = False  # False: not asked yet
        self.git_dir: Path | None = None

    def checked(self, *args: str) -> bytes:
        """git's output, or ``GitError`` saying why there is none (missing, timed out, its
        first line of error)."""
        if self.exe is None:
            raise GitError("git is not installed")
        env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
        try:
            # a repository's own configuration must not make git run a command: no fsmonitor
            # hook here, no external diff or textconv driver in the diff and show calls
            p = subprocess.run([self.exe, "-C", str(self.root), "-c", "core.fsmonitor=false", *args],
                               capture_output=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL, env=env, check=False)
        except subprocess.TimeoutExpired:
            raise GitError(f"git did not answer within {TIMEOUT_S:g} s") from None
        except (OSError, subprocess.SubprocessError) as exc:
            raise GitError(f"git failed: {exc}") from None
        if p.returncode != 0:
            lines = p.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git: {lines[0] if lines else f'exit status {p.returncode}'}")
        return p.stdout

    def _run(self, *args: str) -> bytes | None:
        try:
            return self.checked(*args)
        except GitError as exc:
            log.info("git %s: %s", args[0], exc)
            return None

    def prefix(self) -> str | None:
        """The workspace root's path inside its repository (``""`` at the top), or None
        outside one."""
        if self._top is False:
            out = self._run("rev-parse", "--show-prefix", "--absolute-git-dir")
            lines = [] if out is None else out.decode("utf-8", "surrogateescape").split("\n")
            self._top = lines[0].strip() if len(lines) >= 2 else None
            self.git_dir = Path(lines[1].strip()) if len(lines) >= 2 else None
        return self._top  # type: ignore[return-value]

    def head(self) -> str | None:
        if self.prefix() is None:
            return None
        out = self._run("rev-parse", "--verify", "-q", "HEAD")
        return out.decode().strip() if out else None

    def blobs(self, rev: str, paths: list[str]) -> dict[str, str]:
        """Root-relative path -> blob id in ``rev``, for the paths tracked there."""
        prefix = self.prefix()
        if prefix is None or not paths:
            return {}
        out: dict[str, str] = {}
        for i in range(0, len(paths), 500):
            got = self._run("ls-tree", "-z", "--full-tree", rev, "--", *[prefix + p for p in paths[i:i + 500]])
            for line in (got or b"").split(b"\0"):
                meta, _, name = line.partition(b"\t")
                parts = meta.split()
                if len(parts) == 3 and parts[1] == b"blob":
                    rel = os.fsdecode(name)[len(prefix):]
                    out[rel] = parts[2].decode()
        return out

    def changed_since(self, rev: str, paths: list[str] | None = None) -> set[str] | None:
        """The files whose working-tree text differs from ``rev`` (tracked ones, staged or
        not) and the untracked files that are not ignored; root-relative. None outside git."""
        prefix = self.prefix()
        if prefix is None:
            return None
        spec = ["--", *paths] if paths else ["--", "."]
        diff = self._run("diff", "--no-ext-diff", "--no-textconv", "--relative", "--name-only", "-z", "--no-renames",
                         rev, *spec)
        others = self._run("ls-files", "-z", "--others", "--exclude-standard", *spec)
        if diff is None or others is None:
            return None
        return {os.fsdecode(n) for n in (*diff.split(b"\0"), *others.split(b"\0")) if n}

    def renames(self, rev: str) -> dict[str, str]:
        """Old -> new root-relative path, for the files git sees renamed between ``rev`` and
        the working tree (committed, staged, or an untracked copy of a deleted file)."""
        prefix = self.prefix()
        if prefix is None:
            return {}
        out = self._run("diff", "--no-ext-diff", "--no-textconv", "--relative", "-z", "--name-status", "-M", rev,
                        "--", ".")
        found: dict[str, str] = {}
        parts = (out or b"").split(b"\0")
        i = 0
        while i < len(parts):
            status = parts[i]
            if status.startswith(b"R") and i + 2 < len(parts):
                found[os.fsdecode(parts[i + 1])] = os.fsdecode(parts[i + 2])
                i += 3
            else:
                i += 2 if status else 1
        return found

    def show(self, rev: str, rel: str) -> bytes | None:
        """The bytes of ``rel`` (root-relative) in ``rev``, or None."""
        prefix = self.prefix()
        if prefix is None:
            return None
        if rev.startswith("-"):
            return None
        return self._run("show", "--no-textconv", f"{rev}:{prefix}{rel}")

    def stamp(self) -> tuple:
        """Changes when HEAD, a ref or the index changes (cheap: a few ``stat`` calls)."""
        self.prefix()
        git_dir = self.git_dir
        if git_dir is None:
            return ()
        out = []
        for name in ("HEAD", "index", "packed-refs"):
            try:
                st = (git_dir / name).stat()
                out.append((st.st_mtime_ns, st.st_size))
            except OSError:
                out.append(None)
        return tuple(out)
