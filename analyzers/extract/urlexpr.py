"""URL-expression helpers shared by the extractors (``ecma.py``, ``python.py``): how the
pieces read from a string, a template or a concatenation become one ``UrlExpr``.

``merge(parts, empty)`` is the one place adjacent literal parts are joined. The two
extractors differ only in what pieces that leave no text become, and each keeps its
result as it was before they shared this function (facts, and so cached facts and the
linker's input, stay the same): for JavaScript (an empty template, ``'' + ''``) the empty
expression ``()`` (``EMPTY``, the default), for Python (``f""``, ``"" + ""``,
``"{}".format`` of nothing) one empty literal (``EMPTY_LIT``)."""

from __future__ import annotations

from ..model import Lit, Part, UrlExpr

__all__ = ["EMPTY", "EMPTY_LIT", "merge"]

EMPTY: UrlExpr = ()
"""``merge``'s result for no text at all, as the ECMAScript extractor reads it."""
EMPTY_LIT: UrlExpr = (Lit(""),)
"""``merge``'s result for no text at all, as the Python extractor reads it."""


def merge(parts: list[Part], empty: UrlExpr = EMPTY) -> UrlExpr:
    """``parts`` with adjacent literals joined and empty literals dropped; ``empty`` when
    nothing is left."""
    out: list[Part] = []
    for p in parts:
        if type(p) is Lit:
            if not p.text:
                continue
            if out and type(out[-1]) is Lit:
                out[-1] = Lit(out[-1].text + p.text)  # type: ignore[union-attr]
                continue
        out.append(p)
    return tuple(out) if out else empty
