"""Position-aware parsing of JSON and YAML into a small tree of plain nodes.

Every node carries the byte ``Span`` (UTF-8 offsets) of the whole value; mapping entries
also keep the span of their key, so a finding can sit on the exact key or value that is
wrong. JSON is parsed with tree-sitter-json, which recovers from syntax errors (the
recovered tree is still returned); the syntax error itself is located with Python's
strict ``json`` parser, which stops at the exact character (tree-sitter's ERROR nodes
often swallow a whole ``"key": value,`` run). Comments and a UTF-8 BOM: the BOM is
tolerated, comments are errors. YAML is composed with ``yaml.compose`` and the
``CSafeLoader`` when libyaml is available (else ``SafeLoader``; both give code-point
marks, converted to byte offsets); a YAML error means no tree.

Both parsers report, besides syntax errors, duplicate keys in a mapping (the later key
is flagged; like ``JSON.parse`` and PyYAML, the later value wins).

Hostile input stays bounded: YAML is only *composed* (never constructed: no tag such as
``!!python/object`` can build anything; plain scalars are constructed by the safe loader,
and only the int/float/bool/null ones), a document nested more than ``MAX_DEPTH`` levels
is an error at the first value too deep (no recursion gets near Python's limit), and a
YAML document whose aliases would expand it by more than ``MAX_EXPANSION`` values (a
"billion laughs" bomb) is an error at the anchored value that explodes: the tree keeps
aliases shared, and every reader walks it at most once per use, so what aliases can cost
is bounded by that figure.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import Iterator, Union

import yaml

from ..model import Span

MAX_DEPTH = 200  # levels of nesting a contract may have (real ones stay under ~40)
MAX_EXPANSION = 1_000_000  # values YAML aliases may add to a document once expanded

# --------------------------------------------------------------------------- nodes


@dataclass(slots=True, eq=False)
class ScalarNode:
    value: object  # str | int | float | bool | None
    span: Span


@dataclass(slots=True, eq=False)
class SeqNode:
    items: list["Node"]
    span: Span
    open_span: Span  # the ``[`` (or the first item's ``-`` for block sequences)


@dataclass(slots=True, eq=False)
class MapNode:
    entries: list[tuple[str, Span, "Node"]]  # (key, key span, value), in document order
    span: Span
    open_span: Span  # the ``{`` (or the first key for block mappings)
    index: dict[str, int] = field(default_factory=dict)  # key -> position of its last entry

    def get(self, key: str) -> "Node | None":
        i = self.index.get(key)
        return None if i is None else self.entries[i][2]

    def key_span(self, key: str) -> Span | None:
        i = self.index.get(key)
        return None if i is None else self.entries[i][1]

    def __contains__(self, key: str) -> bool:
        return key in self.index

    def items(self) -> Iterator[tuple[str, Span, "Node"]]:
        """Entries with unique keys (the last one wins), in document order."""
        for i, entry in enumerate(self.entries):
            if self.index.get(entry[0]) == i:
                yield entry


Node = Union[ScalarNode, SeqNode, MapNode]


def _finish(node: MapNode) -> list[tuple[str, Span]]:
    """Build ``node.index``; return (key, span) of every duplicated (later) key."""
    dups = []
    for i, (k, ks, _) in enumerate(node.entries):
        if k in node.index:
            dups.append((k, ks))
        node.index[k] = i
    return dups


def to_plain(node: Node | None, _depth: int = 0) -> object:
    """The plain Python value of a node: dict / list / scalar."""
    if node is None or _depth > 200:
        return None
    if isinstance(node, ScalarNode):
        return node.value
    if isinstance(node, SeqNode):
        return [to_plain(n, _depth + 1) for n in node.items]
    return {k: to_plain(v, _depth + 1) for k, _, v in node.items()}


def kind(node: Node | None) -> str:
    """A short name for a node's type, for messages."""
    if node is None:
        return "nothing"
    if isinstance(node, MapNode):
        return "an object"
    if isinstance(node, SeqNode):
        return "an array"
    v = node.value
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    return "a string"


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    message: str
    span: Span


@dataclass(slots=True)
class Parsed:
    root: Node | None
    problems: list[SyntaxProblem]  # syntax errors
    duplicates: list[SyntaxProblem]  # duplicate keys (the document is still usable)


# --------------------------------------------------------------------------- JSON


def parse_json(text: str) -> Parsed:
    from ..languages import parser

    data = text.encode("utf-8", "surrogatepass")
    tree = parser("json").parse(data)
    problems: list[SyntaxProblem] = []
    duplicates: list[SyntaxProblem] = []
    deep: list = []  # the first node nested too deeply (reported once)

    def span(n) -> Span:
        return Span(n.start_byte, n.end_byte)

    def convert(n, depth: int) -> Node | None:
        t = n.type
        if depth > MAX_DEPTH:
            if not deep:
                deep.append(n)
                problems.append(SyntaxProblem(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", Span(n.start_byte, n.start_byte + 1)))
            return None
        if t == "object":
            entries = []
            for c in n.named_children:
                if c.type != "pair":
                    continue
                k = c.child_by_field_name("key")
                v = c.child_by_field_name("value")
                if k is None or v is None or k.is_missing or v.is_missing:
                    continue
                key = _json_string(data, k) if k.type == "string" else data[k.start_byte : k.end_byte].decode("utf-8", "replace")
                value = convert(v, depth + 1)
                if value is not None:
                    entries.append((key, span(k), value))
            node = MapNode(entries, span(n), Span(n.start_byte, n.start_byte + 1))
            for key, ks in _finish(node):
                duplicates.append(SyntaxProblem(f"duplicate key `{key}`: the earlier one is ignored", ks))
            return node
        if t == "array":
            items = []
            for c in n.named_children:
                if c.type in ("comment", "ERROR") or c.is_missing:
                    continue
                value = convert(c, depth + 1)
                if value is not None:
                    items.append(value)
            return SeqNode(items, span(n), Span(n.start_byte, n.start_byte + 1))
        if t == "string":
            return ScalarNode(_json_string(data, n), span(n))
        if t == "number":
            raw = data[n.start_byte : n.end_byte].decode("ascii", "replace")
            try:
                value: object = json.loads(raw)
            except ValueError:
                value = raw
            return ScalarNode(value, span(n))
        if t == "true":
            return ScalarNode(True, span(n))
        if t == "false":
            return ScalarNode(False, span(n))
        if t == "null":
            return ScalarNode(None, span(n))
        return None

    root_node = tree.root_node
    problem = _json_problem(text)
    values = [c for c in root_node.named_children if c.type not in ("comment", "ERROR") and not c.is_missing]
    root = convert(values[0], 0) if values else None
    convert = None  # type: ignore[assignment]  # noqa: F841 - the recursive closure's cycle
    if problem is not None and not (deep and problem is _TOO_DEEP):  # too deep: said once, where
        problems.insert(0, problem)
    return Parsed(root, problems, duplicates)


def _json_string(data: bytes, n) -> str:
    raw = data[n.start_byte : n.end_byte]
    if b"\\" not in raw:
        inner = raw[1:-1] if len(raw) >= 2 and raw.endswith(b'"') else raw[1:]
        return inner.decode("utf-8", "replace")
    try:
        return json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return raw.strip(b'"').decode("utf-8", "replace")


_SPACES = re.compile(r"\s*")
_TOO_DEEP = SyntaxProblem(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", Span(0, 0))
_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[-+0-9.eE]+|[A-Za-z_]+|\S')


def _json_problem(text: str) -> SyntaxProblem | None:
    """The first syntax error, as Python's (strict, C-accelerated) JSON parser sees it.

    tree-sitter recovers well but places errors loosely (a whole ``"key": value,`` run
    becomes one ERROR node); ``json`` stops at the exact character."""
    bom = 1 if text.startswith("\ufeff") else 0  # tolerated, as most editors do
    try:
        json.loads(text[bom:])
        return None
    except RecursionError:
        return _TOO_DEEP
    except json.JSONDecodeError as e:
        offsets = ByteOffsets(text)
        pos, msg = e.pos + bom, e.msg
    if msg.startswith("Unterminated string"):
        return SyntaxProblem("invalid JSON: unterminated string", Span(offsets(pos), offsets(pos + 1)))
    if msg.startswith("Invalid control character"):
        return SyntaxProblem("invalid JSON: control character in a string (escape it)", Span(offsets(pos), offsets(pos + 1)))
    if msg.startswith("Invalid"):  # \escape, \uXXXX
        return SyntaxProblem(f"invalid JSON: {msg[0].lower()}{msg[1:]}", Span(offsets(pos), offsets(pos + 2)))
    pos = _SPACES.match(text, pos).end()  # type: ignore[union-attr]
    m = _JSON_TOKEN.match(text, pos)
    if m is None:  # end of input
        where = offsets(len(text))
        return SyntaxProblem(f"invalid JSON: unexpected end of input ({msg[0].lower()}{msg[1:]})", Span(where, where))
    token = m.group()
    span = Span(offsets(pos), offsets(m.end()))
    if token in ("}", "]") and (msg.startswith("Expecting property name") or msg.startswith("Expecting value")):
        before = len(text[:pos].rstrip())
        if before and text[before - 1] == ",":
            return SyntaxProblem(f"invalid JSON: trailing comma before `{token}`", Span(offsets(before - 1), offsets(before)))
    shown = token if len(token) <= 30 else token[:29] + "…"
    if msg == "Extra data":
        return SyntaxProblem(f"invalid JSON: unexpected `{shown}` after the end of the document", span)
    return SyntaxProblem(f"invalid JSON: unexpected `{shown}` ({msg[0].lower()}{msg[1:]})", span)


# --------------------------------------------------------------------------- YAML


class ByteOffsets:
    """Converts code-point indexes into UTF-8 byte offsets (cheap for ASCII text)."""

    __slots__ = ("_positions", "_extra")

    def __init__(self, text: str) -> None:
        self._positions: list[int] = []
        self._extra: list[int] = []  # cumulative extra bytes up to and including position
        if text.isascii():
            return
        total = 0
        for m in re.finditer(r"[^\x00-\x7f]", text):
            c = ord(m.group())
            total += 1 if c < 0x800 else 2 if c < 0x10000 else 3
            self._positions.append(m.start())
            self._extra.append(total)

    def __call__(self, index: int) -> int:
        if not self._positions:
            return index
        i = bisect.bisect_left(self._positions, index)  # non-ASCII chars strictly before index
        return index + (self._extra[i - 1] if i else 0)


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # same marks (code points), ~5x faster

_YAML_PLAIN_TAGS = {
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}


def parse_yaml(text: str) -> Parsed:
    offsets = ByteOffsets(text)
    problems: list[SyntaxProblem] = []
    duplicates: list[SyntaxProblem] = []
    try:
        # compose only: nodes, never objects (a ``!!python/...`` tag is just a tag here)
        composed = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        start = offsets(mark.index) if mark is not None else 0
        end = _end_of_token(text, mark.index, offsets) if mark is not None else 0
        problem = (e.problem or e.context or "syntax error").strip()
        msg = f"invalid YAML: {problem}"
        if e.context and e.problem:
            msg = f"invalid YAML: {problem} ({e.context.strip()})"
        if problem == "but found another document":
            msg = "invalid YAML: a contract is one YAML document, but a second one starts here"
        elif problem.startswith("exceeded maximum nesting depth"):  # libyaml's own limit (1,000 levels)
            msg = f"invalid YAML: nested more than {MAX_DEPTH} levels deep (the YAML parser stops at this level)"
        problems.append(SyntaxProblem(msg, Span(start, end)))
        return Parsed(None, problems, duplicates)
    except yaml.reader.ReaderError as e:
        # libyaml reports a byte position, PyYAML a code-point one: find the character again.
        bad = yaml.reader.Reader.NON_PRINTABLE.search(text)
        start = offsets(bad.start()) if bad else 0
        problems.append(SyntaxProblem(f"invalid YAML: {e.reason} (character {e.character!r})", Span(start, start + 1)))
        return Parsed(None, problems, duplicates)
    except RecursionError:  # the pure-Python composer (no libyaml) recurses per level
        problems.append(SyntaxProblem(f"invalid YAML: nested more than {MAX_DEPTH} levels deep", Span(0, 0)))
        return Parsed(None, problems, duplicates)
    if composed is None:
        return Parsed(None, problems, duplicates)

    shape = _Shape(composed)
    if shape.too_deep is not None:
        at = offsets(shape.too_deep.start_mark.index)
        problems.append(SyntaxProblem(f"invalid YAML: nested more than {MAX_DEPTH} levels deep", Span(at, at + 1)))
        return Parsed(None, problems, duplicates)
    if shape.expanded > shape.distinct + MAX_EXPANSION:
        bomb = shape.bomb()
        at = offsets(bomb.start_mark.index) if bomb is not None else 0
        problems.append(SyntaxProblem(
            f"invalid YAML: its aliases expand the document by more than {MAX_EXPANSION:,} values "
            "(an alias bomb, as in \"billion laughs\"), starting with the value anchored here: not read",
            Span(at, at + 1)))
        return Parsed(None, problems, duplicates)
    del shape

    constructor = yaml.SafeLoader("")
    done: dict[int, Node] = {}
    busy: set[int] = set()

    def span(n) -> Span:
        return Span(offsets(n.start_mark.index), offsets(n.end_mark.index))

    def scalar(n) -> object:
        if n.tag in _YAML_PLAIN_TAGS:
            try:
                return constructor.construct_object(n)
            except Exception:  # noqa: BLE001 - a weird scalar stays a string
                return n.value
        return n.value

    def convert(n, depth: int) -> Node:
        key = id(n)
        if key in done:
            return done[key]
        if key in busy:  # recursive alias (``&a [*a]``): cut (the depth is checked before)
            return ScalarNode(None, span(n))
        busy.add(key)
        try:
            if isinstance(n, yaml.ScalarNode):
                out: Node = ScalarNode(scalar(n), span(n))
            elif isinstance(n, yaml.SequenceNode):
                items = [convert(c, depth + 1) for c in n.value]
                s = span(n)  # flow: the ``[``; block: the first ``-``
                out = SeqNode(items, s, Span(s.start, s.start + 1) if items or n.flow_style else s)
            else:
                entries: list[tuple[str, Span, Node]] = []
                merges: list[Node] = []
                for k, v in n.value:
                    if k.tag == "tag:yaml.org,2002:merge":
                        merges.append(convert(v, depth + 1))
                        continue
                    kv = convert(k, depth + 1)
                    ktext = _key_text(kv)
                    entries.append((ktext, kv.span, convert(v, depth + 1)))
                own = {e[0] for e in entries}
                merged: list[tuple[str, Span, Node]] = []
                for m in merges:
                    for src in m.items if isinstance(m, SeqNode) else [m]:
                        if isinstance(src, MapNode):
                            for e in src.items():
                                if e[0] not in own:
                                    own.add(e[0])
                                    merged.append(e)
                s = span(n)
                if n.flow_style or not entries:
                    open_span = Span(s.start, s.start + 1) if n.flow_style else s
                else:
                    open_span = entries[0][1]
                out = MapNode(merged + entries, s, open_span)
                for dk, ds in _finish(out):
                    duplicates.append(SyntaxProblem(f"duplicate key `{dk}`: the earlier one is ignored", ds))
        finally:
            busy.discard(key)
        done[key] = out
        return out

    try:
        return Parsed(convert(composed, 0), problems, duplicates)
    finally:
        # leave no reference cycle behind (the recursive closure refers to itself, the loader
        # to its own methods): the tree is then freed as soon as it is no longer used
        convert = None  # type: ignore[assignment]  # noqa: F841
        constructor.constructed_objects.clear()
        constructor.dispose()


def _children(n) -> list:
    if isinstance(n, yaml.SequenceNode):
        return n.value
    if isinstance(n, yaml.MappingNode):
        return [c for pair in n.value for c in pair]
    return []


class _Shape:
    """The composed YAML graph (aliases are shared nodes) measured without recursion:
    its distinct nodes, its size once every alias is expanded (capped), its height, the
    first node deeper than ``MAX_DEPTH``. A recursive alias counts once (it is cut)."""

    def __init__(self, root) -> None:
        cap = MAX_EXPANSION * 4
        size: dict[int, int] = {}
        height: dict[int, int] = {}
        self.parents: dict[int, int] = {}
        self.nodes: dict[int, object] = {}
        entered: set[int] = set()
        stack: list[tuple[object, bool]] = [(root, False)]
        while stack:
            n, done = stack.pop()
            k = id(n)
            kids = _children(n)
            if done:
                entered.discard(k)
                s, h = 1, 0
                for c in kids:
                    ck = id(c)
                    s += size.get(ck, 1)  # not measured: a recursive alias, cut
                    h = max(h, height.get(ck, 1))
                size[k] = min(s, cap)
                height[k] = h + 1
                continue
            if k in size or k in entered:
                continue
            entered.add(k)
            self.nodes[k] = n
            stack.append((n, True))
            for c in kids:
                ck = id(c)
                self.parents[ck] = self.parents.get(ck, 0) + 1
                if ck not in size and ck not in entered:
                    stack.append((c, False))
        self.size = size
        self.distinct = len(size)
        self.expanded = size[id(root)]
        self.too_deep = None
        if height[id(root)] - 1 > MAX_DEPTH:  # follow the tallest branch to the first level too deep
            n, level = root, 0  # (the root is at depth 0, as in ``parse_json``)
            while level <= MAX_DEPTH:
                n = max(_children(n), key=lambda c: height.get(id(c), 0))
                level += 1
            self.too_deep = n

    def bomb(self):
        """The first shared (aliased) value, in document order, that alone expands past
        ``MAX_EXPANSION``; else the shared value whose copies cost the most."""
        shared = [k for k, count in self.parents.items() if count > 1 and k in self.size]
        big = [self.nodes[k] for k in shared if self.size[k] > MAX_EXPANSION]
        if big:
            return min(big, key=lambda n: n.start_mark.index)
        best = max(shared, key=lambda k: self.size[k] * (self.parents[k] - 1), default=None)
        return None if best is None else self.nodes[best]


def _key_text(node: Node) -> str:
    if isinstance(node, ScalarNode):
        v = node.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if v is None:
            return "null"
        return str(v)
    return json.dumps(to_plain(node), sort_keys=True, default=str)


def _end_of_token(text: str, index: int, offsets: ByteOffsets) -> int:
    """End of the token at ``index`` (at least one character, never past the line end)."""
    if index >= len(text):
        return offsets(len(text))
    m = re.compile(r"[^\s,\[\]{}]+|[^\n]").match(text, index)
    end = m.end() if m else index
    return offsets(end)
