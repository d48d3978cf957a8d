"""Plain data shared by every analyzer.

Everything here is frozen and built only from str/int/tuple/None, so facts can be
pickled to worker processes, stored in the SQLite cache and compared for equality.
(No ``slots``: slotted frozen dataclasses unpickle about twice as slowly, and cold
indexing moves every file's facts between processes.)
Positions are byte offsets into the file's UTF-8 bytes (``Span``); only the server's
``lsp/convert.py`` (and the CLI's text output, through ``LineIndex``) turns them into
lines and columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

Severity = Literal["error", "warning", "information", "hint"]

HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE")


@dataclass(frozen=True)
class Span:
    """Half-open byte range [start, end) in the file's UTF-8 bytes."""

    start: int
    end: int


# --------------------------------------------------------------------------- URL expressions
# A URL as written in code, before cross-file resolution: a tuple of parts.


@dataclass(frozen=True)
class Lit:
    """Literal text, e.g. ``/users/`` or ``https://api.example.com/v1``."""

    text: str


@dataclass(frozen=True)
class Ref:
    """A name to resolve later: a module constant, an imported constant, ``config.API``.

    Dotted for member access (``API.BASE``). Resolved by ``analyzers.http.link``: if the
    name is not a known string constant it becomes a path parameter (in the middle of a
    path) or an unknown base (at the start).
    """

    name: str


@dataclass(frozen=True)
class Param:
    """A value only known at run time that fills a path segment: ``${id}``, ``{user_id}``.

    ``name`` is the best readable name for the placeholder (last identifier of the
    expression, or ``param``)."""

    name: str


@dataclass(frozen=True)
class Arg:
    """A parameter of the enclosing function (for thin wrappers).

    ``index`` is the positional index among the function's parameters (``self``/``cls``
    excluded for Python methods); ``field`` is set when the parameter is a destructured
    object (``function send({ method, path })`` -> ``Arg(0, "path")``)."""

    index: int
    field: str | None = None


@dataclass(frozen=True)
class Env:
    """An environment value (``process.env.API_URL``, ``import.meta.env.VITE_API``,
    ``os.environ["API"]``, ``os.getenv("API")``): a base URL that cannot be seen statically."""

    name: str


@dataclass(frozen=True)
class Unknown:
    """Something that cannot be resolved statically (a call result, a ternary, ...)."""

    why: str


Part = Union[Lit, Ref, Param, Arg, Env, Unknown]
UrlExpr = tuple[Part, ...]


# --------------------------------------------------------------------------- argument values


@dataclass(frozen=True)
class StrVal:
    """A string-like argument (literal, template, f-string, concatenation, identifier)."""

    expr: UrlExpr
    span: Span


@dataclass(frozen=True)
class ObjVal:
    """An object literal / dict literal argument (``{ method: 'GET', path }``).

    Only fields whose value is string-like (``StrVal``) or a nested object are kept."""

    fields: tuple[tuple[str, "ArgVal"], ...]
    span: Span

    def get(self, key: str) -> "ArgVal | None":
        for k, v in self.fields:
            if k == key:
                return v
        return None


@dataclass(frozen=True)
class OtherVal:
    """Any other argument (a function, a number, a call result)."""

    span: Span


ArgVal = Union[StrVal, ObjVal, OtherVal]


# --------------------------------------------------------------------------- per-file facts


@dataclass(frozen=True)
class CallSite:
    """One call expression that might be an HTTP call, before resolution.

    ``callee`` is the callee as a dotted name with whitespace removed and generic type
    arguments dropped: ``fetch``, ``axios.get``, ``this.http.get``, ``api.get``,
    ``requests.get``, ``self.session.post``, ``send``. ``scope`` is the qualified name of
    the innermost enclosing function (see ``FunctionDef.name``) or None at module level.
    Extractors record a call when its callee's last segment is an HTTP verb or a known
    HTTP entry point, or when any argument is string-like or an object literal.
    """

    callee: str
    span: Span
    args: tuple[ArgVal, ...]
    kwargs: tuple[tuple[str, ArgVal], ...] = ()
    scope: str | None = None


@dataclass(frozen=True)
class FunctionDef:
    """A function, method, arrow function bound to a name, or object-literal method.

    ``name`` is qualified: ``get``, ``requests.del`` (``requests.del = url => ...`` or
    ``const requests = { del: url => ... }``), ``Articles.all``, ``ApiClient.fetchUser``
    (class method), ``Client._get`` (Python method). ``params`` lists positional parameter
    names (Python ``self``/``cls`` excluded); a destructured object parameter is written
    ``{method,path}``."""

    name: str
    params: tuple[str, ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class ClientDef:
    """A variable bound to an HTTP client instance.

    ``kind`` is one of ``axios``, ``ky``, ``ofetch``, ``superagent``, ``angular``,
    ``requests``, ``httpx``, ``aiohttp``. ``name`` is the binding as callees spell it
    (``api``, ``client``, ``this.http``, ``self.session``); ``scope`` as for ``CallSite``
    (None for module level; class attributes like ``this.http``/``self.session`` use the
    class name)."""

    name: str
    kind: str
    base: UrlExpr | None
    span: Span
    scope: str | None = None


@dataclass(frozen=True)
class Import:
    """``module`` as written (``./config``, ``axios``, ``.config``, ``app.api``); ``name`` is
    the imported export (``default`` for a default import, ``*`` for a namespace import or a
    Python ``import x``); ``local`` is the local binding."""

    module: str
    name: str
    local: str
    span: Span


@dataclass(frozen=True)
class Export:
    """An exported binding: ``name`` as importers see it, ``local`` the local binding it
    refers to (``export default api`` -> name ``default``, local ``api``). A re-export
    (``export { x } from './y'``) sets ``module``."""

    name: str
    local: str
    span: Span
    module: str | None = None


@dataclass(frozen=True)
class Definition:
    """A top-level definition (function, class, variable), for navigation and later checks."""

    name: str
    kind: Literal["function", "class", "variable", "method"]
    span: Span


@dataclass(frozen=True)
class Route:
    """A backend route declaration (Express, FastAPI, ...): ``path`` normalized to ``{param}``."""

    method: str
    path: str
    span: Span
    framework: str


@dataclass(frozen=True)
class Finding:
    """A diagnostic in analyzer terms. ``code`` is a stable kebab-case code from
    ``analyzers.codes``; ``file`` a workspace-relative posix path; ``data`` carries plain
    extra facts (nearest endpoints, ...) for quick fixes and JSON output."""

    code: str
    severity: Severity
    message: str
    file: str
    span: Span
    data: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class FileFacts:
    """Everything the index knows about one source file, from ``extract(path, text)`` alone."""

    path: str
    language: str
    imports: tuple[Import, ...] = ()
    exports: tuple[Export, ...] = ()
    definitions: tuple[Definition, ...] = ()
    functions: tuple[FunctionDef, ...] = ()
    constants: tuple[tuple[str, UrlExpr], ...] = ()
    clients: tuple[ClientDef, ...] = ()
    calls: tuple[CallSite, ...] = ()
    routes: tuple[Route, ...] = ()
    problems: tuple[Finding, ...] = ()


# --------------------------------------------------------------------------- contracts


@dataclass(frozen=True)
class Endpoint:
    """One declared operation. ``path`` uses ``{param}`` templates and excludes the base
    path; ``base_path`` is the contract's base (``/v1`` from OpenAPI ``servers[0].url``,
    else ""). ``span`` is the exact range of the declaration's key (OpenAPI: the method key
    under the path; SpecDSL: the endpoint's ``path`` value). ``details`` holds plain nested
    data for hovers (description, auth, request, responses, errors, ...)."""

    method: str
    path: str
    file: str
    span: Span
    base_path: str = ""
    id: str | None = None
    summary: str | None = None
    details: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Model:
    name: str
    fields: tuple[tuple[str, str], ...]  # (field name, type as written)
    file: str
    span: Span


@dataclass(frozen=True)
class ContractFacts:
    path: str
    format: Literal["specdsl", "openapi", "swagger", "unknown"]
    endpoints: tuple[Endpoint, ...] = ()
    models: tuple[Model, ...] = ()
    findings: tuple[Finding, ...] = field(default=())
