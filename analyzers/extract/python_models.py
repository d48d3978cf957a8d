"""The data classes of a Python file (``DataModel``) and the request model of a route's handler
(``Route.body_model``), for ``python.py``'s ``_Program``, which mixes ``ModelFacts`` in.

The classes come from the matches of ``queries/python-facts.scm`` that ``python.py`` already
dispatches (no traversal of their own: a query of its own over the classes cost a quarter of
this module's budget): the class and function scopes (a class's methods, its inner ``class
Config``) and the class-body assignments (the ``assign`` and ``declare`` patterns: annotated
attributes, ``model_config = ...``, the attributes of ``class Config``). Python code reads what
a default value or a ``Field(...)`` call means.

Decisions the model leaves open:

* Which classes: every module-level class with an annotated attribute; and, without one, a
  class whose base is a known data class base (``pydantic.BaseModel``, ``typing.TypedDict``,
  ...) or a class deriving from other classes with nothing but attributes in its body
  (``class NoteCreate(NoteBase): pass``, ``model_config = ...``): its fields come from its
  bases. A class whose wire names cannot be read is left out (its fields are not known): an
  ``alias_generator`` in its configuration, a ``validation_alias``/``serialization_alias``
  or an alias that is not a literal, a ``model_config`` that is not a literal
  ``ConfigDict(...)``/dict.
* ``bases``: as written (``NoteBase``, ``schemas.NoteBase``), through the file's imports when
  they name a framework module (``pydantic.BaseModel``, ``typing.TypedDict``); a generic base
  (``BaseModel[T]``, ``Generic[T]``) is its class. Class keywords (``total=False``,
  ``extra="forbid"``) are not bases.
* A field: an annotated attribute, not ``ClassVar[...]``, not private (``_x``), not
  ``model_config``. ``name``: the literal ``alias`` of a ``Field(...)`` (in the default or in
  ``Annotated[..., Field(...)]``; ``span`` the alias's content), else the attribute (``span``
  its name). ``type``: the annotation as written, on one line.
* ``required``: no default. A default is a value (``= None``, ``= []``), except ``= ...``; a
  ``Field(...)``/``field(...)``/``attr.ib(...)`` call has one when it has a first positional
  argument other than ``...`` (pydantic, attrs) or a ``default``/``default_factory``/
  ``factory`` keyword whose value is not ``...``. That is pydantic v2's rule; in a file showing
  pydantic v1 (an import from ``pydantic.v1``, of ``validator``/``root_validator`` from
  pydantic) and in a class with an inner ``class Config``, an ``Optional[...]``/``X | None``
  field is not required either (v1 gives it ``None``). TypedDict: ``total=False`` makes the
  class's fields not required; ``Required[...]``/``NotRequired[...]`` decide for one field.
* ``closed``: ``extra="forbid"`` (also ``Extra.forbid``) in ``model_config``, in ``class
  Config`` or as a class keyword, msgspec's ``forbid_unknown_fields=True``, a TypedDict's
  ``closed=True``; ``open``: ``extra="allow"``, a TypedDict's ``extra_items=``.
* ``Route.body_model`` (FastAPI and Django Ninja): among the handler's parameters, those that
  may be the body: not a path parameter, not ``Depends``/``Security``/``Query``/``Path``/
  ``Header``/``Cookie`` (as the default or in ``Annotated[X, ...]``), not a scalar or a
  framework type (``str``, ``int``, ``UUID``, ``Request``, ``BackgroundTasks``, ``Session``,
  ...), not a list of scalars. With exactly one, annotated with a class name (``NoteIn``,
  ``schemas.NoteIn``, ``Optional[NoteIn]``, ``Annotated[NoteIn, Body()]``), that name as
  written; None with several (FastAPI embeds them), with a body that is not a class name
  (``list[NoteIn]``, ``dict``), with ``Body(embed=True)``, or with a ``Form``/``File``/
  ``UploadFile`` parameter (not a JSON body). Flask-pydantic: a handler decorated with
  ``@validate`` (imported from ``flask_pydantic``) with a parameter ``body: X`` gives ``X``.
"""

from __future__ import annotations

import re

from ..model import DataModel, FieldDecl, Span

# the modules whose classes a base is qualified through (`pydantic.BaseModel`)
_MODEL_ROOTS = frozenset({"pydantic", "pydantic_settings", "sqlmodel", "typing", "typing_extensions", "dataclasses",
                          "attr", "attrs", "msgspec", "ninja", "marshmallow", "enum", "abc", "collections",
                          "fastapi", "flask", "django", "rest_framework", "starlette"})
# bases that make a class with no annotated attribute a data class (its fields come from them)
_MODEL_BASES = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic.RootModel",
                          "pydantic.v1.BaseModel", "pydantic_settings.BaseSettings", "sqlmodel.SQLModel",
                          "typing.TypedDict", "typing_extensions.TypedDict", "msgspec.Struct", "ninja.Schema",
                          "ninja.ModelSchema"})
# bases that make a class without annotated attributes plainly no data class
_NOT_MODEL_ROOTS = frozenset({"enum", "abc", "typing", "typing_extensions", "collections", "django", "rest_framework",
                              "flask", "fastapi", "starlette", "marshmallow"})
_NOT_MODELS = frozenset({"object", "Exception", "BaseException", "ValueError", "TypeError", "RuntimeError", "KeyError",
                         "LookupError", "str", "int", "float", "dict", "list", "tuple", "set", "bytes", "Enum",
                         "IntEnum", "StrEnum", "Flag", "IntFlag", "Protocol", "Generic", "ABC", "NamedTuple"})
_FIELD_CALLS = frozenset({"Field", "field", "ib", "attrib"})  # pydantic/sqlmodel, dataclasses/attrs/msgspec, attr.ib
_V1_NAMES = frozenset({"validator", "root_validator"})

# FastAPI parameter markers (a default or `Annotated` metadata) that are no body
_NOT_BODY_MARKERS = frozenset({"Depends", "Security", "Query", "Path", "Header", "Cookie"})
_FORM_MARKERS = frozenset({"Form", "File"})
# annotations that are no body: scalars and what the framework injects
_SCALARS = frozenset({"str", "int", "float", "bool", "bytes", "complex", "Decimal", "UUID", "UUID4", "datetime",
                      "date", "time", "timedelta", "EmailStr", "HttpUrl", "AnyUrl", "SecretStr", "Path",
                      "Literal", "Enum", "IntEnum", "StrEnum", "conint", "constr", "confloat", "PositiveInt",
                      "NonNegativeInt", "StrictStr", "StrictInt", "StrictBool",
                      "Request", "Response", "WebSocket", "HTTPConnection", "BackgroundTasks", "SecurityScopes",
                      "Session", "AsyncSession", "Connection", "AsyncConnection", "HttpRequest",
                      "HTTPAuthorizationCredentials", "HTTPBasicCredentials", "OAuth2PasswordRequestForm",
                      "JSONResponse", "StreamingResponse", "Starlette", "FastAPI"})
_FILES = frozenset({"UploadFile", "File", "Form", "UploadedFile"})
_CONTAINERS = frozenset({"list", "List", "set", "Set", "tuple", "Tuple", "frozenset", "FrozenSet", "Sequence"})
_WRAPPERS = frozenset({"Optional", "Union"})

_PATH_PARAM = re.compile(r"\{([^{}:]+)")
_WS = re.compile(r"\s+")


def _span(n) -> Span:
    return Span(n.start_byte, n.end_byte)


def _last(dotted: str) -> str:
    return dotted[dotted.rfind(".") + 1:]


class _Unreadable(Exception):
    """The wire names of a class cannot be read."""


class ModelFacts:
    """The data class readers (mixed into ``_Program``)."""

    # ------------------------------------------------------------------ data classes
    def data_models(self) -> tuple[DataModel, ...]:
        """The module-level data classes, from the main query's matches: the class scopes, and
        the class-body assignments (``class_attrs``: ``assign`` and ``declare`` matches)."""
        tops = [s for s in self.scopes if s.is_class and s.parent is None]
        if not tops:
            return ()
        attrs: dict[int, list] = {}  # class scope index -> its direct annotated attributes, ...
        configs: dict[int, object] = {}  # ... its `model_config = ...` value
        settings: dict[int, list] = {}  # ... the attributes of its inner `class Config`
        v1_style: set[int] = set()  # the classes with an inner `class Config`
        methods: set[int] = set()
        f_right, f_type = self.g.f_right, self.g.f_type
        t = self.t
        for s in self.scopes:
            p = s.parent
            if p is not None and p.parent is None and p.is_class:
                if not s.is_class:
                    methods.add(p.index)
                elif t(s.name_node) == "Config":
                    v1_style.add(p.index)
        for owner, assign, name_node in self.class_attrs:
            p = owner.parent
            if p is None:
                stmt = assign.parent
                if stmt.type != "expression_statement" or stmt.parent.parent.id != owner.node.id:
                    continue  # not a statement of the class's own body (`if ...:` in it, `x = y = 1`)
                if assign.child_by_field_id(f_type) is not None:
                    attrs.setdefault(owner.index, []).append((assign, name_node))
                elif t(name_node) == "model_config":
                    configs[owner.index] = assign.child_by_field_id(f_right)
            elif p.parent is None and p.is_class and t(owner.name_node) == "Config":
                value = assign.child_by_field_id(f_right)
                if value is not None:
                    settings.setdefault(p.index, []).append((t(name_node), value))
        out: list[DataModel] = []
        for s in tops:
            i = s.index
            try:
                m = self.data_model(s, attrs.get(i, ()), configs.get(i), settings.get(i, ()), i in v1_style,
                                    i in methods)
            except _Unreadable:
                continue
            if m is not None:
                out.append(m)
        return tuple(out)

    def data_model(self, sc, attrs, config, config_class_items, config_class: bool,
                   methods: bool) -> DataModel | None:
        g = self.g
        bases: list[str] = []
        settings: list[tuple[str, object]] = list(config_class_items)
        known_base = False
        plain = True  # every base is plainly no data class
        superclasses = sc.node.child_by_field_id(g.f_superclasses)
        for b in superclasses.named_children if superclasses is not None else ():
            ty = b.type
            if ty == "keyword_argument":
                k, v = b.child_by_field_id(g.f_name), b.child_by_field_id(g.f_value)
                if k is not None and v is not None:
                    settings.append((self.t(k), v))
                continue
            if ty == "subscript":
                b = b.child_by_field_id(g.f_value)
            d = self.dotted(b) if b is not None else None
            if d is None:
                plain = False
                continue
            q = self.qualify(d)
            root = q.split(".", 1)[0]
            bases.append(q if root in _MODEL_ROOTS else d)
            if q in _MODEL_BASES:
                known_base = True
            if root not in _NOT_MODEL_ROOTS and d not in _NOT_MODELS:
                plain = False
        if config is not None:
            settings.extend(self.config_items(config))
        closed = opened = False
        total = True
        for key, value in settings:
            if key == "extra":
                word = self.literal(value)
                if word is None:
                    d = self.dotted(value)
                    word = _last(d) if d is not None else None
                closed = closed or word == "forbid"
                opened = opened or word == "allow"
            elif key == "alias_generator" and value.type != "none":
                raise _Unreadable
            elif key in ("forbid_unknown_fields", "closed") and value.type == "true":
                closed = True
            elif key == "extra_items":
                opened = True
            elif key == "total" and value.type == "false":
                total = False
        fields: list[FieldDecl] = []
        f_type = g.f_type
        for assign, name_node in sorted(attrs, key=lambda a: a[0].start_byte):
            f = self.field_decl(assign, name_node, assign.child_by_field_id(f_type), total, config_class)
            if f is not None:
                fields.append(f)
        if not fields and (not bases or (not known_base and (plain or methods))):
            return None
        return DataModel(self.t(sc.name_node), tuple(bases), tuple(fields), _span(sc.name_node), "class", closed,
                         opened)

    def shows_v1(self) -> bool:
        """Whether the file shows pydantic v1: an import from ``pydantic.v1``, or of
        ``validator``/``root_validator`` from pydantic."""
        return any(i.module.startswith("pydantic.v1") or (i.module == "pydantic" and i.name in _V1_NAMES)
                   for i in self.imports)

    def config_items(self, value) -> list[tuple[str, object]]:
        """The items of ``model_config = ConfigDict(...)`` (or ``dict(...)``, a dict literal)."""
        g = self.g
        out: list[tuple[str, object]] = []
        if value.type == "call":
            args = value.child_by_field_id(g.f_arguments)
            for a in args.named_children if args is not None else ():
                if a.type == "keyword_argument":
                    k, v = a.child_by_field_id(g.f_name), a.child_by_field_id(g.f_value)
                    if k is not None and v is not None:
                        out.append((self.t(k), v))
                elif a.type != "comment":
                    raise _Unreadable  # `ConfigDict(**base)`
            return out
        if value.type == "dictionary":
            for p in value.named_children:
                if p.type == "pair":
                    k = self.literal(p.child_by_field_id(g.f_key))
                    v = p.child_by_field_id(g.f_value)
                    if k is None or v is None:
                        raise _Unreadable
                    out.append((k, v))
                elif p.type != "comment":
                    raise _Unreadable
            return out
        raise _Unreadable  # a configuration made elsewhere

    def field_decl(self, stmt, name_node, type_node, total: bool, config_class: bool) -> FieldDecl | None:
        g = self.g
        name = self.t(name_node)
        if name.startswith("_") or name == "model_config":
            return None
        ann = type_node.named_children[0] if type_node.named_child_count else type_node
        calls: list = []  # Field(...) calls: the default's, Annotated metadata's
        override: bool | None = None  # Required[...] / NotRequired[...]
        for _ in range(4):  # unwrap Annotated / Required / NotRequired / ClassVar
            if ann.type != "generic_type" and ann.type != "subscript":
                break
            head, args = self.generic(ann)
            if head is None:
                break
            last = _last(head)
            if last == "ClassVar":
                return None
            if last == "Annotated" and args:
                for meta in args[1:]:
                    if meta.type == "call" and self.field_call(meta):
                        calls.append(meta)
                ann = args[0]
            elif last in ("Required", "NotRequired") and args:
                override = last == "Required"
                ann = args[0]
            else:
                break
        value = stmt.child_by_field_id(g.f_right)
        has_default = False
        if value is not None:
            if value.type == "call" and self.field_call(value):
                calls.append(value)
            elif value.type != "ellipsis":
                has_default = True
        alias = None
        for call in calls:
            d, a = self.field_call_reads(call)
            has_default = has_default or d
            if a is not None:
                alias = a
        if override is not None:
            required = override
        elif not total:
            required = False
        else:
            required = not has_default and not (self.optional(ann) and (config_class or self.shows_v1()))
        type_text = _WS.sub(" ", self.t(type_node)).strip()
        if alias is not None:
            return FieldDecl(self.literal(alias), type_text, required, self.key_span(alias))
        return FieldDecl(name, type_text, required, _span(name_node))

    def generic(self, n):
        """(the head as a dotted name, the arguments) of ``X[a, b]`` (a subscript or a generic
        type), or (None, [])."""
        g = self.g
        if n.type == "subscript":
            head = self.dotted(n.child_by_field_id(g.f_value))
            args = [c for c in n.children_by_field_id(g.f_subscript)]
            return head, args
        # generic_type: (identifier) (type_parameter (type ...) ...)
        kids = n.named_children
        if len(kids) != 2:
            return None, []
        head = self.dotted(kids[0]) if kids[0].type in ("identifier", "attribute") else None
        args = [a.named_children[0] if a.type == "type" and a.named_child_count else a
                for a in kids[1].named_children]
        return head, args

    def field_call(self, call) -> bool:
        fn = call.child_by_field_id(self.g.f_function)
        d = self.dotted(fn) if fn is not None else None
        return d is not None and _last(d) in _FIELD_CALLS

    def field_call_reads(self, call) -> tuple[bool, object]:
        """(whether a ``Field(...)``-like call gives a default, its literal alias string node)."""
        g = self.g
        args = call.child_by_field_id(g.f_arguments)
        has_default = False
        alias = None
        first = True
        for a in args.named_children if args is not None else ():
            ty = a.type
            if ty == "comment":
                continue
            if ty == "keyword_argument":
                k, v = a.child_by_field_id(g.f_name), a.child_by_field_id(g.f_value)
                key = self.t(k) if k is not None else ""
                if key in ("default", "default_factory", "factory") and v is not None and v.type != "ellipsis":
                    has_default = True
                elif key == "alias" and v is not None:
                    if v.type == "none":
                        continue
                    if v.type != "string" or self.literal(v) is None:
                        raise _Unreadable
                    alias = v
                elif key in ("validation_alias", "serialization_alias") and v is not None and v.type != "none":
                    raise _Unreadable
            elif ty in ("list_splat", "dictionary_splat"):
                raise _Unreadable
            elif first:
                if ty != "ellipsis":
                    has_default = True
                first = False
        return has_default, alias

    def optional(self, ann) -> bool:
        """``Optional[X]``, ``Union[X, None]``, ``X | None``."""
        text = self.t(ann)
        if "None" not in text and "Optional" not in text:
            return False
        if ann.type in ("generic_type", "subscript"):
            head, args = self.generic(ann)
            last = _last(head) if head else ""
            return last == "Optional" or (last == "Union" and any(self.t(a) == "None" for a in args))
        return ann.type in ("binary_operator", "union_type") and re.search(r"(^|\|)\s*None\s*(\||$)", text) is not None

    # ------------------------------------------------------------------ request models
    def body_model(self, definition, framework: str, path: str) -> str | None:
        """The request body model of a route handler (``definition``: its function_definition),
        as written; None when there is none or it cannot be told."""
        if definition is None or definition.type != "function_definition":
            return None
        params = definition.child_by_field_id(self.g.f_parameters)
        if params is None:
            return None
        if framework in ("fastapi", "ninja"):
            return self.fastapi_body(params, path)
        if framework == "flask" and self.validated(definition):
            for c in params.named_children:
                if c.type in ("typed_parameter", "typed_default_parameter"):
                    name, ann, _default = self.parameter(c)
                    if name == "body" and ann is not None:
                        written = self.model_name(ann)
                        return written if written else None
        return None

    def parameter(self, c):
        """(name, annotation expression, default) of a typed parameter."""
        g = self.g
        if c.type == "typed_default_parameter":
            name = c.child_by_field_id(g.f_name)
            default = c.child_by_field_id(g.f_value)
        else:
            name = c.named_children[0] if c.named_child_count else None
            default = None
        ty = c.child_by_field_id(g.f_type)
        ann = ty.named_children[0] if ty is not None and ty.named_child_count else None
        return (self.t(name) if name is not None and name.type == "identifier" else None), ann, default

    def marker(self, n) -> str | None:
        """The last segment of a call's callee (``Depends``, ``Body``), else None."""
        if n is None or n.type != "call":
            return None
        d = self.dotted(n.child_by_field_id(self.g.f_function))
        return _last(d) if d is not None else None

    def embedded(self, call) -> bool:
        args = call.child_by_field_id(self.g.f_arguments)
        for a in args.named_children if args is not None else ():
            if a.type == "keyword_argument" and self.t(a.child_by_field_id(self.g.f_name)) == "embed":
                v = a.child_by_field_id(self.g.f_value)
                return v is None or v.type != "false"
        return False

    def fastapi_body(self, params, path: str) -> str | None:
        in_path = set(_PATH_PARAM.findall(path))
        found: list[str | None] = []
        for c in params.named_children:
            if c.type not in ("typed_parameter", "typed_default_parameter"):
                continue
            name, ann, default = self.parameter(c)
            if name is None or ann is None or name in in_path or name in ("self", "cls"):
                continue
            mark = self.marker(default)
            if mark in _NOT_BODY_MARKERS:
                continue
            if mark in _FORM_MARKERS:
                return None
            if mark == "Body" and self.embedded(default):
                return None
            # Annotated[X, marker]
            skip = False
            for _ in range(3):
                if ann.type not in ("generic_type", "subscript"):
                    break
                head, args = self.generic(ann)
                if head is None or _last(head) != "Annotated" or not args:
                    break
                for meta in args[1:]:
                    m = self.marker(meta)
                    if m in _NOT_BODY_MARKERS:
                        skip = True
                    elif m in _FORM_MARKERS or (m == "Body" and self.embedded(meta)):
                        return None
                ann = args[0]
            if skip:
                continue
            kind = self.body_kind(ann)
            if kind == "scalar":
                continue
            if kind == "file":
                return None
            found.append(kind)  # a class name, or None: a body of another shape
        if len(found) == 1:
            return found[0]
        return None

    def body_kind(self, ann, depth: int = 0):
        """What a parameter's annotation makes it: ``"scalar"`` (a query parameter or an injected
        value), ``"file"``, a class name as written (a body model), or None (a body that is no
        class: ``dict``, ``list[Model]``)."""
        ty = ann.type
        if ty in ("identifier", "attribute"):
            d = self.dotted(ann)
            if d is None:
                return None
            last = _last(d)
            if last in _FILES:
                return "file"
            if last in _SCALARS or last == "None":
                return "scalar"
            if last in ("dict", "Dict", "Any", "object") or last in _CONTAINERS:
                return None
            return d
        if ty == "none":
            return "scalar"
        if ty == "string":  # a forward reference: "NoteIn"
            lit = self.literal(ann)
            return lit if lit and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", lit) else None
        if ty in ("binary_operator", "union_type"):  # X | None
            parts = [p for p in ann.named_children if p.type != "none" and self.t(p) != "None"]
            if len(parts) == 1 and depth < 3:
                return self.body_kind(parts[0], depth + 1)
            kinds = {self.body_kind(p, depth + 1) for p in parts} if depth < 3 else {None}
            return "scalar" if kinds == {"scalar"} else None
        if ty in ("generic_type", "subscript"):
            head, args = self.generic(ann)
            last = _last(head) if head else ""
            if last in _WRAPPERS and depth < 3:
                parts = [a for a in args if self.t(a) != "None"]
                if len(parts) == 1:
                    return self.body_kind(parts[0], depth + 1)
                kinds = {self.body_kind(p, depth + 1) for p in parts}
                return "scalar" if kinds == {"scalar"} else None
            if last in _CONTAINERS and len(args) == 1 and depth < 3:
                inner = self.body_kind(args[0], depth + 1)
                return inner if inner in ("scalar", "file") else None
            if last == "Literal":
                return "scalar"
            return None
        return None

    def model_name(self, ann) -> str | None:
        kind = self.body_kind(ann)
        return kind if kind not in (None, "scalar", "file") else None

    def validated(self, definition) -> bool:
        """Whether the handler is decorated with flask-pydantic's ``@validate``."""
        dec = definition.parent
        if dec is None or dec.type != "decorated_definition":
            return False
        for d in dec.named_children:
            if d.type != "decorator" or not d.named_child_count:
                continue
            e = d.named_children[0]
            if e.type == "call":
                e = e.child_by_field_id(self.g.f_function)
            name = self.dotted(e) if e is not None else None
            if name is not None and self.qualify(name) == "flask_pydantic.validate":
                return True
        return False
