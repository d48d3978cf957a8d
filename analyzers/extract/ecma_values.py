"""Object-literal keys and the value forms the field checks need, for ``ecma.py``'s
``_Program.obj`` and ``_Program.value`` (plain functions of a node and the program's bytes).

* ``ObjVal.keys``: every key an object literal writes, in order: a ``pair``'s key (an
  identifier; a string key's content, without its quotes, and the span of that content; a
  number as written; ``["name"]``, a computed key that is one string literal, as that name),
  a shorthand ``{ title }`` (``shorthand=True``), a method, getter or setter ``foo() {}``
  (its name). A key that cannot be read (``[k]: v``, ``[`a${b}`]: v``) sets
  ``ObjVal.computed``. Spreads are no keys (they are ``fields`` named ``SPREAD``).
* ``JSON.stringify(x, ...)`` as a value is the value of ``x`` when that is an object
  (``ObjVal``), a parameter of the enclosing function (a ``StrVal`` of one ``Arg``, which
  the linker binds at the callers) or a value whose variable is declared with a
  type (``StrVal.type_name``); anything else stays what it was (``computed by
  JSON.stringify()``). ``new URLSearchParams(x)`` likewise when ``x`` is an object that is
  not an array (a list of entries is not judged).
"""

from __future__ import annotations

from tree_sitter import Node

from ..model import Arg, Key, ObjVal, Span, StrVal

__all__ = ["literal_key", "STRINGIFY", "SEARCH_PARAMS", "passes_through"]

STRINGIFY = b"JSON.stringify"
SEARCH_PARAMS = b"URLSearchParams"


def _string_key(src: bytes, n: Node, base: int, unescape) -> Key:
    s, e = n.start_byte, n.end_byte
    if e - s >= 2 and src[e - 1] == src[s]:
        s, e = s + 1, e - 1
    return Key(unescape(src[s:e].decode("utf-8", "replace")), Span(base + s, base + e))


def literal_key(src: bytes, n: Node, base: int, unescape) -> Key | None:
    """The key a ``pair``'s key node or a method's name node writes; None when it cannot be
    read (a computed key that is not one string literal). ``unescape`` reads a string's
    escapes (``ecma_exprs.unescape``)."""
    t = n.type
    if t == "string":
        return _string_key(src, n, base, unescape)
    if t == "computed_property_name":
        inner = n.named_child(0)
        if inner is not None and n.named_child_count == 1 and inner.type == "string":
            return _string_key(src, inner, base, unescape)
        return None
    if t == "private_property_identifier":
        return None
    return Key(src[n.start_byte:n.end_byte].decode("utf-8", "replace"), Span(base + n.start_byte, base + n.end_byte))


def passes_through(v) -> bool:
    """Whether the value of ``JSON.stringify(x)`` / ``new URLSearchParams(x)`` is that of
    ``x``: an object, a parameter (or a field of one) of the enclosing function, or a value
    whose variable is declared with a type (``StrVal.type_name``)."""
    t = type(v)
    if t is ObjVal:
        return True
    return t is StrVal and (bool(v.type_name) or len(v.expr) == 1 and type(v.expr[0]) is Arg)
