"""What the registered analyses read besides the files' facts (``AnalysisInput``): the
workspace's other files (assets the resolver may name), what is installed and declared
(``packages.read_environment``), and the fix-history ledgers (``ledger.load``). Read
once per build and again when one of them changes (``WorkspaceIndex.reload_inputs``).

A failure to read one of them costs only that input (logged, the analysis judges without
it), never the build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
from pathlib import Path
from posixpath import basename
from typing import TYPE_CHECKING, Iterable

from specward.analyzers.ambient_installed import ambient_modules, augmented_modules
from specward.analyzers.analyses import AnalysisInput
from specward.analyzers.model import Finding
from specward.analyzers.resolve_setup import GENERATED_FOLDERS

from .reading import is_within, read_file, real_root

if TYPE_CHECKING:
    from .config import Settings
    from .workspace import Workspace

log = logging.getLogger(__name__)

MANIFEST_NAMES = ("package.json", "pyproject.toml", "setup.cfg", "Pipfile")
# written by every install: what is installed (and its files) may have changed
LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb", "uv.lock",
             "poetry.lock", "Pipfile.lock")
LEDGER_FILES = (".specward/fix-history.jsonl", ".ai-spec-fix-history.json")
RULE_FILES = (".importlinter",)  # import-linter's contracts (also in setup.cfg, pyproject.toml)


def is_input_file(rel: str) -> bool:
    """Whether a change of this workspace file may change an ``AnalysisInput``."""
    name = basename(rel)
    return (rel in LEDGER_FILES or rel in RULE_FILES or name in MANIFEST_NAMES or name in LOCKFILES
            or (name.startswith("requirements") and name.endswith((".txt", ".in"))))


def declared_modules(ws: "Workspace", sources: list[str]) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(ambient module name -> the first ``.d.ts`` file (in path order) declaring it; module
    name -> the ``.d.ts`` files that augment it: ``analyzers.ambient_installed.augmented_modules``)."""
    out: dict[str, str] = {}
    augmenting: dict[str, list[str]] = {}
    for rel in sources:
        if rel.endswith(".d.ts"):
            declared, augmented = augmented_modules(ws.read(rel).text or "")
            for name in declared:
                out.setdefault(name, rel)
            for name in augmented:
                augmenting.setdefault(name, []).append(rel)
    return out, {m: tuple(files) for m, files in augmenting.items()}


# the folders a framework writes its generated declarations into, beside its project's
# package.json (the resolver's list); their tsconfig includes them, the walk does not enter them
GENERATED_TYPES = GENERATED_FOLDERS
GENERATED_MAX_FILES = 5000


DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")


def generated_declaration(rel: str, folders: Iterable[str]) -> bool:
    """Whether ``rel`` is a declaration file that ``generated_augmentations`` reads for
    these npm project folders: below ``<folder>/.nuxt/`` or ``<folder>/.svelte-kit/``, not
    in a ``node_modules`` folder there."""
    if not rel.endswith(DECLARATION_SUFFIXES):
        return False
    parts = rel.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in GENERATED_TYPES:
            return "/".join(parts[:i]) in folders and "node_modules" not in parts[i + 1:-1]
    return False


def generated_augmentations(root: Path, folders: Iterable[str], limit: int) -> tuple[dict[str, tuple[str, ...]],
                                                                                   tuple[tuple[str, str], ...]]:
    """(module name -> the declaration files of a framework's generated folder that declare
    it, e.g. ``.nuxt/content/types.d.ts`` for ``@nuxt/content``; their (path, digest): the
    content, not the time, since a framework rewrites them at every start), for the import
    checks: the names such a block adds to a package are exported by it (tsc sees the
    folder through the framework's tsconfig). Read from the disk, never
    through a link out of the workspace, at most ``GENERATED_MAX_FILES`` files per folder,
    none over ``limit`` bytes."""
    top = real_root(str(root))
    found: dict[str, list[str]] = {}
    stamp: list[tuple[str, str]] = []
    for folder in sorted(set(folders)):
        for name in GENERATED_TYPES:
            rel_dir = f"{folder}/{name}" if folder else name
            real = os.path.realpath(os.path.join(root, rel_dir))
            if not os.path.isdir(real) or not is_within(real, top):
                continue
            count = 0
            for here, dirs, files in os.walk(real):  # (links to folders are not followed)
                dirs[:] = sorted(d for d in dirs if d != "node_modules")
                for f in sorted(files):
                    if not f.endswith(DECLARATION_SUFFIXES) or count >= GENERATED_MAX_FILES:
                        continue
                    count += 1
                    rel = f"{rel_dir}/{os.path.relpath(os.path.join(here, f), real).replace(os.sep, '/')}"
                    ft = read_file(str(root), rel, limit)
                    if ft.text is None:
                        continue
                    modules = [m for m in ambient_modules(ft.text) if "*" not in m]
                    if modules:
                        stamp.append((rel, ft.digest))
                    for m in modules:
                        found.setdefault(m, []).append(rel)
    return {m: tuple(v) for m, v in found.items()}, tuple(stamp)


def analysis_input(root: Path, ws: "Workspace", settings: "Settings", sources: list[str] = (),  # type: ignore[assignment]
                   user_ledger: bool = False) -> tuple[AnalysisInput, dict[str, tuple[Finding, ...]]]:
    """The inputs, and the findings reading them produced, per file (a ledger's bad line).
    ``user_ledger``: the user's own ledger too (an opt-in of the user, never of the
    workspace: docs/ledger.md)."""
    others = frozenset(getattr(ws, "others", ()))
    manifests = sorted(rel for rel in (*others, *getattr(ws, "configs", ())) if is_input_file(rel)
                       and not rel.startswith(".specward/"))
    environment = None
    try:
        from .packages import read_environment

        python = getattr(settings, "python", None)
        if python and not Path(python).is_absolute():
            python = str(root / python)
        environment = read_environment(root, python, manifests=manifests, read=lambda rel: ws.read(rel).text,
                                       import_names=dict(getattr(settings, "import_names", {}) or {}))
        ambient, augmenting = declared_modules(ws, sources)
        if ambient or augmenting:
            environment = dataclasses.replace(environment, declared_modules=ambient, workspace_augments=augmenting)
        npm_folders = [m.folder for m in environment.manifests.values() if m.kind == "npm"]
        augmented, stamp = generated_augmentations(root, npm_folders, getattr(settings, "max_file_size", 1_000_000))
        if augmented:
            environment = dataclasses.replace(environment, augmentations=augmented, generated_stamp=stamp)
    except Exception as exc:  # noqa: BLE001 - the import checks judge packages by the manifests only
        log.warning("cannot read the installed packages: %s", exc)
    patterns = None
    problems: dict[str, tuple[Finding, ...]] = {}
    try:
        from .ledger import load

        patterns, found = load(root, user=user_ledger)
        if not patterns.records:  # no ledger, or nothing in it: the ledger analysis does not run
            patterns = None
        for f in found:
            problems[f.file] = (*problems.get(f.file, ()), f)
    except Exception as exc:  # noqa: BLE001 - no repeated-hallucination findings then
        log.warning("cannot read the fix-history ledger: %s", exc)
    rules: tuple = ()
    try:
        from .invariants_config import check_config_files, missing_modules, read_rules

        rules, found = read_rules(root, list(getattr(settings, "invariants", []) or []))
        found += missing_modules(root, rules, list(sources))
        found += check_config_files(root, rules, sorted(others), getattr(settings, "max_file_size", 1_000_000))
        for f in found:
            problems[f.file] = (*problems.get(f.file, ()), f)
    except Exception as exc:  # noqa: BLE001 - no architecture rules then
        log.warning("cannot read the architecture rules: %s", exc)
    options = (("repeat_error_count", getattr(settings, "repeat_error_count", None)),)
    return AnalysisInput(files=others, sources=frozenset(sources),
                         unlisted=frozenset(getattr(ws, "unlisted", ())),
                         unlisted_dirs=frozenset(getattr(ws, "unlisted_dirs", ())),
                         environment=environment, patterns=patterns, options=options, invariants=rules), problems


def inputs_key(inputs: AnalysisInput) -> str:
    """A digest of the inputs that does not depend on set order (string hashing differs
    between processes): cached link results are valid only under the same inputs. The
    file lists are left out: whether a file exists is a dependency edge of the files that
    asked (its creation re-judges them), not an input of every file (a path the walk did
    not list is an edge too, absent from the index: a cached row that probed one stays valid)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(repr(_canonical(dataclasses.replace(inputs, files=frozenset(), sources=frozenset(), unlisted=frozenset(),
                                                 unlisted_dirs=frozenset())))
             .encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _canonical(obj: object) -> object:
    if isinstance(obj, (set, frozenset)):
        return ("set", sorted((_canonical(x) for x in obj), key=repr))
    if isinstance(obj, dict) or hasattr(obj, "items") and callable(obj.items):
        return ("map", sorted(((repr(_canonical(k)), _canonical(v)) for k, v in obj.items()), key=lambda kv: kv[0]))  # type: ignore[union-attr]
    if isinstance(obj, (list, tuple)):
        return tuple(_canonical(x) for x in obj)
    if hasattr(obj, "__dataclass_fields__"):
        return (type(obj).__name__, tuple((n, _canonical(getattr(obj, n))) for n in obj.__dataclass_fields__))  # type: ignore[attr-defined]
    return obj
