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

from dataclasses import MISSING, dataclass, field, fields
from functools import cached_property
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
    """Something that cannot be resolved statically (a call result, a variable, ...)."""

    why: str


@dataclass(frozen=True)
class Alt:
    """A conditional piece: one of ``options`` (``cond ? '/a' : '/b'``, ``'/posts' + (mine ?
    '/mine' : '')``, ``x ?? '/default'``, Python ``a if c else b``). A branch that sends no
    request (``null``/``undefined``/``None``) is left out; an empty string is an empty
    option."""

    options: tuple["UrlExpr", ...]


@dataclass(frozen=True)
class Call:
    """A call of a function inside a URL expression (``getQueryPath(path)``,
    ``route('/items', { q })``, ``this.url('x')``): the linker follows it when the function
    returns a URL built from its arguments (a URL builder), else it is ``Unknown``
    (``computed by <callee>()``). ``callee`` is dotted as ``CallSite.callee``."""

    callee: str
    args: tuple["ArgVal", ...]
    name: str = "param"  # the placeholder it becomes in the middle of a path when not followed


Part = Union[Lit, Ref, Param, Arg, Env, Unknown, Alt, Call]
UrlExpr = tuple[Part, ...]


# --------------------------------------------------------------------------- argument values


@dataclass(frozen=True)
class StrVal:
    """A string-like argument (literal, template, f-string, concatenation, identifier).

    Read through an identifier whose variable or parameter is declared with a plain type
    reference (``const draft: NoteInput = load()``, ``note: NoteInput``): ``type_name`` is
    that type as written (``NoteInput``, ``types.NoteInput``) and ``name`` the identifier,
    whatever ``expr`` is (``Arg`` for a parameter); the field checks judge such a value by
    the properties its type declares (``payload.typed``). Empty otherwise."""

    expr: UrlExpr
    span: Span
    type_name: str = ""
    name: str = ""


SPREAD = "..."


@dataclass(frozen=True)
class ObjVal:
    """An object literal / dict literal argument (``{ method: 'GET', path }``), an array
    literal (keys ``"0"``, ``"1"``, ...), or an object known through a variable.

    Only fields whose value is string-like (``StrVal``), an object or a function value are
    kept; a spread (``...options``) is a field named ``SPREAD`` whose value is the object
    spread (an ``ObjVal``, a ``StrVal`` of one ``Arg`` for a parameter of the enclosing
    function, or ``OtherVal`` when it cannot be seen). Later fields win, as in JavaScript."""

    fields: tuple[tuple[str, "ArgVal"], ...]
    span: Span
    # every key the literal writes, whatever its value (``fields`` keeps only some values), in
    # order, for the field checks (``analyzers/fields.py``); empty for an array
    keys: tuple["Key", ...] = ()
    # a key that cannot be read (``[name]: value``): the keys written are not all the keys
    computed: bool = False

    def own(self, key: str) -> "ArgVal | None":
        """The value of ``key`` when the literal writes it (itself or in a spread object seen
        here), not when only a spread of a parameter or of an unseen value may hold it."""
        for k, v in reversed(self.fields):
            if k == key:
                return v
            if k == SPREAD and type(v) is ObjVal:
                inner = v.own(key)
                if inner is not None:
                    return inner
        return None

    def get(self, key: str) -> "ArgVal | None":
        """The value of ``key`` (dotted for nested objects), None when the object surely has
        no such field, ``OtherVal`` when a spread it cannot see may hold it.

        A field written in the literal, or held by a spread object seen here, wins over
        spreads of parameters and of values not seen (``{ ...options, url }``, and also
        ``{ url, ...options }``: options objects seldom carry the URL); among spreads of
        parameters, the first one wins (``{ ...config, ...overrides }``)."""
        head, dot, rest = key.partition(".")
        found: ArgVal | None = None
        pending: ArgVal | None = None  # a parameter's field, or a spread not seen
        for k, v in reversed(self.fields):
            if k == head:
                found = v
                break
            if k == SPREAD:
                if type(v) is ObjVal:
                    inner = v.own(head)
                    if inner is not None:
                        found = inner
                        break
                    inner = v.get(head)  # only through a spread it holds
                    if inner is not None and pending is None:
                        pending = inner
                elif type(v) is StrVal and len(v.expr) == 1 and type(v.expr[0]) is Arg:
                    arg = v.expr[0]
                    field = f"{arg.field}.{head}" if arg.field else head
                    pending = StrVal((Arg(arg.index, field),), v.span)
                elif pending is None:
                    pending = OtherVal(v.span)
        if found is None:
            found = pending
        if found is None or not dot:
            return found
        if type(found) is ObjVal:
            return found.get(rest)
        if type(found) is StrVal and len(found.expr) == 1 and type(found.expr[0]) is Arg:
            arg = found.expr[0]
            return StrVal((Arg(arg.index, f"{arg.field}.{rest}" if arg.field else rest),), found.span)
        return OtherVal(found.span)


@dataclass(frozen=True)
class Key:
    """A key an object or dict literal writes: ``name`` as the program sees it, ``span`` the
    name as written (a string key's content, without its quotes), ``shorthand`` for
    ``{ title }`` (a rename must write ``body: title``)."""

    name: str
    span: Span
    shorthand: bool = False
    # a key the linker took from a declared type (a spread of, or a body that is, a value of
    # type ``NoteInput``): what a message says of it (``NoteInput via ...note``); its span is
    # the value's, and no rename is offered there
    origin: str = ""


@dataclass(frozen=True)
class OtherVal:
    """Any other argument (a number, a call result, something not visible)."""

    span: Span


@dataclass(frozen=True)
class FnVal:
    """A function value (``() => '/posts'``, ``(body) => ({ url: '/posts', method: 'POST' })``):
    what it returns when that is one visible value (an SWR key function, an RTK Query
    ``query``), else ``returns`` is None."""

    returns: "ArgVal | None"
    span: Span


ArgVal = Union[StrVal, ObjVal, OtherVal, FnVal]


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
    # how the call's value is used in its function (``Read``): property reads of the
    # response, and whether (a part of) it is returned
    reads: tuple["Read", ...] = ()


@dataclass(frozen=True)
class Read:
    """One use of a call's value in the function that makes the call, as the steps taken from
    that value: ``await`` (an ``await``, or the parameter of a ``.then(r => ...)`` callback),
    a property name (``data``, ``items``; a Python subscript with a string or a dict
    ``.get("x")``), ``name()`` for a method called on it (``json()``, ``map()``), ``[]`` for
    an element (``items[0]``, a ``for ... of`` variable). ``spans``: where each step is
    written (the property's name), one per step. ``returned``: the value at the end of the
    steps is what the function returns (``return res.data``), so that its callers' reads
    continue from there.

    ``const { data: { items } } = await api.get(u); items[0].title`` gives
    ``("await", "data", "items", "[]", "title")``; ``r = requests.get(u); r.json()["id"]``
    gives ``("json()", "id")``. Only one level of assignment or destructuring is followed
    (``const body = await res.json(); body.x``)."""

    steps: tuple[str, ...]
    spans: tuple[Span, ...]
    returned: bool = False


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
    # what the function returns when it is one visible value (an arrow's expression body, a
    # single `return`): a URL builder returns a string built from its parameters
    returns: "ArgVal | None" = None


@dataclass(frozen=True)
class ClientDef:
    """A variable bound to an HTTP client instance.

    ``kind`` is one of ``axios``, ``ky``, ``ofetch``, ``superagent``, ``angular``,
    ``requests``, ``httpx``, ``aiohttp``, ``openapi-fetch``, or ``factory``: the value of a
    call the linker follows (``factory`` names the callee: ``httpFactory``,
    ``createKarakeepClient``, ``new ApiService`` for an instance of a workspace class).
    ``name`` is the binding as callees spell it (``api``, ``client``, ``this.http``,
    ``self.session``; ``return`` for a client a function returns); ``scope`` as for
    ``CallSite`` (None for module level; class attributes like ``this.http``/``self.session``
    use the class name). ``base_unknown``: the client comes from outside (a parameter typed
    ``AxiosInstance``/``httpx.Client``, an injected service), so its base cannot be seen."""

    name: str
    kind: str
    base: UrlExpr | None
    span: Span
    scope: str | None = None
    factory: str | None = None
    base_unknown: bool = False


# A dependency edge on the files below a folder (``dir:src/pages``): a finding that lists
# files (an ``import.meta.glob`` pattern) is judged again when a file below that folder
# appears or goes away, not when one changes.
FOLDER_EDGE = "dir:"


@dataclass(frozen=True)
class Import:
    """``module`` as written (``./config``, ``axios``, ``.config``, ``app.api``); ``name`` is
    the imported export (``default`` for a default import, ``*`` for a namespace import or a
    Python ``import x``, ``""`` for an import only for its effect: ``import './app.css'``);
    ``local`` is the local binding (``""`` when there is none).

    ``kind`` says how the module is named: ``static`` (an import statement, Python's
    ``import``/``from``), ``type`` (``import type``, a ``type`` specifier: erased, checked
    all the same), ``require`` (``require('x')``), ``dynamic`` (``import('x')``), ``glob``
    (``import.meta.glob('./pages/*.ts')``: ``module`` is the pattern). ``guarded``: Python
    inside ``try:`` with an ``except ImportError``/``ModuleNotFoundError``/``Exception`` (or
    a bare ``except:``), or under ``if TYPE_CHECKING:``; JS/TS inside a ``try`` block (the
    code expects it may fail).

    ``module_span`` is the specifier's text without its quotes, in every language (JS/TS:
    the string's content, ``./config`` in ``'./config'``; Python: the dotted name as written,
    ``..models``, the dots of ``from . import x``): where a diagnostic about the module goes
    and what a quick fix replaces. ``span`` is the imported name's (``b as c``); where
    there is none (an import for its effect, an unbound ``require()``, ``import()``, a glob,
    ``export * from``) the string literal's, quotes included.

    JS/TS specifics: ``const m = require('x')`` and TypeScript's ``import m = require('x')``
    are ``name="default"`` (what ``module.exports`` holds); ``const {a, b: c} =
    require('x')`` gives ``a`` and ``b``; a ``require('x')`` bound to nothing is ``name=""``
    as a statement of its own and ``"*"`` inside an expression; ``import('x')`` and globs are
    ``"*"``. A re-export (``export {a as b} from './m'``, ``export * from``, ``export * as ns
    from``, ``export type {T} from``: kind ``type``) is also an import of ``module``, with
    ``local=""``. Only literal specifiers count (a template without substitutions is one)."""

    module: str
    name: str
    local: str
    span: Span
    kind: str = "static"
    guarded: bool = False
    module_span: Span | None = None


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
class FieldDecl:
    """A field a data class declares: ``name`` as it goes on the wire (a pydantic ``alias``,
    else the attribute), ``type`` as written, ``required`` (pydantic v2: no default, whatever
    the type; v1-style code: an ``Optional`` is not required either; TypeScript: no ``?`` and, for a class field, no initializer), ``span`` the
    name in its declaration."""

    name: str
    type: str
    required: bool
    span: Span
    read_only: bool = False


@dataclass(frozen=True)
class DataModel:
    """A class that declares the fields of a request or response body: a pydantic model
    (``class NoteIn(BaseModel)``), a NestJS DTO or any TypeScript class with property
    declarations, a TypeScript interface. ``bases`` as written (``BaseModel``,
    ``schemas.NoteBase``); ``closed``: extra fields are rejected (pydantic
    ``extra="forbid"``); ``open``: extra fields are kept (pydantic ``extra="allow"``)."""

    name: str
    bases: tuple[str, ...]
    fields: tuple[FieldDecl, ...]
    span: Span
    kind: str = "class"  # class (pydantic, DTO), interface
    closed: bool = False
    open: bool = False


@dataclass(frozen=True)
class Route:
    """A backend route declaration (Express, FastAPI, ...): ``path`` normalized to ``{param}``,
    with the prefix its own router declares in this file (``APIRouter(prefix="/users")``,
    ``Blueprint(url_prefix=...)``) already joined in; ``prefix`` says which part that was.
    ``router``: the module-level name of the app or router it is declared on (``app``,
    ``router``, ``bp``), which other files mount (``RouteMount``); None when unknown.
    ``handler``: the handler function's name and ``handler_span`` where it is defined, when
    it is one in this file. ``unresolved``: why the route's own path is not a literal (an
    f-string, a name bound elsewhere); ``path`` then holds only what is known, and the
    route is listed but never matched."""

    method: str
    path: str
    span: Span
    framework: str
    router: str | None = None
    prefix: str = ""
    handler: str | None = None
    handler_span: Span | None = None
    unresolved: str | None = None
    # the view whose definition gives this declaration's methods (and, for a Django REST
    # framework registration, its paths), as written: ``views.UserView`` (Django
    # ``path(..., views.UserView.as_view())``, a function view ``views.user_list``), a
    # Flask ``MethodView`` (``add_url_rule(..., view_func=UserAPI.as_view("user"))``), a DRF
    # viewset (``router.register("users", UserViewSet)``: ``path`` is then the registered
    # prefix followed by the router's trailing slash, without a leading ``/``). ``method`` is
    # ``ANY`` until ``routes_views.expand`` reads the view (composition does).
    view: str | None = None
    # the handler's request body type as written (FastAPI ``def create(note: NoteIn)``,
    # NestJS ``@Body() dto: CreateNoteDto``, Flask-pydantic ``body: NoteIn``): the request
    # schema when it names a ``DataModel`` of the workspace
    body_model: str | None = None


@dataclass(frozen=True)
class RouteMount:
    """A router mounted under another: FastAPI ``parent.include_router(child, prefix="/x")``
    and ``parent.mount("/x", child)``, Flask ``parent.register_blueprint(child,
    url_prefix="/x")``, Express ``parent.use("/x", child)``, Fastify ``parent.register(child,
    { prefix: "/x" })``. ``parent``: the local name of the app or router in this file;
    ``child``: the mounted router as written, a local name (``users_router``, imported or
    defined here) or a dotted one (``users.router``, an imported module's attribute);
    ``prefix``: the literal prefix (``""`` without one); ``unresolved``: why the prefix is
    not a literal (then ``prefix`` is ``""`` and the routes below are unresolved).
    ``role``: ``""`` for a router mounted under another; NestJS declarations
    (``framework="nest"``) say what they are: ``controller``, ``import``, ``router``,
    ``router-ref``, ``app``, ``prefix``, ``exclude`` (see ``extract/ecma_nest.py``),
    composed by ``routes_nest.py`` rather than as router edges."""

    parent: str
    child: str
    prefix: str
    span: Span
    framework: str
    unresolved: str | None = None
    role: str = ""


@dataclass(frozen=True)
class ViewAction:
    """A Django REST framework ``@action`` of a viewset: ``detail`` (None: not a literal),
    its HTTP methods (``("GET",)`` by default), its ``url_path`` (the method's name by
    default); ``unresolved``: what of it is not a literal."""

    name: str
    detail: bool | None
    methods: tuple[str, ...]
    url_path: str
    span: Span
    unresolved: str | None = None


@dataclass(frozen=True)
class RouteView:
    """A module-level class or function a route may name as its view (Django, Django REST
    framework, Flask ``MethodView``), for composition to expand (``routes_views.py``).
    ``span``: its name in its ``class``/``def``; ``bases``: the classes it extends, through
    the file's imports when they name a framework module
    (``rest_framework.viewsets.ModelViewSet``), else as written (``BaseViewSet``,
    ``core.views.Base``); ``handlers``: the view methods it defines (``get``, ``post``, ...,
    DRF's ``list``, ``create``, ...) with the span of each name; ``methods``: a function
    view's HTTP methods from its decorator (``@api_view([...])``, ``@require_POST``), a
    class's literal ``methods`` attribute (Flask); ``allowed``: a literal
    ``http_method_names``; ``attrs``: literal string attributes that shape the URLs
    (``lookup_field``, ``lookup_url_kwarg``); ``actions``: DRF ``@action`` methods."""

    name: str
    span: Span
    bases: tuple[str, ...] = ()
    handlers: tuple[tuple[str, Span], ...] = ()
    methods: tuple[str, ...] | None = None
    allowed: tuple[str, ...] | None = None
    attrs: tuple[tuple[str, str], ...] = ()
    actions: tuple[ViewAction, ...] = ()
    function: bool = False


@dataclass(frozen=True)
class ClassDef:
    """A class and the classes it extends (as written: ``BaseService``, ``api.Base``), so
    that ``this.get(...)`` finds a method inherited from another file. ``fields``: fields its
    constructor sets from its parameters (``constructor(private routes: Routes)``,
    ``this.routes = routes``), as (field, parameter index); ``super_args``: what its
    constructor passes to ``super(...)`` (a table of route templates for the base class's
    generic methods)."""

    name: str
    bases: tuple[str, ...]
    span: Span
    fields: tuple[tuple[str, int], ...] = ()
    super_args: "tuple[ArgVal, ...]" = ()


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
    mounts: tuple["RouteMount", ...] = ()
    classes: tuple[ClassDef, ...] = ()
    # what the import checks need beyond imports/exports/definitions:
    # - open_exports: the module's exports cannot be known statically (CommonJS built at run
    #   time, ``module.exports = make()``, a Python module-level ``__getattr__``): any name
    #   imported from it is trusted;
    # - declared_modules: ``declare module 'x' { ... }`` names in TypeScript (ambient modules:
    #   an import of one of them resolves to this file);
    # - all_names: a Python module's literal ``__all__`` (None when it has none or it is not
    #   a literal list/tuple of strings);
    # - augments: in a declaration file that is a module (it imports or exports), each
    #   ``declare module 'x'`` name (wildcards left out) with the names its blocks export,
    #   None when they cannot be known: an augmentation of module x, not a declaration of it.
    open_exports: bool = False
    declared_modules: tuple[str, ...] = ()
    all_names: tuple[str, ...] | None = None
    views: tuple["RouteView", ...] = ()  # classes and functions routes may name as views
    data_models: tuple[DataModel, ...] = ()  # classes and interfaces that declare body fields
    augments: tuple[tuple[str, tuple[str, ...] | None], ...] = ()


# --------------------------------------------------------------------------- contracts


@dataclass(frozen=True)
class Shape:
    """What a JSON value may hold, as far as the field checks go (``analyzers/fields.py``).

    ``type``: ``object``, ``array``, ``string``, ``number``, ``integer``, ``boolean``,
    ``null``, ``union`` (``oneOf``/``anyOf``: one of ``branches``) or ``any`` (not known: never
    judged). An object's ``props`` are its declared properties (``allOf`` merged in);
    ``closed``: no other property is allowed (``additionalProperties: false``); ``open``: any
    other property is (``additionalProperties: true`` or a schema, an object with no declared
    properties). ``items``: an array's. ``text``: a one-line summary for the hover
    (``Note``, ``array<Note>``)."""

    type: str = "any"
    props: tuple["Prop", ...] = ()
    closed: bool = False
    open: bool = False
    items: "Shape | None" = None
    branches: tuple["Shape", ...] = ()
    text: str = ""

    def prop(self, name: str) -> "Prop | None":
        if len(self.props) < 8:
            for p in self.props:
                if p.name == name:
                    return p
            return None
        return self._by_name.get(name)

    def __getstate__(self) -> dict:  # the lookup table is rebuilt, never stored
        state = dict(self.__dict__)
        state.pop("_by_name", None)
        return state

    @cached_property
    def _by_name(self) -> dict[str, "Prop"]:  # (kept in the instance's __dict__, not a field)
        out: dict[str, Prop] = {}
        for p in self.props:
            out.setdefault(p.name, p)
        return out


@dataclass(frozen=True)
class Prop:
    """A declared property of an object ``Shape``."""

    name: str
    shape: Shape
    required: bool = False
    read_only: bool = False  # never sent in a request
    write_only: bool = False  # never read in a response


@dataclass(frozen=True)
class ParamSpec:
    """A declared parameter of an operation: ``location`` is ``query``, ``path``, ``header``
    or ``cookie``."""

    name: str
    location: str
    required: bool = False
    type: str = "any"


@dataclass(frozen=True)
class Schemas:
    """An operation's request and response schemas, for the field checks and the hover.

    ``body``: the JSON (or form) request body's shape, None when the operation declares no
    body; ``body_media``: its media type. ``params``: every declared parameter;
    ``params_complete``: the list is the whole of them (False when a ``$ref`` could not be
    followed, or the source cannot list them: then nothing is judged unknown).
    ``response``: the shape of the success response's JSON body (the lowest 2xx status, or
    ``default``/``2XX`` without one), None when not declared; ``response_status``: which.
    ``source``: where it was read (``openapi``, ``swagger``, ``specdsl``, ``pydantic``,
    ``dto``), and ``origin``: the file and span of the request model when it is a data class
    (for the hover and navigation)."""

    body: Shape | None = None
    body_media: str = ""
    body_required: bool = False
    params: tuple[ParamSpec, ...] = ()
    params_complete: bool = True
    response: Shape | None = None
    response_status: str = ""
    source: str = ""
    origin: tuple[str, Span] | None = None


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
    schemas: Schemas | None = None  # request and response schemas, when declared


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
    # False when the document could not be read as a whole (a syntax error): its endpoints,
    # if any were recovered, still match calls, but no call is judged phantom against it
    readable: bool = True
    # the hosts its servers name (OpenAPI `servers`, Swagger `host`): an absolute URL to one
    # of them is a call to this API
    hosts: tuple[str, ...] = ()


def _plain_init(cls: type) -> None:
    """Give a frozen dataclass of this module an ``__init__`` that fills the instance's
    ``__dict__`` directly: the same parameters, defaults and resulting object (fields in
    declaration order, so pickles are byte for byte the same), without the per-field
    ``object.__setattr__`` of a frozen class's generated one, about 2.5x cheaper per object
    (extraction builds hundreds of thousands of them). Attribute assignment stays refused."""
    fs = fields(cls)
    if (len(fs) != len(cls.__dataclass_fields__)  # a ClassVar or InitVar pseudo-field
            or hasattr(cls, "__post_init__") or "__slots__" in cls.__dict__
            or any(not f.init or f.default_factory is not MISSING for f in fs)):
        return
    names = [f.name for f in fs]
    defaults = {f"_d_{f.name}": f.default for f in fs if f.default is not MISSING}
    params = ", ".join(f"{n}=_d_{n}" if f"_d_{n}" in defaults else n for n in names)
    body = "; ".join(f"d[{n!r}] = {n}" for n in names) or "pass"
    ns: dict = {}
    exec(f"def __init__(self, {params}):\n    d = self.__dict__; {body}\n", defaults, ns)  # noqa: S102
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init


for _cls in [v for v in list(globals().values())
             if isinstance(v, type) and v.__module__ == __name__ and "__dataclass_fields__" in v.__dict__]:
    if _cls.__dataclass_params__.frozen:
        _plain_init(_cls)
del _cls
