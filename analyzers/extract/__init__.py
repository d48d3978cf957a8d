"""Per-file extraction: ``extract(path, text) -> FileFacts``, pure and deterministic.

The grammar is chosen by extension (``analyzers.languages``); the rules are the query
files under ``analyzers/queries``. ``EXTRACTOR_VERSION`` changes whenever the extraction
code or a query changes, so cached facts from another version are never reused.
"""

from __future__ import annotations

import hashlib
from importlib import resources

from ..languages import language_of, parser
from .declarations import is_declaration_file
from ..model import FileFacts


def extract(path: str, text: str, tree=None) -> FileFacts:
    """The facts of one source file. Raises ``ValueError`` for a path that is not source.
    ``tree``: the file's tree from ``parse_source(path, text)``, when parsed already."""
    lang = language_of(path)
    if lang == "python":
        from .python import extract_python

        return extract_python(path, text, tree)
    if lang in ("vue", "svelte"):
        from .components import extract_component

        return extract_component(path, text, lang)
    if lang in ("typescript", "tsx", "javascript"):
        from .ecma import extract_ecma

        if lang == "typescript" and is_declaration_file(path):
            from .declarations import declaration_facts

            return declaration_facts(path, text, tree)
        return extract_ecma(path, text, lang, tree)
    raise ValueError(f"{path}: not a source file specward analyzes")


def parse_source(path: str, text: str):
    """The tree ``extract(path, text)`` works on, or None where extraction parses in its
    own way (components, text that does not encode). Parsing a batch of files first and
    extracting them after gives the same facts, about 10 % sooner than parsing each one
    when it is extracted: the parser's tables stay in the processor's caches."""
    lang = language_of(path)
    if lang not in ("python", "typescript", "tsx", "javascript"):
        return None
    try:
        src = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return parser(lang).parse(src)


def extract_edited(path: str, text: str, state=None, lazy: bool = False):
    """``(facts, state, change)``: exactly ``extract(path, text)``, computed from ``state``
    (what the previous call returned for the same document) by re-extracting only what the
    edit touched, where the language allows it. See ``extract/incremental.py``."""
    from .incremental import extract_edited as edited

    return edited(path, text, state, lazy)


def warm_up() -> None:
    """Load every grammar and compile every query (what the first file of each language
    would otherwise pay for)."""
    for path, text in (("w.ts", "export const a = {b: 1};\n"), ("w.tsx", "export const a = {b: 1};\n"),
                       ("w.js", "export const a = {b: 1};\n"), ("w.py", "a = 1\n")):
        extract(path, text)


def _version() -> str:
    h = hashlib.blake2b(digest_size=8)
    root = resources.files("specward.analyzers")
    names = ["model.py"] + [f"extract/{p.name}" for p in sorted(root.joinpath("extract").iterdir(), key=lambda p: p.name)
                            if p.name.endswith(".py")]
    names += [f"queries/{p.name}" for p in sorted(root.joinpath("queries").iterdir(), key=lambda p: p.name)
              if p.name.endswith(".scm")]
    for name in names:
        h.update(name.encode())
        h.update(root.joinpath(name).read_bytes())
    return h.hexdigest()


EXTRACTOR_VERSION = _version()
