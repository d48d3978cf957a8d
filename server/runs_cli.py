"""The run log on disk and its two commands (``analyzers/stages/runs.py``, ``docs/runs.md``):

- ``specward trend [--workspace DIR] [--width N] [--height N] [--unicode]``: the harness
  score over the runs of ``DIR/.specward/runs.jsonl`` as a text chart (colors only when
  standard output is a terminal and ``NO_COLOR`` is not set);
- ``specward dashboard [--workspace DIR] [--output FILE]``: the same as one self-contained
  HTML page, written to ``DIR/.specward/dashboard.html`` unless ``--output`` names another
  file (anywhere: the user typed it); the path written is printed.

``DIR`` defaults to the project of the current folder (``workspace.find_project_root``;
the current folder when no marker is found). Lines of the log that are skipped are listed
on standard error; they never make a command fail. Exit codes: 0 printed or written (an
absent or empty log too: "no runs yet in PATH"), 2 usage error or a log or output that
cannot be read or written.

``append_run(root, record)`` is how the stages add a run: one line, one ``os.write`` to
the log opened ``O_APPEND`` (so writers never interleave, and a crash leaves at most a
partial last line, which readers skip and the next append steps over). Only inside the
workspace: ``.specward`` is created (with the ``.gitignore`` the facts cache writes,
which keeps the log out of git) and a ``.specward`` or log that is a link is refused.
"""

from __future__ import annotations

import argparse
import os
import secrets
import stat
import sys
from pathlib import Path

from specward.analyzers.stages import runs as core

from .approval import replace_file
from .engine.reading import is_within, read_data, real_root, shown
from .engine.registry import _write_ignore
from .engine.workspace import find_project_root

EXIT_OK, EXIT_USAGE = 0, 2
FOLDER = ".specward"
LOG_NAME = "runs.jsonl"
DASHBOARD_NAME = "dashboard.html"
MAX_LOG_BYTES = 256 * 1024 * 1024
DEFAULT_WIDTH, MAX_WIDTH = 60, 500

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class RunLogError(Exception):
    """A run log (or dashboard) that cannot be read or written."""


def log_path(root: Path) -> Path:
    return Path(root) / FOLDER / LOG_NAME


# ---------------------------------------------------------------------- on disk
def _open_folder(root: Path, create: bool) -> int:
    """A descriptor of ``root/.specward``, a real folder of the workspace (created when
    asked), opened without following a link. Raises RunLogError."""
    folder = Path(root) / FOLDER
    if create and not os.path.lexists(folder):
        try:
            folder.mkdir()
        except FileExistsError:
            pass
        except OSError as exc:
            raise RunLogError(f"cannot create {shown(str(folder))}: {exc.strerror or exc}") from None
    top = real_root(str(root))
    real = os.path.realpath(folder)
    if folder.is_symlink() or real != os.path.join(top, FOLDER) or not is_within(real, top):
        raise RunLogError(f"{shown(str(folder))} is a link (to {shown(real)}): nothing is written through it")
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        raise RunLogError(f"{shown(str(folder))} cannot be opened as a folder: {exc.strerror or exc}") from None


def append_run(root: Path, record: core.RunRecord) -> None:
    """Append ``record`` to the workspace's run log as one line written by one
    ``os.write`` (preceded by a newline when the file does not end with one: the remains of
    an interrupted write). Raises RunLogError (and ValueError for an invalid record)."""
    line = core.encode(record).encode("ascii")
    folder = _open_folder(Path(root), create=True)
    try:
        _write_ignore(folder)  # the facts cache's .gitignore, when there is none yet
        try:
            fd = os.open(LOG_NAME, os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC
                         | getattr(os, "O_NONBLOCK", 0), 0o644, dir_fd=folder)
        except OSError as exc:  # a link (ELOOP), no permission, a full disk
            raise RunLogError(f"cannot open {shown(str(log_path(root)))}: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise RunLogError(f"{shown(str(log_path(root)))} is not a regular file")
            if st.st_size and os.pread(fd, 1, st.st_size - 1) != b"\n":
                line = b"\n" + line
            written = os.write(fd, line)  # one write: never a second one that could interleave
            if written != len(line):
                raise RunLogError(f"{shown(str(log_path(root)))}: only {written} of {len(line)} bytes written")
        except OSError as exc:
            raise RunLogError(f"cannot append to {shown(str(log_path(root)))}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def read_runs(root: Path) -> tuple[tuple[core.RunRecord, ...], tuple[core.RunProblem, ...]]:
    """The runs of the workspace's log and the lines skipped; none when there is no log.
    Read as every workspace file is (never through a link out of the workspace, never a
    named pipe, never more than MAX_LOG_BYTES). Raises RunLogError when it cannot be read."""
    path = log_path(root)
    if not os.path.lexists(path):
        return (), ()
    data, why = read_data(str(root), f"{FOLDER}/{LOG_NAME}", MAX_LOG_BYTES)
    if data is None:
        if why == "the file no longer exists":
            return (), ()
        raise RunLogError(f"{shown(str(path))}: {why}")
    return core.decode_lines(data.decode("utf-8", "surrogateescape"))


def _write_in_folder(root: Path, name: str, text: str) -> None:
    """``root/.specward/name`` replaced atomically (a temporary file and ``os.replace``,
    which replaces a link rather than writing through it)."""
    folder = _open_folder(root, create=True)
    try:
        _write_ignore(folder)
        tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644, dir_fd=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                try:
                    os.unlink(tmp, dir_fd=folder)
                except OSError:
                    pass
                raise
        except OSError as exc:
            raise RunLogError(f"cannot write {shown(str(Path(root) / FOLDER / name))}: {exc.strerror or exc}") from None
    finally:
        os.close(folder)


def _write_explicit(path: Path, text: str) -> None:
    """The file the user named, wherever it is, replaced atomically."""
    if path.is_dir():
        raise RunLogError(f"{shown(str(path))}: is a folder")
    try:
        replace_file(path, text)
    except OSError as exc:
        raise RunLogError(f"cannot write {shown(str(path))}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------- commands
def _width(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= MAX_WIDTH:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_WIDTH}: {text}")
    return value


def _height(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 2 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 2 and 100: {text}")
    return value


def add_subparser(subparsers) -> None:
    t = subparsers.add_parser("trend", help="the harness score over the runs of .specward/runs.jsonl, as a text chart")
    t.add_argument("--width", type=_width, metavar="N",
                   help="show at most the last N runs, one column each (default: what fits the terminal, "
                        f"{DEFAULT_WIDTH} when not a terminal)")
    t.add_argument("--height", type=_height, default=10, metavar="N", help="rows for 0-10 (default: 10)")
    t.add_argument("--unicode", action="store_true", help="draw with Unicode blocks instead of ASCII")
    d = subparsers.add_parser("dashboard", help="write the runs of .specward/runs.jsonl as a self-contained HTML page")
    d.add_argument("--output", metavar="FILE",
                   help="write the page to FILE instead of .specward/dashboard.html in the workspace")
    for p in (t, d):
        p.add_argument("--workspace", metavar="DIR",
                       help="the workspace whose .specward/runs.jsonl to read (default: the project of the "
                            "current folder)")


def _root(args: argparse.Namespace) -> Path:
    if args.workspace is not None:
        root = Path(args.workspace)
        if not root.is_dir():
            raise RunLogError(f"--workspace {shown(args.workspace)}: no such folder")
        return root.resolve()
    cwd = Path.cwd().resolve()
    hit = find_project_root(cwd)
    return hit[0] if hit is not None else cwd


def _show(path: Path) -> str:
    """A path for people, relative to the current folder (as ``specward check`` prints them)."""
    return shown(Path(os.path.relpath(path, Path.cwd().resolve())).as_posix())


def _report(problems: tuple[core.RunProblem, ...], path: Path) -> None:
    for p in problems:
        print(f"specward: {_show(path)}:{p.line}: {core.printable(p.message)}", file=sys.stderr)


def _color() -> bool:
    # NO_COLOR (no-color.org): set to any non-empty value, no colors
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def run(args: argparse.Namespace) -> int:
    try:
        root = _root(args)
        path = log_path(root)
        records, problems = read_runs(root)
        _report(problems, path)
        if args.command == "trend":
            if not records:
                print(f"no runs yet in {_show(path)}")
                return EXIT_OK
            width = args.width
            if width is None:
                width = DEFAULT_WIDTH
                try:
                    if sys.stdout.isatty():
                        width = max(1, min(MAX_WIDTH, os.get_terminal_size(sys.stdout.fileno()).columns - 6))
                except (OSError, ValueError):
                    pass
            sys.stdout.write(core.trend_chart(records, width, args.height, unicode=args.unicode, color=_color()))
            return EXIT_OK
        page = core.dashboard_html(records, problems, _show(path))
        if args.output is not None:
            target = Path(os.path.abspath(args.output))
            _write_explicit(target, page)
        else:
            target = root / FOLDER / DASHBOARD_NAME
            _write_in_folder(root, DASHBOARD_NAME, page)
        if not records:
            print(f"specward: no runs yet in {_show(path)}", file=sys.stderr)
        print(_show(target))
        return EXIT_OK
    except RunLogError as exc:
        print(f"specward: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
