"""Cross-file linking of HTTP calls: from per-file ``CallSite``s to resolved ``HttpCall``s.

Pure: reads other files' facts only through the ``lookup`` callable it is given, and
records which paths it read (or probed and did not find) so the index can re-link exactly
the files that depend on a changed one.

What it resolves, without running code:
- which call sites are HTTP calls: ``fetch``, axios (verbs, ``axios(config)``,
  ``axios.request``, instances), Angular ``HttpClient``, superagent, ky, ofetch/``$fetch``,
  openapi-fetch (``client.GET('/x')``) and openapi-react-query, SWR-style hooks,
  ``{ method, path }`` objects passed to any request function, Python
  ``requests``/``httpx``/``aiohttp``; clients created by a library, returned by a factory
  function, typed parameters (``api: AxiosInstance``, ``client: httpx.Client``), instances
  of workspace classes and methods inherited from their base classes; thin wrappers (a
  function forwarding its path argument to any of these, through destructured options
  objects and spreads, several levels deep and across files);
- URL expressions: constants (same file or imported), base URLs of client instances,
  environment bases, URL builders (a function returning a URL made of its arguments),
  conditional URLs (each candidate path), absolute URLs (see ``analyzers/urls.py``).

A call whose URL cannot be resolved is reported ``unresolved`` with a reason; it is never
guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from .model import (
    Alt,
    Arg,
    ArgVal,
    Call,
    CallSite,
    ClassDef,
    ClientDef,
    Env,
    FileFacts,
    FnVal,
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
from .resolve import FILE, Resolver, ResolverConfig
from .urls import BASEISH, MAX_CANDIDATES, SCHEME, expand, host_of, url_of

VERBS = {"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE",
         "del": "DELETE", "head": "HEAD", "options": "OPTIONS"}
UPPER_VERBS = frozenset(m for m in HTTP_METHODS if m != "TRACE")  # openapi-fetch: client.GET('/x')

# library modules -> client kind
LIB_MODULES = {
    "axios": "axios", "superagent": "superagent", "ky": "ky", "ofetch": "ofetch",
    "ohmyfetch": "ofetch", "node-fetch": "fetch", "cross-fetch": "fetch",
    "isomorphic-fetch": "fetch", "isomorphic-unfetch": "fetch", "unfetch": "fetch", "undici": "fetch",
    "expo/fetch": "fetch", "@whatwg-node/fetch": "fetch", "whatwg-fetch": "fetch", "swr": "swr", "swr/immutable": "swr", "swr/mutation": "swr",
    "ahooks": "hook", "umi": "hook", "@umijs/max": "hook", "requests": "requests",
    "httpx": "httpx", "aiohttp": "aiohttp",
}
# (module, imported name) of client factories -> client kind
LIB_FACTORIES = {
    ("openapi-fetch", "default"): "openapi-fetch", ("openapi-fetch", "createClient"): "openapi-fetch",
    ("@hey-api/client-fetch", "createClient"): "hey-api", ("@hey-api/client-axios", "createClient"): "hey-api",
    ("openapi-react-query", "default"): "openapi-react-query",
    ("axios", "create"): "axios", ("ky", "create"): "ky", ("ky", "extend"): "ky", ("ofetch", "create"): "ofetch",
}
# type names of client instances (parameters, fields) -> client kind
CLIENT_TYPES = {
    "HttpClient": "angular", "AxiosInstance": "axios", "AxiosStatic": "axios", "KyInstance": "ky",
    "$Fetch": "ofetch", "httpx.Client": "httpx", "httpx.AsyncClient": "httpx", "Client": "httpx",
    "AsyncClient": "httpx", "requests.Session": "requests", "Session": "requests",
    "aiohttp.ClientSession": "aiohttp", "ClientSession": "aiohttp",
}
HOOKS = {"useSWR", "useSWRImmutable", "useSWRMutation", "useRequest", "useFetch", "useLazyFetch"}
QUERY_HOOKS = {"useQuery", "useSuspenseQuery", "useMutation", "useInfiniteQuery", "queryOptions",
               "useSuspenseInfiniteQuery"}  # openapi-react-query: $api.useQuery('get', '/path')
RTK = {"query", "mutation", "infiniteQuery"}  # RTK Query: build.query({ query: () => '/path' })
GLOBALS = {"fetch": "fetch", "$fetch": "ofetch", "axios": "axios", "superagent": "superagent"}
MONOREPO_FOLDERS = frozenset({"apps", "packages", "services", "libs", "projects", "modules", "clients", "sdks"})
MAX_DEPTH = 6
_BASE_NAME = re.compile(r"base|host|origin|server|addr|api_?url|api_?root|backend|domain|endpoint", re.I)
_PATHISH = re.compile(r"^(path|url|uri|endpoint|route|resource|href|pathname|p|u)$|Path$|Url$|_path$|_url$", re.I)
DEFAULT_METHOD = {"fetch": "GET", "ofetch": "GET", "ky": "GET", "axios": "GET", "hook": "GET"}


def _linker_version() -> str:
    import hashlib
    from pathlib import Path

    from .extract import EXTRACTOR_VERSION

    here = Path(__file__).parent
    data = b"".join((here / name).read_bytes() for name in ("http.py", "urls.py", "resolve.py", "resolve_setup.py",
                                                              "resolve_configs.py"))
    return hashlib.blake2b(data + EXTRACTOR_VERSION.encode(), digest_size=8).hexdigest()


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
    # the client or base the call goes through ("" for none): calls of one channel share the
    # frame they are judged in (analyzers/matching.py)
    channel: str = ""
    # a conditional URL: (template, relative, reason) of each candidate path; empty otherwise
    candidates: tuple[tuple[str | None, str | None, str | None], ...] = ()
    # the client may add a base specward cannot see (an Angular interceptor, axios defaults)
    implicit: bool = False
    # an absolute URL to a host no base or constant of its file names: the API's only when a
    # contract's servers name that host (judged with the contracts)
    external: bool = False


LINKER_VERSION = _linker_version()
_NO_CONFIG = ResolverConfig.build({})


@dataclass(slots=True)
class _Wrapper:
    url: UrlExpr
    base_len: int  # how many leading parts of url form the base
    method: object  # str | Arg | None
    params: tuple[str, ...]
    via: str
    channel: str = ""
    default_method: str | None = None  # when the method is an argument the caller leaves out
    base_unknown: bool = False
    implicit: bool = False


@dataclass(slots=True)
class _Target:
    """A resolved callee."""

    kind: str  # fetch axios superagent ky ofetch angular hook requests httpx aiohttp openapi-fetch ... wrapper object
    verb: str | None = None  # last callee segment, lower-case
    base: UrlExpr | None = None
    wrapper: _Wrapper | None = None  # the one request of a wrapper this target stands for
    wrappers: tuple[_Wrapper, ...] = ()  # every request of a wrapper (see _each)
    channel: str = ""
    base_unknown: bool = False  # a client whose base cannot be seen (typed parameter, injected)
    implicit: bool = False


@dataclass(slots=True)
class _Memo:
    value: object
    deps: set[str] = field(default_factory=set)


def project_of(path: str) -> str:
    """The project a file belongs to, from its path alone: the first folder, or the first two
    for the usual monorepo folders (``apps/web``, ``packages/sdk``)."""
    parts = path.split("/")
    if len(parts) > 2 and parts[0] in MONOREPO_FOLDERS:
        return f"{parts[0]}/{parts[1]}"
    return parts[0] if len(parts) > 1 else ""


class Linker:
    """Links call sites across files. One instance per batch (it memoizes per file)."""

    def __init__(self, lookup: Callable[[str], FileFacts | None], config: ResolverConfig | None = None) -> None:
        self._lookup = lookup
        self._deps: list[set[str]] = []
        self._memo: dict[tuple, _Memo] = {}
        self._active: set[tuple] = set()
        self._index: dict[str, "_FileIndex"] = {}
        # the resolver asks through a probe that does not hold the linker (no reference cycle)
        self._resolver = Resolver(config if config is not None else _NO_CONFIG, _Probe(lookup, self._deps))

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
                        calls.extend(self._classify(idx, site))
                    except RecursionError:
                        pass
                for cdef in idx.facts.classes:
                    if cdef.super_args and cdef.bases:
                        try:
                            calls.extend(self._through_super(idx, cdef))
                        except RecursionError:
                            pass
            return calls, self._deps[-1]
        finally:
            self._deps.pop()

    # ------------------------------------------------------------------ module resolution
    def resolve_module(self, importer: str, module: str, language: str) -> str | None:
        """The workspace file ``module`` names, imported from ``importer`` (the one module
        resolver, ``analyzers/resolve.py``); every path it probed is a dependency: a file
        created there changes the answer."""
        r = self._resolver.resolve(importer, module, "python" if language == "python" else None)
        if self._deps:
            self._deps[-1].update(r.probed)
        return r.path if r.kind == FILE else None

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
        """Replace ``Ref`` parts that name known string constants (here or imported), and
        follow calls of URL builders."""
        out: list[Part] = []
        for part in expr:
            t = type(part)
            if t is Ref:
                resolved = self._resolve_ref(path, part.name, scope, depth)  # type: ignore[union-attr]
                if resolved is not None:
                    out.extend(resolved)
                    continue
            elif t is Alt and depth <= MAX_DEPTH:
                out.append(Alt(tuple(self.resolve_expr(path, o, scope, depth + 1) for o in part.options)))  # type: ignore[union-attr]
                continue
            elif t is Call and depth <= MAX_DEPTH:
                built = self._built(path, part, scope, depth)  # type: ignore[arg-type]
                if built is not None:
                    out.extend(built)
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
            cls = scope.split(".")[0]
            candidates = [f"{c}.{rest}" for c in self._class_chain(idx, cls)] or [f"{cls}.{rest}"]
        for cand in candidates:
            expr = idx.constants.get(cand)
            if expr is not None:
                return self.resolve_expr(path, expr, None, depth + 1)
        if head in ("this", "self"):
            for cand in candidates[1:]:  # a field of a base class in another file
                found = self._inherited_constant(idx, cand, depth)
                if found is not None:
                    return found
            return None
        hit = self._through_import(idx, name)
        if hit is not None:
            return self._resolve_ref(hit[0], hit[1], None, depth + 1)
        return None

    def _inherited_constant(self, idx: "_FileIndex", qualified: str, depth: int) -> UrlExpr | None:
        cls, _, rest = qualified.partition(".")
        hit = self._class(idx, cls)
        if hit is None or hit[0] == idx.facts.path:
            return None
        return self._resolve_ref(hit[0], f"{hit[1]}.{rest}", None, depth + 1)

    def _built(self, path: str, call: Call, scope: str | None, depth: int) -> UrlExpr | None:
        """What a call of a URL builder evaluates to (its return value with the call's
        arguments), or None when the callee is not one."""
        idx = self._file_index(path)
        if idx is None:
            return None
        hit = self._function(idx, call.callee, scope)
        if hit is None:
            return None
        fpath, fn = hit
        if type(fn.returns) is not StrVal:
            return None
        key = ("builder", fpath, fn.name)
        body = self._memoized(key, lambda: self.resolve_expr(fpath, fn.returns.expr, fn.name, depth + 1))  # type: ignore[union-attr]
        if body is None:
            return None
        args = tuple(self._resolved_arg(path, a, scope, depth) for a in call.args)
        return _substitute_args(body, args, (), fn.params)  # type: ignore[arg-type]

    def _resolved_arg(self, path: str, val: ArgVal, scope: str | None, depth: int) -> ArgVal:
        if type(val) is StrVal:
            return StrVal(self.resolve_expr(path, val.expr, scope, depth + 1), val.span)  # type: ignore[union-attr]
        return val

    # ------------------------------------------------------------------ classes
    def _class(self, idx: "_FileIndex", name: str, depth: int = 0) -> tuple[str, str] | None:
        """(file, class name there) of a class named here (local or imported)."""
        if name in idx.classes:
            return idx.facts.path, name
        hit = self._through_import(idx, name)
        if hit is not None and depth < MAX_DEPTH:
            tidx = self._file_index(hit[0])
            if tidx is not None and hit[1] in tidx.classes:
                return hit[0], hit[1]
        return None

    def _class_chain(self, idx: "_FileIndex", cls: str) -> list[str]:
        """The class and its base classes declared in this file, nearest first."""
        out = [cls]
        while len(out) <= MAX_DEPTH:
            bases = idx.classes.get(out[-1])
            if not bases or bases[0] not in idx.classes or bases[0] in out:
                break
            out.append(bases[0])
        return out

    def _method(self, idx: "_FileIndex", cls: str, name: str, depth: int = 0) -> tuple[str, FunctionDef] | None:
        """Method ``name`` of class ``cls`` of this file, or inherited from a base class
        (here or in another file)."""
        fn = idx.functions.get(f"{cls}.{name}")
        if fn is not None:
            return idx.facts.path, fn
        if depth > MAX_DEPTH:
            return None
        for base in idx.classes.get(cls, ()):
            hit = self._class(idx, base)
            if hit is None:
                continue
            bidx = self._file_index(hit[0])
            if bidx is not None:
                found = self._method(bidx, hit[1], name, depth + 1)
                if found is not None:
                    return found
        return None

    def _through_super(self, idx: "_FileIndex", cdef: ClassDef) -> list[HttpCall]:
        """``super({ get: '/tasks/{id}', create: '/projects/{projectId}/tasks' })``: the base
        class's methods request ``this.routes.get``...; each such request, with this class's
        table, is an HTTP call at the template written here."""
        hit = self._class(idx, cdef.bases[0])
        bidx = self._file_index(hit[0]) if hit is not None else None
        if hit is None or bidx is None:
            return []
        base = bidx.classdefs.get(hit[1])
        if base is None or not base.fields:
            return []
        values = {f: cdef.super_args[i] for f, i in base.fields if i < len(cdef.super_args)}
        out: list[HttpCall] = []
        prefix = hit[1] + "."
        for scope, sites in bidx.calls_by_scope.items():
            if not scope.startswith(prefix):
                continue
            for site in sites:
                bound = _bind_fields(site, values)
                if bound is None:
                    continue
                bound_site, span = bound
                for call in self._classify(bidx, bound_site):
                    out.append(replace(call, file=idx.facts.path, span=span, call_span=span,
                                       via=f"{call.via} through {hit[1]}.{scope[len(prefix):]}"))
        return out

    # ------------------------------------------------------------------ functions and clients
    def _function(self, idx: "_FileIndex", callee: str, scope: str | None, depth: int = 0) -> tuple[str, FunctionDef] | None:
        """The function a callee names: local, ``this``/``self`` method (also inherited), a
        method of an instance of a workspace class, or imported."""
        if depth > MAX_DEPTH:
            return None
        head, _, rest = callee.partition(".")
        if head in ("this", "self") and rest and scope:
            cls = scope.split(".")[0]
            if "." not in rest:
                return self._method(idx, cls, rest)
            receiver, _, method = callee.rpartition(".")
            return self._instance_method(idx, receiver, method, scope, depth)
        fn = idx.functions.get(callee)
        if fn is not None:
            return idx.facts.path, fn
        if rest:
            receiver, _, method = callee.rpartition(".")
            found = self._instance_method(idx, receiver, method, scope, depth)
            if found is not None:
                return found
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

    def _instance_method(self, idx: "_FileIndex", receiver: str, method: str, scope: str | None,
                         depth: int) -> tuple[str, FunctionDef] | None:
        """``receiver.method`` where the receiver is an instance of a workspace class
        (``new ApiClient()``, an injected ``private api: ApiService``)."""
        found = self._client(idx, receiver, scope, depth + 1)
        if found is None or found[1].kind != "factory" or not (found[1].factory or "").startswith("new "):
            return None
        cpath, cdef = found
        cidx = self._file_index(cpath)
        if cidx is None:
            return None
        hit = self._class(cidx, cdef.factory[4:])  # type: ignore[index]
        if hit is None:
            return None
        kidx = self._file_index(hit[0])
        return self._method(kidx, hit[1], method, depth + 1) if kidx is not None else None

    def _client(self, idx: "_FileIndex", name: str, scope: str | None, depth: int = 0) -> tuple[str, ClientDef] | None:
        if depth > MAX_DEPTH:
            return None
        head, _, rest = name.partition(".")
        if head in ("this", "self") and scope:
            cls = scope.split(".")[0]
            for c in self._class_chain(idx, cls):
                found = idx.clients.get((f"{head}.{rest}", c))
                if found is not None:
                    return idx.facts.path, found
            chain = self._class_chain(idx, cls)
            bases = idx.classes.get(chain[-1], ())
            for base in bases:  # a client field of a base class in another file
                hit = self._class(idx, base)
                if hit is not None and hit[0] != idx.facts.path:
                    bidx = self._file_index(hit[0])
                    if bidx is not None:
                        found2 = self._client(bidx, name, hit[1], depth + 1)
                        if found2 is not None:
                            return found2
            return None
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

    def _factory(self, idx: "_FileIndex", callee: str, scope: str | None, depth: int = 0) -> ClientDef | None:
        """The client a factory call creates: a library's factory (openapi-fetch's
        ``createClient``), a workspace function returning a client, or an alias of either
        (``export const createApiClient = createClient<paths>``)."""
        if depth > MAX_DEPTH or callee.startswith("new "):
            return None
        head, _, rest = callee.partition(".")
        imp = idx.imports.get(head)
        if imp is not None:
            kind = LIB_FACTORIES.get((imp.module, rest or imp.name)) or LIB_FACTORIES.get((imp.module, imp.name))
            if kind is not None:
                return ClientDef("return", kind, None, Span(0, 0))
        hit = self._function(idx, callee, scope)
        if hit is not None:
            fidx = self._file_index(hit[0])
            made = fidx.clients.get(("return", hit[1].name)) if fidx is not None else None
            if made is not None and fidx is not None:
                return self._concrete(fidx, made, depth + 1)
            return None
        alias = idx.constants.get(callee)
        if alias is not None and len(alias) == 1 and type(alias[0]) is Ref:
            return self._factory(idx, alias[0].name, None, depth + 1)  # type: ignore[union-attr]
        through = self._through_import(idx, callee)
        if through is not None:
            tidx = self._file_index(through[0])
            if tidx is not None:
                return self._factory(tidx, through[1], None, depth + 1)
        return None

    def _concrete(self, idx: "_FileIndex", cdef: ClientDef, depth: int = 0) -> ClientDef | None:
        """A client definition with its factory followed (None: not a client after all)."""
        if cdef.kind != "factory":
            return cdef
        if (cdef.factory or "").startswith("new "):
            return None
        made = self._factory(idx, cdef.factory or "", cdef.scope, depth)
        if made is None:
            return None
        base = cdef.base if cdef.base is not None else made.base
        return ClientDef(cdef.name, made.kind, base, cdef.span, cdef.scope, None,
                         made.base_unknown or (base is None and made.kind in ("openapi-fetch", "hey-api")))

    # ------------------------------------------------------------------ wrappers
    def _wrapper(self, path: str, fn: FunctionDef) -> tuple[_Wrapper, ...] | None:
        key = ("wrapper", path, fn.name)
        return self._memoized(key, lambda: self._compute_wrapper(path, fn))  # type: ignore[return-value]

    def _compute_wrapper(self, path: str, fn: FunctionDef) -> tuple[_Wrapper, ...] | None:
        """Every request ``fn`` makes with a path from its parameters: one for a thin wrapper,
        several for a hook that lists, saves and tests (each caller sends all of them)."""
        idx = self._file_index(path)
        if idx is None:
            return None
        found: list[_Wrapper] = []
        seen: set = set()
        for site in idx.calls_by_scope.get(fn.name, ()):
            for target in _each(self._target(idx, site)):
                got = self._url_and_method(idx, site, target)
                if got is None:
                    continue
                url, base_len, method, via, default = got
                if any(type(p) is Arg for p in _flat(url[base_len:])) and _forwards_path(url, base_len, fn.params):
                    if (url, method) in seen:
                        continue
                    seen.add((url, method))
                    channel = target.channel or _channel_of(idx.facts.path, url, base_len, target)
                    found.append(_Wrapper(url, base_len, method, fn.params, via, channel, default,
                                          target.base_unknown, target.implicit))
        return tuple(found) or None

    # ------------------------------------------------------------------ classification
    def _target(self, idx: "_FileIndex", site: CallSite) -> _Target | None:
        callee = site.callee
        head, _, rest = callee.partition(".")
        last = callee.rpartition(".")[2]
        verb = last.lower()
        # 1. a function of the workspace that forwards to an HTTP call
        fn = self._function(idx, callee, site.scope)
        if fn is not None:
            wrappers = self._wrapper(*fn)
            if wrappers is not None:
                return _Target("wrapper", wrappers=wrappers)
            if _object_request(site):
                return _Target("object")
            return None
        # 2. a client instance (also called itself: `api(config)`)
        receiver = callee.rpartition(".")[0]
        if not receiver and idx.facts.language != "python":
            called = self._client(idx, callee, site.scope)
            if called is not None and called[1].kind in ("axios", "ky", "ofetch"):
                return _Target(called[1].kind, verb=None, channel=f"client:{called[0]}:{called[1].scope or ''}:{callee}",
                               base=self.resolve_expr(called[0], called[1].base, called[1].scope) if called[1].base else None)
        if receiver:
            client = self._client(idx, receiver, site.scope)
            cidx = (self._file_index(client[0]) if client[0] != idx.facts.path else idx) if client else None
            concrete = self._concrete(cidx, client[1]) if client is not None and cidx is not None else None
            if client is not None and concrete is not None:
                cpath, cdef = client
                base = self.resolve_expr(cpath, concrete.base, concrete.scope) if concrete.base else None
                kind = concrete.kind
                channel = (f"angular:{project_of(idx.facts.path)}" if kind == "angular"
                           else f"client:{cpath}:{cdef.scope or ''}:{cdef.name}")
                return _Target(kind, verb=verb if kind != "openapi-fetch" else last.lower(), base=base,
                               channel=channel, base_unknown=concrete.base_unknown,
                               implicit=kind == "angular" and base is None)
            if receiver in ("this.http", "this.httpClient", "this._http") and (verb in VERBS or verb == "request"):
                return _Target("angular", verb=verb, channel=f"angular:{project_of(idx.facts.path)}", implicit=True)
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
            implicit = kind == "axios"  # axios.defaults.baseURL may be set anywhere
            channel = f"{kind}:{project_of(idx.facts.path)}" if implicit else ""
            if kind == "fetch":
                return _Target("fetch") if not rest else None
            if not rest:
                # axios(config) / axios(url, config) / ky(url) / ofetch(url) / superagent(method, url)
                return _Target(kind, verb=None, channel=channel, implicit=implicit)
            if rest in ("create", "extend", "Session", "Client", "AsyncClient", "ClientSession"):
                return None
            if verb in VERBS or verb in ("request", "stream"):
                return _Target(kind, verb=verb, channel=channel, implicit=implicit)
            return None
        if (receiver and verb in VERBS and site.args and type(site.args[0]) is ObjVal
                and _starts_with_slash(site.args[0].get("url"))):  # type: ignore[union-attr,arg-type]
            # `(options.client ?? client).get({ url: '/pet/{petId}', ...options })`: hey-api's shape
            return _Target("hey-api", verb=verb, channel=f"typed:{project_of(idx.facts.path)}:{receiver}", implicit=True)
        if _object_request(site):
            return _Target("object")
        if receiver and last in UPPER_VERBS and site.args and _starts_with_slash(site.args[0]):
            # `client.GET('/items/{id}')`: openapi-fetch's shape, whatever made the client
            return _Target("openapi-fetch", verb=verb, channel=f"typed:{project_of(idx.facts.path)}:{receiver}",
                           implicit=True)
        if last in RTK and site.args and type(site.args[0]) is ObjVal and site.args[0].get("query") is not None:
            return _Target("rtk", verb=last, channel=f"rtk:{idx.facts.path}", implicit=True)
        return None

    def _url_and_method(self, idx: "_FileIndex", site: CallSite, target: _Target
                        ) -> tuple[UrlExpr, int, object, str, str | None] | None:
        """(resolved url with Args, length of its base, method or Arg or None, via, the
        method when an Arg method is left out by the caller)."""
        args, kwargs = site.args, dict(site.kwargs)
        kind, verb = target.kind, target.verb
        method: object = None
        url_val: ArgVal | None = None
        via = kind
        default = DEFAULT_METHOD.get(kind)
        if kind == "wrapper":
            w = target.wrapper
            assert w is not None
            url = _substitute(w.url, site, w.params)
            if url is None:
                return None
            method = w.method
            if type(method) is Arg:
                val = _arg_value(site, method, w.params)
                method = _method_from_value(val) if val is not None else w.default_method
            return self.resolve_expr(idx.facts.path, url, site.scope), w.base_len, method, w.via, w.default_method
        if kind == "object":
            obj = next(a for a in args if type(a) is ObjVal)
            url_val = _url_field(obj)  # type: ignore[arg-type]
            method = _method_from_value(obj.get("method") or obj.get("type"))  # type: ignore[union-attr]
            via = "request object"
            default = None
        elif kind == "hook":
            first = _key_of(args[0]) if args else None
            if type(first) is ObjVal:
                url_val = _url_field(first)  # type: ignore[arg-type]
                method = _method_from_value(first.get("method")) or "GET"  # type: ignore[union-attr]
            elif type(first) is StrVal:
                resolved = self.resolve_expr(idx.facts.path, first.expr, site.scope)  # type: ignore[union-attr]
                if len(resolved) == 1 and type(resolved[0]) in (Ref, Unknown, Arg, Call):
                    return None  # `useRequest(loadUsers)`: a service function, not a URL
                url_val = first
                method = "GET"
                opts = args[1] if len(args) > 1 else None
                if type(opts) is ObjVal and verb in ("useFetch", "useLazyFetch"):  # Nuxt: baseURL, method
                    method = _method_from_value(opts.get("method")) or "GET"  # type: ignore[union-attr]
                    base = opts.get("baseURL")  # type: ignore[union-attr]
                    if type(base) is StrVal and not any(type(p) is Arg for p in base.expr):  # type: ignore[union-attr]
                        target = _Target(kind, verb, base=self.resolve_expr(idx.facts.path, base.expr, site.scope))  # type: ignore[union-attr]
            else:
                return None  # a service function or a computed key: not a URL
            via = verb or "hook"
        elif kind == "rtk":
            rtk = idx.clients.get(("rtk", None))  # fetchBaseQuery({ baseUrl }) of the file
            if rtk is not None and rtk.base and target.base is None:
                target = _Target(kind, verb, base=self.resolve_expr(idx.facts.path, rtk.base, None), channel=target.channel)
            q = args[0].get("query")  # type: ignore[union-attr]
            if type(q) is FnVal:
                q = q.returns  # type: ignore[union-attr]
            if type(q) is ObjVal:
                url_val = q.get("url")  # type: ignore[union-attr]
                method = _method_from_value(q.get("method")) or "GET"  # type: ignore[union-attr]
            elif type(q) is StrVal:
                url_val, method = q, "GET"
            else:
                return None
            via = f"RTK Query {verb}"
        elif kind == "openapi-react-query":
            if verb not in {h.lower() for h in QUERY_HOOKS} or len(args) < 2:
                return None
            method = _method_from_value(args[0])
            url_val = args[1]
        elif verb in VERBS:
            method = VERBS[verb]
            url_val = args[0] if args else kwargs.get("url")
            if type(url_val) is ObjVal and kind in ("hey-api", "openapi-fetch"):
                url_val = url_val.get("url")  # type: ignore[union-attr]
        elif verb in ("request", "stream") or verb is None:
            first = args[0] if args else None
            if type(first) is ObjVal:  # axios(config), axios.request(config)
                url_val = _url_field(first)  # type: ignore[arg-type]
                method = _method_from_value(first.get("method"))  # type: ignore[union-attr]
                if method is None and first.get("method") is None:  # type: ignore[union-attr]
                    method = "GET"
            elif kind in ("requests", "httpx", "aiohttp", "superagent", "angular") and (
                    len(args) >= 2 or "url" in kwargs):
                method = _method_from_value(args[0] if args else kwargs.get("method"))
                url_val = args[1] if len(args) >= 2 else kwargs.get("url")
            elif kind in ("fetch", "ofetch", "ky", "axios") and first is not None:
                url_val = first
                init = args[1] if len(args) > 1 else None
                if init is None:
                    method = "GET"
                elif type(init) is ObjVal:
                    m = init.get("method")  # type: ignore[union-attr]
                    method = _method_from_value(m) if m is not None else "GET"
                    base = (init.get("baseURL") or init.get("prefixUrl")) if kind != "fetch" else None  # type: ignore[union-attr]
                    if type(base) is StrVal and target.base is None and not any(type(p) is Arg for p in base.expr):  # type: ignore[union-attr]
                        target = _Target(kind, verb, base=self.resolve_expr(idx.facts.path, base.expr, site.scope),  # type: ignore[union-attr]
                                         channel=target.channel, implicit=target.implicit)
                elif type(init) is StrVal and len(init.expr) == 1 and type(init.expr[0]) is Arg:  # type: ignore[union-attr]
                    a = init.expr[0]  # type: ignore[union-attr]
                    method = Arg(a.index, f"{a.field}.method" if a.field else "method")  # the caller's options
                else:
                    method = None
            else:
                return None
        else:
            return None
        if type(url_val) is not StrVal:
            if url_val is None:
                return None
            url_val = StrVal((Unknown("the URL is not a string expression"),), url_val.span)
        path = self.resolve_expr(idx.facts.path, url_val.expr, site.scope)  # type: ignore[union-attr]
        base_len = 0
        if target.base:
            base = tuple(target.base)
            path = _join_base(base, path)
            base_len = len(base)
        elif target.base_unknown and path and type(path[0]) is Lit and not SCHEME.match(path[0].text):  # type: ignore[union-attr]
            # a client from outside: its base is not visible, the path is relative to it
            path = (Env("the client's base URL"),) + _join_base((Lit(""),), path)[1:]
            base_len = 1
        else:
            base_len = _leading_base_len(url_val.expr, self, idx, site.scope)  # type: ignore[union-attr]
        return path, base_len, method, via, default

    def _classify(self, idx: "_FileIndex", site: CallSite) -> list[HttpCall]:
        out: list[HttpCall] = []
        fn = idx.functions.get(site.scope) if site.scope is not None else None
        for target in _each(self._target(idx, site)):
            got = self._url_and_method(idx, site, target)
            if got is None:
                continue
            url, base_len, method, via, _default = got
            if fn is not None and any(type(p) is Arg for p in _flat(url[base_len:])) and _forwards_path(url, base_len, fn.params):
                continue  # this call is the inside of a wrapper: its callers are the HTTP calls
            if site.scope is not None:
                url = _args_to_params(url, fn)
            span = _url_span(site, target)
            if target.kind == "wrapper" and target.wrapper is not None:
                channel, unknown, implicit = target.wrapper.channel, target.wrapper.base_unknown, target.wrapper.implicit
            else:
                channel = target.channel or _channel_of(idx.facts.path, url, base_len, target)
                unknown, implicit = target.base_unknown, target.implicit
            hosts = self._api_hosts(idx)
            methods = _methods(method)
            branches = _split_alt(url, len(methods)) if len(methods) > 1 else None
            if branches is not None:
                # `path: id ? `/x/${id}` : '/x'` with `method: id ? 'PUT' : 'POST'`: one request per branch
                pairs = [(m, (u, base_len)) for m, u in zip(methods, branches)]
            else:
                pairs = [(m, (url, base_len)) for m in methods]
            for meth, (u, bl) in pairs:
                call = finish(idx.facts.path, span, site.span, meth, u, bl, via, channel, hosts, implicit or unknown)
                if call is not None and call not in out:
                    out.append(call)
        return out

    def _api_hosts(self, idx: "_FileIndex") -> frozenset[str]:
        """Hosts this file's base constants name: an absolute URL to one of them is the API."""
        hosts = idx.api_hosts
        if hosts is None:
            found = set()
            for name, expr in idx.facts.constants:
                if expr and type(expr[0]) is Lit and BASEISH.search(name.rpartition(".")[2]):
                    host = host_of(expr[0].text)  # type: ignore[union-attr]
                    if host:
                        found.add(host.lower())
            for c in idx.facts.clients:
                if c.base and type(c.base[0]) is Lit:
                    host = host_of(c.base[0].text)  # type: ignore[union-attr]
                    if host:
                        found.add(host.lower())
            hosts = idx.api_hosts = frozenset(found)
        return hosts


# ---------------------------------------------------------------------- helpers


class _Probe:
    """``exists`` for the resolver: a file exists when it has facts; each path asked is a
    dependency of what is being linked."""

    __slots__ = ("lookup", "deps")

    def __init__(self, lookup: Callable[[str], FileFacts | None], deps: list[set[str]]) -> None:
        self.lookup = lookup
        self.deps = deps

    def __call__(self, path: str) -> bool:
        if self.deps:
            self.deps[-1].add(path)
        return self.lookup(path) is not None


class _FileIndex:
    __slots__ = ("facts", "imports", "exports", "star_exports", "constants", "functions",
                 "clients", "calls_by_scope", "locals", "classes", "classdefs", "api_hosts")

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.imports = {i.local: i for i in facts.imports}
        self.exports = {e.name: e for e in facts.exports if e.name != "*"}
        self.star_exports = [e.module for e in facts.exports if e.name == "*" and e.module]
        self.constants = dict(facts.constants)
        self.functions = {f.name: f for f in facts.functions}
        self.clients = {(c.name, c.scope): c for c in facts.clients}
        self.classes = {c.name: c.bases for c in facts.classes}
        self.classdefs = {c.name: c for c in facts.classes}
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
        self.api_hosts: frozenset[str] | None = None


def _bind_fields(site: CallSite, values: dict[str, ArgVal]) -> tuple[CallSite, Span] | None:
    """``site`` with ``this.<field>...`` in its string arguments replaced by the values a
    subclass passes for those fields (and the span of the value used), or None when it reads
    none of them."""
    used: list[Span] = []

    def value_of(dotted: str) -> StrVal | None:
        head, _, rest = dotted.partition(".")
        if head != "this" or not rest:
            return None
        field_name, _, key = rest.partition(".")
        v = values.get(field_name)
        if v is None:
            return None
        if key:
            v = v.get(key) if type(v) is ObjVal else None  # type: ignore[union-attr]
        return v if type(v) is StrVal else None  # type: ignore[return-value]

    def bind(expr: UrlExpr) -> UrlExpr:
        out: list[Part] = []
        for p in expr:
            t = type(p)
            got = None
            if t is Ref:
                got = value_of(p.name)  # type: ignore[union-attr]
            elif t is Call:
                receiver, _, method = p.callee.rpartition(".")  # type: ignore[union-attr]
                if method in ("replace", "replaceAll", "toString", "trim"):
                    got = value_of(receiver)
            if got is not None:
                used.append(got.span)
                out.extend(got.expr)
            else:
                out.append(p)
        return tuple(out)

    args = tuple(StrVal(bind(a.expr), a.span) if type(a) is StrVal else a for a in site.args)  # type: ignore[union-attr]
    if not used:
        return None
    span = used[0]
    args = tuple(StrVal(a.expr, span) if type(a) is StrVal and a != b else a for a, b in zip(args, site.args))  # type: ignore[union-attr]
    return replace(site, args=args), span


def _flat(url: UrlExpr) -> list[Part]:
    """The parts of a URL expression with conditional options and builder calls opened."""
    out: list[Part] = []
    for p in url:
        t = type(p)
        if t is Alt:
            for o in p.options:  # type: ignore[union-attr]
                out.extend(_flat(o))
        elif t is Call:
            for a in p.args:  # type: ignore[union-attr]
                if type(a) is StrVal:
                    out.extend(_flat(a.expr))  # type: ignore[union-attr]
        else:
            out.append(p)
    return out


def _url_field(obj: ObjVal) -> ArgVal | None:
    """The URL of a request object: its ``url``, else its ``path`` when that is a string
    (generated clients pass ``path: { petId }`` for the parameters next to ``url``)."""
    url = obj.get("url")
    if url is not None and type(url) is not OtherVal:
        return url
    path = obj.get("path")
    if type(path) is StrVal:
        return path
    return url if url is not None else (path if type(path) is not ObjVal else None)


def _starts_with_slash(v: ArgVal | None) -> bool:
    return type(v) is StrVal and bool(v.expr) and type(v.expr[0]) is Lit and v.expr[0].text.startswith("/")  # type: ignore[union-attr]


def _key_of(v: ArgVal) -> ArgVal | None:
    """The URL an SWR-style key stands for: the first item of a key array, what a key
    function returns."""
    for _ in range(3):
        if type(v) is FnVal:
            v = v.returns  # type: ignore[union-attr,assignment]
        elif type(v) is ObjVal and v.get("0") is not None and v.get("url") is None and v.get("path") is None:  # type: ignore[union-attr]
            v = v.get("0")  # type: ignore[union-attr,assignment]
        else:
            break
    return v


def _object_request(site: CallSite) -> bool:
    """A call of an unknown function passing a request object: a URL and a method written
    in the object (a spread of the caller's options is not enough to say so)."""
    for a in site.args:
        if type(a) is ObjVal and (a.own("url") or a.own("path")) is not None and _url_field(a) is not None:  # type: ignore[union-attr,arg-type]
            m = a.own("method")  # type: ignore[union-attr]
            if type(m) is StrVal and (_method_from_value(m) or any(type(p) is Arg for p in m.expr)):  # type: ignore[union-attr]
                return True
    return False


def _method_from_value(val: object) -> object:
    """A method (``"GET"``), the caller's (``Arg``), one of several (``("POST", "PUT")`` for
    ``id ? 'PUT' : 'POST'``, in the branches' order), or None when it cannot be seen."""
    if type(val) is StrVal:
        if len(val.expr) == 1:  # type: ignore[attr-defined]
            p = val.expr[0]  # type: ignore[attr-defined]
            if type(p) is Lit and p.text.upper() in HTTP_METHODS:
                return p.text.upper()
            if type(p) is Arg:
                return p
            if type(p) is Alt:
                methods = []
                for o in p.options:  # type: ignore[union-attr]
                    m = _method_from_value(StrVal(o, val.span)) if len(o) == 1 else None  # type: ignore[attr-defined]
                    if not isinstance(m, str):
                        return None
                    methods.append(m)
                return tuple(methods)
    return None


def _split_alt(url: UrlExpr, n: int) -> list[UrlExpr] | None:
    """The URL once per option of its first conditional piece with ``n`` options (the one a
    conditional method of ``n`` options goes with), or None when there is none."""
    for i, p in enumerate(url):
        if type(p) is Alt and len(p.options) == n:  # type: ignore[union-attr]
            return [url[:i] + tuple(o) + url[i + 1:] for o in p.options]  # type: ignore[union-attr]
    return None


def _methods(method: object) -> tuple[str, ...]:
    if isinstance(method, tuple):
        return method
    if isinstance(method, str) and method.upper() in HTTP_METHODS:
        return (method.upper(),)
    return ("UNKNOWN",)


def _each(target: "_Target | None") -> list["_Target"]:
    """A target per request: a wrapper making several requests stands for each of them."""
    if target is None:
        return []
    if target.wrappers:
        return [_Target("wrapper", wrapper=w) for w in target.wrappers]
    return [target]


def _arg_value(site: CallSite, arg: Arg, params: tuple[str, ...]) -> ArgVal | None:
    return _value_of(site.args, site.kwargs, arg, params)


def _value_of(args: tuple[ArgVal, ...], kwargs: tuple[tuple[str, ArgVal], ...], arg: Arg,
              params: tuple[str, ...]) -> ArgVal | None:
    """The caller's value for a parameter (a field of it, for a destructured parameter):
    None when the caller surely leaves it out, ``OtherVal`` when it cannot be seen."""
    val: ArgVal | None = None
    if arg.index < len(args):
        val = args[arg.index]
    elif arg.index < len(params):
        val = dict(kwargs).get(params[arg.index])
    if val is None:
        return None
    if arg.field is not None:
        if type(val) is ObjVal:
            return val.get(arg.field)  # type: ignore[union-attr]
        if type(val) is StrVal and len(val.expr) == 1 and type(val.expr[0]) is Arg:  # type: ignore[union-attr]
            inner = val.expr[0]  # type: ignore[union-attr]
            return StrVal((Arg(inner.index, f"{inner.field}.{arg.field}" if inner.field else arg.field),), val.span)
        return OtherVal(val.span)
    return val


def _substitute(url: UrlExpr, site: CallSite, params: tuple[str, ...]) -> UrlExpr | None:
    return _substitute_args(url, site.args, site.kwargs, params)


def _substitute_args(url: UrlExpr, args: tuple[ArgVal, ...], kwargs: tuple[tuple[str, ArgVal], ...],
                     params: tuple[str, ...]) -> UrlExpr | None:
    """``url`` with the caller's values in place of its ``Arg`` parts (None: the caller
    does not pass the path)."""
    out: list[Part] = []
    for part in url:
        t = type(part)
        if t is Arg:
            val = _value_of(args, kwargs, part, params)  # type: ignore[arg-type]
            if type(val) is StrVal:
                out.extend(val.expr)  # type: ignore[union-attr]
            elif val is None:
                return None
            else:
                out.append(Unknown("the wrapper's path argument is not a string expression"))
        elif t is Alt:
            options = []
            for o in part.options:  # type: ignore[union-attr]
                got = _substitute_args(o, args, kwargs, params)
                options.append(got if got is not None else ())
            out.append(Alt(tuple(options)))
        elif t is Call:
            new_args = []
            for a in part.args:  # type: ignore[union-attr]
                if type(a) is StrVal:
                    got = _substitute_args(a.expr, args, kwargs, params)  # type: ignore[union-attr]
                    new_args.append(StrVal(got, a.span) if got is not None else OtherVal(a.span))  # type: ignore[union-attr]
                else:
                    new_args.append(a)
            out.append(Call(part.callee, tuple(new_args), part.name))  # type: ignore[union-attr]
        else:
            out.append(part)
    return tuple(out)


def _base_arg(url: UrlExpr, params: tuple[str, ...]) -> bool:
    """``${opts.serverAddr}/api/assets``: a parameter named like a base, then a literal path
    and no other parameter. The call is made here, through a base only its caller knows."""
    if len(url) < 2 or type(url[0]) is not Arg or type(url[1]) is not Lit or not url[1].text.startswith("/"):  # type: ignore[union-attr]
        return False
    first = url[0]
    name = first.field or (params[first.index] if first.index < len(params) else "")  # type: ignore[union-attr]
    if not _BASE_NAME.search(name.rpartition(".")[2]):
        return False
    text = ""
    for p in _flat(url[1:]):  # later parameters may only fill segments or the query
        if type(p) is Arg and not (text.endswith("/") or "?" in text):
            return False
        text += p.text if type(p) is Lit else "x"  # type: ignore[union-attr]
    return True


def _args_to_params(url: UrlExpr, fn: FunctionDef | None) -> UrlExpr:
    out: list[Part] = []
    for i, p in enumerate(url):
        t = type(p)
        if t is Arg and i == 0 and _base_arg(url, fn.params if fn is not None else ()):
            out.append(Env(_arg_label(p, fn)))  # type: ignore[arg-type]
        elif t is Arg:
            out.append(Param(_arg_label(p, fn)))  # type: ignore[arg-type]
        elif t is Alt:
            out.append(Alt(tuple(_args_to_params(o, fn) for o in p.options)))  # type: ignore[union-attr]
        else:
            out.append(p)
    return tuple(out)


def _arg_label(arg: Arg, fn: FunctionDef | None) -> str:
    if arg.field:
        return arg.field.rpartition(".")[2]
    if fn is not None and arg.index < len(fn.params):
        return fn.params[arg.index].strip("{}.").split(",")[0] or "param"
    return "param"


def _url_span(site: CallSite, target: _Target) -> Span:
    """The span of the URL expression at the outermost call site."""
    if target.kind == "wrapper" and target.wrapper is not None:
        for part in _flat(target.wrapper.url):
            if type(part) is Arg:
                val = _arg_value(site, part, target.wrapper.params)  # type: ignore[arg-type]
                if val is not None and type(val) is not OtherVal:
                    return val.span
    if target.kind == "openapi-react-query" and len(site.args) > 1:
        return site.args[1].span
    for a in site.args:
        key = _key_of(a) if target.kind == "hook" else a
        if type(key) is StrVal and (target.kind not in ("requests", "httpx", "aiohttp", "superagent")
                                    or not _method_from_value(key)):
            return key.span  # type: ignore[union-attr]
        if type(a) is ObjVal:
            v = _url_field(a)  # type: ignore[arg-type]
            if target.kind == "rtk":
                q = a.get("query")  # type: ignore[union-attr]
                q = q.returns if type(q) is FnVal else q  # type: ignore[union-attr]
                v = q.get("url") if type(q) is ObjVal else q  # type: ignore[union-attr]
            if v is not None and type(v) is not OtherVal:
                return v.span  # type: ignore[union-attr]
    for k, v in site.kwargs:
        if k == "url":
            return v.span
    return site.span


def _forwards_path(url: UrlExpr, base_len: int, params: tuple[str, ...] = ()) -> bool:
    """True when an Arg supplies the path itself (``${API_ROOT}${url}``, ``BASE + '/' + path``,
    ``getQueryPath(path)``, ``/api${path}`` for a parameter named like a path), not one
    segment or a query value of a literal path (``/articles/${slug}``, ``/orders?limit=${n}``)."""
    if _base_arg(url[base_len:], params):
        return False
    return bool(_forwards_in(url[base_len:], "", params)[0])


def _forwards_in(parts: UrlExpr, text_before: str, params: tuple[str, ...]) -> tuple[bool | None, str]:
    """(whether the first Arg met forwards the path, None when there is none; the text so far)."""
    for part in parts:
        t = type(part)
        if t is Arg:
            if not text_before.strip("/"):
                return True, text_before
            # glued to a literal without a slash: the rest of the path, when named like one
            name = part.field or (params[part.index] if part.index < len(params) else "")  # type: ignore[union-attr]
            glued = (not text_before.endswith("/") and "?" not in text_before and "=" not in text_before
                     and bool(_PATHISH.search(name.rpartition(".")[2])))
            return glued, text_before
        if t is Alt:
            verdicts = [_forwards_in(o, text_before, params)[0] for o in part.options]  # type: ignore[union-attr]
            if any(v is not None for v in verdicts):
                return any(verdicts), text_before
            text_before += "x"
        elif t is Call:
            for a in part.args:  # type: ignore[union-attr]
                if type(a) is StrVal:
                    v = _forwards_in(a.expr, text_before, params)[0]  # type: ignore[union-attr]
                    if v is not None:
                        return v, text_before
            text_before += "x"
        else:
            text_before += part.text if t is Lit else "x"  # type: ignore[union-attr]
    return None, text_before


def _join_base(base: UrlExpr, path: UrlExpr) -> UrlExpr:
    """``base`` + ``path`` the way clients join them (an absolute URL replaces the base).
    The parts stay separate so the caller knows where the base ends."""
    if path and type(path[0]) is Lit and SCHEME.match(path[0].text):  # type: ignore[union-attr]
        return path
    if path and type(path[0]) is Lit and base and type(base[-1]) is Lit:
        left, right = base[-1].text, path[0].text  # type: ignore[union-attr]
        if left.endswith("/") and right.startswith("/"):
            right = right[1:]
        elif not left.endswith("/") and not right.startswith("/") and right:
            right = "/" + right
        return base + (Lit(right),) + path[1:]
    if path and type(path[0]) is Lit and not path[0].text.startswith("/"):  # type: ignore[union-attr]
        return base + (Lit("/" + path[0].text),) + path[1:]  # type: ignore[union-attr]
    return base + path


def _leading_base_len(original: UrlExpr, linker: Linker, idx: _FileIndex, scope: str | None) -> int:
    """When the URL starts with a reference (``${API_ROOT}/x``) or a URL builder, the parts
    that reference resolved to form the base."""
    if original and type(original[0]) in (Ref, Env):
        first = original[0]
        if type(first) is Ref:
            r = linker.resolve_expr(idx.facts.path, (first,), scope)
            return len(r)
        return 1
    return 0


def _channel_of(path: str, url: UrlExpr, base_len: int, target: _Target) -> str:
    """The channel of a call without a client of its own: the base it starts with (an
    environment value, a base reference), else the plain calls of its project."""
    first = url[0] if url else None
    if type(first) is Env:
        return f"base:{first.name}:{project_of(path)}"  # type: ignore[union-attr]
    if type(first) is Ref:
        return f"base:{first.name}:{project_of(path)}"  # type: ignore[union-attr]
    if base_len and type(first) is Lit:
        return f"base:{first.text}:{project_of(path)}"  # type: ignore[union-attr]
    return f"direct:{project_of(path)}"


def finish(path: str, span: Span, call_span: Span, method: str, url: UrlExpr, base_len: int,
           via: str, channel: str = "", api_hosts: frozenset[str] = frozenset(), implicit: bool = False
           ) -> HttpCall | None:
    """Turn a resolved URL expression into an ``HttpCall`` (template, relative, host; every
    candidate path of a conditional URL)."""
    options = expand(url, base_len)
    if len(options) > MAX_CANDIDATES:
        return HttpCall(path, span, call_span, method, None,
                        reason=f"a conditional URL with more than {MAX_CANDIDATES} candidate paths",
                        via=via, channel=channel)
    results = []
    for u, bl in options:
        r = url_of(u, bl)
        if r.kind == "skip":
            continue
        if r.external and r.host is not None and r.host.lower() in api_hosts:
            r = r._replace(external=False)
        if r.external:
            r = r._replace(reason=f"external host {r.host}")
        results.append(r)
    if not results:
        return None
    seen: set = set()
    unique = []
    for r in results:
        key = (r.template, r.relative, r.reason)
        if key not in seen:
            seen.add(key)
            unique.append(r)
    main = next((r for r in unique if r.template is not None), unique[0])
    candidates = tuple((r.template, r.relative, r.reason) for r in unique) if len(unique) > 1 else ()
    return HttpCall(path, span, call_span, method, main.template, relative=main.relative, host=main.host,
                    reason=main.reason, via=via, base_unknown=any(r.base_unknown for r in unique),
                    channel=channel, candidates=candidates, implicit=implicit, external=main.external)
