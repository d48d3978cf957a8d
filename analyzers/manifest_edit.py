"""Adding a dependency to a manifest in the file's own style: the quick fix of an
``undeclared-dependency`` whose package is installed. Pure: the manifest's text in, one
edit (byte span and new text) out, or None when the file gives no safe place for it.

The version is never invented: the caller passes the installed version.

- ``package.json`` (:func:`add_dependency`): ``^<installed version>`` (npm's default for
  ``npm install``).
- Python (:func:`add_python_dependency`): a ``pyproject.toml`` ``[project]``
  ``dependencies`` array, else Poetry's ``[tool.poetry.dependencies]`` table
  (``name = "^X.Y.Z"``), or a ``requirements*.txt`` line. The range follows the file: when
  its versioned entries all use one operator (``>=``, ``~=``, ``==``) that one, else
  ``>=<installed version>`` (what ``uv add`` writes); Poetry ``^``. Everything but the
  insertion stays byte for byte, and the result is checked to parse (``tomllib``) into the
  old data plus the new entry."""

from __future__ import annotations

import copy
import json
import re
import tomllib

from .model import Span



def add_dependency(text: str, name: str, version: str, field: str = "dependencies") -> tuple[Span, str] | None:
    """Insert ``"name": "^version"`` into the manifest's top-level ``field`` object, in
    alphabetical place when its entries are sorted (else last), with the indentation of
    its entries. None when the text is not a JSON object, the field is absent or not an
    object, the name is already there, or the version is not a plain semver version."""
    if not re.fullmatch(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?", version):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    deps = data.get(field) if isinstance(data, dict) else None
    if not isinstance(deps, dict) or name in deps:
        return None
    opening = _top_level_key(text, field)
    if opening is None:
        return None
    close = _matching_brace(text, opening)
    if close is None:
        return None
    inner = text[opening + 1:close]
    entry = f'"{name}": "^{version}"'
    key_line_start = text.rfind("\n", 0, opening) + 1
    outer = re.match(r"[ \t]*", text[key_line_start:]).group(0)
    if not deps:  # an empty object: one entry on its own line
        indent = outer + _unit(text)
        new = "{\n" + indent + entry + "\n" + outer + "}"
        return _span(text, opening, close + 1), new
    entries = [(m.start(), m.group(1)) for m in re.finditer(r'\n([ \t]*)"', inner)]
    if not entries:  # all on one line: `{ "a": "1" }`
        return _span(text, close, close), (", " if inner.strip() else "") + entry + (" " if inner.endswith(" ") else "")
    indent = entries[0][1]
    names = list(deps)
    if names == sorted(names):
        after = [n for n in names if n > name]
        if after:  # before the first entry that sorts after it
            at = inner.index(f'"{after[0]}"')
            line_start = inner.rfind("\n", 0, at) + 1
            pos = opening + 1 + line_start
            return _span(text, pos, pos), f"{indent}{entry},\n"
    # last: after the last entry's value, before the closing brace
    last_end = opening + 1 + len(inner.rstrip())
    return _span(text, last_end, last_end), f",\n{indent}{entry}"


def _unit(text: str) -> str:
    m = re.search(r"\n([ \t]+)\"", text)
    return m.group(1) if m else "  "


def _structure(text: str, start: int = 0):
    """``(offset, character, depth before it)`` of every character outside strings from
    ``start``, and of the ``"`` that opens each string (whose content is skipped)."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if c == '"':
            yield i, c, depth
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        else:
            yield i, c, depth
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
        i += 1


def _top_level_key(text: str, field: str) -> int | None:
    """The offset of the ``{`` that opens the top-level ``field`` object (depth 1)."""
    opener = re.compile(r'"%s"\s*:\s*\{' % re.escape(field))
    for i, c, depth in _structure(text):
        if c == '"' and depth == 1:
            m = opener.match(text, i)
            if m:
                return m.end() - 1
    return None


def _matching_brace(text: str, opening: int) -> int | None:
    for i, c, depth in _structure(text, opening):
        if c in "}]" and depth == 1:
            return i
    return None


def _span(text: str, start: int, end: int) -> Span:
    """Character offsets to the byte span the edit replaces."""
    return Span(len(text[:start].encode("utf-8")), len(text[:end].encode("utf-8")))


# ------------------------------------------------------------------------------- Python
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_RELEASE = re.compile(r"\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?")
_REQ = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)", re.S)
_OPERATOR = re.compile(r"\s*(===|==|~=|>=|<=|!=|<|>)")
_STYLES = (">=", "~=", "==")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR = re.compile(r"[^\s#,\]}]+(?:[ ][0-9:.+\-Z]+)?")  # numbers, booleans, dates (a space before the time)

# One edit and what it adds, as the fix's title shows it (``requests>=2.31.0``; Poetry's
# ``requests@^2.31.0``, the notation of ``poetry add``).
PythonEdit = tuple[Span, str, str]


def add_python_dependency(path: str, text: str, name: str, version: str) -> PythonEdit | None:
    """Add distribution ``name`` at the installed ``version`` to the manifest at ``path``
    (``pyproject.toml`` or a requirements ``.txt``/``.in`` file): the edit and the
    requirement as written. None for another kind of file, or no safe place."""
    base = path.rpartition("/")[2]
    if base == "pyproject.toml":
        return add_pyproject_dependency(text, name, version)
    if base.endswith((".txt", ".in")):
        return add_requirement_line(text, name, version)
    return None


def pyproject_dependency_place(text: str) -> str | None:
    """Where a ``pyproject.toml`` declares its dependencies: ``"project"`` (a
    ``[project]`` table with a ``dependencies`` array), ``"poetry"`` (a
    ``[tool.poetry.dependencies]`` table), else None (not TOML, dynamic dependencies,
    neither)."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    project = data.get("project")
    if isinstance(project, dict) and "dependencies" in project:
        return "project" if isinstance(project["dependencies"], list) else None
    poetry = (data.get("tool") or {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    if isinstance(poetry, dict) and isinstance(poetry.get("dependencies"), dict):
        return "poetry"
    return None


def requirement_operator(requirements: list[str], version: str) -> str:
    """The operator a new requirement takes: the one the versioned ``requirements`` all use
    (``>=``, ``~=`` or ``==``, one clause each), else ``>=``. ``~=`` needs two release
    numbers (``~=2`` is not valid): ``>=`` then."""
    ops = set()
    for req in requirements:
        spec = _spec_of(req)
        if spec is None:
            continue
        clauses = [c for c in spec.split(",") if c.strip()]
        m = _OPERATOR.match(clauses[0]) if len(clauses) == 1 else None
        ops.add(m.group(1) if m else "?")
    op = ops.pop() if len(ops) == 1 else ">="
    release = re.match(r"\d+(?:\.\d+)*", version)
    if op not in _STYLES or (op == "~=" and (release is None or "." not in release.group(0))):
        return ">="
    return op


def add_pyproject_dependency(text: str, name: str, version: str) -> PythonEdit | None:
    """Add ``name`` to the ``[project]`` ``dependencies`` array (``name>=version`` or the
    file's operator) or, when that is where the project declares them, to Poetry's
    ``[tool.poetry.dependencies]`` (``name = "^version"``). Sorted place when the entries
    are sorted, else last; the entries' own quoting, indentation and separators. None when
    the file has neither, is not TOML, or declares ``name`` already (any PEP 503 spelling,
    in any dependency list or group)."""
    if not _NAME.fullmatch(name) or not _RELEASE.fullmatch(version):
        return None
    place = pyproject_dependency_place(text)
    if place is None:
        return None
    data = tomllib.loads(text)
    if _norm(name) in _pyproject_declared(data):
        return None
    try:
        items = _toml_items(text)
        got = (_add_to_array(text, items, data, name, version) if place == "project"
               else _add_to_poetry(text, items, name, version))
    except (ValueError, IndexError):
        return None
    if got is None:
        return None
    (start, end, new_text), label, check = got
    after = text[:start] + new_text + text[end:]
    try:
        parsed = tomllib.loads(after)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    if not check(data, parsed):
        return None
    return _span(text, start, end), new_text, label


def add_requirement_line(text: str, name: str, version: str) -> PythonEdit | None:
    """Add a ``name>=version`` line (or the file's operator) to a requirements file, in
    sorted place when its requirements are sorted, else after the last one. None when
    ``name`` is there already (any PEP 503 spelling), the file pins hashes (``--hash``: a
    line without one would break ``pip install --require-hashes``) or says it is generated
    (``pip-compile``/``uv pip compile``: the source ``.in`` file is the one to edit)."""
    if not _NAME.fullmatch(name) or not _RELEASE.fullmatch(version):
        return None
    if "--hash" in text or re.search(r"^#.*\bautogenerated\b", text, re.M | re.I):
        return None
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = _requirement_lines(text)
    names = [_norm(n) for _, _, n, _ in lines]
    if _norm(name) in names:
        return None
    op = requirement_operator([req for _, _, _, req in lines], version)
    entry = f"{name}{op}{version}"
    key = _norm(name)
    if names == sorted(names):
        after = next((i for i, n in enumerate(names) if n > key), None)
        if after is not None:
            pos = _above_comments(text, lines[after][0], lines[after - 1][1] if after else None)
            return _checked_lines(text, pos, pos, entry + nl, names, key, entry)
    if lines:
        pos = lines[-1][1]
        if pos == len(text) and not text.endswith("\n"):
            return _checked_lines(text, pos, pos, nl + entry + nl, names, key, entry)
        return _checked_lines(text, pos, pos, entry + nl, names, key, entry)
    pos = len(text)
    lead = nl if text and not text.endswith("\n") else ""
    return _checked_lines(text, pos, pos, lead + entry + nl, names, key, entry)


def _checked_lines(text, start, end, new_text, names, key, label) -> PythonEdit | None:
    after = text[:start] + new_text + text[end:]
    if sorted(_norm(n) for _, _, n, _ in _requirement_lines(after)) != sorted([*names, key]):
        return None
    return _span(text, start, end), new_text, label


def _requirement_lines(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end after its newline, name, requirement)`` of each requirement line
    (continuation lines joined; comments, options, URLs and paths skipped)."""
    out = []
    i = 0
    while i < len(text):
        start = i
        parts = []
        while True:
            nl = text.find("\n", i)
            end = len(text) if nl < 0 else nl + 1
            line = text[i:end].rstrip("\r\n")
            i = end
            if line.endswith("\\") and i < len(text):
                parts.append(line[:-1])
                continue
            parts.append(line)
            break
        logical = re.split(r"(?:^|\s)#", " ".join(parts), maxsplit=1)[0].strip()
        if not logical or logical.startswith(("-", ".", "/", "git+", "http:", "https:", "file:")):
            continue
        req = logical.split(" @ ", 1)[0] if " @ " in logical else logical
        m = _REQ.match(req)
        if m:
            out.append((start, i, m.group(1), logical))
    return out


def _spec_of(req: str) -> str | None:
    """The version specifier of a PEP 508 requirement (``>=2,<3``), None when it has none
    (a bare name, a direct reference)."""
    if " @ " in req or "@" in req.split(";", 1)[0]:
        return None
    m = _REQ.match(req.split(";", 1)[0])
    if not m:
        return None
    spec = m.group(2).strip().strip("()").strip()
    return spec or None


def _norm(name: str) -> str:
    """PEP 503 normalization (``Python_Dateutil`` -> ``python-dateutil``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject_declared(data: dict) -> set[str]:
    def names(reqs) -> set[str]:
        out = set()
        for r in reqs if isinstance(reqs, list) else ():
            m = _REQ.match(r) if isinstance(r, str) else None
            if m:
                out.add(_norm(m.group(1)))
        return out

    declared: set[str] = set()
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    declared |= names(project.get("dependencies"))
    for group in (project.get("optional-dependencies") or {}).values():
        declared |= names(group)
    for group in (data.get("dependency-groups") or {}).values():
        declared |= names(group)
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    tables += [g.get("dependencies") for g in (poetry.get("group") or {}).values() if isinstance(g, dict)]
    for t in tables:
        if isinstance(t, dict):
            declared |= {_norm(k) for k in t}
    return declared


def _add_to_array(text: str, items: list, data: dict, name: str, version: str):
    """The ``[project]`` ``dependencies`` array: ``((start, end, new text), label, check)``."""
    kv = next((it for it in items if it[0] == "kv" and it[1] == ("project",) and it[2] == ("dependencies",)), None)
    if kv is None or text[kv[4]] != "[":
        return None  # written as a dotted key elsewhere, or not an array: no safe place
    open_at, close_at = kv[4], kv[5] - 1
    elements = _array_elements(text, open_at, close_at)
    values = data["project"]["dependencies"]
    if len(elements) != len(values) or not all(isinstance(v, str) for v in values):
        return None
    op = requirement_operator(values, version)
    label = f"{name}{op}{version}"
    first = next((e for e in elements if text[e[0]] in "\"'"), None)
    q = text[first[0]] if first and not text.startswith(text[first[0]] * 3, first[0]) else '"'
    entry = f"{q}{label}{q}"
    keys = [_norm(_REQ.match(v).group(1)) if _REQ.match(v) else v for v in values]
    key = _norm(name)
    at = len(values)
    if keys == sorted(keys):
        at = next((i for i, k in enumerate(keys) if k > key), len(values))

    def check(old: dict, new: dict) -> bool:
        want = copy.deepcopy(old)
        want["project"]["dependencies"].insert(at, label)
        return new == want

    multiline = "\n" in text[open_at:close_at]
    if not elements:
        if not multiline:
            return (open_at + 1, close_at, entry), label, check
        indent = "    "
        ls = text.rfind("\n", 0, close_at) + 1
        nl = "\r\n" if text[ls - 2:ls] == "\r\n" else "\n"
        if text[ls:close_at].strip() == "":
            return (ls, ls, f"{indent}{entry},{nl}"), label, check
        return (close_at, close_at, f"{nl}{indent}{entry},{nl}"), label, check
    line_nl = "\r\n" if "\r\n" in text[open_at:close_at] else "\n"
    sep = ", "
    for e in elements:
        if e[2] is not None:  # the file's own separator after a comma on one line
            rest = text[e[2]:]
            m = re.match(r"[ \t]*", rest)
            if rest[m.end():m.end() + 1] not in ("\r", "\n", "#", "]", ""):
                sep = "," + m.group(0)
                break
    indent = None
    for e in elements:
        ls = text.rfind("\n", 0, e[0]) + 1
        if ls > open_at and text[ls:e[0]].strip() == "":
            indent = text[ls:e[0]]
            break
    indent = "    " if indent is None else indent
    if at < len(elements):
        e = elements[at]
        ls = text.rfind("\n", 0, e[0]) + 1
        if multiline and ls > open_at and text[ls:e[0]].strip() == "":
            prev = elements[at - 1] if at else None
            floor = _eol(text, prev[2] if prev[2] is not None else prev[1]) if prev else None
            pos = _above_comments(text, ls, floor)
            return (pos, pos, f"{indent}{entry},{line_nl}"), label, check
        return (e[0], e[0], f"{entry}{sep}"), label, check
    last = elements[-1]
    if not multiline:
        return (last[1], last[1], f"{sep}{entry}"), label, check
    if last[2] is not None:  # a trailing comma
        eol = text.find("\n", last[2])
        if eol < 0 or eol > close_at:  # `"b",]`
            return (last[2], last[2], f"{sep}{entry},"), label, check
        return (eol + 1, eol + 1, f"{indent}{entry},{line_nl}"), label, check
    eol = text.find("\n", last[1])
    eol = close_at if eol < 0 or eol > close_at else eol
    tail = text[last[1]:eol].rstrip("\r")
    if tail.strip().startswith("#"):  # `"b"  # why`: the comma goes before the comment
        return (last[1], last[1] + len(tail), f",{tail}{line_nl}{indent}{entry}"), label, check
    return (last[1], last[1], f",{line_nl}{indent}{entry}"), label, check


def _add_to_poetry(text: str, items: list, name: str, version: str):
    """Poetry's ``[tool.poetry.dependencies]`` table: ``name = "^version"``."""
    table = ("tool", "poetry", "dependencies")
    header = next((i for i, it in enumerate(items) if it[0] == "header" and it[1] == table and not it[4]), None)
    if header is None:
        return None
    region = []
    for it in items[header + 1:]:
        if it[0] == "header":
            break
        region.append(it)
    label = f"{name}@^{version}"
    keys = [_norm(kv[2][0]) for kv in region]
    key = _norm(name)
    nl = "\r\n" if "\r\n" in text else "\n"
    sep, q, indent = " = ", '"', ""
    if region:
        first = region[0]
        sep = text[first[3]:first[4]]
        if text[first[4]] in "\"'" and not text.startswith(text[first[4]] * 3, first[4]):
            q = text[first[4]]
        indent = re.match(r"[ \t]*", text[first[6]:]).group(0)
    written = name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else f'"{name}"'
    entry = f"{indent}{written}{sep}{q}^{version}{q}"

    def check(old: dict, new: dict) -> bool:
        want = copy.deepcopy(old)
        want["tool"]["poetry"]["dependencies"][name] = f"^{version}"
        return new == want

    others = [k for k in keys if k != "python"]
    if region and others == sorted(others):
        at = next((i for i, k in enumerate(keys) if k != "python" and k > key), None)
        if at is not None:
            ls = text.rfind("\n", 0, region[at][6]) + 1
            pos = _above_comments(text, ls, region[at - 1][7] if at else None)
            return (pos, pos, entry + nl), label, check
    pos = region[-1][7] if region else items[header][3]
    if pos == len(text) and not text.endswith("\n"):
        return (pos, pos, nl + entry + nl), label, check
    return (pos, pos, entry + nl), label, check


def _above_comments(text: str, line_start: int, floor: int | None) -> int:
    """``line_start`` moved up over the comment lines right above it (they describe the
    entry that follows them), never above ``floor`` (the end of the entry before). With no
    entry before (``floor`` None) it stays: comments at the top head the whole list."""
    if floor is None:
        return line_start
    pos = line_start
    while pos > floor:
        prev = text.rfind("\n", 0, pos - 1) + 1
        if prev < floor or not text[prev:pos].strip().startswith("#"):
            break
        pos = prev
    return pos


# A small TOML scanner: enough to find tables, keys and the extent of values in text that
# tomllib has already accepted (it never decides what the data is; tomllib does).
def _toml_items(text: str) -> list[tuple]:
    """The top-level structure: ``("header", key, start, after its line, is_array)`` and
    ``("kv", table, key, key_end, value_start, value_end, line_start, after its line)``."""
    items: list[tuple] = []
    table: tuple[str, ...] = ()
    i, n = 0, len(text)
    while (i := _blank(text, i, n)) < n:
        if text[i] == "[":
            double = text.startswith("[[", i)
            key, j = _key(text, i + (2 if double else 1))
            j = _ws(text, j)
            if not text.startswith("]]" if double else "]", j):
                raise ValueError("bad table header")
            end = _line_end(text, j + (2 if double else 1))
            items.append(("header", key, i, end, double))
            table = key
            i = end
        else:
            line_start = text.rfind("\n", 0, i) + 1
            key, key_end = _key(text, i)
            j = _ws(text, key_end)
            if text[j:j + 1] != "=":
                raise ValueError("expected '='")
            vstart = _ws(text, j + 1)
            vend = _value_end(text, vstart)
            end = _line_end(text, vend)
            items.append(("kv", table, key, key_end, vstart, vend, line_start, end))
            i = end
    return items


def _ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _blank(text: str, i: int, end: int) -> int:
    """The first index from ``i`` (before ``end``) that is neither white space nor a comment."""
    while i < end:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            i = _eol(text, i)
        else:
            break
    return i


def _eol(text: str, i: int) -> int:
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl + 1


def _line_end(text: str, i: int) -> int:
    """After the rest of the line (spaces, a comment, the newline)."""
    i = _ws(text, i)
    if i < len(text) and text[i] not in "#\r\n":
        raise ValueError("trailing text")
    return _eol(text, i)


def _key(text: str, i: int) -> tuple[tuple[str, ...], int]:
    parts = []
    while True:
        i = _ws(text, i)
        if text[i:i + 1] in ('"', "'"):
            end = _string_end(text, i)
            raw = text[i + 1:end - 1]
            parts.append(json.loads(f'"{raw}"') if text[i] == '"' else raw)
            i = end
        else:
            m = _BARE_KEY.match(text, i)
            if not m:
                raise ValueError("bad key")
            parts.append(m.group(0))
            i = m.end()
        j = _ws(text, i)
        if text[j:j + 1] != ".":
            return tuple(parts), i
        i = j + 1


def _string_end(text: str, i: int) -> int:
    """After the string that starts at ``i`` (all four TOML kinds)."""
    q = text[i]
    if text.startswith(q * 3, i):
        j = i + 3
        while True:
            if q == '"' and text[j] == "\\":
                j += 2
                continue
            if text.startswith(q * 3, j):
                j += 3
                for _ in range(2):  # `""""`: up to two quotes of the content before the delimiter
                    if text[j:j + 1] == q:
                        j += 1
                return j
            j += 1
    j = i + 1
    while text[j] != q:
        if text[j] in "\r\n":
            raise ValueError("unterminated string")
        j += 2 if q == '"' and text[j] == "\\" else 1
    return j + 1


def _value_end(text: str, i: int) -> int:
    c = text[i]
    if c in "\"'":
        return _string_end(text, i)
    if c in "[{":
        depth = 0
        while True:
            c = text[i]
            if c in "\"'":
                i = _string_end(text, i)
                continue
            if c == "#":
                i = _eol(text, i)
                continue
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
    m = _SCALAR.match(text, i)
    if not m:
        raise ValueError("bad value")
    return m.end()


def _array_elements(text: str, open_at: int, close_at: int) -> list[tuple[int, int, int | None]]:
    """``(start, end, after its comma or None)`` of each element of the array between the
    brackets at ``open_at`` and ``close_at``."""
    out = []
    i = open_at + 1
    while (i := _blank(text, i, close_at)) < close_at:
        if text[i] == ",":
            if not out or out[-1][2] is not None:
                raise ValueError("stray comma")
            out[-1] = (out[-1][0], out[-1][1], i + 1)
            i += 1
        else:
            end = _value_end(text, i)
            out.append((i, end, None))
            i = end
    return out
