"""A spread of a typed value in a request body, and a body that is one (``docs/fields.md``,
"Typed values"): the extractor records the plain type reference a variable or parameter is
declared with (``StrVal.type_name``), the linker turns a closed workspace interface or object
type alias into the keys sent (``payload.typed``, ``Linker._declared_keys``), and the checks
judge them: a required field the type does not declare is missing, a property it declares
that the schema does not is unknown (said at the value, with the type named), and a type
that is not closed (generic, ``Partial<T>``, an index signature, a base not found, a class,
a package's) leaves the body unseen as before."""

from __future__ import annotations

from specward.analyzers.contracts import parse_contract
from specward.analyzers.extract.ecma import extract_ecma
from specward.analyzers.fields import check
from specward.analyzers.http import HttpCall, Linker
from specward.analyzers.extract import extract
from specward.analyzers.languages import language_of
from specward.analyzers.matching import EndpointTable, Matcher
from specward.analyzers.model import SPREAD, Arg, Endpoint, Key, ObjVal, Prop, Schemas, Shape, Span, StrVal
from specward.analyzers.payload import FOREIGN, typed
from specward.analyzers.resolve import ResolverConfig, is_resolver_config

from fixtures import CONTRACT_SUFFIXES, split

CONTRACT = """//- contracts/openapi.yaml
openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /notes:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [title, folder]
              properties:
                title: {type: string}
                body: {type: string}
                folder: {type: string}
      responses:
        "201": {description: ok}
"""


def findings(fixture: str, file: str = "web/notes.ts") -> list[tuple[str, str, str]]:
    """(code, the text at its span, message) of the field findings of ``file``'s calls, through
    the real extractor, linker, matcher and checks."""
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if not p.endswith(CONTRACT_SUFFIXES) and language_of(p)}
    contracts = [parse_contract(p, t) for p, t in files.items() if p.endswith(CONTRACT_SUFFIXES)]
    table = EndpointTable([ep for c in contracts for ep in c.endpoints])
    linker = Linker(facts.get, ResolverConfig.build({p: t for p, t in files.items() if is_resolver_config(p)}))
    linked = {p: linker.link_file(p)[0] for p in sorted(facts)}
    matcher = Matcher(table)
    for p, calls in linked.items():
        matcher.observe(p, calls)
    src = files[file].encode()
    out = []
    for call in linked[file]:
        st = matcher.judge(call)
        assert st.status == "matched", (call, st.status)
        for f in st.field_findings:
            out.append((f.code, src[f.span.start:f.span.end].decode(), f.message))
    return out


def deps(fixture: str, file: str = "web/notes.ts") -> set[str]:
    files = split(fixture)
    facts = {p: extract(p, t) for p, t in files.items() if language_of(p)}
    return Linker(facts.get).link_file(file)[1]


UNKNOWN = "`authorName` is not a field of the request body of POST /notes (from NoteInput via {via})"
MISSING = "The request body of POST /notes requires field `folder` (not declared by NoteInput via {via})"


# --------------------------------------------------------------------------- extraction


def test_the_extractor_records_a_plain_type_reference_of_a_variable_or_parameter():
    src = (
        "import type { NoteInput } from './types';\n"
        "import * as types from './types';\n"
        "export function save(note: NoteInput, title: string, later?: NoteInput, q: types.NoteInput) {\n"
        "  return api.post('/notes', { ...note, title, ...later, ...q });\n"
        "}\n"
        "export async function send() {\n"
        "  const draft: NoteInput = await load();\n"
        "  const part: Partial<NoteInput> = load();\n"
        "  const many: NoteInput[] = load();\n"
        "  const either: NoteInput | null = load();\n"
        "  const plain = load();\n"
        "  return fetch('/notes', { method: 'POST', body: JSON.stringify({ ...draft, ...part, ...many, ...either, ...plain }) });\n"
        "}\n"
        "export function generic<NoteInput>(n: NoteInput) { return api.post('/notes', { ...n }); }\n"
        "export function direct(note: NoteInput) { return api.post('/notes', note); }\n"
    )
    f = extract_ecma("web/notes.ts", src, "typescript")
    calls = {c.scope: c for c in f.calls}

    def spreads(obj: ObjVal) -> list[str]:
        """The type recorded on each spread ("" for none)."""
        return [v.type_name if type(v) is StrVal else "?" for k, v in obj.fields if k == SPREAD]

    save = calls["save"].args[1]
    # a parameter keeps its Arg (a wrapper's callers bind it); an optional one may be undefined
    assert save.fields[0] == (SPREAD, StrVal((Arg(0),), save.fields[0][1].span, "NoteInput", "note"))
    assert spreads(save) == ["NoteInput", "", "types.NoteInput"]
    body = calls["send"].args[1].get("body")
    assert spreads(body) == ["NoteInput", "", "", "", ""]
    assert body.fields[0][1].name == "draft"
    assert spreads(calls["generic"].args[1]) == [""]  # a type parameter, not the interface
    direct = calls["direct"].args[1]
    assert (direct.type_name, direct.name, direct.expr) == ("NoteInput", "note", (Arg(0),))
    # JavaScript has no annotations; nothing changes there
    js = extract_ecma("web/notes.js", "export function save(note) { return api.post('/notes', { ...note }) }\n",
                      "javascript")
    assert js.calls[0].args[1].fields[0][1].type_name == ""


def test_json_stringify_of_a_typed_value_is_that_value():
    src = (
        "export async function send() {\n"
        "  const draft: NoteInput = load();\n"
        "  return fetch('/notes', { method: 'POST', body: JSON.stringify(draft) });\n"
        "}\n"
    )
    body = extract_ecma("web/notes.ts", src, "typescript").calls[0].args[1].get("body")
    assert type(body) is StrVal and body.type_name == "NoteInput" and body.name == "draft"


# --------------------------------------------------------------------------- payload.typed


def test_typed_replaces_a_typed_value_by_the_keys_of_its_type():
    at = Span(40, 44)
    value = StrVal((Arg(0),), at, "NoteInput", "note")
    body = ObjVal(((SPREAD, value),), Span(30, 60), (Key("folder", Span(50, 56)),))
    got = typed(body, {"NoteInput": ("title", "body")}.get)
    inner = got.fields[0][1]
    assert inner == ObjVal((), at, (Key("title", at, origin="NoteInput via ...note"),
                                    Key("body", at, origin="NoteInput via ...note")))
    # a type not closed (the lookup says None): the value stays what it was, unseen
    assert typed(body, lambda name: None) is body
    # in a wrapper: its parameters stay for its callers; its own typed values give FOREIGN keys
    assert typed(body, {"NoteInput": ("title",)}.get, wrapper=True) is body
    own = StrVal((), at, "NoteInput", "draft")
    assert typed(own, {"NoteInput": ("title",)}.get, wrapper=True) == ObjVal(
        (), FOREIGN, (Key("title", FOREIGN, origin="NoteInput via draft"),))


def test_the_checks_on_a_typed_spread_by_hand():
    shape = Shape("object", (Prop("title", Shape("string"), required=True), Prop("folder", Shape("string"), required=True)))
    ep = Endpoint("POST", "/notes", "contracts/api.yaml", Span(0, 0), schemas=Schemas(body=shape))
    at = Span(40, 44)

    def body(*names: str) -> ObjVal:
        keys = tuple(Key(n, at, origin="NoteInput via ...note") for n in names)
        return ObjVal(((SPREAD, ObjVal((), at, keys)),), Span(30, 60))

    def run(b: ObjVal):
        return [(f.code, f.message, dict(f.data).get("fixes")) for f in
                check(HttpCall("web/notes.ts", Span(10, 18), Span(0, 70), "POST", "/notes", body=b), ep)]

    assert run(body("title", "folder")) == []
    assert run(body("title")) == [("missing-field", MISSING.format(via="...note"), None)]
    # a property of the type the schema does not have: said at the spread, no rename offered there
    assert run(body("title", "folder", "titel")) == [
        ("unknown-field", "`titel` is not a field of the request body of POST /notes (from NoteInput via ...note); "
                          "did you mean `title`?", None)]


# --------------------------------------------------------------------------- end to end


TYPES = """//- web/types.ts
export interface NoteInput {
  title: string;
  body?: string;
  authorName: string;
}
"""


def test_a_typed_spread_in_the_same_file_is_judged():
    fixture = CONTRACT + """//- web/notes.ts
import axios from 'axios';

interface NoteInput { title: string; authorName: string }

export function save(note: NoteInput, folder: string) {
  return axios.post('/notes', { ...note, folder });
}

export function saveAll(note: NoteInput) {
  return axios.post('/notes', { ...note });
}
"""
    assert findings(fixture) == [
        ("unknown-field", "note", UNKNOWN.format(via="...note")),
        ("unknown-field", "note", UNKNOWN.format(via="...note")),
        ("missing-field", "{", MISSING.format(via="...note")),
    ]


def test_a_type_imported_from_another_file_and_re_exported_is_judged_and_is_a_dependency():
    fixture = CONTRACT + TYPES + """//- web/index.ts
export type { NoteInput } from './types';
//- web/notes.ts
import type { NoteInput } from './index';

export async function send() {
  const draft: NoteInput = await load();
  return fetch('/notes', { method: 'POST', body: JSON.stringify({ ...draft }) });
}
"""
    assert findings(fixture) == [
        ("unknown-field", "draft", UNKNOWN.format(via="...draft")),
        ("missing-field", "{", MISSING.format(via="...draft")),
    ]
    assert {"web/index.ts", "web/types.ts"} <= deps(fixture)


def test_a_body_that_is_a_typed_value_itself():
    fixture = CONTRACT + TYPES + """//- web/notes.ts
import axios from 'axios';
import * as types from './types';

export function save(note: types.NoteInput) {
  return axios.post('/notes', note);
}
"""
    assert findings(fixture) == [
        ("unknown-field", "note", UNKNOWN.format(via="note").replace("NoteInput", "types.NoteInput")),
        ("missing-field", "note", MISSING.format(via="note").replace("NoteInput", "types.NoteInput")),
    ]


def test_nothing_missing_when_the_type_declares_the_field_optional_ones_included():
    fixture = CONTRACT + """//- web/types.ts
export interface Base { title: string }
export interface NoteInput extends Base { folder?: string; body?: string }
//- web/notes.ts
import axios from 'axios';
import type { NoteInput } from './types';

export function save(note: NoteInput) {
  return axios.post('/notes', { ...note });
}
"""
    assert findings(fixture) == []
    # the same type with a property the schema lacks: that one alone
    fixture = fixture.replace("body?: string }", "body?: string; pinned?: boolean }")
    assert findings(fixture) == [
        ("unknown-field", "note", "`pinned` is not a field of the request body of POST /notes (from NoteInput via ...note)")]


def test_a_type_alias_of_an_object_type_counts_like_an_interface():
    fixture = CONTRACT + """//- web/notes.ts
import axios from 'axios';

type NoteInput = { title: string; body: string };

export function save(note: NoteInput) {
  return axios.post('/notes', { ...note });
}
"""
    assert findings(fixture) == [
        ("missing-field", "{", MISSING.format(via="...note"))]


def test_a_type_that_is_not_closed_is_not_judged_for_missing_fields():
    base = CONTRACT + """//- web/types.ts
export interface Open { title: string; [key: string]: string }
export interface Computed { title: string; [Symbol.iterator]: string }
export interface FromUnknown extends Elsewhere { title: string }
export interface FromGeneric extends Page<string> { title: string }
export type Mapped = Partial<Full> & { title: string };
export interface Full { title: string; folder: string }
export interface Twice { title: string }
export interface Twice { body: string }
export class AsClass { title: string }
//- web/notes.ts
import axios from 'axios';
import type { Open, Computed, FromUnknown, FromGeneric, Mapped, Full, Twice, AsClass } from './types';
import type { Sdk } from '@acme/sdk';
"""
    for declared in ("Open", "Computed", "FromUnknown", "FromGeneric", "Mapped", "Twice", "AsClass", "Sdk",
                     "Partial<Full>", "Missing", "Full | Open"):
        fixture = base + f"""
export function save(note: {declared}) {{
  return axios.post('/notes', {{ ...note, body: 'b' }});
}}
"""
        assert findings(fixture) == [], declared
    # a generic function's type parameter is not a type of the workspace, whatever its name
    fixture = base + """
export function save<Full>(note: Full) {
  return axios.post('/notes', { ...note, authorName: 'x' });
}
"""
    assert findings(fixture) == [("unknown-field", "authorName",
                                  "`authorName` is not a field of the request body of POST /notes")]


def test_a_wrapper_binds_a_callers_typed_value_and_judges_its_own_at_the_call():
    fixture = CONTRACT + TYPES + """//- web/api.ts
import axios from 'axios';
import type { NoteInput } from './types';

export function post(path: string, data: unknown) {
  return axios.post(path, { ...data });
}

export function postDraft(path: string) {
  const draft: NoteInput = loadDraft();
  return axios.post(path, { ...draft, folder: 'inbox' });
}
//- web/notes.ts
import type { NoteInput as Input } from './types';
import { post, postDraft } from './api';

export function save(note: Input) {
  return post('/notes', note);
}

export function saveDraft() {
  return postDraft('/notes');
}
"""
    got = findings(fixture)
    # the caller's typed parameter, with the caller's name for the type
    assert ("unknown-field", "note", "`authorName` is not a field of the request body of POST /notes "
                                     "(from Input via ...note)") in got
    assert ("missing-field", "'/notes'",  # (a wrapper's object: said at the call's URL)
            "The request body of POST /notes requires field `folder` (not declared by Input via ...note)") in got
    # the wrapper's own typed value: its keys count as sent, none is reported at the caller
    assert [g for g in got if "draft" in g[2] or g[1].startswith("postDraft")] == []
    assert len(got) == 2


def test_incremental_edits_keep_the_recorded_types_exact():
    from fixtures import assert_edits_stay_exact

    src = (
        "import type { NoteInput } from './types';\n"
        "export function save(note: NoteInput) {\n"
        "  return api.post('/notes', { ...note, title: 'x' });\n"
        "}\n"
        "export async function send() {\n"
        "  let draft: NoteInput = await load();\n"
        "  return fetch('/notes', { method: 'POST', body: JSON.stringify(draft) });\n"
        "}\n"
    )
    assert_edits_stay_exact("web/notes.ts", src, [": NoteInput", "draft = other;\n", "<T>", "?", " | null", "\n"])
