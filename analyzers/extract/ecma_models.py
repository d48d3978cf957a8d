"""Data classes of JavaScript and TypeScript files (``FileFacts.data_models``,
``model.DataModel``), for ``ecma.py``'s ``_Program`` (a mixin: ``ModelsMixin``).

Module-level declarations only (exported or not), found by
``queries/ecma-models-typescript.scm`` / ``ecma-models-javascript.scm``:

* a class (``kind="class"``) with at least one field declaration. A field is a
  property declaration of the instance: ``title: string``, ``title?: string`` (not
  required), ``title!: string`` (required), ``readonly id: string`` (``read_only``),
  ``declare x: T``, ``page = 1`` (an initializer: not required), a JavaScript ``title;``.
  Left out: ``static``, ``private`` / ``protected`` and ``#private`` fields, fields whose
  value is a function (methods written as fields), computed names, methods and accessors,
  constructor parameter properties. Decorators (class-validator, ``@ApiProperty``) do not
  matter. ``bases``: what ``extends`` names (as written: ``Base``, ``Base<T>``,
  ``PartialType(CreateNoteDto)``) then each ``implements`` type.
* an interface (``kind="interface"``): its property signatures (``a: string``, ``b?:
  number``, ``readonly c: T``); method signatures are no fields; an index signature
  (``[key: string]: T``) or a member whose name is computed makes it ``open``. ``bases``:
  its ``extends`` types.
* a type alias of an object type, ``type X = { ... }``, or of an intersection,
  ``type X = A & { ... }`` (``kind="interface"``): the object types' properties, the other
  members of the intersection as ``bases`` (``A``, ``Partial<Note>``), as written.

An interface or alias with neither fields nor bases (``interface Props {}``) is no model.
``FieldDecl.type`` is the annotation as written (``""`` when there is none), ``span`` the
field's name (a string name's content); ``DataModel.span`` the declaration's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import Node, QueryCursor

from .. import languages
from ..model import DataModel, FieldDecl, Span

__all__ = ["ModelsMixin"]

_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "generator_function"})
_HIDDEN = frozenset({b"private", b"protected"})
_FIELDS = frozenset({"public_field_definition", "field_definition", "property_signature"})
_BEFORE_NAME = frozenset({"decorator", "accessibility_modifier", "comment"})
_NAMES = frozenset({"property_identifier", "identifier", "number", "type_identifier"})


class ModelsMixin:
    """``on_models``: the data classes of the dispatched statements (``_Program`` provides
    ``src``, ``base``, ``grammar``, ``out``, ``string_value``)."""

    if TYPE_CHECKING:
        src: bytes
        base: int
        grammar: str
        out: object

        def string_value(self, n: Node) -> str: ...

    def on_models(self, targets: list[Node], whole: bool) -> None:
        src = self.src
        ts = self.grammar != "javascript"
        if b"class" not in src and not (ts and (b"interface" in src or b"type" in src)):
            return
        q = languages.query(self.grammar, "ecma-models-typescript.scm" if ts else "ecma-models-javascript.scm")
        found = self.out.data_models  # type: ignore[attr-defined]
        for node in targets:
            cursor = QueryCursor(q)
            cursor.set_max_start_depth(1 if whole else 0)
            for _, c in cursor.matches(node):
                got = self._model(c)
                if got is not None:
                    found.append(got)

    def _model(self, c: dict) -> DataModel | None:
        name = c["model.name"][0]
        body = c.get("model.body")
        if "model.class" in c:
            fields, _ = self._members(body[0], True) if body else ((), False)
            if not fields:
                return None
            heritage = c.get("model.heritage")
            return DataModel(self._text(name), self._class_bases(heritage[0]) if heritage else (), fields,
                             self._name_span(name), "class")
        bases: list[str] = []
        fields: tuple[FieldDecl, ...] = ()
        opened = False
        if "model.interface" in c:
            ext = c.get("model.extends")
            if ext:
                bases = [self._type_name(t) for t in ext[0].named_children if t.type != "comment"]
            if body:
                fields, opened = self._members(body[0], False)
        else:
            parts = [body[0]] if body else _intersected(c["model.intersection"][0], [])
            collected: list[FieldDecl] = []
            for p in parts:
                if p.type == "object_type":
                    got, o = self._members(p, False)
                    collected.extend(got)
                    opened = opened or o
                else:
                    bases.append(self._type_name(p))
            fields = tuple(collected)
        if not fields and not bases:
            return None
        return DataModel(self._text(name), tuple(bases), fields, self._name_span(name), "interface", open=opened)

    def _members(self, body: Node, is_class: bool) -> tuple[tuple[FieldDecl, ...], bool]:
        """The fields a class body, interface body or object type declares, and whether it has
        an index signature."""
        src = self.src
        base = self.base
        out: list[FieldDecl] = []
        opened = False
        for m in body.named_children:
            t = m.type
            if t not in _FIELDS:
                if t == "index_signature":
                    opened = True
                continue
            if t == "property_signature":  # (the most common: interfaces, object types)
                got = self._signature(m)
                if got is not None:
                    out.append(got)
                else:
                    opened = True  # a computed name (`[Key.id]: string`): a member not seen
                continue
            # named children: decorators and an accessibility modifier, the name, the
            # annotation, the value (one C call instead of one per field name)
            parts = m.named_children
            k = 0
            nn = parts[0] if parts else None
            hidden = read_only = False
            while nn is not None and nn.type in _BEFORE_NAME:
                if nn.type == "accessibility_modifier" and src[nn.start_byte:nn.end_byte] in _HIDDEN:
                    hidden = True
                k += 1
                nn = parts[k] if k < len(parts) else None
            if nn is None or hidden:
                continue
            ns, ne = nn.start_byte, nn.end_byte
            if m.start_byte != ns:  # keywords before the name (`readonly`, `static`, `declare`)
                head = src[m.start_byte:ns]
                if b"static" in head or b"readonly" in head:
                    for ch in m.children:
                        ct = ch.type
                        if ct == "static":
                            hidden = True
                        elif ct == "readonly":
                            read_only = True
                        elif ch.start_byte >= ns:
                            break
                    if hidden:
                        continue
            ann = value = None
            for x in parts[k + 1:]:
                xt = x.type
                if xt == "type_annotation":
                    ann = x
                elif xt != "comment":
                    value = x if is_class else None
            if value is not None and value.type in _FUNCTION_VALUES:
                continue
            nt = nn.type
            if nt == "string":
                s0, e0 = (ns + 1, ne - 1) if ne - ns >= 2 else (ns, ne)
                name, span = self.string_value(nn), Span(base + s0, base + e0)
            elif nt in _NAMES:
                name, span = src[ns:ne].decode("utf-8", "replace"), Span(base + ns, base + ne)
            else:
                opened = opened or nt == "computed_property_name"  # a member not seen (#private is never sent)
                continue
            after = ann.start_byte if ann is not None else (value.start_byte if value is not None else m.end_byte)
            optional = b"?" in src[ne:after]  # `title?: string` (`!` and nothing: required)
            # the annotation without its colon
            typ = src[ann.start_byte + 1:ann.end_byte].decode("utf-8", "replace").strip() if ann is not None else ""
            out.append(FieldDecl(name, typ, not optional and value is None, span, read_only))
        return tuple(out), opened

    def _signature(self, m: Node) -> FieldDecl | None:
        """A property signature ``[readonly] name[?]: type``: its name node, then the text
        after it (a signature has no value; the separator after it is the body's)."""
        nn = m.named_child(0)
        if nn is None:
            return None
        src, base = self.src, self.base
        nt = nn.type
        ns, ne = nn.start_byte, nn.end_byte
        if nt == "string":
            s0, e0 = (ns + 1, ne - 1) if ne - ns >= 2 else (ns, ne)
            name, span = self.string_value(nn), Span(base + s0, base + e0)
        elif nt in _NAMES:
            name, span = src[ns:ne].decode("utf-8", "replace"), Span(base + ns, base + ne)
        else:
            return None  # computed names
        ms = m.start_byte
        read_only = ms != ns and b"readonly" in src[ms:ns]
        rest = src[ne:m.end_byte].lstrip()
        if b"/" not in rest[:1]:
            optional = rest[:1] == b"?"
            colon = rest.find(b":")
            typ = rest[colon + 1:].decode("utf-8", "replace").strip() if colon >= 0 else ""
        else:  # a comment after the name: the tokens themselves
            optional, typ = False, ""
            for ch in m.children:
                if ch.type == "?":
                    optional = True
                elif ch.type == "type_annotation":
                    typ = src[ch.start_byte + 1:ch.end_byte].decode("utf-8", "replace").strip()
        return FieldDecl(name, typ, not optional, span, read_only)

    # ------------------------------------------------------------------ names

    def _text(self, n: Node) -> str:
        return self.src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def _name_span(self, n: Node) -> Span:
        return Span(self.base + n.start_byte, self.base + n.end_byte)

    def _type_name(self, n: Node) -> str:
        """A base type as written (``K<T>``, ``ns.Base``, ``Partial<Note>``)."""
        return self._text(n)

    def _class_bases(self, heritage: Node) -> tuple[str, ...]:
        out: list[str] = []
        for h in heritage.named_children:
            if h.type == "extends_clause":
                value = h.child_by_field_name("value")
                if value is not None:  # with its type arguments (`Base<T>`)
                    out.append(self.src[value.start_byte:h.end_byte].decode("utf-8", "replace").strip())
                elif h.named_child_count:  # the JavaScript grammar: `extends X` without a field
                    first = h.named_child(0)
                    if first is not None:
                        out.append(self._text(first))
            elif h.type == "implements_clause":
                out.extend(self._type_name(t) for t in h.named_children if t.type != "comment")
            elif h.type != "comment":  # JavaScript: the heritage holds the expression itself
                out.append(self._text(h))
        return tuple(out)


def _intersected(n: Node, out: list[Node]) -> list[Node]:
    """The members of an intersection type, in order (``A & B & {...}`` nests to the left)."""
    for ch in n.named_children:
        if ch.type == "intersection_type":
            _intersected(ch, out)
        elif ch.type == "parenthesized_type" and ch.named_child_count == 1 and ch.named_child(0).type == "object_type":
            out.append(ch.named_child(0))  # type: ignore[arg-type]
        elif ch.type != "comment":
            out.append(ch)
    return out
