"""Imports and exports of JavaScript and TypeScript files (``model.Import``,
``model.Export``), for ``ecma.py``'s ``_Program`` (a mixin: ``ModulesMixin``): import
statements, ``require()`` / ``import()`` / ``import.meta.glob()`` anywhere (guarded inside a
``try`` block), ``export`` statements (a re-export is an import too) and CommonJS exports
(``module.exports = ...``, ``exports.x = ...``). The decisions they follow are in
``ecma.py``'s docstring (imports, exports, ``open_exports``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node

from .ecma_base import ProgramBase
from .ecma_routes import unwrap as _unwrap
from ..model import Export, Import, Span

__all__ = ["ModulesMixin"]


class ModulesMixin(ProgramBase):
    """The import and export methods of ``ecma._Program`` (which provides ``text``,
    ``span``, ``string_value``, ``specifier``, ``key_text``, ``dotted`` and the tables
    ``out``, ``import_modules``, ``at``)."""

    if TYPE_CHECKING:  # what ``_Program`` provides beyond ``ProgramBase``
        at: list[int]

    def on_import(self, c: dict) -> None:
        source = c["import.source"][0]
        got = self.specifier(source)
        if got is None:
            return
        module, mspan = got
        out = self.out.imports
        kind = "type" if "import.type" in c else "static"
        if "import.default" in c:
            n = c["import.default"][0]
            out.append(Import(module, "default", self.text(n), self.span(n), kind, False, mspan))
            self.import_modules[self.text(n)] = module
        elif "import.namespace" in c:
            n = c["import.namespace"][0]
            out.append(Import(module, "*", self.text(n), self.span(n), kind, False, mspan))
            self.import_modules[self.text(n)] = module
        elif "import.name" in c:
            name, local, span = self.named_binding(c["import.name"][0], c.get("import.alias"))
            out.append(Import(module, name, local, span, kind, False, mspan))
            self.import_modules[local] = module
        else:  # only for its effect: `import './app.css'`
            out.append(Import(module, "", "", self.span(source), kind, False, mspan))

    def named_binding(self, n: Node, alias: list[Node] | None) -> tuple[str, str, Span]:
        """(name imported, local name, span from the name to the alias) of ``{ n as alias }``
        in an import or of ``{ n: alias }`` in a destructured ``require()``."""
        name = self.key_text(n) or self.text(n)
        end = alias[0] if alias else n
        return name, self.text(alias[0]) if alias else name, Span(self.base + n.start_byte, self.base + end.end_byte)

    def on_loads(self, requires: list[dict], loads: list[tuple[str, Node]], guards: list[tuple[int, int]]) -> None:
        """``require()`` calls (bound, destructured, alone or used as a value: each call once),
        ``import()`` and ``import.meta.glob()``, guarded when inside a try block."""
        out = self.out.imports

        def guarded(pos: int) -> bool:
            for s, e in guards:
                if s <= pos < e:
                    return True
            return False

        claimed: set[int] = set()  # calls a more specific pattern described
        for c in requires:
            if "require.local" in c or "require.name" in c or "require.effect" in c:
                claimed.add(c["require.call"][0].id)
        for c in requires:
            call = c["require.call"][0]
            bound = "require.local" in c or "require.name" in c
            if not bound and "require.effect" not in c and call.id in claimed:
                continue
            got = self.specifier(c["require.source"][0])
            if got is None:
                continue
            module, mspan = got
            g = bool(guards) and guarded(call.start_byte)
            if "require.local" in c:
                n = c["require.local"][0]
                out.append(Import(module, "default", self.text(n), self.span(n), "require", g, mspan))
                self.at[0] = n.start_byte
                self.import_modules[self.text(n)] = module
            elif "require.name" in c:
                n = c["require.name"][0]
                name, local, span = self.named_binding(n, c.get("require.alias"))
                out.append(Import(module, name, local, span, "require", g, mspan))
                self.at[0] = n.start_byte
                self.import_modules[local] = module
            else:  # not bound: for its effect (a statement of its own) or used as a value
                name = "" if "require.effect" in c else "*"
                out.append(Import(module, name, "", self.span(c["require.source"][0]), "require", g, mspan))
        for kind, n in loads:
            got = self.specifier(n)
            if got is not None:
                out.append(Import(got[0], "*", "", self.span(n), kind, bool(guards) and guarded(n.start_byte),
                                  got[1]))

    def on_export(self, c: dict, names: dict) -> None:
        out = self.out.exports
        text, span = self.text, self.span
        if "export.declaration" in c:
            n = c["export.declaration"][0]
            stmt = c["export.statement"][0]
            if _has_default(stmt):
                out.append(Export("default", text(n), span(n)))
            else:
                out.append(Export(text(n), text(n), span(n)))
        elif "export.pattern" in c:  # export const {a, b: c} = o / [x, y] = a
            for n in _bound_names(c["export.pattern"][0], []):
                out.append(Export(text(n), text(n), span(n)))
        elif "export.value" in c:
            v = c["export.value"][0]
            stmt = c["export.statement"][0]
            inner = _unwrap(v)
            local = text(inner) if inner.type == "identifier" else "default"
            out.append(Export("default", local, span(stmt)))
        elif "export.name" in c:
            n = c["export.name"][0]
            alias = c.get("export.alias")
            src = c.get("export.source")
            name = self.key_text(n) or text(n)
            exported = (self.key_text(alias[0]) or text(alias[0])) if alias else name
            module = self.string_value(src[0]) if src else None
            sp = span(c["export.specifier"][0])
            out.append(Export(exported, name, sp, module))
            if src:  # a re-export imports the name too
                self.reexport(src[0], name, sp, "type" if "export.type" in c else "static")
        elif "export.star" in c:
            src = c["export.star"][0]
            out.append(Export("*", "*", span(src), self.string_value(src)))
            self.reexport(src, "*", span(src), "static")
        elif "export.namespace" in c:
            n = c["export.namespace"][0]
            src = c["export.source"][0]
            out.append(Export(text(n), "*", span(n), self.string_value(src)))
            self.reexport(src, "*", span(n), "static")
        elif "export.assign" in c:  # export = x (TypeScript's CommonJS export)
            v = c["export.assign"][0]
            inner = _unwrap(v)
            out.append(Export("=", text(inner) if inner.type == "identifier" else "=", span(v)))
        elif "export.global" in c:  # export as namespace X (the module is also the global X)
            n = c["export.global"][0]
            out.append(Export(text(n), "*", span(n)))

    def reexport(self, source: Node, name: str, span: Span, kind: str) -> None:
        got = self.specifier(source)
        if got is not None:
            self.out.imports.append(Import(got[0], name, "", span, kind, False, got[1]))

    def on_commonjs(self, c: dict) -> None:
        out = self.out.exports
        stmt = c["commonjs"][0]
        if "commonjs.default" in c:
            v = _unwrap(c["commonjs.default"][0])
            if v.type != "object":  # `module.exports = make()`: what it exports is not known
                self.out.opened.append((self.base + stmt.start_byte,))
            if v.type == "identifier":
                out.append(Export("default", self.text(v), self.span(stmt)))
                return
            out.append(Export("default", "default", self.span(stmt)))
            if v.type == "object":
                for p in v.named_children:
                    if p.type == "shorthand_property_identifier":
                        k = self.text(p)
                        out.append(Export(k, k, self.span(p)))
                    elif p.type in ("pair", "method_definition"):
                        key = p.child_by_field_name("key" if p.type == "pair" else "name")
                        k = self.key_text(key) if key is not None else None
                        if k is None:
                            continue
                        val = p.child_by_field_name("value")
                        local = self.text(val) if val is not None and val.type == "identifier" else f"default.{k}"
                        out.append(Export(k, local, self.span(p)))
        else:
            name = self.text(c["commonjs.name"][0])
            v = _unwrap(c["commonjs.value"][0])
            if v.type == "identifier":
                local = self.text(v)
            else:
                left = stmt.child_by_field_name("left")
                segs = self.dotted(left) if left is not None else None
                local = ".".join(segs) if segs else name
            out.append(Export(name, local, self.span(stmt)))


def _has_default(stmt: Node) -> bool:
    for ch in stmt.children:
        t = ch.type
        if t == "default":
            return True
        if ch.is_named and t != "decorator":
            return False
    return False


_PATTERN_PARTS = frozenset({"object_pattern", "array_pattern", "rest_pattern"})


def _bound_names(n: Node, out: list[Node]) -> list[Node]:
    """The identifiers a destructuring pattern binds, in source order."""
    t = n.type
    if t == "identifier" or t == "shorthand_property_identifier_pattern":
        out.append(n)
    elif t == "pair_pattern":
        v = n.child_by_field_name("value")
        if v is not None:
            _bound_names(v, out)
    elif t == "object_assignment_pattern" or t == "assignment_pattern":
        v = n.child_by_field_name("left")
        if v is not None:
            _bound_names(v, out)
    elif t in _PATTERN_PARTS:
        for ch in n.named_children:
            _bound_names(ch, out)
    return out
