"""``specward check --changed-since REV``: which files to report.

The whole project is indexed as usual (a file's findings depend on other files); only the
set of files reported is narrowed, to the files a change since ``REV`` may have given new
findings. Two steps:

``changed_files(root, rev)`` asks git (through ``engine/git.py``'s ``Git.checked``: no
shell, a timeout, no prompt, no pager, no fsmonitor hook, no external diff) for:

- what was committed since the merge base of ``rev`` and HEAD (``git diff rev...HEAD``:
  what a pull request changed; a commit on ``rev``'s side after the branch point is not
  counted);
- what is staged or not (``git diff HEAD``) and the untracked files that are not ignored
  (``git ls-files --others --exclude-standard``).

Renames are not detected (``--no-renames``): a rename is its new path and its old one; the
old one no longer exists, and it is kept on purpose, since the files that imported it now
probe a missing path (their edges name it). Paths come NUL-separated and are decoded with
``os.fsdecode`` (spaces, newlines, non-UTF-8 bytes survive as surrogate escapes, the way
every workspace path is carried). git is asked from the project root with ``--relative``
and the pathspec ``.``, so when the root is a subfolder of the repository git itself gives
root-relative paths and leaves out the files outside the root. Errors (git missing, not a
repository, an unknown revision, a shallow clone without the revision or the merge base,
no common history, git failing) raise ``ChangedSinceError`` with a one-line message.

``dependents(index, changed)`` reads the built ``WorkspaceIndex``. Decisions:

- **One level of reverse edges, not a transitive closure.** The linker's and the
  analyses' edges (``deps``/``rdeps``, ``adeps``/``ardeps``) are complete read sets: a file
  that imports a name through a chain of re-exports, or builds a URL from a constant
  defined three files away, has an edge on every file of the chain (the index's own
  incremental update relies on exactly that and goes one level deep). So the changed
  files, the files that read them while being linked (``rdeps``), the files whose analyses
  read or probed them (``ardeps``: importers, re-export chains, files judged with them),
  and the files listing a folder a file appeared in or left (``folder_dependents``). The
  importer of an importer that reads nothing of the changed file is not included.
- **A contract** (changed, added or deleted): every contract file (unused-endpoint,
  contract-change-impact, drift), the files with a call matched against one of its
  endpoints, the files with a call the endpoint table judged and did not match (phantom,
  method mismatch: an endpoint added or removed may be what they miss), the generated files
  naming it, and, when the backend declares routes, every route file (drift).
- **A changed or gone source file, or a file with calls among the dependents**: the
  contract files with ``unused-endpoint`` findings (a removed call may be what made an
  endpoint unused).
- **Routes**: a changed file that declares routes or mounts, or is an input of the file
  routes (or a gone source file, which may have been one): the route files, the contracts and
  the files with drift findings; when the routes are the contract, every file with calls.
- **Context manifests and generated files**: a changed manifest brings the files its
  findings are on; a manifest is included when a file it lists changed; a change of
  ``.specward/generated.json`` brings every file with stale-generated findings.
- **Everything** when a changed file is configuration: ``specward.toml`` or
  ``pyproject.toml`` at the root (or the configuration file the index loaded), a file the
  module resolver reads (tsconfig/jsconfig and what they extend, package.json, bundler and
  framework configs), an input of the analyses (manifests, lockfiles, requirements, the
  ledgers, import-linter's contracts, files a config-schema rule governs), a ``.gitignore``
  (it changes which files are indexed), a ``.d.ts`` declaring ambient modules (or a gone
  one, which may have).

Known blind spot: the matcher judges a call with the evidence of the other calls through
the same client (its channel's frame); a change that moves most of a channel's calls to
another prefix may change the verdicts of that channel's other files, which are not
included unless they read the changed file (a changed client or base URL is read by all
of them, and they are).
"""

from __future__ import annotations

import os
from pathlib import Path

from specward.server.engine.git import Git, GitError

__all__ = ["ChangedSinceError", "changed_files", "dependents"]

SHALLOW_HINT = ("fetch enough history (git fetch --unshallow, or `fetch-depth: 0` for "
                "actions/checkout in GitHub Actions)")


class ChangedSinceError(Exception):
    """Why the files changed since a revision cannot be known (one line, for the user)."""


# ---------------------------------------------------------------------- git


def _names(out: bytes) -> set[str]:
    return {os.fsdecode(n) for n in out.split(b"\0") if n}


def changed_files(root: Path, rev: str) -> set[str]:
    """Root-relative posix paths changed since ``rev``: committed since the merge base of
    ``rev`` and HEAD (``git diff rev...HEAD``), plus staged, unstaged and untracked files
    that are not ignored; a rename gives its new path and its old one. Raises
    ``ChangedSinceError``."""
    root = Path(root)
    if not rev or rev.startswith("-") or "\0" in rev or "\n" in rev:
        raise ChangedSinceError(f"--changed-since: not a revision: {rev!r}")
    git = Git(root)
    if git.exe is None:
        raise ChangedSinceError("--changed-since needs git, and git is not installed (or not on PATH)")

    def run(*args: str) -> bytes:
        try:
            return git.checked(*args)
        except GitError as exc:
            raise ChangedSinceError(f"--changed-since {rev}: {exc}") from None

    def ok(*args: str) -> bytes | None:
        try:
            return git.checked(*args)
        except GitError:
            return None

    if ok("rev-parse", "--show-toplevel") is None:
        if not root.is_dir():
            raise ChangedSinceError(f"--changed-since: {root} is not a folder")
        raise ChangedSinceError(f"--changed-since: {root} is not in a git repository")
    shallow = (ok("rev-parse", "--is-shallow-repository") or b"").strip() == b"true"
    if ok("rev-parse", "--verify", "-q", "HEAD^{commit}") is None:
        raise ChangedSinceError("--changed-since: the repository has no commit yet (HEAD names none)")
    if ok("rev-parse", "--verify", "-q", f"{rev}^{{commit}}") is None:
        if shallow:
            raise ChangedSinceError(f"--changed-since: unknown revision '{rev}' in this shallow clone; "
                                    f"{SHALLOW_HINT}")
        raise ChangedSinceError(f"--changed-since: unknown revision '{rev}' (not a commit, branch or tag "
                                "of this repository; fetch it first?)")
    base = ok("merge-base", rev, "HEAD")
    if base is None or not base.strip():
        if shallow:
            raise ChangedSinceError(f"--changed-since: this shallow clone does not reach the point where HEAD "
                                    f"branched off '{rev}'; {SHALLOW_HINT}")
        raise ChangedSinceError(f"--changed-since: '{rev}' and HEAD share no history (no merge base)")
    merge_base = base.split()[0].decode("ascii", "replace")
    diff = ("diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--relative", "--name-only", "-z",
            "--ignore-submodules=none")
    out = _names(run(*diff, merge_base, "HEAD", "--", "."))  # committed since the branch point
    out |= _names(run(*diff, "HEAD", "--", "."))  # staged and unstaged
    out |= _names(run("ls-files", "-z", "--others", "--exclude-standard", "--", "."))  # untracked
    return out


# ---------------------------------------------------------------------- the index


def _everything(index) -> set[str]:
    return set(index.digests) | set(index.contracts) | index.finding_paths()


def _exists(index, rel: str) -> bool:
    return rel in index.digests or rel in index.contracts or os.path.lexists(index.root / rel)


def _configures(index, rel: str, gone: bool) -> bool:
    """Whether a change of ``rel`` may change every file's findings."""
    from specward.analyzers.resolve import is_resolver_config
    from specward.analyzers.ambient_installed import ambient_modules
    from specward.server.engine.updates import CONFIG_FILES

    name = rel.rpartition("/")[2]
    source = index.config.source
    if rel in CONFIG_FILES or name == ".gitignore":
        return True
    if source is not None:
        try:
            if rel == Path(source).relative_to(index.root).as_posix():
                return True
        except ValueError:
            pass
    rc = index.resolver_config
    if is_resolver_config(rel) or rel in rc.files or rel in rc.wanted or index.is_input(rel):
        return True
    if rel.endswith(".d.ts"):
        if gone:
            return True  # it may have declared ambient modules: nothing tells
        declared = getattr(index.analysis_input.environment, "declared_modules", None) or {}
        if rel in declared.values():
            return True
        text = index.ws.read(rel).text
        return bool(ambient_modules(text or ""))
    return False


def _maybe_contract(index, rel: str, gone: bool) -> bool:
    if rel in index.contracts:
        return True
    if not gone:
        return False
    from specward.server.engine.config import SNIFFED_CONTRACT_NAME

    return index.ws.is_contract(rel, "") or bool(SNIFFED_CONTRACT_NAME.search(rel.rpartition("/")[2]))


def dependents(index, changed: set[str]) -> set[str]:
    """The files whose findings may change because ``changed`` changed (see the module's
    docstring): the changed files, what reads them, what a changed contract judges, or
    every file when configuration changed."""
    from specward.analyzers.provenance import MANIFEST as GENERATED_MANIFEST
    from specward.server.engine.contexts import is_manifest

    with index.lock:
        changed = set(changed)
        gone = {rel for rel in changed if not _exists(index, rel)}
        if any(_configures(index, rel, rel in gone) for rel in changed):
            return _everything(index) | changed
        out = set(changed)
        contracts: set[str] = set()
        sources = False
        routes = False
        for rel in changed:
            out |= index.rdeps.get(rel, set())
            out |= index.ardeps.get(rel, set())
            out |= index.folder_dependents(rel)
            if _maybe_contract(index, rel, rel in gone):
                contracts.add(rel)
            was_source = rel in gone and index.ws.is_source(rel)  # what a gone file was, nothing tells
            if was_source or rel in index.digests:
                sources = True
            if was_source or index.is_route_input(rel):
                routes = True
            if is_manifest(rel):
                out |= set(index.context.findings)
            if rel == GENERATED_MANIFEST:
                out |= index.generated.paths()
        if sources or any(index.calls.get(rel) for rel in out):
            out |= {f.file for f in index.unused}
        table = index.table
        if contracts:
            out |= set(index.contracts)
            for rel in contracts:
                out |= set(index.generated.by_contract.get(rel, ()))
            if table.source != "routes":
                for rel, sts in index.statuses.items():
                    if any(st.status in ("phantom", "method-mismatch")
                           or (st.endpoint is not None and st.endpoint.file in contracts) for st in sts):
                        out.add(rel)
            if index.routes or index.mounts:
                routes = True
        if routes:
            out |= set(index.routes) | set(index.mounts) | set(index.contracts)
            out |= set(index.drift_findings())
            if table.source == "routes" or index.routes_as_contract():
                out |= set(index.statuses) | set(index.calls)
        for rel, loaded in index.context.manifests.items():
            m = loaded.manifest
            if m is not None and not changed.isdisjoint(m.paths() | set(m.targets)):
                out.add(rel)
        return out
