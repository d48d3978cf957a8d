"""TypeScript declaration files: the names they export without writing ``export``, and the
modules their ``declare module 'x' { ... }`` blocks declare.

TypeScript exports every top-level declaration of a declaration file that is a module, and
of an ambient module block, unless it has an export declaration (``export { ... }``,
``export * from``, ``export =``, ``export default x``): what declaration emitters mean by
the ``export {};`` they write last (checked with tsc 5.9: TS2459 only with one). The rules
are the query ``queries/ecma-declarations.scm``; this module applies them. Pure.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node, QueryCursor

from ..languages import parser, query
from ..model import Export, FileFacts, Span

DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")


def is_declaration_file(path: str) -> bool:
    return path.endswith(DECLARATION_SUFFIXES)


def _top(root: Node):
    """(captures of one top-level statement) for each statement of ``root``."""
    q = query("typescript", "ecma-declarations.scm")
    for stmt in root.named_children:
        caps: dict[str, list[Node]] = {}
        for _, got in QueryCursor(q).matches(stmt):
            for name, nodes in got.items():
                mine = [n for n in nodes if _owned(n, stmt)]
                if mine:  # (a key only for what this statement itself has)
                    caps.setdefault(name, []).extend(mine)
        yield stmt, caps


def _owned(node: Node, stmt: Node) -> bool:
    """Whether ``node`` belongs to ``stmt`` itself, not to a block nested in it."""
    p = node.parent
    while p is not None and p != stmt:
        if p.type in ("statement_block", "class_body", "interface_body", "object_type"):
            return False
        p = p.parent
    return True


def with_implicit_exports(facts: FileFacts, root: Node, block: bool = False) -> FileFacts:
    """``facts`` with the exports TypeScript gives a declaration file's (``block``: an
    ambient module block's) top-level declarations when no export declaration says
    otherwise. A declaration file without imports or exports is a global script: it
    exports nothing, and stays as it is."""
    names: list[Node] = []
    module = block
    for stmt, caps in _top(root):
        if stmt.type == "export_statement" and "export.clause" in caps:
            return facts
        if "module.item" in caps:
            module = True
        names.extend(caps.get("declared", ()))
    if not module:
        return facts
    have = {e.name for e in facts.exports}
    extra = []
    for n in names:  # (a name two patterns capture is one declaration)
        name = n.text.decode("utf-8", "replace")
        if name not in have:
            have.add(name)
            extra.append(Export(name, name, Span(n.start_byte, n.end_byte)))
    if not extra:
        return facts
    return replace(facts, exports=tuple(sorted((*facts.exports, *extra), key=lambda e: e.span.start)))


def declaration_facts(path: str, text: str, tree=None, block: bool = False) -> FileFacts:
    """``extract(path, text)`` of a declaration file (``block``: the body of an ambient
    module block), with the implicit exports."""
    from .ecma import extract_ecma

    if tree is None:
        tree = parser("typescript").parse(text.encode("utf-8", "surrogatepass"))
    facts = with_implicit_exports(extract_ecma(path, text, "typescript", tree), tree.root_node, block)
    if block or not any("*" not in m for m in facts.declared_modules):
        return facts
    augments = _augments(path, tree.root_node)
    return replace(facts, augments=augments) if augments else facts


def _augments(path: str, root: Node) -> tuple[tuple[str, tuple[str, ...] | None], ...]:
    """``FileFacts.augments`` of a declaration file: empty for a global script (its blocks
    declare modules); for a module, the names each module's blocks export together."""
    blocks: dict[str, set[str] | None] = {}
    module = False
    for _, caps in _top(root):
        module = module or "module.item" in caps
        for name, body in zip(caps.get("module.name", ()), caps.get("module.body", ())):
            spec = name.text.decode("utf-8", "replace")[1:-1]
            if "*" in spec:
                continue
            inner = declaration_facts(path, body.text[1:-1].decode("utf-8", "replace"), block=True)
            names = None if inner.open_exports or any(e.name in ("*", "=") for e in inner.exports) \
                else {e.name for e in inner.exports}
            have = blocks.get(spec, set())
            blocks[spec] = None if names is None or have is None else have | names
    if not module:
        return ()
    return tuple((spec, None if names is None else tuple(sorted(names))) for spec, names in blocks.items())


# what a namespace may merge with and still give the module only its members: a function's
# own properties are none a named import can take (a class's statics, an enum's members or a
# variable's properties would be)
_MERGES_WITH = frozenset({"function_signature", "internal_module", "module", "interface_declaration",
                          "type_alias_declaration"})


def export_assigned(path: str, text: str) -> FileFacts | None:
    """The names a declaration file with ``export = N`` offers named imports when ``N`` is
    a namespace of the file (``@types/react``: ``export = React`` over ``declare namespace
    React { ... }``), merged with its other blocks and with functions of the same name, as
    tsc merges them: each body's members, read as an ambient block's (every declaration
    exported unless the body has an export declaration; checked with tsc 6.0). None when
    there is no such namespace, or ``N`` is also a class, an enum or a variable."""
    src = text.encode("utf-8", "surrogatepass")
    tree = parser("typescript").parse(src)
    target: bytes | None = None
    bodies: list[tuple[bytes, Node]] = []
    values: set[bytes] = set()
    for _, caps in _top(tree.root_node):
        for n in caps.get("export.assigned", ()):
            target = n.text
        bodies.extend(zip((n.text for n in caps.get("namespace.name", ())), caps.get("namespace.body", ())))
        values.update(n.text for n in caps.get("declared", ()) if n.parent is not None
                      and n.parent.type not in _MERGES_WITH)
    mine = [body for name, body in bodies if name == target]
    if target is None or target in values or not mine:
        return None
    blocks = [declaration_facts(path, src[b.start_byte + 1:b.end_byte - 1].decode("utf-8", "replace"), block=True)
              for b in mine]
    return replace(blocks[0], exports=tuple(e for f in blocks for e in f.exports),
                   open_exports=any(f.open_exports for f in blocks))


def ambient_module(path: str, text: str, module: str) -> FileFacts | None:
    """The facts of the ``declare module '<module>' { ... }`` block of a declaration file,
    as if its body were a file of its own (the first such block; None when there is none)."""
    src = text.encode("utf-8", "surrogatepass")
    tree = parser("typescript").parse(src)
    for _, caps in _top(tree.root_node):
        names, bodies = caps.get("module.name", ()), caps.get("module.body", ())
        if not names or not bodies or names[0].text.decode("utf-8", "replace")[1:-1] != module:
            continue
        body = bodies[0]
        return declaration_facts(path, src[body.start_byte + 1:body.end_byte - 1].decode("utf-8", "replace"),
                                 block=True)
    return None
