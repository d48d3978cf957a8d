"""``ProgramBase``: what ``ecma._Program`` provides to every one of its mixins (``ecma_calls``,
``ecma_exprs``, ``ecma_clients``, ``ecma_modules``, ``ecma_routes``, ``ecma_nest``),
declared once for type checkers. At run time it is an empty class; each mixin declares
beside it only what it needs beyond these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node

    from ..model import ObjVal, Span, UrlExpr

__all__ = ["ProgramBase"]


class ProgramBase:
    if TYPE_CHECKING:
        out: Any  # the file's EcmaCollector
        src: bytes
        base: int  # added to every span (a component's script block)
        grammar: str
        import_modules: dict[str, str]  # local name -> module it was imported from
        fn_by_id: dict[int, Any]

        def text(self, n: Node) -> str: ...
        def span(self, n: Node) -> Span: ...
        def string_value(self, n: Node) -> str: ...
        def specifier(self, n: Node) -> tuple[str, Span] | None: ...
        def key_text(self, n: Node) -> str | None: ...
        def dotted(self, n: Node) -> list[str] | None: ...
        def locate(self, n: Node) -> Any: ...
        def params(self, f: Any) -> dict[str, tuple[int, str | None]]: ...
        def expr(self, n: Node, rec: Any, scope: Any, depth: int = 0) -> UrlExpr | None: ...
        def obj(self, n: Node, rec: Any, scope: Any, depth: int) -> ObjVal: ...
