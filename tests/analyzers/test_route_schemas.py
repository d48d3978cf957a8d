"""The request schema of a route whose handler takes a data class of the workspace
(``route_contract.route_schemas``): the model found in the route's file or through its
imports, its bases' fields merged, nested models, closed/open, and the endpoints of
``route_endpoints``. Facts are written by hand: the extractors fill ``data_models`` and
``Route.body_model`` themselves."""

from __future__ import annotations

from specward.analyzers.model import DataModel, Endpoint, FieldDecl, FileFacts, Import, Prop, Route, Schemas, Shape, Span
from specward.analyzers.route_contract import find_model, route_endpoints, route_schemas
from specward.analyzers.routes import ComposedRoute, Step


def sp(n: int) -> Span:
    return Span(n, n + 1)


def field(name: str, typ: str, required: bool = True, read_only: bool = False) -> FieldDecl:
    return FieldDecl(name, typ, required, sp(0), read_only)


def model(name: str, fields: list[FieldDecl], bases: tuple[str, ...] = ("pydantic.BaseModel",), at: int = 5,
          **flags) -> DataModel:
    return DataModel(name, bases, tuple(fields), sp(at), **flags)


# app/schemas.py: the models; app/routes.py: a route importing them
SCHEMAS = FileFacts("app/schemas.py", "python", data_models=(
    model("Stamped", [field("id", "int", read_only=True), field("created", "datetime", required=False)]),
    model("Tag", [field("label", "str")], at=40),
    model("NoteBase", [field("title", "str"), field("body", "str | None", required=False)], ("Stamped",), at=60),
    model("NoteIn", [field("tags", "list[Tag]", required=False), field("title", "Annotated[str, Field(max_length=9)]")],
          ("NoteBase",), at=80),
    model("Strict", [field("x", "int")], closed=True, at=100),
    model("Loose", [field("y", "float")], open=True, at=120),
    model("FromElsewhere", [field("z", "str")], ("thirdparty.Mixin",), at=140),
    model("Node", [field("name", "str"), field("children", "list[Node]", required=False)], at=160),
))
ROUTES = FileFacts("app/routes.py", "python", imports=(
    Import("app.schemas", "NoteIn", "NoteIn", sp(0)),
    Import("app", "schemas", "schemas", sp(1)),
), data_models=(model("Local", [field("q", "str")], at=7),))
FILES = {f.path: f for f in (SCHEMAS, ROUTES)}


def resolve(importer: str, spec: str, python: bool) -> str | None:
    return {"app.schemas": "app/schemas.py", "app": "app/__init__.py"}.get(spec)


def lookup(path: str) -> FileFacts | None:
    return FILES.get(path) or (FileFacts(path, "python") if path == "app/__init__.py" else None)


def schemas(name: str, file: str = "app/routes.py") -> Schemas | None:
    return route_schemas(file, name, lookup, resolve)


STR = Shape("string", text="str")

NOTE_IN = Shape("object", props=(
    Prop("id", Shape("integer", text="int"), required=True, read_only=True),
    Prop("created", Shape("string", text="datetime")),
    Prop("title", Shape("string", text="Annotated[str, Field(max_length=9)]"), required=True),
    Prop("body", Shape("string", text="str | None")),
    Prop("tags", Shape("array", items=Shape("object", props=(Prop("label", STR, required=True),), text="Tag"),
                       text="list[Tag]")),
), text="NoteIn")


def test_an_imported_model_with_its_bases_and_a_nested_model():
    assert schemas("NoteIn") == Schemas(body=NOTE_IN, body_media="application/json", params_complete=False,
                                        source="pydantic", origin=("app/schemas.py", sp(80)))


def test_a_model_through_a_module_attribute_and_wrappers():
    assert schemas("schemas.NoteIn").body == NOTE_IN
    assert schemas("Optional[NoteIn]").body == NOTE_IN
    got = schemas("list[schemas.Tag]")  # a nested type's text is as written
    assert got.body == Shape("array", items=Shape("object", props=(Prop("label", STR, required=True),),
                                                  text="schemas.Tag"), text="list[schemas.Tag]")
    assert got.origin == ("app/schemas.py", sp(40))


def test_a_model_of_the_route_file_itself():
    got = schemas("Local")
    assert (got.body, got.origin) == (Shape("object", props=(Prop("q", STR, required=True),), text="Local"),
                                      ("app/routes.py", sp(7)))


def test_not_a_workspace_model():
    assert schemas("Unknown") is None
    assert schemas("dict") is None
    assert schemas("schemas.Missing") is None


def test_closed_open_and_unknown_bases():
    assert find_model("app/routes.py", "schemas.Strict", lookup, resolve) == ("app/schemas.py", SCHEMAS.data_models[4])
    strict = schemas("schemas.Strict").body
    loose = schemas("schemas.Loose").body
    elsewhere = schemas("schemas.FromElsewhere").body
    default = schemas("schemas.Tag").body
    assert [(s.closed, s.open) for s in (strict, loose, elsewhere, default)] == \
        [(True, False), (False, True), (False, True), (False, False)]


def test_a_recursive_model_is_cut():
    got = schemas("schemas.Node").body
    assert got == Shape("object", props=(
        Prop("name", STR, required=True),
        Prop("children", Shape("array", items=Shape(text="Node"), text="list[Node]")),
    ), text="Node")


# a NestJS DTO file and its controller, TypeScript
DTO = FileFacts("src/notes/dto.ts", "typescript", data_models=(
    DataModel("CreateNoteDto", (), (FieldDecl("title", "string", True, sp(0)), FieldDecl("tags", "string[]", False, sp(0)),
                                    FieldDecl("owner", "OwnerDto", True, sp(0))), sp(10)),
    DataModel("OwnerDto", (), (FieldDecl("email", "string", True, sp(0)),), sp(30)),
    DataModel("UpdateNoteDto", ("PartialType(CreateNoteDto)",), (FieldDecl("pinned", "boolean", False, sp(0)),), sp(50)),
    DataModel("PickedDto", ("PickType(CreateNoteDto, ['title'])",), (), sp(70)),
))
CONTROLLER = FileFacts("src/notes/notes.controller.ts", "typescript", imports=(
    Import("./dto", "CreateNoteDto", "CreateNoteDto", sp(0), kind="type"),
    Import("./dto", "UpdateNoteDto", "UpdateNoteDto", sp(1)),
    Import("./dto", "PickedDto", "PickedDto", sp(2)),
))


def ts_lookup(path: str) -> FileFacts | None:
    return {DTO.path: DTO, CONTROLLER.path: CONTROLLER}.get(path)


def ts_resolve(importer: str, spec: str, python: bool) -> str | None:
    return "src/notes/dto.ts" if spec == "./dto" else None


def test_a_nest_dto_and_partial_type():
    create = route_schemas(CONTROLLER.path, "CreateNoteDto", ts_lookup, ts_resolve)
    owner = Shape("object", props=(Prop("email", Shape("string", text="string"), required=True),), text="OwnerDto")
    body = Shape("object", props=(
        Prop("title", Shape("string", text="string"), required=True),
        Prop("tags", Shape("array", items=Shape("string", text="string"), text="string[]")),
        Prop("owner", owner, required=True),
    ), text="CreateNoteDto")
    assert create == Schemas(body=body, body_media="application/json", params_complete=False, source="dto",
                             origin=("src/notes/dto.ts", sp(10)))
    update = route_schemas(CONTROLLER.path, "UpdateNoteDto", ts_lookup, ts_resolve).body
    assert [(p.name, p.required) for p in update.props] == [("title", False), ("tags", False), ("owner", False),
                                                            ("pinned", False)]
    assert (update.open, update.closed) == (False, False)
    picked = route_schemas(CONTROLLER.path, "PickedDto", ts_lookup, ts_resolve).body
    assert (picked.props, picked.open) == ((), True)


def composed(method: str, path: str, file: str, route: Route) -> ComposedRoute:
    return ComposedRoute(method, path, file, route, (Step(path, file, route.span, "route"),))


def test_route_endpoints_carry_the_schemas():
    with_model = Route("POST", "/notes", sp(200), "fastapi", router="router", handler="create_note",
                       handler_span=sp(210), body_model="NoteIn")
    without = Route("GET", "/notes", sp(300), "fastapi", router="router", handler="list_notes")
    unknown_model = Route("PUT", "/notes", sp(400), "fastapi", router="router", body_model="Nope")
    routes = [composed("GET", "/notes", ROUTES.path, without), composed("POST", "/notes", ROUTES.path, with_model),
              composed("PUT", "/notes", ROUTES.path, unknown_model)]
    eps, why = route_endpoints(routes, lookup, resolve)
    assert why is None
    assert [(ep.method, ep.schemas) for ep in eps] == [
        ("GET", None),
        ("POST", Schemas(body=NOTE_IN, body_media="application/json", params_complete=False, source="pydantic",
                         origin=("app/schemas.py", sp(80)))),
        ("PUT", None),
    ]
    # without the facts (the callers that do not pass them), the endpoints are as before
    plain, _ = route_endpoints(routes)
    assert [ep.schemas for ep in plain] == [None, None, None]
    assert all(isinstance(ep, Endpoint) for ep in plain)
