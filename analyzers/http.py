"""Cross-file linking of HTTP calls: from per-file ``CallSite``s to resolved ``HttpCall``s.

Pure: reads other files' facts only through the ``lookup`` callable it is given, and
records which paths it read (or probed and did not find) so the index can re-link exactly
the files that depend on a changed one.

What it resolves, without running code:
- which call sites are HTTP calls: ``fetch``, axios (verbs, ``axios(config)``,
  ``axios.request``, instances), Angular ``HttpClient``, superagent, ky, ofetch/``$fetch``,
  SWR-style hooks, ``{ method, path }`` objects passed to any request function, Python
  ``requests``/``httpx``/``aiohttp`` (module functions and client instances), and thin
  wrappers (a function forwarding its path argument to any of these, followed through
  several levels and across files);
- URL expressions: constants (same file or imported), base URLs of client instances,
  environment bases, absolute URLs, query strings.

A call whose URL cannot be resolved is reported ``unresolved`` with a reason; it is never
guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from posixpath import dirname, join, normpath
from typing import Callable, Iterable

from .model import (
    Arg,
    ArgVal,
    CallSite,
    ClientDef,
    Env,
    FileFacts,
    FunctionDef,
    HTTP_METHODS,
    Lit,
    ObjVal,
    OtherVal,
    Param,
    Part,
    Ref,
    Span,
    StrVal,
    Unknown,
    UrlExpr,
)

VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE",
         "del": "DELETE", "head": "HEAD", "options": "OPTIONS"}

# library modules -> client kind
LIB_MODULES = {
    "axios": "axios", "superagent": "superagent", "ky": "ky", "ofetch": "ofetch",
    "ohmyfetch": "ofetch", "node-fetch": "fetch", "cross-fetch": "fetch",
    "isomorphic-fetch": "fetch", "swr": "swr", "swr/immutable": "swr", "swr/mutation": "swr",
    "ahooks": "hook", "umi": "hook", "@umijs/max": "hook", "requests": "requests",
    "httpx": "httpx", "aiohttp": "aiohttp",
}
HOOKS = {"useSWR", "useSWRImmutable", "useSWRMutation", "useRequest", "useFetch", "useLazyFetch"}
GLOBALS = {"fetch": "fetch", "$fetch": "ofetch", "axios": "axios", "superagent": "superagent"}
JS_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte",
               "/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs")
BASEISH = re.compile(r"base|url|uri|host|origin|api|endpoint|server|domain|root|prefix|backend", re.I)
SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(//)?")
MAX_DEPTH = 6


def _linker_version() -> str:
    import hashlib
    from pathlib import Path

    from .extract import EXTRACTOR_VERSION

    return hashlib.blake2b(Path(__file__).read_bytes() + EXTRACTOR_VERSION.encode(), digest_size=8).hexdigest()


LINKER_VERSION = _linker_version()


@dataclass(frozen=True)
class HttpCall:
    """One resolved HTTP call. ``template`` is the full path template (scheme and host
    dropped, query dropped) or None when unresolved; ``relative`` is the part after a base
    URL that came from a client or a base constant (None when there was no such base);
    ``host`` is the host of an absolute URL, and ``reason`` says why a call is unresolved."""

    file: str
    span: Span
    call_span: Span
    method: str
    template: str | None
    relative: str | None = None
    host: str | None = None
    reason: str | None = None
    via: str = ""
    base_unknown: bool = False  # a leading base was dropped (environment, configuration)


@dataclass(slots=True)
class _Wrapper:
    url: UrlExpr
    base_len: int  # how many leading parts of url form the base
    method: object  # str | Arg | None
    params: tuple[str, ...]
    via: str


@dataclass(slots=True)
class _Target:
    """A resolved callee."""

    kind: str  # fetch axios axios-call superagent ky ofetch angular hook requests httpx aiohttp wrapper object
    verb: str | None = None  # last callee segment, lower-case
    base: UrlExpr | None = None
    wrapper: _Wrapper | None = None


@dataclass(slots=True)
class _Memo:
    value: object
    deps: set[str] = field(default_factory=set)


class Linker:
    """Links call sites across files. One instance per batch (it memoizes per file)."""

    def __init__(self, lookup: Callable[[str], FileFacts | None]) -> None:
        self._lookup = lookup
        self._deps: list[set[str]] = []
        self._memo: dict[tuple, _Memo] = {}
        self._active: set[tuple] = set()
        self._index: dict[str, "_FileIndex"] = {}

    # ------------------------------------------------------------------ dependencies
    def _facts(self, path: str) -> FileFacts | None:
        if self._deps:
            self._deps[-1].add(path)
        return self._lookup(path)

    def _memoized(self, key: tuple, compute: Callable[[], object]) -> object:
        memo = self._memo.get(key)
        if memo is None:
            if key in self._active:
                return None  # recursion (a wrapper calling itself): no answer
            self._active.add(key)
            self._deps.append(set())
            try:
                value = compute()
            finally:
                deps = self._deps.pop()
                self._active.discard(key)
            memo = self._memo[key] = _Memo(value, deps)
        if self._deps:
            self._deps[-1] |= memo.deps
        return memo.value

    def _file_index(self, path: str) -> "_FileIndex | None":
        facts = self._facts(path)
        if facts is None:
            return None
        idx = self._index.get(path)
        if idx is None or idx.facts is not facts:
            idx = self._index[path] = _FileIndex(facts)
        return idx

    # ------------------------------------------------------------------ public
    def link_file(self, path: str) -> tuple[list[HttpCall], set[str]]:
        """The HTTP calls of one file, and every path read (or probed) to find them."""
        self._deps.append({path})
        try:
            idx = self._file_index(path)
            calls: list[HttpCall] = []
            if idx is not None:
                for site in idx.facts.calls:
                    try:
                        call = self._classify(idx, site)
                    except RecursionError:
                        call = None
                    if call is not None:
                        calls.append(call)
            return calls, self._deps[-1]
        finally:
            self._deps.pop()

    # ------------------------------------------------------------------ module resolution
    def resolve_module(self, importer: str, module: str, language: str) -> str | None:
        """The workspace file ``module`` names, imported from ``importer``. Memoized per
        folder: every file of a folder resolves a module the same way."""
        if language != "python" and not module.startswith((".", "/", "@/", "~/")):
            return None  # a package
        folder = dirname(importer)
        key = ("module", folder, module, language == "python")
        memo = self._memo.get(key)
        if memo is None:
            return self._memoized(key, lambda: self._resolve_module(folder, module, language))  # type: ignore[return-value]
        if self._deps:
            self._deps[-1] |= memo.deps  # the paths probed: a file created there changes the answer
        return memo.value  # type: ignore[return-value]

    def _resolve_module(self, folder: str, module: str, language: str) -> str | None:
        if language == "python":
            return self._resolve_python(folder, module)
        if module.startswith(("@/", "~/")):
            bases = [join(root, module[2:]) for root in ("src", "app", "")]
        elif module.startswith("/"):
            bases = [module.lstrip("/")]
        else:
            bases = [normpath(join(folder, module))]
        for base in bases:
            base = base.lstrip("./") if base.startswith("./") else base
            for suffix in JS_SUFFIXES:
                candidate = base + suffix
                if self._facts(candidate) is not None:
                    return candidate
        return None

    def _resolve_python(self, folder: str, module: str) -> str | None:
        if module.startswith("."):
            dots = len(module) - len(module.lstrip("."))
            pkg = folder
            for _ in range(dots - 1):
                pkg = dirname(pkg)
            rest = module[dots:].replace(".", "/")
            roots = [join(pkg, rest) if rest else pkg]
        else:
            rest = module.replace(".", "/")
            roots = [rest, join("src", rest)]
            # a sibling module imported absolutely from a script's folder
            here = folder
            while here:
                roots.append(join(here, rest))
                here = dirname(here)
        for root in roots:
            root = normpath(root) if root else ""
            for candidate in (root + ".py", join(root, "__init__.py")):
                if self._facts(candidate) is not None:
                    return candidate
        return None

    def _import_target(self, idx: "_FileIndex", local: str) -> tuple[str | None, str, str] | None:
        """For a local name bound by an import: (resolved file or None, module, export name)."""
        imp = idx.imports.get(local)
        if imp is None:
            return None
        target = self.resolve_module(idx.facts.path, imp.module, idx.facts.language)
        return target, imp.module, imp.name

    # ------------------------------------------------------------------ symbols
    def _through_import(self, idx: "_FileIndex", dotted: str) -> tuple[str, str] | None:
        """For ``head.rest`` where ``head`` is bound by an import of a workspace file: the
        file and the name ``head.rest`` has there (a namespace import's first member is
        the export)."""
        head, _, rest = dotted.partition(".")
        if head not in idx.imports:
            return None
        t = self._import_target(idx, head)
        if not t or not t[0]:
            return None
        target, _module, export = t
        if export == "*":
            if not rest:
                return None
            export, _, rest = rest.partition(".")
        loc = self._export_local(target, export)
        if loc is None:
            return None
        return loc[0], ".".join(x for x in (loc[1], rest) if x)

    def _export_local(self, path: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """(file, local name) that export ``name`` of ``path`` refers to."""
        idx = self._file_index(path)
        if idx is None or depth > MAX_DEPTH:
            return None
        if idx.facts.language == "python":
            return path, name
        exp = idx.exports.get(name)
        if exp is not None:
            if exp.module:
                target = self.resolve_module(path, exp.module, idx.facts.language)
                return self._export_local(target, exp.local, depth + 1) if target else None
            # `export { x }` where x is itself imported
            if exp.local in idx.imports and exp.local not in idx.locals:
                t = self._import_target(idx, exp.local)
                if t and t[0]:
                    return self._export_local(t[0], t[2], depth + 1)
            return path, exp.local
        for star in idx.star_exports:
            target = self.resolve_module(path, star, idx.facts.language)
            if target:
                found = self._export_local(target, name, depth + 1)
                if found:
                    return found
        # CommonJS-ish and TS without explicit exports: fall back to a top-level name
        if name in idx.locals:
            return path, name
        return None

    def resolve_expr(self, path: str, expr: UrlExpr, scope: str | None = None, depth: int = 0) -> UrlExpr:
        """Replace ``Ref`` parts that name known string constants (here or imported)."""
        out: list[Part] = []
        for part in expr:
            if isinstance(part, Ref):
                resolved = self._resolve_ref(path, part.name, scope, depth)
                if resolved is not None:
                    out.extend(resolved)
                    continue
            out.append(part)
        return tuple(out)

    def _resolve_ref(self, path: str, name: str, scope: str | None, depth: int) -> UrlExpr | None:
        if depth > MAX_DEPTH:
            return None
        key = ("ref", path, name, scope)
        return self._memoized(key, lambda: self._compute_ref(path, name, scope, depth))  # type: ignore[return-value]

    def _compute_ref(self, path: str, name: str, scope: str | None, depth: int) -> UrlExpr | None:
        idx = self._file_index(path)
        if idx is None:
            return None
        candidates = [name]
        head, _, rest = name.partition(".")
        if head in ("this", "self") and rest and scope:
            candidates = [f"{scope.split('.')[0]}.{rest}"]
        for cand in candidates:
            expr = idx.constants.get(cand)
            if expr is not None:
                return self.resolve_expr(path, expr, None, depth + 1)
        hit = self._through_import(idx, name)
        if hit is not None:
            return self._resolve_ref(hit[0], hit[1], None, depth + 1)
        return None

    def _function(self, idx: "_FileIndex", callee: str, scope: str | None, depth: int = 0) -> tuple[str, FunctionDef] | None:
        """The function a callee names: local, ``this``/``self`` method, or imported."""
        if depth > MAX_DEPTH:
            return None
        head, _, rest = callee.partition(".")
        if head in ("this", "self") and rest and scope:
            cls = scope.split(".")[0]
            fn = idx.functions.get(f"{cls}.{rest}")
            return (idx.facts.path, fn) if fn else None
        fn = idx.functions.get(callee)
        if fn is not None:
            return idx.facts.path, fn
        hit = self._through_import(idx, callee)
        if hit is not None:
            tidx = self._file_index(hit[0])
            if tidx is None:
                return None
            fn = tidx.functions.get(hit[1])
            if fn is not None:
                return hit[0], fn
            return self._function(tidx, hit[1], None, depth + 1) if hit[1] != callee else None
        return None

    def _client(self, idx: "_FileIndex", name: str, scope: str | None, depth: int = 0) -> tuple[str, ClientDef] | None:
        if depth > MAX_DEPTH:
            return None
        head, _, rest = name.partition(".")
        if head in ("this", "self") and scope:
            found = idx.clients.get((name, scope.split(".")[0]))
            return (idx.facts.path, found) if found else None
        s = scope
        while True:
            found = idx.clients.get((name, s))
            if found is not None:
                return idx.facts.path, found
            if s is None:
                break
            s = s.rpartition(".")[0] or None
        hit = self._through_import(idx, name)
        if hit is not None:
            tidx = self._file_index(hit[0])
            if tidx is not None:
                return self._client(tidx, hit[1], None, depth + 1)
        return None

    # ------------------------------------------------------------------ wrappers
    def _wrapper(self, path: str, fn: FunctionDef) -> _Wrapper | None:
        key = ("wrapper", path, fn.name)
        return self._memoized(key, lambda: self._compute_wrapper(path, fn))  # type: ignore[return-value]

    def _compute_wrapper(self, path: str, fn: FunctionDef) -> _Wrapper | None:
        idx = self._file_index(path)
        if idx is None:
            return None
        for site in idx.calls_by_scope.get(fn.name, ()):
            target = self._target(idx, site)
            if target is None:
                continue
            got = self._url_and_method(idx, site, target)
            if got is None:
                continue
            url, base_len, method, via = got
            if any(isinstance(p, Arg) for p in url[base_len:]) and _forwards_path(url, base_len):
                return _Wrapper(url, base_len, method, fn.params, via)
        return None

    # ------------------------------------------------------------------ classification
    def _target(self, idx: "_FileIndex", site: CallSite) -> _Target | None:
        callee = site.callee
        head, _, rest = callee.partition(".")
        last = callee.rpartition(".")[2]
        verb = last.lower()
        # 1. a function of the workspace that forwards to an HTTP call
        fn = self._function(idx, callee, site.scope)
        if fn is not None:
            wrapper = self._wrapper(*fn)
            if wrapper is not None:
                return _Target("wrapper", wrapper=wrapper)
            if _object_request(site):
                return _Target("object")
            return None
        # 2. a client instance
        receiver = callee.rpartition(".")[0]
        if receiver:
            client = self._client(idx, receiver, site.scope)
            if client is not None:
                cpath, cdef = client
                base = self.resolve_expr(cpath, cdef.base, cdef.scope) if cdef.base else None
                return _Target(cdef.kind, verb=verb, base=base)
            if receiver in ("this.http", "this.httpClient", "this._http") and (verb in VERBS or verb == "request"):
                return _Target("angular", verb=verb)
        # 3. a library, imported or global
        kind = None
        imp = idx.imports.get(head)
        if imp is not None:
            kind = LIB_MODULES.get(imp.module)
            if kind == "hook" or kind == "swr":
                return _Target("hook", verb=last) if last in HOOKS or imp.name in HOOKS else None
        elif idx.facts.language != "python" and head in GLOBALS:
            kind = GLOBALS[head]
        elif idx.facts.language != "python" and callee in HOOKS:
            return _Target("hook", verb=callee)
        if kind is not None:
            if kind == "fetch":
                return _Target("fetch") if not rest else None
            if not rest:
                # axios(config) / axios(url, config) / ky(url) / ofetch(url) / superagent(method, url)
                return _Target(kind, verb=None)
            if rest in ("create", "extend", "Session", "Client", "AsyncClient", "ClientSession"):
                return None
            if verb in VERBS or verb in ("request", "stream"):
                return _Target(kind, verb=verb)
            return None
        if _object_request(site):
            return _Target("object")
        return None

    def _url_and_method(self, idx: "_FileIndex", site: CallSite, target: _Target
                        ) -> tuple[UrlExpr, int, object, str] | None:
        """(resolved url with Args, length of its base, method or Arg or None, via)."""
        args, kwargs = site.args, dict(site.kwargs)
        kind, verb = target.kind, target.verb
        method: object = None
        url_val: ArgVal | None = None
        via = kind
        if kind == "wrapper":
            w = target.wrapper
            assert w is not None
            url = _substitute(w.url, site, w.params)
            if url is None:
                return None
            method = w.method
            if isinstance(method, Arg):
                method = _method_from_value(_arg_value(site, method, w.params))
            return self.resolve_expr(idx.facts.path, url, site.scope), w.base_len, method, w.via
        if kind == "object":
            obj = next(a for a in args if isinstance(a, ObjVal))
            url_val = obj.get("path") or obj.get("url")
            method = _method_from_value(obj.get("method") or obj.get("type"))
            via = "request object"
        elif kind == "hook":
            first = args[0] if args else None
            if isinstance(first, ObjVal):
                url_val = first.get("url") or first.get("path")
                method = _method_from_value(first.get("method")) or "GET"
            elif isinstance(first, StrVal):
                resolved = self.resolve_expr(idx.facts.path, first.expr, site.scope)
                if len(resolved) == 1 and isinstance(resolved[0], (Ref, Unknown, Arg)):
                    return None  # `useRequest(loadUsers)`: a service function, not a URL
                url_val = first
                method = "GET"
            else:
                return None  # a service function or a computed key: not a URL
            via = verb or "hook"
        elif verb in VERBS:
            method = VERBS[verb]
            url_val = args[0] if args else kwargs.get("url")
        elif verb in ("request", "stream") or verb is None:
            first = args[0] if args else None
            if isinstance(first, ObjVal):  # axios(config), axios.request(config)
                url_val = first.get("url") or first.get("path")
                method = _method_from_value(first.get("method")) or "GET"
            elif kind in ("requests", "httpx", "aiohttp", "superagent", "angular") and (
                    len(args) >= 2 or "url" in kwargs):
                method = _method_from_value(args[0] if args else kwargs.get("method"))
                url_val = args[1] if len(args) >= 2 else kwargs.get("url")
            elif kind in ("fetch", "ofetch", "ky", "axios") and first is not None:
                url_val = first
                init = args[1] if len(args) > 1 else None
                if init is None:
                    method = "GET"
                elif isinstance(init, ObjVal):
                    method = _method_from_value(init.get("method")) or (
                        "GET" if init.get("method") is None else None)
                    base = init.get("baseURL") or init.get("prefixUrl")
                    if isinstance(base, StrVal) and target.base is None:
                        target = _Target(kind, verb, base=self.resolve_expr(idx.facts.path, base.expr, site.scope))
                else:
                    method = None
            else:
                return None
        else:
            return None
        if not isinstance(url_val, StrVal):
            if url_val is None:
                return None
            url_val = StrVal((Unknown("the URL is not a string expression"),), url_val.span)
        path = self.resolve_expr(idx.facts.path, url_val.expr, site.scope)
        base_len = 0
        if target.base:
            base = tuple(target.base)
            path = _join_base(base, path)
            base_len = len(base)
        else:
            base_len = _leading_base_len(url_val.expr, self, idx, site.scope)
        return path, base_len, method, via

    def _classify(self, idx: "_FileIndex", site: CallSite) -> HttpCall | None:
        target = self._target(idx, site)
        if target is None:
            return None
        got = self._url_and_method(idx, site, target)
        if got is None:
            return None
        url, base_len, method, via = got
        if site.scope is not None and any(isinstance(p, Arg) for p in url[base_len:]) and _forwards_path(url, base_len):
            # this call is the inside of a wrapper: its callers are the HTTP calls
            fn = idx.functions.get(site.scope)
            if fn is not None:
                return None
        if site.scope is not None:
            fn = idx.functions.get(site.scope)
            url = tuple(Param(_arg_label(p, fn)) if isinstance(p, Arg) else p for p in url)
        span = _url_span(site, target)
        meth = method if isinstance(method, str) and method.upper() in HTTP_METHODS else "UNKNOWN"
        return finish(idx.facts.path, span, site.span, meth.upper(), url, base_len, via)


# ---------------------------------------------------------------------- helpers


class _FileIndex:
    __slots__ = ("facts", "imports", "exports", "star_exports", "constants", "functions",
                 "clients", "calls_by_scope", "locals")

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.imports = {i.local: i for i in facts.imports}
        self.exports = {e.name: e for e in facts.exports if e.name != "*"}
        self.star_exports = [e.module for e in facts.exports if e.name == "*" and e.module]
        self.constants = dict(facts.constants)
        self.functions = {f.name: f for f in facts.functions}
        self.clients = {(c.name, c.scope): c for c in facts.clients}
        by_scope: dict[str, list[CallSite]] = {}
        for c in facts.calls:
            if c.scope is not None:
                by_scope.setdefault(c.scope, []).append(c)
        self.calls_by_scope = by_scope
        names = {d.name for d in facts.definitions}
        names.update(n for n, _ in facts.constants)
        names.update(f.name.split(".")[0] for f in facts.functions)
        names.update(c.name for c in facts.clients)
        self.locals = names


def _object_request(site: CallSite) -> bool:
    for a in site.args:
        if isinstance(a, ObjVal) and (a.get("path") or a.get("url")) is not None:
            m = a.get("method")
            if isinstance(m, StrVal) and (_method_from_value(m) or any(isinstance(p, Arg) for p in m.expr)):
                return True
    return False


def _method_from_value(val: object) -> object:
    if isinstance(val, StrVal):
        if len(val.expr) == 1:
            p = val.expr[0]
            if isinstance(p, Lit) and p.text.upper() in HTTP_METHODS:
                return p.text.upper()
            if isinstance(p, Arg):
                return p
    return None


def _arg_value(site: CallSite, arg: Arg, params: tuple[str, ...]) -> ArgVal | None:
    val: ArgVal | None = None
    if arg.index < len(site.args):
        val = site.args[arg.index]
    elif arg.index < len(params):
        val = dict(site.kwargs).get(params[arg.index])
    if val is None:
        return None
    if arg.field is not None:
        if isinstance(val, ObjVal):
            return val.get(arg.field)
        return None
    return val


def _substitute(url: UrlExpr, site: CallSite, params: tuple[str, ...]) -> UrlExpr | None:
    out: list[Part] = []
    for part in url:
        if isinstance(part, Arg):
            val = _arg_value(site, part, params)
            if isinstance(val, StrVal):
                out.extend(val.expr)
            elif val is None:
                return None
            else:
                out.append(Unknown("the wrapper's path argument is not a string expression"))
        else:
            out.append(part)
    return tuple(out)


def _arg_label(arg: Arg, fn: FunctionDef | None) -> str:
    if arg.field:
        return arg.field
    if fn is not None and arg.index < len(fn.params):
        return fn.params[arg.index].strip("{}.").split(",")[0] or "param"
    return "param"


def _url_span(site: CallSite, target: _Target) -> Span:
    """The span of the URL expression at the outermost call site."""
    if target.kind == "wrapper" and target.wrapper is not None:
        for part in target.wrapper.url:
            if isinstance(part, Arg):
                val = _arg_value(site, part, target.wrapper.params)
                if val is not None:
                    return val.span
    for a in site.args:
        if isinstance(a, StrVal) and target.kind not in ("requests", "httpx", "aiohttp", "superagent") or (
                isinstance(a, StrVal) and not _method_from_value(a)):
            return a.span
        if isinstance(a, ObjVal):
            v = a.get("url") or a.get("path")
            if v is not None:
                return v.span
    for k, v in site.kwargs:
        if k == "url":
            return v.span
    return site.span


def _forwards_path(url: UrlExpr, base_len: int) -> bool:
    """True when an Arg supplies the path itself (``${API_ROOT}${url}``, ``BASE + '/' + path``),
    not one segment or a query value of a literal path (``/articles/${slug}``,
    ``/orders?limit=${n}``)."""
    text_before = ""
    for part in url[base_len:]:
        if isinstance(part, Arg):
            return not text_before.strip("/")
        text_before += part.text if isinstance(part, Lit) else "x"
    return False


def _join_base(base: UrlExpr, path: UrlExpr) -> UrlExpr:
    """``base`` + ``path`` the way clients join them (an absolute URL replaces the base).
    The parts stay separate so the caller knows where the base ends."""
    if path and isinstance(path[0], Lit) and SCHEME.match(path[0].text):
        return path
    if path and isinstance(path[0], Lit) and base and isinstance(base[-1], Lit):
        left, right = base[-1].text, path[0].text
        if left.endswith("/") and right.startswith("/"):
            right = right[1:]
        elif not left.endswith("/") and not right.startswith("/") and right:
            right = "/" + right
        return base + (Lit(right),) + path[1:]
    if path and isinstance(path[0], Lit) and not path[0].text.startswith("/"):
        return base + (Lit("/" + path[0].text),) + path[1:]
    return base + path


def _leading_base_len(original: UrlExpr, linker: Linker, idx: _FileIndex, scope: str | None) -> int:
    """When the URL starts with a reference (``${API_ROOT}/x``), the parts that reference
    resolved to form the base."""
    if original and isinstance(original[0], (Ref, Env)):
        first = original[0]
        if isinstance(first, Ref):
            r = linker.resolve_expr(idx.facts.path, (first,), scope)
            return len(r)
        return 1
    return 0


def finish(path: str, span: Span, call_span: Span, method: str, url: UrlExpr, base_len: int,
           via: str) -> HttpCall | None:
    """Turn a resolved URL expression into an ``HttpCall`` (template, relative, host)."""
    kind, template, relative, host, reason, base_unknown = _url_of(url, base_len)
    if kind == "skip":
        return None
    return HttpCall(path, span, call_span, method, template, relative=relative, host=host, reason=reason,
                    via=via, base_unknown=base_unknown)


@lru_cache(maxsize=1 << 16)
def _url_of(url: UrlExpr, base_len: int) -> tuple[str, str | None, str | None, str | None, str | None, bool]:
    """(kind, template, relative, host, reason, base unknown) of a resolved URL expression;
    kind is "call" or "skip" (not an HTTP API call). A pure function of its arguments,
    memoized: the same URL expressions come back across a workspace."""

    def unresolved(reason: str) -> tuple:
        return "call", None, None, None, reason, False

    seq = list(url)
    if not seq:
        return unresolved("the URL is empty")
    first = seq[0]
    dropped_base = False
    if isinstance(first, Env) or (isinstance(first, Ref) and BASEISH.search(first.name)):
        # a base that cannot be seen statically (environment, configuration): dropped
        seq = seq[1:]
        base_len = max(0, base_len - 1)
        dropped_base = True
        if not seq:
            return unresolved(f"the URL is only the base {_describe(first)}")
    elif isinstance(first, Unknown):
        return unresolved(first.why)
    elif isinstance(first, (Ref, Param)):
        return unresolved(f"the URL starts with {_describe(first)}, which specward cannot resolve")
    elif isinstance(first, Arg):
        return unresolved("the URL is a parameter of the enclosing function")
    if base_len or dropped_base:
        nxt = seq[base_len] if base_len < len(seq) else None
        if nxt is not None and not isinstance(nxt, Lit):
            # base + a whole path only known at run time: `${API}${endpoint}`
            return unresolved(f"the path after the base is {_describe(nxt)}, which specward cannot resolve")
    full = _render(seq)
    base_text = _render(seq[:base_len])
    host = None
    m = SCHEME.match(full)
    if m:
        if m.group(1).lower() not in ("http", "https"):
            return "skip", None, None, None, None, False  # ws:, mailto:, data:, blob: are not HTTP API calls
        after = full[m.end():]
        slash = after.find("/")
        host = after if slash < 0 else after[:slash]
        cut = m.end() + (len(after) if slash < 0 else slash)
        full = full[cut:] or "/"
        base_text = base_text[cut:] if len(base_text) >= cut else ""
        if not base_len and not dropped_base and not _local_host(host):
            return "call", None, None, host, f"external host {host}", False
    elif full.startswith("//"):
        return unresolved("protocol-relative URL to another host")
    for sep in ("?", "#"):
        cut = full.find(sep)
        if cut >= 0:
            full = full[:cut]
    if not full.startswith("/"):
        if not dropped_base:
            return unresolved(f"relative URL {full!r} depends on the page's address")
        full = "/" + full
    template = normalize(full)
    relative = None
    base_path = normalize(base_text.split("?")[0]) if base_text else ""
    if base_path not in ("", "/") and template.startswith(base_path):
        relative = normalize("/" + template[len(base_path):].lstrip("/"))
    elif dropped_base or base_len:
        relative = template
    return "call", template, relative, host, None, dropped_base


def _render(parts: Iterable[Part]) -> str:
    out = []
    for part in parts:
        if isinstance(part, Lit):
            out.append(part.text.replace("{", "%7B").replace("}", "%7D"))
        else:
            out.append("{" + _param_name(part) + "}")
    return "".join(out)


def _local_host(host: str) -> bool:
    h = host.split("@")[-1].split(":")[0].lower()
    return h in ("localhost", "127.0.0.1", "0.0.0.0", "[::1]") or h.startswith("{")


def _param_name(part: Part) -> str:
    if isinstance(part, Param):
        name = part.name
    elif isinstance(part, (Ref, Env)):
        name = part.name.rpartition(".")[2]
    else:
        name = "param"
    if not (name.isascii() and name.isidentifier()):
        name = _NOT_NAME.sub("", name)
    return name or "param"


def _describe(part: Part) -> str:
    if isinstance(part, Env):
        return f"environment value {part.name}"
    if isinstance(part, Ref):
        return f"`{part.name}`"
    if isinstance(part, Param):
        return f"a dynamic value ({part.name})"
    if isinstance(part, Unknown):
        return f"a value specward cannot see ({part.why})"
    return "a parameter of the enclosing function"


_DUP_SLASH = re.compile(r"/{2,}")
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


def normalize(path: str) -> str:
    """Collapse duplicate slashes, strip a trailing slash, decode nothing."""
    if "//" in path:
        path = _DUP_SLASH.sub("/", path)
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    return path
