"""Context manifests in a workspace: capturing one from the import graph, checking one
before a task runs, and the findings of every manifest and of the files an active one
governs, kept up to date as files change (``analyzers/context.py`` holds the pure rules;
``docs/context.md`` says what a user sees).

The index owns one ``ContextState``. Its findings depend on the manifests' texts, on the
text specward sees of each file a manifest read (open buffers included), on git (HEAD,
blob ids, renames, the files that differ from a manifest's commit) and, for an active
manifest's requirements, on other files' facts. A keystroke costs a sha256 of the edited
text and no git call; git is asked again when a manifest changes, when a file changes on
disk, or when HEAD or git's index moved.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from wcmatch import glob as wcglob

from specward.analyzers.analyses import Context, import_target
from specward.analyzers.context import (
    MANIFEST_DIR,
    Current,
    Entry,
    Manifest,
    Missing,
    changed_file_finding,
    context_hash,
    dumps,
    forbidden_uses,
    manifest_findings,
    out_of_context_finding,
    parse_manifest,
    patch_refusals,
    plan_capture,
    requirements_met,
    sha256_text,
    slug,
    staleness,
)
from specward.analyzers.invariants import GLOB_FLAGS
from specward.analyzers.model import FileFacts, Finding

from .git import Git
from .reading import read_file

if TYPE_CHECKING:
    from .index import WorkspaceIndex

log = logging.getLogger(__name__)

MANIFEST_BYTES = 5_000_000
_CONFIG_FOR = {"python": ("pyproject.toml", "setup.cfg"),
               "ecma": ("tsconfig.json", "jsconfig.json", "package.json")}


def is_manifest(rel: str) -> bool:
    return rel.startswith(MANIFEST_DIR + "/") and rel.endswith(".json") and rel.count("/") == 2


# ---------------------------------------------------------------------- capture

def imports_of(index: "WorkspaceIndex", ctx: Context, rel: str) -> list[str]:
    """The workspace files ``rel``'s imports resolve to (installed packages left out), as the
    architecture rules count them (``analyses.import_target``); ``ctx``: one per capture
    (its resolver memoizes per folder)."""
    from specward.analyzers.invariants import graph_imports

    facts = index.facts.get(rel)
    if facts is None:
        return []
    probed: set[str] = set()
    return [p for imp in graph_imports(facts) if (p := import_target(ctx, rel, imp, probed)[0]) is not None]


def configs_of(index: "WorkspaceIndex", rel: str) -> list[str]:
    """The configuration files that govern a source file: the nearest of each name in its
    folder or above (``tsconfig.json``, ``jsconfig.json``, ``package.json``; for Python
    ``pyproject.toml``, ``setup.cfg``)."""
    if not index.ws.is_source(rel):
        return []
    names = _CONFIG_FOR["python" if rel.endswith((".py", ".pyi")) else "ecma"]
    have = index.analysis_input.all_files
    out = []
    for name in names:
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        while True:
            cand = f"{folder}/{name}" if folder else name
            if cand in have:
                out.append(cand)
                break
            if not folder:
                break
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
    return out


def _defines(facts: FileFacts | None, symbol: str) -> bool:
    return facts is not None and (any(d.name == symbol for d in facts.definitions)
                                  or any(e.name == symbol for e in facts.exports))


def definitions_of(index: "WorkspaceIndex", symbols: set[str]) -> dict[str, set[str]]:
    """Symbol -> the source files that define it at module level (a definition or an
    export), from the parse: one pass over the workspace's facts."""
    out: dict[str, set[str]] = {s: set() for s in symbols}
    for rel in index.digests:
        facts = index.facts.get(rel)
        for sym in symbols:
            if _defines(facts, sym):
                out[sym].add(rel)
    return out


def rules_for(rules, targets: list[str]):
    return [r for r in rules if any(wcglob.globmatch(t, g, flags=GLOB_FLAGS) for t in targets for g in r.targets)]


def capture(index: "WorkspaceIndex", targets: list[str], depth: int, includes: list[str], task: str = "",
            buffers: Callable[[str], str | None] | None = None, out_name: str | None = None,
            active: bool = False, forbidden: list[str] | None = None) -> tuple[str, Manifest]:
    """Capture a manifest and write it under ``.specward/context/``: returns its path and
    itself. ``buffers``: the unsaved text of a file, when an editor has one."""
    git = index.context.git
    head = git.head()
    ctx = Context(index.analysis_input, index.facts.get, index.resolver_config, installed=index.installed)
    planned = plan_capture(targets, depth, includes, lambda r: imports_of(index, ctx, r),
                           lambda r: configs_of(index, r))
    blobs = git.blobs("HEAD", [p.path for p in planned]) if head else {}
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    entries = []
    for p in planned:
        text = buffers(p.path) if buffers else None
        if text is None:
            ft = read_file(index.root, p.path, index.settings.max_file_size)
            if ft.text is None:
                raise ValueError(f"cannot read {p.path}: {ft.reason}")
            text = ft.text
        entries.append(Entry(path=p.path, sha256=sha256_text(text), blob=blobs.get(p.path), commit=head,
                             read_at=now, source=p.source, confidence=p.confidence))
    name = task or targets[0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
    manifest = Manifest(task=name, created_at=now, commit=head, targets=list(targets), depth=depth,
                        includes=list(includes), entries=entries, context_hash=context_hash(entries), active=active,
                        forbidden_symbols=list(forbidden or []))
    rel = f"{MANIFEST_DIR}/{out_name or slug(name)}.json"
    write_manifest(index.root, rel, manifest)
    return rel, manifest


def write_manifest(root: Path, rel: str, manifest: Manifest) -> None:
    """Write atomically (a temporary file renamed over it): a crash never leaves half a manifest."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(dumps(manifest), encoding="utf-8")
    os.replace(tmp, path)


def recapture(index: "WorkspaceIndex", rel: str, more: list[str] | None = None) -> str:
    """Capture a manifest again as it was captured (targets, depth, includes, task, whether
    active, forbidden symbols), from the text specward sees now (open buffers included),
    with ``more`` includes; returns its new text."""
    loaded = index.context.manifests.get(rel)
    m = loaded.manifest if loaded else None
    if m is None:
        raise ValueError(f"{rel} is not a context manifest that can be read")
    includes = list(dict.fromkeys([*m.includes, *(more or [])]))
    name = rel.rsplit("/", 1)[-1][: -len(".json")]
    capture(index, m.targets, m.depth, includes, m.task, buffers=index._buffers.get, out_name=name,
            active=m.active, forbidden=m.forbidden_symbols)
    ft = read_file(index.root, rel, MANIFEST_BYTES)
    if ft.text is None:
        raise ValueError(f"cannot read {rel} back: {ft.reason}")
    return ft.text


def vet_patch(index: "WorkspaceIndex", files: dict[str, str | None]) -> list[str]:
    """Why a generated patch must not be applied under the active manifests (empty: it may
    be): ``context.patch_refusals`` for each. The generation stages call this."""
    st = index.context
    return [why for rel, m in st.active() for why in patch_refusals(m, rel, st.forbidden(m), files)]


def check(index: "WorkspaceIndex", manifest: Manifest) -> list[Missing]:
    """What ``context check`` reports: every import of a target that does not resolve
    (``imports-resolve``), every file and symbol configuration requires for the task that
    the context lacks, and every entry that is stale."""
    out: list[Missing] = []
    for target in manifest.targets:
        for f in index.findings(target):
            if f.code == "phantom-import":
                out.append(Missing(f"{target}: {f.message} (every import of a target must resolve)", None))
    st = index.context
    out += st.requirements(manifest)
    for e in manifest.entries:
        why = staleness(e, st.current(e.path, manifest.commit))
        if why is not None:
            out.append(Missing(f"{e.path} changed since it was read: {why}", "re-capture the manifest"))
    return out


# ---------------------------------------------------------------------- live state

@dataclass
class _Loaded:
    text: str
    manifest: Manifest | None
    problems: list[Finding]


@dataclass
class ContextState:
    """The manifests of a workspace and their findings (per file)."""

    root: Path
    git: Git = field(init=False)
    manifests: dict[str, _Loaded] = field(default_factory=dict)
    findings: dict[str, tuple[Finding, ...]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)  # sha256 of the text last given for a file
    _required: dict[str, list[Missing]] = field(default_factory=dict)  # manifest -> what it lacks
    _defs: dict[str, set[str]] = field(default_factory=dict)  # required symbol -> files defining it
    _uses: dict[tuple, list[Finding]] = field(default_factory=dict)  # (path, sha256, symbols, manifest) -> uses
    _disk: dict[str, tuple[tuple, str | None]] = field(default_factory=dict)  # rel -> (stat key, sha256)
    _git_key: tuple = ()
    _changed: dict[str, set[str] | None] = field(default_factory=dict)  # commit -> files differing from it
    _renames: dict[str, dict[str, str]] = field(default_factory=dict)
    _heads: tuple[str | None, dict[str, str]] = (None, {})
    index: "WorkspaceIndex | None" = None

    def __post_init__(self) -> None:
        self.git = Git(self.root)

    # ---- reading
    def load_all(self) -> set[str]:
        """Read every manifest again (a build); returns the paths whose findings changed."""
        self.manifests.clear()
        folder = self.root / MANIFEST_DIR
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except OSError:
            names = []
        for n in names:
            self._load(f"{MANIFEST_DIR}/{n}")
        self._forget_git()
        self._required.clear()
        self._defs.clear()
        return self.judge()

    def _load(self, rel: str, text: str | None = None) -> None:
        ft = read_file(self.root, rel, MANIFEST_BYTES)
        if text is not None:  # an open buffer
            ft = replace(ft, text=text, reason=None)
        if ft.text is None:
            if ft.reason != "the file no longer exists":
                from specward.analyzers.model import Span

                self.manifests[rel] = _Loaded("", None, [Finding("context-invalid", "error",
                                                                   f"cannot read the context manifest: {ft.reason}",
                                                                   rel, Span(0, 0))])
            else:
                self.manifests.pop(rel, None)
            return
        manifest, problems = parse_manifest(rel, ft.text)
        self.manifests[rel] = _Loaded(ft.text, manifest, problems)

    def active(self) -> list[tuple[str, Manifest]]:
        return [(rel, m.manifest) for rel, m in sorted(self.manifests.items())
                if m.manifest is not None and m.manifest.active]

    # ---- what a file is now
    def _disk_sha(self, rel: str) -> str | None:
        try:
            st = os.stat(self.root / rel)
        except OSError:
            return None
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        had = self._disk.get(rel)
        if had is not None and had[0] == key:
            return had[1]
        ft = read_file(self.root, rel, max(st.st_size + 1, 1))
        sha = None if ft.text is None else sha256_text(ft.text)
        self._disk[rel] = (key, sha)
        return sha

    def _forget_git(self) -> None:
        self._changed.clear()
        self._renames.clear()
        self._heads = (None, {})
        self._git_key = self.git.stamp() if self.manifests else ()

    def _git_fresh(self) -> None:
        if not self.manifests:  # git is asked only for a workspace with manifests
            return
        key = self.git.stamp()
        if key != self._git_key:
            self._forget_git()

    def _head_blobs(self, paths: list[str]) -> tuple[str | None, dict[str, str]]:
        """HEAD and the blob of each path in it ("" for an untracked path), asked once per
        git state; "" for HEAD outside git or before the first commit."""
        head, blobs = self._heads
        if head is None:
            head, blobs = self.git.head() or "", {}
        missing = [p for p in paths if p not in blobs]
        if head and missing:
            got = self.git.blobs(head, missing)
            blobs.update(got)
            blobs.update({p: "" for p in missing if p not in got})
        self._heads = (head, blobs)
        return head or None, blobs

    def current(self, rel: str, commit: str | None) -> Current:
        disk = self._disk_sha(rel)
        seen = self.texts.get(rel)
        sha = seen if seen is not None else disk
        if sha is None:
            renamed = self._renamed(rel, commit)
            return Current(None, None, renamed_to=renamed)
        head, blobs = self._head_blobs([rel])
        return Current(sha, disk, head, blobs.get(rel) or None)

    def _renamed(self, rel: str, commit: str | None) -> str | None:
        if commit:
            if commit not in self._renames:
                self._renames[commit] = self.git.renames(commit)
            got = self._renames[commit].get(rel)
            if got:
                return got
        return None

    def changed_since(self, commit: str | None, created_at: str) -> set[str]:
        """The workspace files that differ from a manifest's commit (git), or, outside git,
        the source files modified after it was written."""
        if commit:
            if commit not in self._changed:
                self._changed[commit] = self.git.changed_since(commit)
            got = self._changed[commit]
            if got is not None:
                return got
        if self.index is None:
            return set()
        try:
            since = datetime.fromisoformat(created_at).timestamp()
        except ValueError:
            return set()
        out = set()
        for rel in self.index.digests:
            try:
                if os.stat(self.root / rel).st_mtime > since + 1:
                    out.add(rel)
            except OSError:
                pass
        return out

    # ---- judging
    def requirements(self, manifest: Manifest) -> list[Missing]:
        if self.index is None:
            return []
        settings = self.index.settings
        req = rules_for([*settings.context.requires, *settings.context_requires], manifest.targets)
        files = [f for r in req for f in r.files]
        symbols = [s for r in req for s in r.symbols]
        unknown = set(symbols) - set(self._defs)
        if unknown:  # one pass over the workspace, then kept up to date by `changed`
            self._defs.update(definitions_of(self.index, unknown))
        return requirements_met(manifest, files, symbols, lambda s: sorted(self._defs.get(s, ())))

    def forbidden(self, manifest: Manifest) -> frozenset[str]:
        if self.index is None:
            return frozenset(manifest.forbidden_symbols)
        rules = rules_for(self.index.settings.context.forbids, manifest.targets)
        return frozenset(manifest.forbidden_symbols) | {s for r in rules for s in r.symbols}

    def judge(self) -> set[str]:
        """Compute every finding again; returns the paths whose findings changed."""
        self._git_fresh()
        threshold = self.index.settings.context.confidence_threshold if self.index else 0.5
        out: dict[str, list[Finding]] = {}
        entries = sorted({e.path for m in self.manifests.values() if m.manifest for e in m.manifest.entries})
        if entries:  # one git call for every entry (none at all without manifests)
            self._head_blobs(entries)
        for rel, loaded in sorted(self.manifests.items()):
            out.setdefault(rel, []).extend(loaded.problems)
            m = loaded.manifest
            if m is None:
                continue
            changes = {}
            for e in m.entries:
                why = staleness(e, self.current(e.path, m.commit))
                if why is not None:
                    changes[e.path] = why
            missing: list[Missing] = []
            if m.active:
                if rel not in self._required:
                    self._required[rel] = self.requirements(m)
                missing = self._required[rel]
            out[rel].extend(manifest_findings(rel, loaded.text, m, changes, threshold, missing))
            if not m.active:
                continue
            for path, why in changes.items():
                if self._disk_sha(path) is not None or path in self.texts:
                    out.setdefault(path, []).append(changed_file_finding(path, m.task, rel, why))
            inside = m.paths()
            touched = {p for p in self.changed_since(m.commit, m.created_at) | self._edited()
                       if not p.startswith(".specward/") and p != "specward.toml" and p not in inside
                       and self._listed(p)}
            for path in sorted(touched):
                out.setdefault(path, []).append(out_of_context_finding(path, m.task, rel))
            symbols = self.forbidden(m)
            if symbols:
                for path in sorted((set(m.targets) | touched | set(changes)) - {rel}):
                    out.setdefault(path, []).extend(self._forbidden_uses(path, symbols, m.task, rel))
        new = {k: tuple(v) for k, v in out.items() if v}
        changed = {k for k in set(new) | set(self.findings) if new.get(k) != self.findings.get(k)}
        self.findings = new
        return changed

    def _listed(self, rel: str) -> bool:
        return self.index is None or rel in self.index.digests or rel in self.index.analysis_input.all_files \
            or rel in self.index.contracts

    def _edited(self) -> set[str]:
        """Files whose text (an open buffer) differs from the disk."""
        return {rel for rel, sha in self.texts.items() if sha != self._disk_sha(rel)}

    def _forbidden_uses(self, rel: str, symbols: frozenset[str], task: str, manifest: str) -> list[Finding]:
        """``forbidden_uses`` of the text specward sees (the buffer, else the disk), once per
        version of the file: the key is the digest already known, the text is read on a miss."""
        digest = self.texts.get(rel) or self._disk_sha(rel)
        if digest is None or self.index is None:
            return []
        key = (rel, digest, symbols, task, manifest)
        if key not in self._uses:
            text = self.index._text_reader()(rel)
            if text is None:
                return []
            if len(self._uses) > 256:
                self._uses.clear()
            self._uses[key] = forbidden_uses(rel, text, symbols, task, manifest)
        return self._uses[key]

    def changed(self, rel: str, text: str | None) -> set[str]:
        """A file's new text (None: gone). Returns the paths whose findings changed."""
        if is_manifest(rel):
            self._load(rel, text)
            self._required.pop(rel, None)
            return self.judge() | {rel}
        if not self.manifests:
            return set()
        if self._defs and self.index is not None:  # the required symbols a file defines
            facts = self.index.facts.get(rel) if text is not None else None
            for sym, where in self._defs.items():
                if _defines(facts, sym) != (rel in where):
                    (where.add if rel not in where else where.discard)(rel)
                    self._required.clear()
        if text is None:
            self.texts.pop(rel, None)
        else:
            self.texts[rel] = sha256_text(text)
        # (the disk's digest is cached by the file's stat: a keystroke reads nothing from it)
        if text is None or self.texts[rel] == self._disk_sha(rel):  # the disk changed: ask git again
            self._changed.clear()
            self._renames.clear()
            self._heads = (None, {})
        return self.judge()
