"""Reading the configuration files the module resolver uses, as data. Pure: text in, plain
data out; nothing is run.

- JSON with comments (``tsconfig.json``, ``jsconfig.json``) and plain JSON (``package.json``):
  :func:`parse_jsonc` (comments and trailing commas allowed, as TypeScript allows them).
- JavaScript/TypeScript configuration (``vite.config.*``, ``webpack.config.*``,
  ``vue.config.js``, ``svelte.config.*``, ``nuxt.config.*``): :func:`read_js_config` parses
  the file with tree-sitter, finds the settings with ``queries/resolve-config.scm`` and
  evaluates only literal values: strings, template strings, ``__dirname``,
  ``import.meta.url``/``import.meta.dirname``, ``process.cwd()``, ``path.resolve``/``join``/
  ``dirname``, ``fileURLToPath(new URL('./x', import.meta.url))``, ``+`` of those, and
  top-level constants bound to one of those. Anything else is "not literal": skipped, with
  a note saying so.

Paths are workspace-relative POSIX strings ("" is the workspace root); a path that leaves
the workspace is None.

Docs: docs/module-resolution.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from posixpath import dirname

from tree_sitter import Node, QueryCursor

from .languages import parse, query

# comments and strings (kept), then trailing commas before } or ] (strings kept)
_JSONC_COMMENTS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.S)
_JSONC_COMMAS = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(\s*[}\]])')
_DIGITS = re.compile(r"\d+")


class ConfigError(ValueError):
    """A configuration file that cannot be read as data (the message says where)."""


def parse_jsonc(text: str) -> object:
    """JSON with ``//`` and ``/* */`` comments and trailing commas (tsconfig's dialect)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = _JSONC_COMMENTS.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else " ", text)
    text = _JSONC_COMMAS.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(0), text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"not valid JSON (line {e.lineno}: {e.msg})") from None


def norm(path: str) -> str | None:
    """Normalize a workspace-relative path; None when it leaves the workspace. A leading
    ``/`` is dropped (the caller decides what an absolute path means)."""
    out: list[str] = []
    for seg in path.split("/"):
        if seg == "" or seg == ".":
            continue
        if seg == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(seg)
    return "/".join(out)


def join(folder: str, rel: str) -> str | None:
    """``rel`` (relative, or ``/``-rooted at the workspace) from ``folder``; None outside."""
    if rel.startswith("/"):
        return norm(rel)
    return norm(f"{folder}/{rel}" if folder else rel)


# ---------------------------------------------------------------------------- package.json
@dataclass(frozen=True, slots=True)
class Package:
    """What the resolver reads from one ``package.json``."""

    path: str
    folder: str
    name: str | None
    deps: dict[str, str]  # dependencies of every kind: name -> version range
    fields: tuple[tuple[str, str], ...]  # (field, target) for types/typings/module/main/source/svelte/browser
    exports: object  # the "exports" value as parsed, or None
    imports: object  # the "imports" value (subpath imports, "#x"), or None
    tsconfig: str | None  # the "tsconfig" field (used when a tsconfig extends the package)


ENTRY_FIELDS = ("types", "typings", "module", "main", "source", "svelte", "browser")


def read_package(path: str, text: str) -> Package:
    data = parse_jsonc(text)
    if not isinstance(data, dict):
        raise ConfigError("not a JSON object")
    deps: dict[str, str] = {}
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        value = data.get(key)
        if isinstance(value, dict):
            for name, version in value.items():
                if isinstance(version, str):
                    deps.setdefault(name, version)
    fields = tuple((f, data[f]) for f in ENTRY_FIELDS if isinstance(data.get(f), str) and data[f])
    name = data.get("name")
    tsconfig = data.get("tsconfig")
    return Package(path, dirname(path), name if isinstance(name, str) and name else None, deps, fields,
                   data.get("exports"), data.get("imports"), tsconfig if isinstance(tsconfig, str) else None)


def major_version(spec: str | None) -> int | None:
    """The major version a dependency range names (``^3.12.0`` -> 3), None when unknown."""
    if not spec or spec.startswith(("workspace:", "file:", "link:", "git", "http", "npm:")):
        return None
    m = _DIGITS.search(spec)
    return int(m.group(0)) if m else None


def subpath_targets(mapping: object, subpath: str, conditions: frozenset[str] | None = None) -> list[str]:
    """The targets that an ``exports`` (subpath ``"."``, ``"./x"``) or ``imports`` (``"#x"``)
    value gives ``subpath``, in the order a resolver tries them: condition objects are read
    in their own key order (every condition is accepted, or only ``conditions`` and the
    versioned ``types@...`` ones), arrays in order, ``*`` patterns substituted (the longest
    matching prefix wins, as in Node)."""
    if isinstance(mapping, (str, list)):
        return _flatten(mapping, None, conditions) if subpath == "." else []
    if not isinstance(mapping, dict):
        return []
    keys = [k for k in mapping if isinstance(k, str)]
    if not any(k.startswith((".", "#")) for k in keys):  # a conditions object for "."
        return _flatten(mapping, None, conditions) if subpath == "." else []
    if subpath in mapping and "*" not in subpath:
        return _flatten(mapping[subpath], None, conditions)
    best: tuple[int, str, str] | None = None
    for key in keys:
        star = key.find("*")
        if star < 0:
            continue
        prefix, suffix = key[:star], key[star + 1:]
        if subpath.startswith(prefix) and subpath.endswith(suffix) and len(subpath) >= len(prefix) + len(suffix):
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), key, subpath[len(prefix):len(subpath) - len(suffix)])
    if best is None:
        return []
    return _flatten(mapping[best[1]], best[2], conditions)


def _flatten(value: object, star: str | None, conditions: frozenset[str] | None = None) -> list[str]:
    if isinstance(value, str):
        return [value.replace("*", star) if star is not None else value]
    if isinstance(value, list):
        return [t for v in value for t in _flatten(v, star, conditions)]
    if isinstance(value, dict):
        # a `types@<=5.0` condition is the types for an older TypeScript than today's
        # (DefinitelyTyped's `ts5.0/` copies): tried after the others, as tsc 5.1+ does
        keys = sorted((k for k in value if conditions is None or k in conditions
                       or (isinstance(k, str) and k.startswith("types@"))),
                      key=lambda k: isinstance(k, str) and k.startswith("types@<"))
        return [t for k in keys for t in _flatten(value[k], star, conditions)]
    return []  # null: explicitly not exported


# ---------------------------------------------------------------------------- tsconfig.json
@dataclass(frozen=True, slots=True)
class TsRaw:
    """One tsconfig/jsconfig file as written (no ``extends`` followed)."""

    path: str
    extends: tuple[str, ...]
    base_url: str | None
    paths: dict[str, tuple[str, ...]] | None
    include: tuple[str, ...] | None
    files: tuple[str, ...] | None
    references: tuple[str, ...]
    root_dirs: tuple[str, ...] | None = None  # compilerOptions.rootDirs, as written


def read_tsconfig(path: str, text: str) -> tuple[TsRaw, list[str]]:
    """The file's settings and the problems found in it (each one is ignored)."""
    data = parse_jsonc(text)
    if not isinstance(data, dict):
        raise ConfigError("not a JSON object")
    problems: list[str] = []
    ext = data.get("extends")
    if isinstance(ext, str):
        extends: tuple[str, ...] = (ext,)
    elif isinstance(ext, list):
        extends = tuple(e for e in ext if isinstance(e, str))
    else:
        extends = ()
    opts = data.get("compilerOptions")
    opts = opts if isinstance(opts, dict) else {}
    base_url = opts.get("baseUrl") if isinstance(opts.get("baseUrl"), str) else None
    paths = None
    raw_paths = opts.get("paths")
    if isinstance(raw_paths, dict):
        paths = {}
        for key, targets in raw_paths.items():
            if isinstance(targets, list) and all(isinstance(t, str) for t in targets) and key.count("*") <= 1:
                paths[key] = tuple(targets)
            else:
                problems.append(f"compilerOptions.paths {key!r} is not a pattern with a list of paths: ignored")
    elif raw_paths is not None:
        problems.append("compilerOptions.paths is not an object: ignored")

    def strings(key: str) -> tuple[str, ...] | None:
        value = data.get(key)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else None

    refs = data.get("references")
    references = tuple(r["path"] for r in refs if isinstance(r, dict) and isinstance(r.get("path"), str)) \
        if isinstance(refs, list) else ()
    raw_roots = opts.get("rootDirs")
    root_dirs = tuple(r for r in raw_roots if isinstance(r, str)) if isinstance(raw_roots, list) else None
    return (TsRaw(path, extends, base_url, paths, strings("include"), strings("files"), references, root_dirs),
            problems)


# ---------------------------------------------------------------------------- JS configs
@dataclass(frozen=True, slots=True)
class AliasDef:
    """One alias entry: ``find`` is the key (a string) or, for a regular-expression ``find``,
    ``pattern`` is its source. ``exact`` (webpack's ``key$``) matches only the key itself;
    ``contents`` (SvelteKit's ``key/*``) matches only what is under it. Each target is
    ``("path", workspace path)`` or ``("spec", module specifier)``, tried in order."""

    find: str
    targets: tuple[tuple[str, str], ...]
    origin: str  # "vite.config.ts resolve.alias", ...
    exact: bool = False
    contents: bool = False
    pattern: str | None = None


@dataclass(frozen=True, slots=True)
class JsConfig:
    path: str
    kind: str  # vite webpack vue svelte nuxt
    aliases: tuple[AliasDef, ...]
    lib: str | None  # SvelteKit kit.files.lib (workspace path)
    src_dir: str | None  # Nuxt srcDir (workspace path)
    compat: int | None  # Nuxt future.compatibilityVersion
    modules: tuple[str, ...]  # webpack resolve.modules folders (workspace paths)
    notes: tuple[str, ...]
    incomplete: bool  # an alias setting was not (entirely) literal


_PATH_CALLS = {"resolve", "join", "dirname", "fileURLToPath", "normalize"}
_NOT_LITERAL = object()


def js_config_kind(name: str) -> str | None:
    for prefix, kind in (("vite.config.", "vite"), ("webpack.", "webpack"), ("vue.config.", "vue"),
                         ("svelte.config.", "svelte"), ("nuxt.config.", "nuxt")):
        if name.startswith(prefix):
            return kind
    return None


def read_js_config(path: str, text: str) -> JsConfig:
    name = path.rpartition("/")[2]
    kind = js_config_kind(name) or "vite"
    grammar = "typescript" if name.endswith((".ts", ".mts", ".cts")) else "javascript"
    src = text.encode("utf-8")
    root = parse(grammar, src).root_node
    reader = _Reader(path, kind, src)
    cursor = QueryCursor(query(grammar, "resolve-config.scm"))
    matches = cursor.matches(root)
    for _, c in matches:
        if "const.name" in c:
            reader.consts.setdefault(reader.text(c["const.name"][0]), c["const.value"][0])
    for _, c in matches:
        if "setting" in c:
            reader.setting(c["setting"][0], c["setting.key"][0], c["setting.value"][0])
        elif "chain" in c:
            reader.chain(c["chain.object"][0], c["chain.key"][0], c["chain.value"][0])
    return JsConfig(path, kind, tuple(reader.aliases), reader.lib, reader.src_dir, reader.compat,
                    tuple(reader.modules), tuple(reader.notes), reader.incomplete)


class _Reader:
    """Evaluates the literal settings of one JS/TS configuration file."""

    def __init__(self, path: str, kind: str, src: bytes) -> None:
        self.path, self.kind, self.src = path, kind, src
        self.folder = dirname(path)
        self.name = path.rpartition("/")[2]
        self.consts: dict[str, Node] = {}
        self.aliases: list[AliasDef] = []
        self.lib: str | None = None
        self.src_dir: str | None = None
        self.compat: int | None = None
        self.modules: list[str] = []
        self.notes: list[str] = []
        self.incomplete = False
        self._depth = 0

    def text(self, n: Node) -> str:
        return self.src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    def key(self, n: Node) -> str:
        if n.type == "string":
            return self._string(n)
        return self.text(n)

    # ---------------------------------------------------------------- settings
    def setting(self, pair: Node, key_node: Node, value: Node) -> None:
        keys = [self.key(key_node)]
        n = pair.parent
        while n is not None:
            if n.type == "pair":
                k = n.child_by_field_name("key")
                if k is not None:
                    keys.append(self.key(k))
            n = n.parent
        keys.reverse()
        path = tuple(keys)
        kind, last = self.kind, path[-1]
        if last == "alias":
            if path[-2:] == ("resolve", "alias") and kind in ("vite", "webpack", "vue", "nuxt"):
                self.alias_value(value, ".".join(path))
            elif kind == "svelte" and path[-2:] == ("kit", "alias"):
                self.alias_value(value, "kit.alias")
            elif kind == "nuxt" and path == ("alias",):
                self.alias_value(value, "alias")
        elif last == "lib" and kind == "svelte" and path[-3:] == ("kit", "files", "lib"):
            self.lib = self.folder_setting(value, "kit.files.lib")
        elif last == "srcDir" and kind == "nuxt" and path == ("srcDir",):
            self.src_dir = self.folder_setting(value, "srcDir")
        elif last == "compatibilityVersion" and kind == "nuxt" and path == ("future", "compatibilityVersion"):
            if value.type == "number" and self.text(value).isdigit():
                self.compat = int(self.text(value))
        elif last == "modules" and kind in ("webpack", "vue") and path[-2:] == ("resolve", "modules"):
            if value.type == "array":
                for el in value.named_children:
                    v = self.value(el)
                    if isinstance(v, tuple) and v[0] == "path" and v[1] is not None:
                        self.modules.append(v[1])

    def folder_setting(self, value: Node, what: str) -> str | None:
        v = self.value(value)
        target = self.target(v)
        if target is None or target[0] != "path":
            self.note(f"{what} is not a literal folder: the default is assumed")
            return None
        return target[1]

    def chain(self, obj: Node, key: Node, value: Node) -> None:
        """``config.resolve.alias.set('@', x)`` (webpack-chain; vue.config.js chainWebpack)."""
        n: Node | None = obj
        while n is not None and n.type == "call_expression":  # a previous .set(...) in the chain
            fn = n.child_by_field_name("function")
            n = fn.child_by_field_name("object") if fn is not None and fn.type == "member_expression" else None
        if n is None or n.type != "member_expression":
            return
        prop = n.child_by_field_name("property")
        inner = n.child_by_field_name("object")
        if prop is None or self.text(prop) != "alias" or inner is None or not self.text(inner).endswith("resolve"):
            return
        self.entry(self._string(key), value, "resolve.alias.set")

    # ---------------------------------------------------------------- aliases
    def alias_value(self, value: Node, where: str) -> None:
        value = self.unwrap(value)
        if value.type == "identifier" and self.text(value) in self.consts and self._depth < 3:
            self._depth += 1
            try:
                return self.alias_value(self.consts[self.text(value)], where)
            finally:
                self._depth -= 1
        if value.type == "object":
            for child in value.named_children:
                if child.type == "pair":
                    k = child.child_by_field_name("key")
                    v = child.child_by_field_name("value")
                    if k is None or v is None or k.type not in ("property_identifier", "string", "number"):
                        self.skip(where, self.text(k) if k is not None else "?", "its key is computed")
                        continue
                    self.entry(self.key(k), v, where)
                elif child.type == "shorthand_property_identifier":
                    self.entry(self.text(child), child, where)
                elif child.type != "comment":
                    self.skip(where, self.text(child)[:40], "it is not a key: value entry")
        elif value.type == "array":
            for child in value.named_children:
                if child.type == "object":
                    self.array_entry(child, where)
                elif child.type != "comment":
                    self.skip(where, self.text(child)[:40], "it is not an object literal")
        else:
            self.incomplete = True
            self.note(f"{where} is not literal ({self.text(value)[:60]}): skipped")

    def array_entry(self, obj: Node, where: str) -> None:
        """``{ find, replacement }`` (Vite/Rollup) or ``{ name, alias, onlyModule }`` (webpack 5)."""
        fields: dict[str, Node] = {}
        for child in obj.named_children:
            if child.type == "pair":
                k, v = child.child_by_field_name("key"), child.child_by_field_name("value")
                if k is not None and v is not None:
                    fields[self.key(k)] = v
        find = fields.get("find") or fields.get("name")
        target = fields.get("replacement") or fields.get("alias")
        if find is None or target is None:
            self.skip(where, self.text(obj)[:40], "it has no find/replacement")
            return
        find = self.unwrap(find)
        only = fields.get("onlyModule")
        exact = only is not None and self.text(only) == "true"
        if find.type == "regex":
            pattern = find.child_by_field_name("pattern")
            source = self.text(pattern) if pattern is not None else ""
            try:
                re.compile(source)
            except re.error:
                self.skip(where, f"/{source}/", "its regular expression is not one specward can read")
                return
            self.entry(f"/{source}/", target, where, pattern=source)
            return
        value = self.value(find)
        if not isinstance(value, tuple) or value[0] != "str":
            self.skip(where, self.text(find)[:40], "its find is not a literal string")
            return
        self.entry(value[1], target, where, exact=exact)

    def entry(self, key: str, value: Node, where: str, exact: bool = False, pattern: str | None = None) -> None:
        value = self.unwrap(value)
        nodes = value.named_children if value.type == "array" else [value]
        targets: list[tuple[str, str]] = []
        for n in nodes:
            n = self.unwrap(n)
            if n.type == "false":
                self.skip(where, key, "it maps the module to false (ignored)")
                return
            v = self.value(n)
            if pattern is not None:  # a regex replacement: kept as written ($1 and all)
                raw = self.text(n).rstrip("`'\"")
                if isinstance(v, tuple) and v[0] == "str":
                    targets.append(("str", v[1]))
                    continue
                if isinstance(v, tuple) and v[0] == "path" and v[1] is not None:
                    targets.append(("path", v[1] + "/" if raw.endswith("/") and v[1] else v[1]))
                    continue
            t = self.target(v) if pattern is None else None
            if t is None and v == ("path", None):
                self.skip(where, key, f"its target {self.text(n)[:60]} is outside the workspace")
                return
            if t is None:
                self.skip(where, key, f"its target {self.text(n)[:60]} is not literal")
                return
            targets.append(t)
        contents = False
        if self.kind == "svelte" and key.endswith("/*"):
            key, contents = key[:-2], True
            targets = [(k, v[:-2] if v.endswith("/*") else v.rstrip("*")) for k, v in targets]
        if self.kind == "webpack" or self.kind == "vue":
            if key.endswith("$"):
                key, exact = key[:-1], True
        self.aliases.append(AliasDef(key, tuple(targets), f"{self.name} {where}", exact, contents, pattern))

    def skip(self, where: str, key: str, why: str) -> None:
        self.incomplete = True
        self.note(f"{where} {key!r} skipped: {why}")

    def note(self, message: str) -> None:
        self.notes.append(message)

    def target(self, v: object) -> tuple[str, str] | None:
        """An evaluated alias target as ("path", workspace path) or ("spec", specifier)."""
        if not isinstance(v, tuple):
            return None
        kind, value = v
        if kind in ("path", "url"):
            return ("path", value) if value is not None else None
        if kind != "str":
            return None
        if value.startswith("/"):
            # Vite reads "/src" from the project root; nobody aliases to the machine's root
            p = join(self.folder, value[1:])
            return ("path", p) if p is not None else None
        if value.startswith(("./", "../")) or value in (".", "..") or self.kind in ("svelte", "nuxt"):
            p = join(self.folder, value)
            return ("path", p) if p is not None else None
        return ("spec", value)

    # ---------------------------------------------------------------- values
    def unwrap(self, n: Node) -> Node:
        while n.type in ("parenthesized_expression", "as_expression", "satisfies_expression",
                         "non_null_expression", "type_assertion"):
            inner = n.named_children[0] if n.named_children else None
            if inner is None:
                break
            n = inner
        return n

    def value(self, n: Node) -> object:
        """("str", s) | ("path", p) | ("url", p) | ("num", s) | _NOT_LITERAL. A path that leaves
        the workspace is ("path", None)."""
        n = self.unwrap(n)
        t = n.type
        if t == "string":
            return ("str", self._string(n))
        if t == "template_string":
            return self.template(n)
        if t == "number":
            return ("num", self.text(n))
        if t in ("identifier", "shorthand_property_identifier"):
            name = self.text(n)
            if name == "__dirname":
                return ("path", self.folder)
            if name == "__filename":
                return ("path", self.path)
            if name in self.consts and self._depth < 3:
                self._depth += 1
                try:
                    return self.value(self.consts[name])
                finally:
                    self._depth -= 1
            return _NOT_LITERAL
        if t == "member_expression":
            text = self.text(n).replace(" ", "")
            if text == "import.meta.url":
                return ("url", self.path)
            if text in ("import.meta.dirname", "import.meta.dir"):
                return ("path", self.folder)
            obj, prop = n.child_by_field_name("object"), n.child_by_field_name("property")
            if obj is not None and prop is not None and self.text(prop) == "pathname":
                v = self.value(obj)
                if isinstance(v, tuple) and v[0] == "url":
                    return ("path", v[1])
            return _NOT_LITERAL
        if t == "new_expression":
            ctor, args = n.child_by_field_name("constructor"), n.child_by_field_name("arguments")
            if ctor is None or args is None or self.text(ctor) != "URL":
                return _NOT_LITERAL
            vals = [self.value(a) for a in args.named_children if a.type != "comment"]
            if len(vals) == 2 and isinstance(vals[0], tuple) and vals[0][0] == "str" \
                    and isinstance(vals[1], tuple) and vals[1][0] == "url" and vals[1][1] is not None:
                base = dirname(vals[1][1])
                return ("url", join(base, vals[0][1]))
            return _NOT_LITERAL
        if t == "call_expression":
            return self.call(n)
        if t == "binary_expression":
            op = n.child_by_field_name("operator")
            if op is None or self.text(op) != "+":
                return _NOT_LITERAL
            left, right = self.value(n.child_by_field_name("left")), self.value(n.child_by_field_name("right"))
            if not (isinstance(left, tuple) and isinstance(right, tuple) and right[0] == "str"):
                return _NOT_LITERAL
            if left[0] == "str":
                return ("str", left[1] + right[1])
            if left[0] == "path" and left[1] is not None and right[1].startswith("/"):
                return ("path", join(left[1], right[1][1:]))
            return _NOT_LITERAL
        return _NOT_LITERAL

    def template(self, n: Node) -> object:
        parts: list[object] = []
        for child in n.named_children:
            if child.type == "string_fragment":
                parts.append(("str", self.text(child)))
            elif child.type == "escape_sequence":
                parts.append(("str", _unescape(self.text(child))))
            elif child.type == "template_substitution":
                inner = child.named_children[0] if child.named_children else None
                if inner is None:
                    return _NOT_LITERAL
                parts.append(self.value(inner))
        if any(not isinstance(p, tuple) for p in parts):
            return _NOT_LITERAL
        if parts and parts[0][0] == "path":  # type: ignore[index]
            if parts[0][1] is None:  # type: ignore[index]
                return ("path", None)
            rest = "".join(p[1] for p in parts[1:] if p[0] == "str")  # type: ignore[index]
            if len(rest) != sum(len(p[1]) for p in parts[1:]) or not (rest == "" or rest.startswith("/")):  # type: ignore[index]
                return _NOT_LITERAL
            return ("path", norm(parts[0][1] + rest))  # type: ignore[index]
        if all(p[0] == "str" for p in parts):  # type: ignore[index]
            return ("str", "".join(p[1] for p in parts))  # type: ignore[index]
        return _NOT_LITERAL

    def call(self, n: Node) -> object:
        fn, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
        if fn is None or args is None:
            return _NOT_LITERAL
        if fn.type == "identifier":
            name = self.text(fn)
        elif fn.type == "member_expression" and fn.child_by_field_name("property") is not None:
            name = self.text(fn.child_by_field_name("property"))
            if self.text(fn).replace(" ", "") == "process.cwd":
                return ("path", self.folder)  # configurations run from their own folder
        else:
            return _NOT_LITERAL
        if name not in _PATH_CALLS:
            return _NOT_LITERAL
        vals = [self.value(a) for a in args.named_children if a.type != "comment"]
        if any(not isinstance(v, tuple) for v in vals):
            return _NOT_LITERAL
        if name == "fileURLToPath":
            if len(vals) == 1 and vals[0][0] == "url":  # type: ignore[index]
                return ("path", vals[0][1])  # type: ignore[index]
            return _NOT_LITERAL
        if name in ("dirname", "normalize"):
            if len(vals) == 1 and vals[0][0] == "path" and vals[0][1] is not None:  # type: ignore[index]
                return ("path", dirname(vals[0][1]) if name == "dirname" else vals[0][1])  # type: ignore[index]
            return _NOT_LITERAL
        # resolve(...) starts from the working directory (the configuration's folder); join(...)
        # of strings alone stays a string
        current: str | None = self.folder if name == "resolve" else None
        started = name == "resolve"
        for kind, v in vals:  # type: ignore[misc]
            if kind == "path":
                if v is None:
                    return ("path", None)
                current, started = v, True
            elif kind == "str":
                if v.startswith("/"):
                    return _NOT_LITERAL  # a path on the machine, not in the workspace
                if started:
                    current = join(current, v) if current is not None else None
                    if current is None:
                        return ("path", None)
                else:
                    current = v if current is None else f"{current}/{v}"
            else:
                return _NOT_LITERAL
        if current is None:
            return _NOT_LITERAL
        return ("path", current) if started else ("str", current)

    def _string(self, n: Node) -> str:
        out = []
        for child in n.named_children:
            if child.type == "string_fragment":
                out.append(self.text(child))
            elif child.type == "escape_sequence":
                out.append(_unescape(self.text(child)))
        return "".join(out)


def _unescape(seq: str) -> str:
    simple = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f", "v": "\v"}
    body = seq[1:]
    if body[:1] in simple and len(body) == 1:
        return simple[body]
    if body.startswith("u") or body.startswith("x"):
        digits = body[1:].strip("{}")
        try:
            return chr(int(digits, 16))
        except ValueError:
            return seq
    return body
