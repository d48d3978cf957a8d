"""File-based routes: the URL a framework gives a file from where it is, and the methods
from what the file exports (``FileFacts.exports``, extracted per file as for any module).
Called by ``routes.compose`` with the apps ``file_apps`` finds; pure (a reader of the
configuration files' texts in, plain data out; the configuration is parsed, never run).

An app is found from its framework's configuration file, in the folder that is the app's
root: ``next.config.*`` (Next.js), ``svelte.config.*`` that is SvelteKit's (it imports
``@sveltejs/kit`` or an adapter, or the folder's ``package.json`` depends on
``@sveltejs/kit``), ``nuxt.config.*`` (Nuxt), ``nitro.config.*`` (Nitro); without one, a
``package.json`` that depends on ``next``, ``@sveltejs/kit`` or ``nuxt``. A file is never a
route only for its name: ``route.ts`` in a project that is no Next.js app gives nothing.

- **Next.js** App Router: ``app/**/route.(js|ts|jsx|tsx)`` (``src/app`` when the root has
  neither ``app`` nor ``pages``), one route per exported ``GET``/``POST``/``PUT``/
  ``PATCH``/``DELETE``/``HEAD``/``OPTIONS``. Route groups ``(group)`` and slots ``@slot`` are
  no segment; a ``_private`` folder (and what it holds) is no route, ``%5F`` is ``_``;
  intercepting folders ``(.)x`` are skipped. Pages Router: ``pages/api/**`` (or
  ``src/pages/api``) with a default export: ``ANY``; ``index`` is its folder.
  ``basePath`` prefixes every route.
- **SvelteKit**: ``+server.(js|ts)`` under ``kit.files.routes`` (default ``src/routes``),
  one route per exported ``GET``/``POST``/``PUT``/``PATCH``/``DELETE``/``HEAD``/``OPTIONS``,
  ``fallback`` -> ``ANY``; ``[param]`` and ``[param=matcher]`` -> ``{param}``, ``(group)``
  dropped, ``[x+2f]``/``[u+0041]`` escapes decoded. Form actions: a ``+page.server.(js|ts)``
  that exports ``actions`` answers ``POST`` on its page's URL (one route, handler
  ``actions``; ``?/name`` picks the action, a query, not a path). ``kit.paths.base``
  prefixes them.
- **Nuxt / Nitro**: ``server/api/**`` -> ``/api/...``, ``server/routes/**`` -> ``/...``
  (Nitro alone: ``api/`` and ``routes/`` under its ``srcDir``), with a default export;
  ``users.get.ts`` -> ``GET``, a plain ``users.ts`` -> ``ANY``, ``index`` is its folder.
  The server folder is ``serverDir``, else ``<srcDir>/server`` or ``server`` (the one that
  has files: Nuxt 3 and 4 differ; both having files is unresolved). ``app.baseURL`` (Nitro:
  ``baseURL``) prefixes them.

Parameters: ``[id]`` -> ``{id}``; a catch-all ``[...slug]`` -> ``{...slug}`` (one path
segment for matching, as any ``{param}``; the name says it takes the rest); an optional
one (``[[...slug]]``, SvelteKit's ``[...rest]`` which may be empty, ``[[lang]]``) gives two
routes, without and with the segment.

A setting that is not a literal (``basePath: process.env.BASE``, a function computing the
configuration) makes the app's routes unresolved, with the reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from posixpath import dirname, join as pjoin, normpath
from typing import Callable, Iterable

from tree_sitter import Node, QueryCursor

from .languages import parse, query
from .model import FileFacts, Route, Span

_CONFIG = re.compile(r"(?:^|/)(next|svelte|nuxt|nitro)\.config\.(?:js|mjs|cjs|ts|mts|cts)$")
_DEPS = {"next": "nextjs", "@sveltejs/kit": "sveltekit", "nuxt": "nuxt"}
_KINDS = {"next": "nextjs", "svelte": "sveltekit", "nuxt": "nuxt", "nitro": "nitro"}
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_NITRO_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "connect", "trace"})
_SOURCE = (".js", ".ts", ".mjs", ".mts", ".cjs", ".cts", ".jsx", ".tsx")
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function_declaration", "method_definition",
                        "function"})
_NOT_LITERAL = object()
_DYNAMIC = re.compile(r"\[([^\[\]]+)\]")
_ESCAPE = re.compile(r"\[([xu])\+([0-9a-fA-F]+)\]")


@dataclass(frozen=True)
class FileApp:
    """One app whose files are routes: ``framework`` (``nextjs``, ``sveltekit``, ``nuxt``,
    ``nitro``), its root folder (``""``: the workspace's), the file that says so,
    ``dirs`` ((folder, kind) the routes are under: ``app``, ``pages``, ``routes``, ``api``,
    ``server-routes``), ``base`` (the base path every route is under) with the file and
    span of the setting, ``unresolved`` (why the URLs are not known), and its route files."""

    framework: str
    root: str
    config: str
    dirs: tuple[tuple[str, str], ...]
    files: tuple[str, ...]
    base: str = ""
    base_span: Span | None = None
    unresolved: str | None = None


# --------------------------------------------------------------------------- finding the apps


def file_apps(paths: Iterable[str], read: Callable[[str], str | None]) -> tuple[FileApp, ...]:
    """The apps of a workspace whose files are routes. ``paths``: the workspace's files
    (configuration files and ``package.json`` among them); ``read(path)``: the text of one
    (None when it cannot be read)."""
    paths = sorted(set(paths))
    configs: dict[str, tuple[str, str]] = {}  # folder -> (kind, config file)
    for p in paths:
        m = _CONFIG.search(p)
        if m is not None and not _in_modules(p):
            configs.setdefault(dirname(p), (m.group(1), p))
    packages = {dirname(p): p for p in paths if p.rpartition("/")[2] == "package.json" and not _in_modules(p)}
    apps: list[FileApp] = []
    for folder in sorted(set(configs) | set(packages)):
        deps = _dependencies(read, packages.get(folder))
        found = configs.get(folder)
        if found is not None:
            kind, config = found
            framework = _KINDS[kind]
            text = read(config)
            settings = _settings(config, text) if text is not None else {}
            if framework == "sveltekit" and "@sveltejs/kit" not in deps and not _is_kit(text or ""):
                continue  # Svelte without SvelteKit: no routes of files
        else:
            framework = next((fw for dep, fw in _DEPS.items() if dep in deps), None)
            if framework is None:
                continue
            config, settings = packages[folder], {}
        app = _app(framework, folder, config, settings, paths)
        if app is not None:
            apps.append(app)
    return tuple(apps)


def _in_modules(p: str) -> bool:
    return p.startswith("node_modules/") or "/node_modules/" in p


def _dependencies(read: Callable[[str], str | None], path: str | None) -> set[str]:
    if path is None:
        return set()
    text = read(path)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return set()
    out: set[str] = set()
    if isinstance(data, dict):
        for key in ("dependencies", "devDependencies", "peerDependencies"):
            d = data.get(key)
            if isinstance(d, dict):
                out.update(k for k in d if isinstance(k, str))
    return out


def _is_kit(text: str) -> bool:
    return "@sveltejs/kit" in text or "@sveltejs/adapter" in text


def _under(folder: str, sub: str) -> str:
    got = normpath(pjoin(folder, sub)) if folder else normpath(sub)
    return "" if got == "." else got


def _has(paths: list[str], folder: str) -> bool:
    head = folder + "/"
    return any(p.startswith(head) for p in paths)


def _app(framework: str, root: str, config: str, settings: dict, paths: list[str]) -> FileApp | None:
    why = None
    base_key = {"nextjs": "basePath", "sveltekit": "kit.paths.base", "nuxt": "app.baseURL", "nitro": "baseURL"}[framework]
    base, base_span = "", None
    got = settings.get(base_key)
    if got is not None:
        if got[0] is _NOT_LITERAL:
            why = f"{base_key} in {config} is not a literal"
        elif got[0].strip("/"):
            base, base_span = "/" + got[0].strip("/"), got[1]
    dirs: list[tuple[str, str]] = []
    if framework == "nextjs":
        top = [d for d in ("app", "pages") if _has(paths, _under(root, d))]
        where = root if top else _under(root, "src")
        dirs = [(_under(where, "app"), "app"), (_under(where, "pages/api"), "pages")]
    elif framework == "sveltekit":
        routes = settings.get("kit.files.routes")
        if routes is not None and routes[0] is _NOT_LITERAL:
            return FileApp(framework, root, config, (), (), unresolved=f"kit.files.routes in {config} is not a literal")
        dirs = [(_under(root, routes[0] if routes is not None else "src/routes"), "routes")]
    else:
        server, problem = _server_dir(framework, root, config, settings, paths)
        if problem is not None:
            return FileApp(framework, root, config, (), (), unresolved=problem)
        dirs = [(_under(server, "api"), "api"), (_under(server, "routes"), "server-routes")]
    files = []
    for p in paths:
        if p.endswith(_SOURCE) and not p.endswith(".d.ts") and any(p.startswith(d + "/") for d, _ in dirs):
            files.append(p)
    return FileApp(framework, root, config, tuple(dirs), tuple(files), base, base_span, why)


def _server_dir(framework: str, root: str, config: str, settings: dict, paths: list[str]) -> tuple[str, str | None]:
    """The folder of a Nuxt app's (or Nitro's) server routes, or why it is not known."""
    key = "serverDir" if framework == "nuxt" else "srcDir"
    got = settings.get(key)
    if got is not None:
        return ("", f"{key} in {config} is not a literal") if got[0] is _NOT_LITERAL else (_under(root, got[0]), None)
    if framework == "nitro":
        options = [root, _under(root, "server")]
    else:
        src = settings.get("srcDir")
        if src is None:
            return _under(root, "server"), None
        if src[0] is _NOT_LITERAL:
            return "", f"srcDir in {config} is not a literal"
        options = [_under(_under(root, src[0]), "server"), _under(root, "server")]
    having = [o for o in options if _has(paths, _under(o, "api")) or _has(paths, _under(o, "routes"))]
    if len(having) > 1:
        return "", f"both {having[0] or '.'}/ and {having[1] or '.'}/ have server routes: which one {config} serves is not known"
    return (having[0] if having else options[0]), None


# --------------------------------------------------------------------------- configuration


def _settings(path: str, text: str) -> dict[str, tuple]:
    """Dotted key -> (literal string value, its span) or (_NOT_LITERAL, None), for every
    property of the file's object literals (a key set to different values, or set inside
    a function, is not a literal)."""
    grammar = "typescript" if path.endswith((".ts", ".mts", ".cts")) else "javascript"
    src = text.encode("utf-8", "surrogatepass")
    root = parse(grammar, src).root_node
    matches = QueryCursor(query(grammar, "ecma-config-keys.scm")).matches(root)

    def txt(n: Node) -> str:
        return src[n.start_byte:n.end_byte].decode("utf-8", "replace")

    consts: dict[str, tuple] = {}
    for _, c in matches:
        if "const.name" in c:
            v = _string(c["const.value"][0], txt)
            decl = c["const.name"][0].parent
            if v is not None and not _in_function(decl):
                consts.setdefault(txt(c["const.name"][0]), (v, Span(c["const.value"][0].start_byte,
                                                                    c["const.value"][0].end_byte)))
    out: dict[str, tuple] = {}
    for _, c in matches:
        if "key" in c:
            key_node, value = c["key"][0], c["value"][0]
            name = (_string(key_node, txt) or "") if key_node.type == "string" else txt(key_node)
            got: tuple = (_string(value, txt), Span(value.start_byte, value.end_byte))
            if value.type == "identifier" and txt(value) in consts:
                got = consts[txt(value)]
        elif "short" in c:
            key_node = c["short"][0]
            name = txt(key_node)
            got = consts.get(name, (None, None))
        else:
            continue
        holder = key_node.parent
        dotted = _dotted(holder.parent if holder is not None and "key" in c else holder, name, txt)
        if dotted is None:
            continue
        if got[0] is None or _in_function(key_node):
            got = (_NOT_LITERAL, None)
        prev = out.get(dotted)
        if prev is not None and prev[0] != got[0]:
            got = (_NOT_LITERAL, None)
        out[dotted] = got
    return out


def _string(n: Node, txt: Callable[[Node], str]) -> str | None:
    if n.type == "string" or (n.type == "template_string" and not any(
            ch.type == "template_substitution" for ch in n.named_children)):
        return txt(n)[1:-1]
    return None


def _dotted(obj: Node | None, name: str, txt: Callable[[Node], str]) -> str | None:
    """``kit.files.routes`` for the property ``routes`` of the object ``obj`` in ``{ kit: {
    files: { ... } } }``."""
    keys = [name]
    while obj is not None and obj.type == "object":
        up = obj.parent
        if up is None or up.type != "pair":
            return ".".join(reversed(keys))
        k = up.child_by_field_name("key")
        if k is None:
            return None
        keys.append((_string(k, txt) or "") if k.type == "string" else txt(k))
        obj = up.parent
    return None


def _in_function(n: Node | None) -> bool:
    while n is not None:
        if n.type in _FUNCTIONS:
            return True
        n = n.parent
    return False


# --------------------------------------------------------------------------- files to routes


def file_routes(apps: Iterable[FileApp], lookup: Callable[[str], FileFacts | None]) -> list[tuple]:
    """Per route of the apps' files: (method, full path, file, Route, base step or None,
    unresolved)."""
    out: list[tuple] = []
    for app in apps:
        for rel in app.files:
            facts = lookup(rel)
            if facts is None:
                continue
            for d, kind in app.dirs:
                if rel.startswith(d + "/"):
                    for method, path, export in _routes_of(rel[len(d) + 1:], kind, facts):
                        route = _route(method, path, rel, app, export, facts)
                        out.append((method, _base_join(app.base, path), rel, route, app, app.unresolved))
                    break
    return out


def _base_join(base: str, path: str) -> str:
    if not base:
        return path
    return base if path == "/" else base + path


def _route(method: str, path: str, rel: str, app: FileApp, export, facts: FileFacts) -> Route:
    handler = handler_span = None
    if export is not None:
        handler = export.local if export.local not in ("", "default", "*") else None
        if handler is not None:
            for fd in facts.functions:
                if fd.name == handler:
                    handler_span = fd.name_span
                    break
            else:
                for d in facts.definitions:
                    if d.name == handler:
                        handler_span = d.span
                        break
    span = export.span if export is not None else Span(0, 0)
    return Route(method, path, span, app.framework, None, "", handler, handler_span)


def _routes_of(sub: str, kind: str, facts: FileFacts) -> list[tuple[str, str, object]]:
    """(method, path, export) of one file, ``sub`` its path below the routes folder."""
    folders, _, name = sub.rpartition("/")
    parts = folders.split("/") if folders else []
    stem = name.rsplit(".", 1)[0]
    exports = {e.name: e for e in facts.exports if e.module is None}
    if kind == "app":
        if stem != "route":
            return []
        paths = _next_paths(parts)
        methods = [(m, exports[m]) for m in _METHODS if m in exports]
    elif kind == "pages":
        if "default" not in exports:
            return []
        paths = _next_paths(parts + ([] if stem == "index" else [stem]), pages=True)
        methods = [("ANY", exports["default"])]
    elif kind == "routes":
        if stem == "+page.server" and name.endswith((".js", ".ts")):
            # form actions: a POST to the page's URL (`?/name` picks one: a query, not a path)
            return [("POST", p, exports["actions"]) for p in _kit_paths(parts)] if "actions" in exports else []
        if stem != "+server":
            return []
        paths = _kit_paths(parts)
        methods = [(m, exports[m]) for m in _METHODS if m in exports]
        if "fallback" in exports:
            methods.append(("ANY", exports["fallback"]))
    else:
        if "default" not in exports:
            return []
        method = "ANY"
        pieces = stem.split(".")
        if len(pieces) > 1 and pieces[-1].lower() in _NITRO_METHODS:
            method, stem = pieces[-1].upper(), ".".join(pieces[:-1])
        segs = parts + ([] if stem == "index" else [stem])
        paths = _nitro_paths(segs)
        if kind == "api":
            paths = ["/api" + ("" if p == "/" else p) for p in paths]
        methods = [(method, exports["default"])]
    return [(m, p, e) for p in paths for m, e in methods]


def _variants(segs: list[list[str]]) -> list[str]:
    """Every path the segments give (a segment with several forms, ``[""]`` included, is
    optional)."""
    out = [""]
    for forms in segs:
        out = [o + ("/" + f if f else "") for o in out for f in forms]
        if len(out) > 8:
            out = out[:8]
    return sorted({o or "/" for o in out}, key=lambda p: (len(p), p))


def _next_paths(parts: list[str], pages: bool = False) -> list[str]:
    segs: list[list[str]] = []
    if pages:
        segs.append(["api"])
    for seg in parts:
        if not pages:
            if seg.startswith("_"):
                return []  # a private folder
            if seg.startswith("(."):
                return []  # an intercepting route: no URL of its own
            if seg.startswith("(") and seg.endswith(")") or seg.startswith("@"):
                continue  # a route group, a slot
            if seg.startswith("%5F") or seg.startswith("%5f"):
                seg = "_" + seg[3:]
        if seg.startswith("[[...") and seg.endswith("]]"):
            segs.append(["", "{..." + seg[5:-2] + "}"])
        elif seg.startswith("[...") and seg.endswith("]"):
            segs.append(["{..." + seg[4:-1] + "}"])
        elif seg.startswith("[") and seg.endswith("]"):
            segs.append(["{" + seg[1:-1] + "}"])
        else:
            segs.append([seg])
    return _variants(segs)


def _kit_paths(parts: list[str]) -> list[str]:
    segs: list[list[str]] = []
    for seg in parts:
        if seg.startswith("(") and seg.endswith(")"):
            continue
        seg = _ESCAPE.sub(lambda m: chr(int(m.group(2), 16)), seg)
        if seg.startswith("[[") and seg.endswith("]]") and seg.count("[") == 2:
            segs.append(["", "{" + seg[2:-2].split("=")[0] + "}"])
        elif seg.startswith("[...") and seg.endswith("]") and seg.count("[") == 1:
            segs.append(["", "{..." + seg[4:-1].split("=")[0] + "}"])  # a rest may be empty
        else:
            segs.append([_DYNAMIC.sub(lambda m: "{" + m.group(1).split("=")[0] + "}", seg)])
    return _variants(segs)


def _nitro_paths(parts: list[str]) -> list[str]:
    segs: list[list[str]] = []
    for seg in parts:
        if seg.startswith("(") and seg.endswith(")"):
            continue
        if seg.startswith("[...") and seg.endswith("]"):
            segs.append(["{..." + (seg[4:-1] or "_") + "}"])
        else:
            segs.append([_DYNAMIC.sub(lambda m: "{" + m.group(1) + "}", seg)])
    return _variants(segs)


def is_input(rel: str, apps: Iterable[FileApp]) -> bool:
    """Whether a change of ``rel`` (it appears, goes, or changes) may change the file routes
    of ``apps``: a framework's configuration file or a ``package.json``, or a file below one
    of the apps' route folders."""
    if _CONFIG.search(rel) or rel.rpartition("/")[2] == "package.json":
        return True
    return any(rel.startswith(d + "/") for app in apps for d, _ in app.dirs)
