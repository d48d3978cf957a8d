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

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import chain

from .callsites import (
    arg_value,
    args_to_params,
    bind_fields,
    flat,
    forwards_path,
    join_base,
    key_of,
    method_of,
    methods_of,
    object_request,
    project_of,
    split_alt,
    starts_with_slash,
    substitute,
    url_field,
)
from .http_call import HttpCall, finish
from .model import (
    Arg,
    ArgVal,
    Call,
    CallSite,
    ClassDef,
    ClientDef,
    Env,
    FnVal,
    FunctionDef,
    HTTP_METHODS,
    Lit,
    ObjVal,
    OtherVal,
    Read,
    Ref,
    Span,
    StrVal,
    Unknown,
    UrlExpr,
)
from .payload import bind, body_reads, payload, query_names, returns, settled, typed
from .symbols import FileIndex, Symbols
from .urls import BASEISH, SCHEME, host_of

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
DEFAULT_METHOD = {"fetch": "GET", "ofetch": "GET", "ky": "GET", "axios": "GET", "hook": "GET"}


def _linker_version() -> str:
    import hashlib
    from pathlib import Path

    from .extract import EXTRACTOR_VERSION

    here = Path(__file__).parent
    # every module of the core (the linker's and the registered analyses', whose results
    # are cached with the link results): an upgrade never reuses another version's verdicts
    data = b"".join(p.name.encode() + p.read_bytes() for p in sorted(here.glob("*.py")))
    return hashlib.blake2b(data + EXTRACTOR_VERSION.encode(), digest_size=8).hexdigest()


LINKER_VERSION = _linker_version()


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
    # what it sends, in terms of its parameters (payload.bind fills them at each caller), and
    # what its callers take from its value to reach the response body (payload.returns)
    body: ArgVal | None = None
    params_val: ArgVal | None = None
    returns: tuple[str, ...] | None = None


@dataclass(slots=True)
class _Sent:
    body: ObjVal | None
    params: ObjVal | None
    query: tuple[str, ...]
    reads: tuple[Read, ...]


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


class Linker(Symbols):
    """Links call sites across files. One instance per batch (it memoizes per file)."""

    # ------------------------------------------------------------------ public
    def link_file(self, path: str, reads: dict | None = None,
                  keep: "Callable[[CallSite], list[HttpCall] | None] | None" = None
                  ) -> tuple[list[HttpCall], set[str]]:
        """The HTTP calls of one file, and every path read (or probed) to find them.

        ``reads`` (``path`` is the watched file, ``Symbols.watch``): filled with each call
        site's read set, by its span: the tokens of what classifying it looked up in the
        facts of ``path`` (``symbols.READ_TAGS``; ``EVERYTHING``: it read them wholesale).
        ``keep``: a site's calls without classifying it again, or None to classify it (the
        caller knows its read set met no changed name; it fills ``reads`` for such a site)."""
        self._deps.append({path})
        try:
            idx = self._file_index(path)
            calls: list[HttpCall] = []
            if idx is not None:
                sink = self._reads
                for site in idx.facts.calls:
                    if keep is not None:
                        kept = keep(site)
                        if kept is not None:
                            calls.extend(kept)
                            continue
                    if reads is not None:
                        sink.append(set())
                    try:
                        calls.extend(self._classify(idx, site))
                    except RecursionError:
                        self.cutoffs += 1
                    finally:
                        if reads is not None:
                            reads[site.span] = sink.pop()
                supers: list[HttpCall] = []
                for cdef in idx.facts.classes:
                    if cdef.super_args and cdef.bases:
                        try:
                            supers.extend(self._through_super(idx, cdef))
                        except RecursionError:
                            pass
                if supers:  # in the order of the file, as the sites' calls are
                    calls = sorted(calls + supers, key=_call_start)
            return calls, self._deps[-1]
        finally:
            self._deps.pop()

    def link_sites(self, path: str, sites: tuple[CallSite, ...], taken: tuple[CallSite, ...] = (),
                   read_elsewhere: bool = True) -> tuple[list[HttpCall], set[str]] | None:
        """The HTTP calls of ``sites``, call sites of ``path``, as ``link_file`` gives them,
        and every path read to find them; after an edit that changed only those sites, which
        replaced the sites ``taken``. The file's other facts may be an earlier version's
        (the same but for spans and call sites): nothing of them but what they mean reaches a
        call. None when another site's calls may have changed with these: one of them (old or
        new) is in a method or a nested function (a subclass's ``super`` table binds a base
        class's methods) or is a wrapper's inside. ``read_elsewhere`` False: no other file
        reads ``path``; then a method's site counts only when a class of ``path`` passes a
        table to ``super``, since only a subclass can bind it."""
        self._deps.append({path})
        try:
            idx = self._file_index(path)
            if idx is None:
                return None
            bound = read_elsewhere or any(c.super_args and c.bases for c in idx.facts.classes)
            if any(self._forwards(idx, s, bound) for s in chain(taken, sites)):
                return None
            out: list[HttpCall] = []
            for site in sites:
                try:
                    out.extend(self._classify(idx, site))
                except RecursionError:
                    return None
            return out, self._deps[-1]
        finally:
            self._deps.pop()

    def _forwards(self, idx: "FileIndex", site: CallSite, bound: bool = True) -> bool:
        """Whether the calls of other sites may be made of ``site``'s (see ``link_sites``);
        ``bound``: a method's may, through a subclass's ``super`` table; a nested function's
        always may."""
        scope = site.scope
        if scope is None:
            return False
        fn = idx.functions.get(scope)
        if "." in scope and (bound or scope.count(".") > 1 or scope.partition(".")[0] not in idx.classdefs):
            return True  # (a nested function's sites may be made of its outer function's parameters)
        if fn is None:
            return False
        try:
            for target in _each(self._target(idx, site)):
                got = self._url_and_method(idx, site, target)
                if got is not None and any(type(p) is Arg for p in flat(got[0][got[1]:])) and forwards_path(
                        got[0], got[1], fn.params):
                    return True
        except RecursionError:
            return True
        return False

    # ------------------------------------------------------------------ classes
    def _through_super(self, idx: "FileIndex", cdef: ClassDef) -> list[HttpCall]:
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
                bound = bind_fields(site, values)
                if bound is None:
                    continue
                bound_site, span = bound
                for call in self._classify(bidx, bound_site):
                    out.append(replace(call, file=idx.facts.path, span=span, call_span=span,
                                       via=f"{call.via} through {hit[1]}.{scope[len(prefix):]}"))
        return out

    # ------------------------------------------------------------------ clients
    def _factory(self, idx: "FileIndex", callee: str, scope: str | None, depth: int = 0) -> ClientDef | None:
        """The client a factory call creates: a library's factory (openapi-fetch's
        ``createClient``), a workspace function returning a client, or an alias of either
        (``export const createApiClient = createClient<paths>``)."""
        if self._too_deep(depth) or callee.startswith("new "):
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

    def _concrete(self, idx: "FileIndex", cdef: ClientDef, depth: int = 0) -> ClientDef | None:
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
                if any(type(p) is Arg for p in flat(url[base_len:])) and forwards_path(url, base_len, fn.params):
                    if (url, method) in seen:
                        continue
                    seen.add((url, method))
                    channel = target.channel or _channel_of(idx.facts.path, url, base_len, target)
                    body, params, through = self._sent(site, target)
                    body = typed(body, lambda t: self._declared_keys(path, t), wrapper=True)
                    found.append(_Wrapper(url, base_len, method, fn.params, via, channel, default,
                                          target.base_unknown, target.implicit, body, params,
                                          returns(target.kind, site.reads, through)))
        return tuple(found) or None

    # ------------------------------------------------------------------ classification
    def _target(self, idx: "FileIndex", site: CallSite) -> _Target | None:
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
            if object_request(site):
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
                and starts_with_slash(site.args[0].get("url"))):  # type: ignore[union-attr,arg-type]
            # `(options.client ?? client).get({ url: '/pet/{petId}', ...options })`: hey-api's shape
            return _Target("hey-api", verb=verb, channel=f"typed:{project_of(idx.facts.path)}:{receiver}", implicit=True)
        if object_request(site):
            return _Target("object")
        if receiver and last in UPPER_VERBS and site.args and starts_with_slash(site.args[0]):
            # `client.GET('/items/{id}')`: openapi-fetch's shape, whatever made the client
            return _Target("openapi-fetch", verb=verb, channel=f"typed:{project_of(idx.facts.path)}:{receiver}",
                           implicit=True)
        if last in RTK and site.args and type(site.args[0]) is ObjVal and site.args[0].get("query") is not None:
            return _Target("rtk", verb=last, channel=f"rtk:{idx.facts.path}", implicit=True)
        return None

    def _url_and_method(self, idx: "FileIndex", site: CallSite, target: _Target
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
            url = substitute(w.url, site, w.params)
            if url is None:
                return None
            method = w.method
            if type(method) is Arg:
                val = arg_value(site, method, w.params)
                method = method_of(val) if val is not None else w.default_method
            return self.resolve_expr(idx.facts.path, url, site.scope), w.base_len, method, w.via, w.default_method
        if kind == "object":
            obj = next(a for a in args if type(a) is ObjVal)
            url_val = url_field(obj)  # type: ignore[arg-type]
            method = method_of(obj.get("method") or obj.get("type"))  # type: ignore[union-attr]
            via = "request object"
            default = None
        elif kind == "hook":
            first = key_of(args[0]) if args else None
            if type(first) is ObjVal:
                url_val = url_field(first)  # type: ignore[arg-type]
                method = method_of(first.get("method")) or "GET"  # type: ignore[union-attr]
            elif type(first) is StrVal:
                resolved = self.resolve_expr(idx.facts.path, first.expr, site.scope)  # type: ignore[union-attr]
                if len(resolved) == 1 and type(resolved[0]) in (Ref, Unknown, Arg, Call):
                    return None  # `useRequest(loadUsers)`: a service function, not a URL
                url_val = first
                method = "GET"
                opts = args[1] if len(args) > 1 else None
                if type(opts) is ObjVal and verb in ("useFetch", "useLazyFetch"):  # Nuxt: baseURL, method
                    method = method_of(opts.get("method")) or "GET"  # type: ignore[union-attr]
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
                method = method_of(q.get("method")) or "GET"  # type: ignore[union-attr]
            elif type(q) is StrVal:
                url_val, method = q, "GET"
            else:
                return None
            via = f"RTK Query {verb}"
        elif kind == "openapi-react-query":
            if verb not in {h.lower() for h in QUERY_HOOKS} or len(args) < 2:
                return None
            method = method_of(args[0])
            url_val = args[1]
        elif verb in VERBS:
            method = VERBS[verb]
            url_val = args[0] if args else kwargs.get("url")
            if type(url_val) is ObjVal and kind in ("hey-api", "openapi-fetch"):
                url_val = url_val.get("url")  # type: ignore[union-attr]
        elif verb in ("request", "stream") or verb is None:
            first = args[0] if args else None
            if type(first) is ObjVal:  # axios(config), axios.request(config)
                url_val = url_field(first)  # type: ignore[arg-type]
                method = method_of(first.get("method"))  # type: ignore[union-attr]
                if method is None and first.get("method") is None:  # type: ignore[union-attr]
                    method = "GET"
            elif kind in ("requests", "httpx", "aiohttp", "superagent", "angular") and (
                    len(args) >= 2 or "url" in kwargs):
                method = method_of(args[0] if args else kwargs.get("method"))
                url_val = args[1] if len(args) >= 2 else kwargs.get("url")
            elif kind in ("fetch", "ofetch", "ky", "axios") and first is not None:
                url_val = first
                init = args[1] if len(args) > 1 else None
                if init is None:
                    method = "GET"
                elif type(init) is ObjVal:
                    m = init.get("method")  # type: ignore[union-attr]
                    method = method_of(m) if m is not None else "GET"
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
            path = join_base(base, path)
            base_len = len(base)
        elif target.base_unknown and path and type(path[0]) is Lit and not SCHEME.match(path[0].text):  # type: ignore[union-attr]
            # a client from outside: its base is not visible, the path is relative to it
            path = (Env("the client's base URL"),) + join_base((Lit(""),), path)[1:]
            base_len = 1
        else:
            base_len = _leading_base_len(url_val.expr, self, idx, site.scope)  # type: ignore[union-attr]
        return path, base_len, method, via, default

    def _sent(self, site: CallSite, target: _Target) -> tuple[ArgVal | None, ArgVal | None, tuple[str, ...] | None]:
        """(body, query parameters, steps from the call's value to the response body) of one
        request: a library's, or a wrapper's bound to this caller's values."""
        if target.kind == "wrapper":
            w = target.wrapper
            if w is None:
                return None, None, None
            return bind(w.body, site, w.params), bind(w.params_val, site, w.params), w.returns
        body, params = payload(target.kind, target.verb, site)
        return body, params, None

    def _classify(self, idx: "FileIndex", site: CallSite) -> list[HttpCall]:
        out: list[HttpCall] = []
        fn = idx.functions.get(site.scope) if site.scope is not None else None
        for target in _each(self._target(idx, site)):
            got = self._url_and_method(idx, site, target)
            if got is None:
                continue
            url, base_len, method, via, _default = got
            if fn is not None and any(type(p) is Arg for p in flat(url[base_len:])) and forwards_path(url, base_len, fn.params):
                continue  # this call is the inside of a wrapper: its callers are the HTTP calls
            if site.scope is not None:
                url = args_to_params(url, fn)
            span = _url_span(site, target)
            if target.kind == "wrapper" and target.wrapper is not None:
                channel, unknown, implicit = target.wrapper.channel, target.wrapper.base_unknown, target.wrapper.implicit
            else:
                channel = target.channel or _channel_of(idx.facts.path, url, base_len, target)
                unknown, implicit = target.base_unknown, target.implicit
            hosts = self._api_hosts(idx)
            methods = methods_of(method)
            branches = split_alt(url, len(methods)) if len(methods) > 1 else None
            if branches is not None:
                # `path: id ? `/x/${id}` : '/x'` with `method: id ? 'PUT' : 'POST'`: one request per branch
                pairs = [(m, (u, base_len)) for m, u in zip(methods, branches)]
            else:
                pairs = [(m, (url, base_len)) for m in methods]
            body, params, through = self._sent(site, target)
            body = typed(body, lambda t: self._declared_keys(idx.facts.path, t))
            sent = _Sent(settled(body), settled(params), query_names(url),
                         body_reads(target.kind, site.reads, through) if site.reads else ())
            for meth, (u, bl) in pairs:
                call = finish(idx.facts.path, span, site.span, meth, u, bl, via, channel, hosts, implicit or unknown)
                if call is not None and (sent.body or sent.params or sent.query or sent.reads):
                    call = replace(call, body=sent.body, params=sent.params, query=sent.query, reads=sent.reads)
                if call is not None and (len(pairs) == 1 and not out or call not in out):
                    out.append(call)
        return out

    # ------------------------------------------------------------------ typed values
    def _declared_keys(self, path: str, name: str) -> tuple[str, ...] | None:
        key = ("declared", path, name)
        return self._memoized(key, lambda: self._compute_declared(path, name))  # type: ignore[return-value]

    def _compute_declared(self, path: str, name: str) -> tuple[str, ...] | None:
        """The keys a value of type ``name`` (as written in ``path``) sends, when the type is
        *closed*: a workspace interface or object type alias (found through imports and
        re-exports, ``routes.find_declared``, the lookup the request models use), declared
        once, with no index signature or computed member, whose bases are all such types
        too. Every property it declares counts, optional ones included. None otherwise (a
        class, a generic, ``Partial<T>``, a type from a package, a base not found)."""
        from .package_entry import in_installed
        from .route_contract import find_model

        def resolve(importer: str, spec: str, python: bool) -> str | None:
            target = self.resolve_module(importer, spec, "python" if python else "typescript")
            return None if target is None or in_installed(target) else target

        names: list[str] = []
        todo = [(path, name)]
        seen: set[tuple[str, str]] = set()
        while todo:
            file, written = todo.pop(0)
            if "<" in written or "(" in written or len(seen) >= 16:
                return None  # a generic or mapped base (`Base<T>`, `Omit<...>`)
            hit = find_model(file, written, self._facts_whole, resolve)
            if hit is None:
                return None
            where, model = hit
            if (where, model.name) in seen:
                continue
            seen.add((where, model.name))
            facts = self._facts_whole(where)
            if (model.kind != "interface" or model.open or facts is None
                    or sum(1 for d in facts.data_models if d.name == model.name) > 1):
                return None  # a class, an index signature, declarations merged
            names.extend(f.name for f in model.fields if f.name not in names)
            todo.extend((where, b) for b in model.bases)
        return tuple(names)

    def _api_hosts(self, idx: "FileIndex") -> frozenset[str]:
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


def _call_start(c: HttpCall) -> int:
    return c.call_span.start


def _each(target: "_Target | None") -> list["_Target"]:
    """A target per request: a wrapper making several requests stands for each of them."""
    if target is None:
        return []
    if target.wrappers:
        return [_Target("wrapper", wrapper=w) for w in target.wrappers]
    return [target]


def _url_span(site: CallSite, target: _Target) -> Span:
    """The span of the URL expression at the outermost call site."""
    if target.kind == "wrapper" and target.wrapper is not None:
        for part in flat(target.wrapper.url):
            if type(part) is Arg:
                val = arg_value(site, part, target.wrapper.params)  # type: ignore[arg-type]
                if val is not None and type(val) is not OtherVal:
                    return val.span
    if target.kind == "openapi-react-query" and len(site.args) > 1:
        return site.args[1].span
    for a in site.args:
        key = key_of(a) if target.kind == "hook" else a
        if type(key) is StrVal and (target.kind not in ("requests", "httpx", "aiohttp", "superagent")
                                    or not method_of(key)):
            return key.span  # type: ignore[union-attr]
        if type(a) is ObjVal:
            v = url_field(a)  # type: ignore[arg-type]
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


def _leading_base_len(original: UrlExpr, linker: Linker, idx: FileIndex, scope: str | None) -> int:
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
