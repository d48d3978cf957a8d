"""The architecture rules judged on function bodies, which the per-file facts do not hold:
``pure`` (functions marked pure must not call side-effect APIs, directly or through a
helper of the same file) and ``no-hardcoded-config`` (a literal inside a function must not
repeat a value the configuration module defines). Both are ``invariant-violation`` at the
offending call or literal (``docs/invariants.md``).

Pure: text in, findings out. A file's text comes through the ``text`` callable the index
gives the analyses (``analyses.Context.text``); nothing here reads a file. The tree-sitter
queries are ``queries/body-python.scm`` and ``queries/body-ecma.scm`` (with
``body-typescript.scm`` and ``body-javascript.scm`` for what only one grammar has),
compiled once per purpose and process. Python, TypeScript, TSX, JavaScript (JSX) and the
``<script>`` blocks of Vue and Svelte files are judged; ``.pyi`` and ``.d.ts`` files are not
(no bodies).

How ``pure`` judges a file the rule's ``modules`` name:

- a function is pure when it has the rule's marker (default ``pure``): a decorator
  ``@pure`` / ``@x.pure`` (called or not), or a ``@pure`` tag in its docstring or in the
  comment right before it (JSDoc); with ``all_functions`` every named function of the file
  is;
- a call in a pure function is named through the file's imports (``from requests import
  get``: ``get()`` is ``requests.get``; ``import * as fs from 'node:fs'``: ``fs.readFile``;
  ``import { readFile } from 'fs/promises'``: ``fs.promises.readFile``, a module's ``/``
  read as a ``.``); a call of a function of the
  same file (by name, or ``self.x``/``this.x`` for a method of the same class) is followed,
  breadth first, and the shortest chain to an effect is shown;
- an effect is a name matching one of the rule's ``effects`` (``*`` matches anything, dots
  included) or, without any, ``DEFAULT_EFFECTS``. A call through an object held in a
  variable (``logger.info``, ``path.write_text``) cannot be named and is not judged.

How ``no-hardcoded-config`` judges a file: see ``hardcoded`` and ``config_values``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from typing import Callable, Iterable

from tree_sitter import Query, QueryCursor
from wcmatch import fnmatch

from .codes import CODES
from .invariants import Rule, matches, shown_name
from .languages import grammar, language_of, parser, query_source
from .model import Finding, Import, Span

BODY_KINDS = ("pure", "no-hardcoded-config")

# What a pure function must not call when a rule names no effects: output, files, the
# network, processes, the environment, logging, the clock and randomness.
DEFAULT_EFFECTS: tuple[str, ...] = (
    # Python
    "print", "input", "open", "exec", "eval", "breakpoint",
    "os.system", "os.popen", "os.remove", "os.unlink", "os.rename", "os.replace", "os.mkdir", "os.makedirs",
    "os.rmdir", "os.removedirs", "os.chdir", "os.chmod", "os.kill", "os.getenv", "os.putenv", "os.environ.*",
    "sys.exit", "sys.stdout.*", "sys.stderr.*", "subprocess.*", "shutil.*", "socket.*", "requests.*", "httpx.*",
    "aiohttp.*", "urllib.request.*", "logging.*", "random.*", "time.sleep", "time.time",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.date.today",
    # JavaScript and TypeScript
    "console.*", "fs.*", "fetch", "XMLHttpRequest", "WebSocket", "axios", "axios.*", "process.exit",
    "process.stdout.*", "process.stderr.*", "child_process.*", "http.request", "http.get", "https.request",
    "https.get", "net.*", "localStorage.*", "sessionStorage.*", "document.*", "alert", "confirm", "prompt",
    "setTimeout", "setInterval", "Math.random", "Date.now", "crypto.getRandomValues", "crypto.randomUUID",
    "performance.now",
)

_FILES = {"python": ("body-python.scm",), "typescript": ("body-ecma.scm", "body-typescript.scm"),
          "tsx": ("body-ecma.scm", "body-typescript.scm"), "javascript": ("body-ecma.scm", "body-javascript.scm")}
_PURE_USES = frozenset({"named", "pure"})
_LITERAL_USES = frozenset({"scope", "literal"})
_CONFIG_USES = frozenset({"config"})
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$#][\w$]*)*")
_SPACE = re.compile(r"\s+")
_DECIMAL = re.compile(r"(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+")
_SOURCE_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py")
_SHOWN_VALUE = 40  # a longer literal is cut in a message


# ---------------------------------------------------------------------- which files

def _family(path: str) -> str | None:
    """``python`` or ``ecma`` for a file the body rules can judge (declarations excluded)."""
    lang = language_of(path)
    if lang is None or path.endswith((".pyi", ".d.ts", ".d.mts", ".d.cts")):
        return None
    return "python" if lang == "python" else "ecma"


@lru_cache(maxsize=256)
def config_candidates(config: str) -> tuple[str, ...]:
    """The workspace files a rule's ``config`` may name, in the order they are tried: a
    dotted Python module (``app.config``: the module, from the root and below ``src/``), or
    a workspace path, with its extension or without (then each source extension and an
    ``index`` file)."""
    config = config.strip()
    if config.startswith("./"):
        config = config[2:]
    if "/" not in config:
        stem = config.replace(".", "/")
        return (f"{stem}.py", f"{stem}/__init__.py", f"src/{stem}.py", f"src/{stem}/__init__.py")
    config = config.rstrip("/")
    if language_of(config):
        return (config,)
    return (*(config + ext for ext in _SOURCE_EXTENSIONS),
            *(f"{config}/index{ext}" for ext in (".ts", ".tsx", ".js", ".jsx")), f"{config}/__init__.py")


def _config_family(config: str) -> str | None:
    """The language of the config module as the rule writes it (None: not known before
    finding the file, a path without an extension)."""
    if "/" not in config or config.endswith(".py"):
        return "python"
    return "ecma" if language_of(config) else None


def _governs(rule: Rule, path: str) -> bool:
    family = _family(path)
    if family is None:
        return False
    if rule.kind == "pure":
        return any(matches(m, path) for m in rule.modules)
    if rule.kind == "no-hardcoded-config":
        if path in config_candidates(rule.config):
            return False
        wanted = _config_family(rule.config)
        if wanted is not None and wanted != family:
            return False
        return not rule.modules or any(matches(m, path) for m in rule.modules)
    return False


def governed(path: str, rules: tuple) -> bool:
    """Whether a ``pure`` or ``no-hardcoded-config`` rule judges this file (cheap: patterns
    only; the analysis' gate)."""
    return any(r.kind in BODY_KINDS and _governs(r, path) for r in rules)


# ---------------------------------------------------------------------- parsing

@cache
def _query(grammar_name: str, uses: frozenset[str]) -> Query:
    """The body queries of a grammar with only the patterns of these uses (compiled once)."""
    q = Query(grammar(grammar_name), "\n".join(query_source(f) for f in _FILES[grammar_name]))
    for i in range(q.pattern_count):
        if q.pattern_settings(i).get("use") not in uses:
            q.disable_pattern(i)
    return q


@dataclass
class _Unit:
    """One parsed piece of a file: the whole file, or a component's ``<script>`` block
    (``offset``: where its bytes start in the file)."""

    grammar: str
    src: bytes
    offset: int
    root: object

    def text(self, node) -> str:
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def span(self, node) -> Span:
        return Span(node.start_byte + self.offset, node.end_byte + self.offset)

    def matches(self, uses: frozenset[str]) -> list:
        return QueryCursor(_query(self.grammar, uses)).matches(self.root)


def _units(path: str, text: str) -> list[_Unit]:
    lang = language_of(path)
    src = text.encode("utf-8", "surrogatepass")
    if lang in ("vue", "svelte"):
        from .extract.components import script_blocks

        return [_Unit(g, body, offset, parser(g).parse(body).root_node) for offset, body, g in script_blocks(src)]
    if lang in _FILES:
        return [_Unit(lang, src, 0, parser(lang).parse(src).root_node)]
    return []


class _Parsed:
    """A file's text, parsed when a rule first needs its trees (shared by the rules)."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        self._units: list[_Unit] | None = None

    @property
    def units(self) -> list[_Unit]:
        if self._units is None:
            self._units = _units(self.path, self.text)
        return self._units


# ---------------------------------------------------------------------- pure

@dataclass
class _Fn:
    name: str
    cls: str = ""  # the class of a method
    decorators: list[str] = field(default_factory=list)
    doc: str = ""
    calls: list[tuple[str, Span]] = field(default_factory=list)  # (callee as written, its span)


def _functions(units: list[_Unit]) -> list[_Fn]:
    """The named functions of a file, each with the calls it makes itself (a call inside a
    callback or a lambda belongs to the named function around it)."""
    out: list[_Fn] = []
    for unit in units:
        fns: dict[int, _Fn] = {}
        decorators: dict[int, list[str]] = {}
        docs: dict[int, str] = {}
        classes: dict[int, str] = {}
        calls = []
        for _, caps in unit.matches(_PURE_USES):
            if "call" in caps:
                calls.append(caps["call.callee"][0])
            elif "function" in caps:
                node = caps["function"][0]
                name = caps.get("function.name")
                fns[node.id] = _Fn(unit.text(name[0]) if name else "default")
            elif "function.decorated" in caps:
                decorated = caps["function.decorated"][0].id
                decorators.setdefault(decorated, []).append(unit.text(caps["function.decorator"][0]))
            elif "function.documented" in caps:
                docs[caps["function.documented"][0].id] = unit.text(caps["function.doc"][0])
            elif "method" in caps:
                classes[caps["method"][0].id] = unit.text(caps["method.class"][0])
        for fid, fn in fns.items():
            fn.decorators = decorators.get(fid, [])
            fn.doc = docs.get(fid, "")
            fn.cls = classes.get(fid, "")
        for callee in calls:
            node = callee.parent
            while node is not None and node.id not in fns:
                node = node.parent
            if node is not None:
                fns[node.id].calls.append((_SPACE.sub("", unit.text(callee)).replace("?.", "."), unit.span(callee)))
        out.extend(fns.values())
    return out


def _aliases(imports: Iterable[Import], python: bool) -> dict[str, str]:
    """Local name -> what it names (``g`` -> ``requests.get``, ``fs`` -> ``fs``): the
    file's imports of modules (relative ones left out: not an API)."""
    out: dict[str, str] = {}
    for imp in imports:
        if not imp.local or not imp.module or imp.module.startswith(".") or imp.kind == "glob":
            continue
        module = imp.module
        if not python:
            module = module.removeprefix("node:").replace("/", ".")
        out[imp.local] = module if imp.name in ("*", "default", "") else f"{module}.{imp.name}"
    return out


def _qualified(callee: str, aliases: dict[str, str]) -> str:
    parts = callee.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in aliases:
            return ".".join([aliases[head], *parts[k:]])
    return callee


def _marked(fn: _Fn, marker: str) -> bool:
    for dec in fn.decorators:
        name = _SPACE.sub("", dec.lstrip("@")).split("(", 1)[0]
        if name == marker or name.endswith("." + marker):
            return True
    return bool(fn.doc) and re.search(rf"(?<![\w@.]){re.escape('@' + marker)}(?![\w.-])", fn.doc) is not None


@lru_cache(maxsize=64)
def _effects(effects: tuple[str, ...]):
    return fnmatch.compile(list(effects or DEFAULT_EFFECTS), flags=fnmatch.CASE)


class _Calls:
    """What the calls of one file's functions name: a helper of the file, or an API."""

    def __init__(self, fns: list[_Fn], aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.by_name: dict[str, list[_Fn]] = {}
        self.methods: dict[tuple[str, str], list[_Fn]] = {}
        for fn in fns:
            if fn.cls:
                self.methods.setdefault((fn.cls, fn.name), []).append(fn)
            else:
                self.by_name.setdefault(fn.name, []).append(fn)

    def target(self, fn: _Fn, callee: str) -> tuple[list[_Fn], str | None]:
        """(the same-file functions the call may run, the API it names otherwise)."""
        if _NAME.fullmatch(callee) is None:
            return [], None
        parts = callee.split(".")
        if parts[0] in ("self", "this", "cls") and len(parts) == 2:
            return (self.methods.get((fn.cls, parts[1]), []) if fn.cls else []), None
        if len(parts) == 1 and parts[0] in self.by_name:
            return self.by_name[parts[0]], None
        return [], _qualified(callee, self.aliases)


def _chain(start: list[_Fn], calls: _Calls, effect, memo: dict) -> list[str] | None:
    """The shortest chain of same-file functions from ``start`` (the functions one call may
    run) to an effect: their names and the effect's, or None."""
    key = tuple(id(f) for f in start)
    if key in memo:
        return memo[key]
    seen = {id(f) for f in start}
    frontier = [(f, [f.name]) for f in start]
    result = None
    while frontier and result is None:
        for fn, path in frontier:  # an effect at this depth first
            for callee, _ in fn.calls:
                helpers, api = calls.target(fn, callee)
                if api is not None and effect.match(api):
                    result = [*path, api]
                    break
            if result is not None:
                break
        if result is not None:
            break
        nxt = []
        for fn, path in frontier:
            for callee, _ in fn.calls:
                for h in calls.target(fn, callee)[0]:
                    if id(h) not in seen:
                        seen.add(id(h))
                        nxt.append((h, [*path, h.name]))
        frontier = nxt
    memo[key] = result
    return result


def pure_findings(path: str, text: str, imports: Iterable[Import], rules: Iterable[Rule],
                  parsed: _Parsed | None = None) -> list[Finding]:
    """The ``pure`` violations of one file under these rules (``imports``: the file's own,
    from its facts)."""
    rules = [r for r in rules if r.kind == "pure"]
    if not rules:
        return []
    fns = _functions((parsed or _Parsed(path, text)).units)
    if not fns:
        return []
    calls = _Calls(fns, _aliases(imports, language_of(path) == "python"))
    out: list[Finding] = []
    for rule in rules:
        effect = _effects(rule.effects)
        marker = (rule.marker or "pure").lstrip("@")
        memo: dict = {}
        title = f" ({rule.name})" if rule.name and rule.name != rule.id else ""
        for fn in fns:
            if not (rule.all_functions or _marked(fn, marker)):
                continue
            for callee, span in fn.calls:
                helpers, api = calls.target(fn, callee)
                chain = None
                if api is not None:
                    if not effect.match(api):
                        continue
                elif helpers:
                    chain = _chain(helpers, calls, effect, memo)
                    if chain is None:
                        continue
                    api = chain[-1]
                else:
                    continue
                via = f" through {' -> '.join(chain)}" if chain else ""
                data: tuple = (("rule", rule.id), ("function", fn.name), ("api", api), ("origin", rule.origin))
                if chain:
                    data += (("chain", tuple(chain)),)
                out.append(Finding("invariant-violation", CODES["invariant-violation"].severity,
                                   f"[{rule.id}]{title} {fn.name} is pure but has a side effect: {api}{via}",
                                   path, span, data))
    return out


# ---------------------------------------------------------------------- config values

@dataclass(frozen=True)
class ConfigValue:
    """One value a config module defines: where (``path``: the names leading to it,
    ``("paymentConfig", "retryCount")``; an ``export default`` is ``default``), how code
    reads it (``shown``: ``paymentConfig.retryCount``, ``CONFIG["retries"]``), and the
    value (``("n", 3)``, ``("s", "https://...")``, ``("b", True)``)."""

    path: tuple[str, ...]
    shown: str
    value: tuple[str, object]


def _number(text: str, python: bool) -> int | float | None:
    t = text.replace("_", "").lower()
    if not python and t.endswith("n"):
        t = t[:-1]
    try:
        if python:
            if t.endswith(("j", "l")):
                return None
            value = int(t, 0) if not any(c in t for c in ".e") or t.startswith(("0x", "0o", "0b")) else float(t)
        elif t.startswith(("0x", "0o", "0b")):
            value = int(t, 0)
        elif len(t) > 1 and t[0] == "0" and t.isdigit():
            value = int(t, 8) if "8" not in t and "9" not in t else int(t)  # a legacy octal
        else:
            value = float(t) if any(c in t for c in ".e") else int(t)
    except ValueError:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    return value


def _string(unit: _Unit, node, python: bool, strict: bool) -> str | None:
    """A string literal's value; None for one that is not a plain literal (an f-string,
    bytes, a template with substitutions) or, ``strict``, that has escape sequences."""
    parts = []
    escaped = False
    for child in node.named_children:
        kind = child.type
        if kind in ("interpolation", "template_substitution"):
            return None
        if kind == "string_start":
            prefix = unit.text(child).lower()
            if "b" in prefix or "f" in prefix or "t" in prefix:
                return None
        elif kind == "escape_sequence" or (kind == "string_content" and child.named_child_count):
            escaped = True
        elif kind in ("string_content", "string_fragment"):
            parts.append(unit.text(child))
    if not escaped:
        return "".join(parts)
    if strict:
        return None
    if python:
        try:
            value = ast.literal_eval(unit.text(node))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return value if isinstance(value, str) else None
    return "".join(_escape(unit.text(c)) if c.type == "escape_sequence" else unit.text(c)
                   for c in node.named_children if c.type in ("escape_sequence", "string_fragment"))


def _escape(seq: str) -> str:
    """A JavaScript escape sequence's character (``\\n``, ``\\x41``, ``\\u0041``)."""
    if seq.startswith("\\u{") and seq.endswith("}"):
        try:
            return chr(int(seq[3:-1], 16))
        except (ValueError, OverflowError):
            return seq
    try:
        value = ast.literal_eval(f'"{seq}"') if seq.startswith("\\") and len(seq) < 12 else seq
    except (ValueError, SyntaxError):
        return seq[1:]
    return value if isinstance(value, str) else seq


def _value(unit: _Unit, node, python: bool, top: dict, depth: int = 0):
    """A config value: ("n"|"s"|"b", v), a dict of key -> value for an object, or None."""
    if node is None or depth > 8:
        return None
    kind = node.type
    if kind in ("integer", "float", "number"):
        v = _number(unit.text(node), python)
        return None if v is None else ("n", v)
    if kind in ("unary_operator", "unary_expression"):
        arg = node.child_by_field_name("argument")
        op = node.child_by_field_name("operator")
        if arg is not None and op is not None and unit.text(op) == "-" and arg.type in ("integer", "float", "number"):
            v = _number(unit.text(arg), python)
            return None if v is None else ("n", -v)
        return None
    if kind in ("string", "template_string"):
        s = _string(unit, node, python, strict=False)
        return None if s is None else ("s", s)
    if kind in ("true", "false"):
        return ("b", kind == "true")
    if kind in ("parenthesized_expression", "as_expression", "satisfies_expression", "type_assertion",
                "non_null_expression"):
        inner = [c for c in node.named_children if c.type not in ("type_arguments", "type_identifier",
                                                                   "predefined_type", "generic_type", "const")]
        return _value(unit, inner[0], python, top, depth + 1) if inner else None
    if kind == "call_expression":  # Object.freeze({...})
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is not None and unit.text(fn) == "Object.freeze" and args is not None and args.named_child_count == 1:
            return _value(unit, args.named_children[0], python, top, depth + 1)
        return None
    if kind == "identifier":
        ref = top.get(unit.text(node))
        return _value(unit, ref, python, {}, depth + 1) if ref is not None else None
    if kind in ("dictionary", "object"):
        out: dict[str, object] = {}
        for child in node.named_children:
            if child.type == "pair":
                key = child.child_by_field_name("key")
                if key is None:
                    continue
                if key.type in ("string",):
                    name = _string(unit, key, python, strict=False)
                elif key.type in ("property_identifier", "number", "identifier"):
                    name = unit.text(key) if not python or key.type != "identifier" else None
                else:
                    name = None
                if name is not None:
                    got = _value(unit, child.child_by_field_name("value"), python, top, depth + 1)
                    if got is not None:
                        out[name] = got
            elif child.type == "shorthand_property_identifier":
                name = unit.text(child)
                got = _value(unit, top.get(name), python, {}, depth + 1) if name in top else None
                if got is not None:
                    out[name] = got
        return out
    return None


def _stem(path: str) -> str:
    """How code names a config module: its last dotted name (Python) or its file name
    without the extension (``index``: its folder's)."""
    if path.endswith(".py"):
        return shown_name(path).rsplit(".", 1)[-1]
    name = path.rsplit("/", 1)[-1].split(".", 1)[0]
    if name == "index" and "/" in path:
        return path.rsplit("/", 2)[-2]
    return name


def config_values(path: str, text: str) -> list[ConfigValue]:
    """The values a config module defines, read from its text: in Python, module-level
    ``NAME = literal``, dictionary literals (``CONFIG = {"retries": 3}``) and the attributes
    of module-level classes (``class Settings: retries = 3``); in JavaScript and TypeScript,
    module-level ``const``/``let``/``var`` bindings, exported or not (``export const
    retryCount = 3``, ``export const paymentConfig = { retryCount: 3 }``), ``export default
    {...}`` and ``module.exports = {...}`` (``as const``, ``satisfies`` and
    ``Object.freeze`` looked through; a name bound at module level is followed once).
    Numbers, strings and booleans; in objects, their keys and one level below
    (``CONFIG.payment.retries``). The first binding of a name counts."""
    python = path.endswith(".py")
    stem = _stem(path)
    out: list[ConfigValue] = []
    seen: set[tuple[str, ...]] = set()
    for unit in _units(path, text):
        tops: dict[str, object] = {}  # module-level name -> its value node
        entries = []  # (class name or "", name, value node), in order
        for _, caps in unit.matches(_CONFIG_USES):
            if "config.default" in caps:
                entries.append(("", "default", caps["config.default"][0]))
                continue
            name, node = unit.text(caps["config.name"][0]), caps["config.value"][0]
            obj = unit.text(caps["config.object"][0]) if "config.object" in caps else ""
            if not obj:
                tops.setdefault(name, node)
            entries.append((obj, name, node))
        for obj, name, node in entries:
            value = _value(unit, node, python, tops)
            if value is None:
                continue
            if obj:  # a class attribute: Settings.retries
                scalar = whole = f"{obj}.{name}"
            elif name == "default":  # export default: read through the module's name
                scalar = whole = stem
            else:  # a module-level name: config.RETRIES; an object bound to one: paymentConfig.x
                scalar, whole = f"{stem}.{name}", name
            _flatten((obj, name) if obj else (name,), scalar if isinstance(value, tuple) else whole, value,
                     python, out, seen)
    return out


def _flatten(path: tuple[str, ...], shown: str, value, brackets: bool, out: list[ConfigValue], seen: set,
             depth: int = 0) -> None:
    """Each scalar of ``value`` (a dict is an object: its keys, and theirs one level below),
    with how code reads it (``CONFIG["a"]`` in Python, ``config.a`` elsewhere)."""
    if isinstance(value, tuple):
        if path not in seen:
            seen.add(path)
            out.append(ConfigValue(path, shown, value))  # type: ignore[arg-type]
        return
    if not isinstance(value, dict) or depth >= 2:
        return
    for key, sub in value.items():
        _flatten((*path, key), f'{shown}["{key}"]' if brackets else f"{shown}.{key}", sub, brackets, out, seen,
                 depth + 1)


# ---------------------------------------------------------------------- no-hardcoded-config

def _trivial(value: tuple[str, object]) -> bool:
    kind, v = value
    return kind == "b" or (kind == "n" and v in (0, 1, -1)) or (kind == "s" and v == "")


def _needle(value: tuple[str, object]) -> str:
    """A regex the text must contain for a literal of this value (written in decimal,
    digit separators allowed; a string without escapes)."""
    kind, v = value
    if kind == "s":
        return re.escape(str(v))
    if isinstance(v, int):
        digits = str(abs(v))
    else:
        try:
            digits = format(Decimal(repr(abs(v))), "f")  # type: ignore[arg-type]
        except (InvalidOperation, ValueError):
            digits = repr(abs(v))  # type: ignore[arg-type]
        digits = digits.removeprefix("0")
    return "_?".join(re.escape(c) for c in digits)


@dataclass
class _Wanted:
    """The values one rule looks for: value -> [(shown, key)], and the prefilter."""

    values: dict[tuple[str, object], list[tuple[str, str]]]
    needles: re.Pattern[str] | None


def _wanted(rule: Rule, values: list[ConfigValue]) -> _Wanted:
    found: dict[tuple[str, object], list[tuple[str, str]]] = {}
    for key in rule.keys:
        segs = tuple(key.split("."))
        for cv in values:
            if cv.path[-len(segs):] == segs and not _trivial(cv.value):
                value = (cv.value[0], cv.value[1])
                if (cv.shown, key) not in found.get(value, []):
                    found.setdefault(value, []).append((cv.shown, key))
    needles = sorted({_needle(v) for v in found}, key=len, reverse=True)
    return _Wanted(found, re.compile("|".join(needles)) if needles else None)


def _literal_value(unit: _Unit, node, kind: str, python: bool) -> tuple[str, object] | None:
    if kind == "literal.string":
        s = _string(unit, node, python, strict=True)
        return None if s is None else ("s", s)
    negative = kind == "literal.negative"
    digits = unit.text(node.child_by_field_name("argument") if negative else node)
    if not python and digits.endswith("n"):
        digits = digits[:-1]
    digits = digits.replace("_", "")
    if _DECIMAL.fullmatch(digits) is None:
        return None  # hex, octal, binary, an exponent: not compared
    value = _number(digits, python)
    if value is None:
        return None
    return ("n", -value if negative else value)


def hardcoded(path: str, text: str, rule: Rule, config_path: str, values: list[ConfigValue],
              parsed: _Parsed | None = None) -> list[Finding]:
    """The ``no-hardcoded-config`` violations of one file: each literal inside a function
    (a lambda, an arrow function, a default parameter value included) equal to a value of
    one of the rule's keys in the config module. Not judged: literals at module or class
    level, trivial values (0, 1, -1, booleans, the empty string), literals in types and
    annotations, imports, object and dictionary keys, subscripts, docstrings and directive
    strings, f-strings and templates with substitutions, strings with escape sequences,
    numbers not written in decimal."""
    if path == config_path:
        return []
    wanted = _wanted(rule, values)
    if wanted.needles is None or wanted.needles.search(text) is None:
        return []
    python = language_of(path) == "python"
    title = f" ({rule.name})" if rule.name and rule.name != rule.id else ""
    module = shown_name(config_path)
    out: list[Finding] = []
    for unit in (parsed or _Parsed(path, text)).units:
        scopes: set[int] = set()
        skips: set[int] = set()
        inner: set[int] = set()  # the number of a negative literal
        literals = []
        for _, caps in unit.matches(_LITERAL_USES):
            for name, nodes in caps.items():
                if name == "scope":
                    scopes.update(n.id for n in nodes)
                elif name == "skip":
                    skips.update(n.id for n in nodes)
                elif name.startswith("literal."):
                    for n in nodes:
                        literals.append((name, n))
                        if name == "literal.negative":
                            arg = n.child_by_field_name("argument")
                            if arg is not None:
                                inner.add(arg.id)
        for kind, node in literals:
            if node.id in inner:
                continue
            value = _literal_value(unit, node, kind, python)
            hits = wanted.values.get(value) if value is not None else None
            if not hits or not _judged(node, scopes, skips):
                continue
            shown = unit.text(node)
            if len(shown) > _SHOWN_VALUE:
                shown = shown[:_SHOWN_VALUE - 1] + "…"
            names = " or ".join(s for s, _ in hits)
            out.append(Finding("invariant-violation", CODES["invariant-violation"].severity,
                               f"[{rule.id}]{title} {shown} duplicates {names}: read it from {module}",
                               path, unit.span(node),
                               (("rule", rule.id), ("key", hits[0][1]), ("config", config_path),
                                ("origin", rule.origin))))
    return out


def _judged(node, scopes: set[int], skips: set[int]) -> bool:
    """Inside a function and in no region where a literal is no setting."""
    inside = False
    at = node  # (a skip region may be the literal itself: a dictionary key, a docstring)
    while at is not None:
        if at.id in skips:
            return False
        if at.id in scopes:
            inside = True
        at = at.parent
    return inside


# ---------------------------------------------------------------------- the analysis

def _config_module(rule: Rule, exists: Callable[[str], bool]) -> tuple[str | None, list[str]]:
    """The config module's file (None when none of its candidates exists) and the
    candidates tried (edges: one that appears changes the verdicts)."""
    tried = []
    for cand in config_candidates(rule.config):
        tried.append(cand)
        if exists(cand):
            return cand, tried
    return None, tried


def check_body_rules(path: str, imports: Iterable[Import], rules: tuple, text: Callable[[str], str | None] | None,
                     exists: Callable[[str], bool], memo: dict | None = None
                     ) -> tuple[tuple[Finding, ...], frozenset[str]]:
    """The ``pure`` and ``no-hardcoded-config`` findings of one file and the paths they
    read (the file; each config module and the candidates tried before it). ``text``
    gives a workspace file's text (None, or None for the file: nothing is judged);
    ``exists`` says whether a source file exists; ``memo`` (optional) is shared by the
    files of one batch (the config modules' values)."""
    wanted = [r for r in rules if r.kind in BODY_KINDS and _governs(r, path)]
    deps: set[str] = {path}
    if not wanted or text is None:
        return (), frozenset(deps)
    source = text(path)
    if source is None:
        return (), frozenset(deps)
    memo = {} if memo is None else memo
    parsed = _Parsed(path, source)
    out: list[Finding] = pure_findings(path, source, imports, wanted, parsed)
    family = _family(path)
    for rule in wanted:
        if rule.kind != "no-hardcoded-config":
            continue
        config_path, tried = _config_module(rule, exists)
        deps.update(tried)
        if config_path is None or config_path == path or _family(config_path) != family:
            continue
        key = ("body-rules:config", config_path)
        if key not in memo:
            config_text = text(config_path)
            memo[key] = config_values(config_path, config_text) if config_text is not None else []
        out += hardcoded(path, source, rule, config_path, memo[key], parsed)
    out.sort(key=lambda f: (f.span.start, f.span.end, f.message))
    return tuple(out), frozenset(deps)
