"""Stubs in generated code (issue 15, "Slice": generated files "are not stubs";
``docs/stages.md``, "Stubs"). Pure: ``find_stubs(path, text)`` parses the text with the
queries ``queries/stubs-python.scm`` and ``queries/stubs-ecma.scm`` (the grammar shapes)
and applies the exemptions and the text rules here.

A **stub** is one of (``Stub.kind``):

- ``todo-comment``: a comment with ``TODO``, ``FIXME`` or ``XXX`` as a word, in capitals
  (a comment about a "todo list" is not one);
- ``empty-body`` (TypeScript/JavaScript): a named function or method whose block has no
  statement and no comment;
- ``pass-body``, ``ellipsis-body`` (Python): a function whose body is only ``pass`` or
  only ``...`` (after an optional docstring);
- ``not-implemented``: a body that is only ``raise NotImplementedError`` (with or without
  arguments), or only ``throw new Error("...")`` whose message says "not implemented",
  "implement me", "TODO" or "unimplemented";
- ``empty-return``: a body that is only ``return None``, ``return {}``, ``return []``
  (Python) or ``return null``, ``return undefined``, ``return {}``, ``return []``
  (TypeScript/JavaScript);
- ``placeholder-log``: ``print(...)``, a logging call (``logger.info``, ``logging.warning``,
  ``console.log``, ``console.warn``, ...) whose literal first argument says ``TODO``,
  ``FIXME``, "not implemented", "implement me" or "placeholder".

Never stubs (no false alarms on legitimate code):

- a constructor with an empty body (TypeScript parameter properties, Angular injection:
  ``constructor(private http: HttpClient) {}``), an empty Angular lifecycle hook
  (``ngOnInit() {}``), a function named ``noop``;
- a callback written in place (``() => {}`` as an argument, a default parameter, a JSX
  attribute, a class field), a nested function: only named functions are judged, i.e.
  function declarations, methods, and arrow functions or function expressions bound by a
  top-level or exported ``const``/``let``; arrow functions with an expression body are
  not judged;
- TypeScript interface members, abstract methods, overload signatures (no body), and
  declaration files (``.d.ts``: nothing but comments is judged);
- Python: a function decorated with ``@abstractmethod`` (any ``abc.abstract*``) or
  ``@overload``; any method of a ``Protocol`` class; a ``raise NotImplementedError`` or
  ``...`` method of an abstract base class (bases ``ABC``/``abc.ABC``, ``metaclass=ABCMeta``,
  or a class named ``Base…``/``Abstract…``/``…Base``); a ``.pyi`` file's bodies; an empty
  or re-exporting ``__init__.py`` (nothing there is a function); ``except ...: pass`` and
  ``class E(Exception): pass`` (only function bodies are judged).

Languages: Python, TypeScript, TSX, JavaScript (by the path's extension, or ``language``:
``python``, ``typescript``, ``tsx``, ``javascript``). Any other file has no stubs (an empty
list). A text that does not parse cleanly is judged as far as the parse goes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor

from .. import languages
from ..model import Span

_GRAMMARS = ("python", "typescript", "tsx", "javascript")
_QUERY_FILE = {"python": "stubs-python.scm", "typescript": "stubs-ecma.scm", "tsx": "stubs-ecma.scm",
               "javascript": "stubs-ecma.scm"}
_MARKER = re.compile(r"\b(TODO|FIXME|XXX)\b")
_PHRASE = re.compile(r"\b(not\s+(yet\s+)?implemented|unimplemented|implement\s+me|placeholder)\b", re.I)
_NG_HOOK = re.compile(r"ng[A-Z]\w*")
_NOOP = re.compile(r"_*(noop|nop|no_op)_*", re.I)
_ABSTRACT_CLASS = re.compile(r"(Base|Abstract)[A-Z_]\w*|\w*Base")
_SHOWN = 40


@dataclass(frozen=True)
class Stub:
    """A stub in a file: ``span`` (UTF-8 bytes) is the comment, the log call's message, or
    the function's name; ``kind`` one of ``todo-comment``, ``empty-body``, ``pass-body``,
    ``ellipsis-body``, ``not-implemented``, ``empty-return``, ``placeholder-log``."""

    span: Span
    kind: str
    message: str


def _text(n: Node) -> str:
    return n.text.decode("utf-8", "replace") if n.text is not None else ""


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _placeholder(text: str) -> bool:
    return bool(_MARKER.search(text) or _PHRASE.search(text))


def _key(n: Node) -> tuple[int, int, str]:
    return (n.start_byte, n.end_byte, n.type)


def _empty_container(n: Node) -> bool:
    return n.type in ("none", "null", "undefined") or (n.type in ("dictionary", "list", "object", "array")
                                                       and n.named_child_count == 0)


# ---------------------------------------------------------------------------- Python exemptions
def _decorators(fn: Node) -> list[str]:
    parent = fn.parent
    if parent is None or parent.type != "decorated_definition":
        return []
    return [_text(d).lstrip("@").split("(", 1)[0].strip() for d in parent.named_children if d.type == "decorator"]


def _enclosing_class(fn: Node) -> Node | None:
    n = fn.parent
    if n is not None and n.type == "decorated_definition":
        n = n.parent
    if n is None or n.type != "block":
        return None
    cls = n.parent
    return cls if cls is not None and cls.type == "class_definition" else None


def _class_bases(cls: Node) -> list[str]:
    sup = cls.child_by_field_name("superclasses")
    return [" ".join(_text(a).split()) for a in sup.named_children] if sup is not None else []


def _python_exempt(fn: Node, kind: str) -> bool:
    for d in _decorators(fn):
        last = d.rsplit(".", 1)[-1]
        if last.startswith("abstract") or last == "overload":
            return True
    cls = _enclosing_class(fn)
    if cls is None:
        return False
    bases = _class_bases(cls)
    plain = [b.split("[", 1)[0].rsplit(".", 1)[-1] for b in bases]
    if "Protocol" in plain:
        return True
    abstract = "ABC" in plain or any(b.replace(" ", "").startswith("metaclass=") and "ABCMeta" in b for b in bases)
    name = cls.child_by_field_name("name")
    if name is not None and _ABSTRACT_CLASS.fullmatch(_text(name)):
        abstract = True
    return abstract and kind in ("not-implemented", "ellipsis-body")


# ---------------------------------------------------------------------------- ECMAScript exemptions
def _ecma_exempt(fn: Node, name: str) -> bool:
    if fn.type == "method_definition" and name in ("constructor", '"constructor"', "'constructor'"):
        return True
    return bool(_NG_HOOK.fullmatch(name) or _NOOP.fullmatch(name))


# ---------------------------------------------------------------------------- the check
def _describe(kind: str, name: str, detail: str = "") -> str:
    what = {
        "empty-body": f"{name} has an empty body",
        "pass-body": f"{name}'s body is only `pass`",
        "ellipsis-body": f"{name}'s body is only `...`",
        "not-implemented": f"{name} only raises {detail or 'NotImplementedError'}",
        "empty-return": f"{name} only returns {detail}",
    }[kind]
    return what + ": a stub, not an implementation"


def find_stubs(path: str, text: str, language: str | None = None) -> list[Stub]:
    """The stubs of one file, in text order. See the module docstring for what is one."""
    grammar = language or languages.language_of(path)
    if grammar not in _GRAMMARS:
        return []
    lower = path.lower()
    bodies_judged = not lower.endswith((".pyi", ".d.ts", ".d.mts", ".d.cts"))
    try:
        src = text.encode("utf-8", "surrogatepass")
    except UnicodeError:
        return []
    tree = languages.parser(grammar).parse(src)
    query = languages.query(grammar, _QUERY_FILE[grammar])
    functions: list[tuple[Node, Node, Node]] = []
    shapes: dict[tuple[int, int, str], tuple[str, str]] = {}
    out: list[Stub] = []
    for _, caps in QueryCursor(query).matches(tree.root_node):
        if "function" in caps:
            functions.append((caps["function"][0], caps["function.name"][0], caps["function.body"][0]))
        elif "comment" in caps:
            c = caps["comment"][0]
            m = _MARKER.search(_text(c))
            if m:
                out.append(Stub(Span(c.start_byte, c.end_byte), "todo-comment",
                                f"{m.group(1)} comment: {_short(_text(c))}"))
        elif "log.message" in caps:
            msg = caps["log.message"][0]
            if _placeholder(_text(msg)):
                out.append(Stub(Span(msg.start_byte, msg.end_byte), "placeholder-log",
                                f"placeholder log message {_short(_text(msg))}: a stub, not an implementation"))
        elif "shape.pass" in caps:
            shapes[_key(caps["shape.pass"][0])] = ("pass-body", "")
        elif "shape.ellipsis" in caps:
            shapes[_key(caps["shape.ellipsis"][0])] = ("ellipsis-body", "")
        elif "shape.raise" in caps:
            shapes[_key(caps["shape.raise"][0])] = ("not-implemented", "NotImplementedError")
        elif "shape.return" in caps:
            value = caps["shape.value"][0]
            if _empty_container(value):
                shapes[_key(caps["shape.return"][0])] = ("empty-return", _text(value))
        elif "shape.throw" in caps:
            message = _text(caps["shape.message"][0])
            if _placeholder(message):
                shapes[_key(caps["shape.throw"][0])] = ("not-implemented", f"Error({_short(message)})")
    if bodies_judged:
        seen: set[tuple[int, int]] = set()
        for fn, name_node, body in functions:
            name = _text(name_node)
            if (body.start_byte, body.end_byte) in seen:
                continue
            seen.add((body.start_byte, body.end_byte))
            if grammar == "python":
                shape = shapes.get(_key(body))
                if shape is None or _python_exempt(fn, shape[0]):
                    continue
            else:
                if _ecma_exempt(fn, name):
                    continue
                shape = ("empty-body", "") if body.named_child_count == 0 else shapes.get(_key(body))
                if shape is None:
                    continue
            kind, detail = shape
            out.append(Stub(Span(name_node.start_byte, name_node.end_byte), kind, _describe(kind, name, detail)))
    out.sort(key=lambda s: (s.span.start, s.span.end, s.kind))
    return out
