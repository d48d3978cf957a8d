"""Context manifests: what an AI task was given to read, and whether that is still true.

A manifest (``.specward/context/<task>.json``) lists, for each file a task read, the exact
text's sha256, the git blob and commit it was read at (when in git), when it was read,
where it came from (``target``, ``dependency``, ``config``, ``doc``) and a confidence; and
a hash of the whole context. This module holds the manifest's schema (pydantic), the
capture plan over the import graph, the judgement of each entry against the file as it
is now (``Current``), and the findings on a manifest and on the files it governs:
``stale-context``, ``low-confidence-context``, ``incomplete-context``,
``out-of-context-edit``, ``forbidden-symbol``, ``context-invalid``.

Pure: the caller reads files, asks git and resolves imports, and passes the answers in.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .codes import CODES
from .model import Finding, Span

MANIFEST_DIR = ".specward/context"
MANIFEST_VERSION = 1
Source = Literal["target", "dependency", "config", "doc"]

# How sure a capture is that an entry is what the task needs: the files named (targets and
# includes) are; an import of a target nearly so; each further hop less; a configuration
# file found by folder (not by an import) least of the ones read for a reason.
CONFIDENCE_NAMED = 1.0
CONFIDENCE_DIRECT = 0.9
CONFIDENCE_PER_HOP = 0.75
CONFIDENCE_CONFIG = 0.6
DEFAULT_THRESHOLD = 0.5
DEFAULT_DEPTH = 2
DEFAULT_ROUNDS = 3

_SHA256 = re.compile(r"[0-9a-f]{64}")
_DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json", "package.json", "pyproject.toml", "setup.cfg",
                "vite.config.ts", "vite.config.js", "svelte.config.js", "nuxt.config.ts")


class Entry(BaseModel):
    """One file the task was given."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, description="Workspace-relative, '/'-separated.")
    sha256: str = Field(description="sha256 of the exact text read (unsaved buffer text included).")
    blob: str | None = Field(default=None, description="The file's git blob id in `commit`, when tracked.")
    commit: str | None = Field(default=None, description="HEAD when it was read, in a git repository.")
    read_at: str = Field(description="When it was read (ISO 8601, UTC).")
    source: Source
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if not _SHA256.fullmatch(value):
            raise ValueError("not a sha256 digest (64 lowercase hex digits)")
        return value

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or "\\" in value or any(p in ("", ".", "..") for p in value.split("/")):
            raise ValueError(f"not a workspace-relative path: {value!r}")
        return value


class Manifest(BaseModel):
    """One task's context. ``active``: the task is running or its output is being reviewed;
    edits are then judged against it. ``forbidden_symbols``: names the task must not use
    (besides what configuration forbids)."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = MANIFEST_VERSION
    task: str = Field(min_length=1)
    created_at: str
    commit: str | None = None
    targets: list[str] = Field(min_length=1)
    depth: int = Field(default=DEFAULT_DEPTH, ge=0, le=50)
    includes: list[str] = Field(default_factory=list)
    entries: list[Entry]
    context_hash: str
    active: bool = False
    forbidden_symbols: list[str] = Field(default_factory=list)

    def paths(self) -> frozenset[str]:
        return frozenset(e.path for e in self.entries)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def context_hash(entries: Iterable[Entry]) -> str:
    """A hash of the whole context: every path with the digest of what was read."""
    h = hashlib.sha256()
    for path, digest in sorted((e.path, e.sha256) for e in entries):
        h.update(f"{path}\0{digest}\n".encode("utf-8", "surrogatepass"))
    return "sha256:" + h.hexdigest()


def slug(text: str) -> str:
    """A file name for a task (``Add retry to payments`` -> ``add-retry-to-payments``)."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:60].strip("-") or "task"


def dumps(manifest: Manifest) -> str:
    return json.dumps(manifest.model_dump(), indent=2, ensure_ascii=False) + "\n"


def parse_manifest(path: str, text: str) -> tuple[Manifest | None, list[Finding]]:
    """A manifest from its JSON text, or None and one ``context-invalid`` finding that says
    exactly what is wrong (where: the offending entry's path when it has one)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        return None, [_invalid(path, text, f"not JSON: {exc}")]
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        span = Span(0, 0)
        if len(err["loc"]) >= 2 and err["loc"][0] == "entries" and isinstance(err["loc"][1], int):
            try:
                span = entry_span(text, str(data["entries"][err["loc"][1]].get("path", "")))
            except (KeyError, IndexError, TypeError, AttributeError):
                pass
        return None, [_invalid(path, text, f"{loc}: {err['msg']}", span)]
    if manifest.context_hash != context_hash(manifest.entries):
        return manifest, [_invalid(path, text, "context_hash does not match the entries (edited by hand?); "
                                   "re-capture the manifest", _key_span(text, "context_hash"))]
    return manifest, []


def _invalid(path: str, text: str, why: str, span: Span = Span(0, 0)) -> Finding:
    return Finding("context-invalid", CODES["context-invalid"].severity,
                   f"invalid context manifest: {why}; it is ignored", path, span)


def _key_span(text: str, key: str) -> Span:
    m = re.search(rf'"{re.escape(key)}"\s*:', text)
    if m is None:
        return Span(0, 0)
    start = len(text[: m.start()].encode())
    return Span(start, start + len(m.group(0).encode()) - 1)


def entry_span(text: str, path: str) -> Span:
    """Where an entry's ``"path": "<path>"`` is written in the manifest's text."""
    if not path:
        return Span(0, 0)
    m = re.search(r'"path"\s*:\s*' + re.escape(json.dumps(path, ensure_ascii=False)), text)
    if m is None:
        m = re.search(r'"path"\s*:\s*' + re.escape(json.dumps(path)), text)
    if m is None:
        return Span(0, 0)
    start = len(text[: m.start()].encode())
    return Span(start, start + len(m.group(0).encode()))


# ---------------------------------------------------------------------- capture

@dataclass(frozen=True)
class Planned:
    path: str
    source: Source
    confidence: float
    hops: int  # imports from the nearest target (0: a target or an include)


def include_source(path: str) -> Source:
    name = path.rsplit("/", 1)[-1]
    if path.lower().endswith(_DOC_SUFFIXES):
        return "doc"
    if name in CONFIG_NAMES or name.startswith(("tsconfig.", "jsconfig.")):
        return "config"
    return "dependency"


def plan_capture(targets: list[str], depth: int, includes: list[str],
                 imports_of: Callable[[str], Iterable[str]],
                 configs_of: Callable[[str], Iterable[str]]) -> list[Planned]:
    """The entries of a capture, in a stable order: the targets; what they import,
    breadth first, up to ``depth`` hops (``imports_of``: the workspace files a file's
    imports resolve to); the configuration files that govern any of them
    (``configs_of``: tsconfig, package.json, pyproject.toml ... found by folder); the
    includes. A file reached several ways keeps its strongest reason."""
    out: dict[str, Planned] = {}
    for t in targets:
        out.setdefault(t, Planned(t, "target", CONFIDENCE_NAMED, 0))
    frontier = [t for t in targets]
    for hop in range(1, depth + 1):
        nxt: list[str] = []
        conf = round(CONFIDENCE_DIRECT * CONFIDENCE_PER_HOP ** (hop - 1), 4)
        for here in frontier:
            for dep in sorted(set(imports_of(here))):
                if dep not in out:
                    out[dep] = Planned(dep, "dependency", conf, hop)
                    nxt.append(dep)
        frontier = nxt
    for read in list(out.values()):
        for cfg in configs_of(read.path):
            if cfg not in out:
                out[cfg] = Planned(cfg, "config", CONFIDENCE_CONFIG, read.hops)
    for inc in includes:
        have = out.get(inc)
        if have is None or have.confidence < CONFIDENCE_NAMED:
            out[inc] = Planned(inc, have.source if have and have.source == "target" else include_source(inc),
                               CONFIDENCE_NAMED, 0)
    return list(out.values())


# ---------------------------------------------------------------------- staleness

@dataclass(frozen=True)
class Current:
    """A manifest entry's file as it is now. ``sha256``: of the text specward sees (the
    open buffer when there is one), None when the file is gone; ``disk_sha256``: of the
    file on disk (None: the same as ``sha256``, or gone); ``head``: HEAD's commit and
    ``head_blob`` the file's blob in it (None outside git or untracked); ``renamed_to``:
    where git (or an identical file) says it went."""

    sha256: str | None
    disk_sha256: str | None = None
    head: str | None = None
    head_blob: str | None = None
    renamed_to: str | None = None


def staleness(entry: Entry, now: Current) -> str | None:
    """What changed since the entry was read, in a few words, or None: ``deleted``,
    ``renamed to X``, ``edited in an unsaved buffer``, ``changed by a new commit abc1234``,
    ``edited (not committed)``. Only the text counts: a new commit that leaves the file
    as it was read changes nothing."""
    if now.sha256 is None:
        return f"renamed to {now.renamed_to}" if now.renamed_to else "deleted"
    if now.sha256 == entry.sha256:
        return None
    disk = now.disk_sha256 or now.sha256
    if disk == entry.sha256:
        return "edited in an unsaved buffer"
    committed = (entry.commit is not None and now.head is not None and now.head != entry.commit
                 and now.head_blob is not None and now.head_blob != entry.blob)
    if committed:
        return f"changed by a new commit {now.head[:7]}"  # type: ignore[index]
    return "edited (not committed)"


# ---------------------------------------------------------------------- check

@dataclass(frozen=True)
class Missing:
    """An item a task needs and its context lacks. ``remedy``: the include that adds it
    (``--include src/config/paymentConfig.ts``), None when nothing can."""

    what: str
    remedy: str | None


def requirements_met(manifest: Manifest, required_files: Iterable[str],
                     required_symbols: Iterable[str],
                     defined_in: Callable[[str], list[str]]) -> list[Missing]:
    """The files and symbols configuration requires for this task that the context lacks.
    ``defined_in(symbol)``: the workspace files that define it (a module-level definition
    or export), from the parse."""
    have = manifest.paths()
    out: list[Missing] = []
    for f in required_files:
        if f not in have:
            out.append(Missing(f"required file {f} is not in the context", f"--include {f}"))
    for sym in required_symbols:
        where = defined_in(sym)
        if any(w in have for w in where):
            continue
        if where:
            out.append(Missing(f"required symbol {sym} (defined in {where[0]}) is not in the context",
                               f"--include {where[0]}"))
        else:
            out.append(Missing(f"required symbol {sym} is defined in no workspace file", None))
    return out


def manifest_findings(path: str, text: str, manifest: Manifest, changes: dict[str, str],
                      threshold: float, missing: list[Missing]) -> list[Finding]:
    """The findings on a manifest file: each stale entry (``changes``: entry path -> what
    changed), each entry below ``threshold``, and, on an active manifest, each missing
    item (``incomplete-context``, at ``"targets"``)."""
    out: list[Finding] = []
    for e in manifest.entries:
        span = entry_span(text, e.path)
        why = changes.get(e.path)
        if why is not None:
            out.append(Finding("stale-context", CODES["stale-context"].severity,
                               f"{e.path} changed since task {manifest.task!r} read it: {why}; re-capture the "
                               "manifest", path, span, (("entry", e.path), ("change", why))))
        if e.confidence < threshold:
            out.append(Finding("low-confidence-context", CODES["low-confidence-context"].severity,
                               f"{e.path} is in the context with confidence {e.confidence:g} "
                               f"(below {threshold:g}, {e.source}): needs review", path, span,
                               (("entry", e.path),)))
    if manifest.active:
        span = _key_span(text, "targets")
        for m in missing:
            fix = f": add it with {m.remedy}" if m.remedy else ""
            out.append(Finding("incomplete-context", CODES["incomplete-context"].severity,
                               f"task {manifest.task!r}: {m.what}{fix}", path, span,
                               (("remedy", m.remedy or ""),)))
    return out


def changed_file_finding(rel: str, task: str, manifest_path: str, why: str) -> Finding:
    """``stale-context`` on a file an active manifest read, which changed since."""
    return Finding("stale-context", CODES["stale-context"].severity,
                   f"task {task!r} ({manifest_path}) read this file before it changed: {why}", rel, Span(0, 0),
                   (("manifest", manifest_path), ("change", why)))


def out_of_context_finding(rel: str, task: str, manifest_path: str) -> Finding:
    return Finding("out-of-context-edit", CODES["out-of-context-edit"].severity,
                   f"this file is not in the context of the active task {task!r} ({manifest_path}): the task was "
                   "not given it to read", rel, Span(0, 0), (("manifest", manifest_path),))


# ---------------------------------------------------------------------- forbidden symbols

def forbidden_uses(path: str, text: str, symbols: frozenset[str], task: str, manifest_path: str) -> list[Finding]:
    """``forbidden-symbol`` at each use of a forbidden name in a file: identifiers and
    property names from the parse (``queries/context-names-*.scm``; never in strings or
    comments), imports included. Vue and Svelte files: their ``<script>`` blocks."""
    from .languages import language_of

    lang = language_of(path)
    if not symbols or lang is None:
        return []
    src = text.encode("utf-8", "surrogatepass")
    if lang in ("vue", "svelte"):
        from .extract.components import script_blocks

        pieces = script_blocks(src)
    else:
        pieces = [(0, src, lang)]
    found: list[Finding] = []
    for offset, body, grammar in pieces:
        for start, end in _names(grammar, body, symbols):
            name = body[start:end].decode("utf-8", "replace")
            found.append(Finding("forbidden-symbol", CODES["forbidden-symbol"].severity,
                                 f"{name} is forbidden to task {task!r} ({manifest_path})", path,
                                 Span(start + offset, end + offset), (("symbol", name), ("manifest", manifest_path))))
    return found


def _names(grammar: str, src: bytes, symbols: frozenset[str]) -> list[tuple[int, int]]:
    from tree_sitter import QueryCursor

    from .languages import parse, query

    if not any(s.encode() in src for s in symbols):  # the cheap test first
        return []
    q = query(grammar, "context-names-python.scm" if grammar == "python" else "context-names-ecma.scm")
    spans = {(n.start_byte, n.end_byte) for n in QueryCursor(q).captures(parse(grammar, src).root_node).get("name", [])
             if src[n.start_byte:n.end_byte].decode("utf-8", "replace") in symbols}
    return sorted(spans)


def patch_refusals(manifest: Manifest, manifest_path: str, forbidden: frozenset[str],
                   files: dict[str, str | None]) -> list[str]:
    """Why a generated patch (new text per file, None: deleted) must not be applied while
    ``manifest`` is active: each file it edits outside the task's context, each use of a
    forbidden symbol in the text it writes. The generation stages refuse a patch with any."""
    inside = manifest.paths()
    out = []
    for rel in sorted(files):
        if rel not in inside:
            out.append(f"{rel} is not in the context of task {manifest.task!r} ({manifest_path})")
        text = files[rel]
        if text is not None:
            for f in forbidden_uses(rel, text, forbidden, manifest.task, manifest_path):
                line = text.encode("utf-8", "surrogatepass")[: f.span.start].count(b"\n") + 1
                out.append(f"{rel}:{line}: {f.message}")
    return out
