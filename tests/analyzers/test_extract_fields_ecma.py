"""The ECMAScript facts the field checks read (issue 14): object-literal keys, the values of
``JSON.stringify`` and ``URLSearchParams``, the reads of a call's value (``CallSite.reads``),
data classes and interfaces (``FileFacts.data_models``) and NestJS ``@Body()`` types
(``Route.body_model``), with the real grammars and inline fixtures."""

from __future__ import annotations

import pytest

from specward.analyzers.extract import extract
from specward.analyzers.extract.components import extract_component
from specward.analyzers.extract.ecma import extract_ecma
from specward.analyzers.model import Arg, CallSite, FieldDecl, ObjVal, StrVal

from fixtures import assert_edits_stay_exact


def ts(src: str, grammar: str = "typescript"):
    return extract_ecma("src/app.ts", src, grammar)


def one(facts, callee: str) -> CallSite:
    found = [c for c in facts.calls if c.callee == callee]
    assert len(found) == 1, [c.callee for c in facts.calls]
    return found[0]


def spanned(src: str, span) -> str:
    return src.encode("utf-8")[span.start : span.end].decode("utf-8")


def keys(src: str, obj: ObjVal) -> list[tuple[str, str, bool]]:
    """(name, the text at its span, shorthand) of each key."""
    return [(k.name, spanned(src, k.span), k.shorthand) for k in obj.keys]


def reads(src: str, call: CallSite) -> list[tuple[tuple[str, ...], list[str], bool]]:
    """(steps, the text at each step's span, returned) of each read, in order."""
    return [(r.steps, [spanned(src, s) for s in r.spans], r.returned) for r in call.reads]


# --------------------------------------------------------------------------- object keys


@pytest.mark.parametrize("grammar", ["typescript", "tsx", "javascript"])
def test_every_key_of_an_object_literal_is_listed_with_its_span(grammar):
    src = (
        "export async function saveDraft(heading) {\n"
        "  await axios.put('/drafts/current', {\n"
        "    heading, 'word-count': 120, 7: 'seven', pinned: false,\n"
        "    ['archived']: null, render() { return 1 }, get size() { return 2 }, ...extra,\n"
        "  });\n"
        "}\n"
    )
    body = one(ts(src, grammar), "axios.put").args[1]
    assert isinstance(body, ObjVal)
    assert keys(src, body) == [("heading", "heading", True), ("word-count", "word-count", False),
                               ("7", "7", False), ("pinned", "pinned", False), ("archived", "archived", False),
                               ("render", "render", False), ("size", "size", False)]
    assert body.computed is False
    # the values the linker reads are as before: numbers, booleans, null and methods are not fields
    assert [k for k, _ in body.fields] == ["heading", "7", "..."]


def test_a_computed_key_marks_the_literal_and_arrays_have_no_keys():
    src = (
        "function tagAll(slot, tags) {\n"
        "  axios.post('/labels/bulk', { [slot]: 'x', label: 'y' });\n"
        "  axios.post('/labels/list', ['a', 'b']);\n"
        "}\n"
    )
    f = ts(src)
    first, second = [c for c in f.calls if c.callee == "axios.post"]
    assert first.args[1].computed is True
    assert keys(src, first.args[1]) == [("label", "label", False)]
    assert second.args[1].keys == () and second.args[1].computed is False


def test_a_literal_read_through_a_variable_keeps_its_keys_and_a_rest_drops_the_taken_ones():
    src = (
        "export async function publish(input) {\n"
        "  const payload = { caption: input.caption, visible: true };\n"
        "  await axios.post('/posts/publish', payload);\n"
        "  const all = { kind: 'memo', text: input.text, stars: 3 };\n"
        "  const { kind, ...others } = all;\n"
        "  await axios.post('/posts/memo', others);\n"
        "}\n"
    )
    f = ts(src)
    sent = [c.args[1] for c in f.calls if c.callee == "axios.post"]
    assert keys(src, sent[0]) == [("caption", "caption", False), ("visible", "visible", False)]
    assert spanned(src, sent[0].span).startswith("{ caption")  # the literal's own span
    assert keys(src, sent[1]) == [("text", "text", False), ("stars", "stars", False)]
    assert [k for k, _ in sent[1].fields] == ["text"]


# --------------------------------------------------------------------------- serialized values


def test_json_stringify_and_url_search_params_are_the_value_they_wrap():
    src = (
        "export async function addComment(threadId, opts) {\n"
        "  await fetch(`/threads/${threadId}/comments`, {\n"
        "    method: 'POST', body: JSON.stringify({ author: opts.author, text: 'hi' }, null, 2) });\n"
        "  await fetch('/threads/raw', { method: 'POST', body: JSON.stringify(opts) });\n"
        "  await fetch('/threads/list', { body: JSON.stringify([1, 2]) });\n"
        "  await axios.get('/threads/search', { params: new URLSearchParams({ q: opts.q, limit: 10 }) });\n"
        "  await axios.get('/threads/pairs', { params: new URLSearchParams([['q', 'x']]) });\n"
        "}\n"
    )
    f = ts(src)
    commented, raw, listed = [c for c in f.calls if c.callee == "fetch"]
    body = commented.args[1].get("body")
    assert isinstance(body, ObjVal) and keys(src, body) == [("author", "author", False), ("text", "text", False)]
    assert raw.args[1].get("body") == StrVal((Arg(1),), raw.args[1].get("body").span)  # the wrapper's parameter
    assert isinstance(listed.args[1].get("body"), ObjVal)  # an array literal is an ObjVal as everywhere
    search, pairs = [c for c in f.calls if c.callee == "axios.get"]
    params = search.args[1].get("params")
    assert isinstance(params, ObjVal) and [k.name for k in params.keys] == ["q", "limit"]
    assert not isinstance(pairs.args[1].get("params"), ObjVal)  # a list of entries is not judged


# --------------------------------------------------------------------------- reads of a call's value


def test_destructured_response_then_an_iteration_callback():
    src = (
        "export async function bookTitles() {\n"
        "  const { data } = await axios.get('/shelves/books');\n"
        "  return data.entries.map(b => b.heading);\n"
        "}\n"
    )
    # the iteration method is no step: its callback's parameter is an element (`[]`)
    assert reads(src, one(ts(src), "axios.get")) == [
        (("await", "data", "entries", "[]", "heading"), ["await", "data", "entries", "map", "heading"], False)]


def test_an_iteration_whose_callback_reads_nothing_leaves_the_array_read():
    src = (
        "export async function count() {\n"
        "  const res = await axios.get('/shelves/books');\n"
        "  res.data.entries.forEach(log);\n"
        "  return res.data.entries.filter(e => e.active).find(e => e.pinned).label;\n"
        "}\n"
    )
    assert reads(src, one(ts(src), "axios.get")) == [
        (("await", "data", "entries"), ["await", "data", "entries"], False),
        (("await", "data", "entries", "[]", "active"), ["await", "data", "entries", "filter", "active"], False),
        (("await", "data", "entries", "[]", "pinned"), ["await", "data", "entries", "find", "pinned"], False),
        (("await", "data", "entries", "[]", "label"), ["await", "data", "entries", "find", "label"], True),
    ]


def test_a_parenthesized_await_then_a_method():
    src = "export async function raw(u) {\n  const out = (await fetch(u)).json();\n  return out;\n}\n"
    assert reads(src, one(ts(src), "fetch")) == [(("await", "json()"), ["await", "json"], True)]


def test_two_levels_of_binding_and_a_returned_chain():
    src = (
        "export async function ownerName(u) {\n"
        "  const resp = await fetch(u);\n"
        "  if (!resp.ok) throw new Error('no');\n"
        "  const parsed = await resp.json();\n"
        "  return parsed.owner.fullName;\n"
        "}\n"
    )
    assert reads(src, one(ts(src), "fetch")) == [
        (("await", "ok"), ["await", "ok"], False),
        (("await", "json()", "await", "owner", "fullName"), ["await", "json", "await", "owner", "fullName"], True),
    ]


def test_then_callbacks_chain_with_an_await_step_each():
    src = (
        "export function badge(u) {\n"
        "  return fetch(u).then(r => r.json()).then(payload => payload.badgeId);\n"
        "}\n"
    )
    assert reads(src, one(ts(src), "fetch")) == [
        (("await", "json()", "await", "badgeId"), ["then", "json", "then", "badgeId"], True)]


def test_then_with_an_error_callback_and_a_block_body():
    src = (
        "export function load(u) {\n"
        "  axios.get(u).then(({ data }) => { show(data.rows[2].cells); }, (err) => err.message).catch(noop);\n"
        "}\n"
    )
    assert reads(src, one(ts(src), "axios.get")) == [
        (("await", "data", "rows", "[]", "cells"), ["then", "data", "rows", "[2]", "cells"], False)]


def test_ky_json_then_await():
    src = (
        "export async function profile(u) {\n"
        "  const me = await ky.get(u).json();\n"
        "  return me.nickname;\n"
        "}\n"
        "export const bare = (u) => ky.get(u).json();\n"
    )
    f = ts(src)
    first, second = [c for c in f.calls if c.callee == "ky.get"]
    assert reads(src, first) == [(("json()", "await", "nickname"), ["json", "await", "nickname"], True)]
    assert reads(src, second) == [(("json()",), ["json"], True)]


def test_an_arrow_expression_body_returns_the_value_itself():
    src = "export const fetchOne = (id) => api.get(`/widgets/${id}`);\n"
    assert reads(src, one(ts(src), "api.get")) == [((), [], True)]


def test_nested_destructuring_defaults_and_a_rest_element():
    src = (
        "export async function page() {\n"
        "  const { data: { rows, total = 0, ...more }, status } = await api.get('/reports/page');\n"
        "  use(rows[0].score, total, more, status);\n"
        "}\n"
    )
    assert reads(src, one(ts(src), "api.get")) == [
        (("await", "data", "rows", "[]", "score"), ["await", "data", "rows", "[0]", "score"], False),
        (("await", "data", "total"), ["await", "data", "total"], False),
        (("await", "status"), ["await", "status"], False),
    ]


def test_subscripts_optional_chains_non_null_and_casts_pass_through():
    src = (
        "export async function meta(u: string) {\n"
        "  const res = await axios.get<Thing>(u);\n"
        "  const a = res?.data!['created-at'];\n"
        "  const b = (res.data as Thing).rows[idx].owner;\n"
        "  const c = (res satisfies object).headers ?? {};\n"
        "  return [a, b, c];\n"
        "}\n"
    )
    got = reads(src, one(ts(src), "axios.get"))
    assert got == [
        (("await", "data", "created-at"), ["await", "data", "created-at"], False),
        (("await", "data", "rows", "[]", "owner"), ["await", "data", "rows", "[idx]", "owner"], False),
        (("await", "headers"), ["await", "headers"], False),
    ]


def test_the_await_the_typescript_grammar_puts_in_the_callee():
    src = (
        "export async function typed(u: string) {\n"
        "  const got = await client.get<{ id: string }>(u);\n"
        "  return got.data.id;\n"
        "}\n"
    )
    assert reads(src, one(ts(src), "client.get")) == [
        (("await", "data", "id"), ["await", "data", "id"], True)]


def test_for_of_variables_and_a_variable_assigned_once():
    src = (
        "export async function sync() {\n"
        "  let resp;\n"
        "  try { resp = await api.get('/sync/items'); } catch { return; }\n"
        "  for (const item of resp.data.items) { mark(item.key); }\n"
        "}\n"
        "export async function twice() {\n"
        "  let resp = await api.get('/sync/other');\n"
        "  resp = await api.get('/sync/again');\n"
        "  return resp.data;\n"
        "}\n"
    )
    f = ts(src)
    first, second, third = [c for c in f.calls if c.callee == "api.get"]
    assert reads(src, first) == [(("await", "data", "items", "[]", "key"), ["await", "data", "items", "item", "key"],
                                  False)]
    assert reads(src, second) == []  # reassigned: not followed (a chain of awaits alone is no read)
    assert reads(src, third) == []


def test_an_unused_value_a_passed_value_and_a_shadowing_parameter():
    src = (
        "export async function various() {\n"
        "  await api.post('/audit/ping', {});\n"
        "  render(await api.get('/audit/a'));\n"
        "  const res = await api.get('/audit/b');\n"
        "  const pick = (res) => res.unrelated;\n"
        "  const later = () => res.kept;\n"
        "  return pick;\n"
        "}\n"
    )
    f = ts(src)
    assert one(f, "api.post").reads == ()
    a, b = [c for c in f.calls if c.callee == "api.get"]
    assert a.reads == ()
    # a read in a nested function is a read, not what the outer function returns
    assert reads(src, b) == [(("await", "kept"), ["await", "kept"], False)]


def test_module_level_bindings_stay_in_their_statement():
    src = (
        "const { data } = await axios.get('/boot/config');\n"
        "console.log(data.flags);\n"
    )
    # facts of one statement stand alone: the use in the next statement is not followed
    assert reads(src, one(ts(src), "axios.get")) == [(("await", "data"), ["await", "data"], False)]


def test_reads_are_capped_per_call_site():
    uses = "".join(f"  sink(res.data.f{i});\n" for i in range(100))
    src = "export async function many() {\n  const res = await api.get('/cap/x');\n" + uses + "}\n"
    got = one(ts(src), "api.get").reads
    assert len(got) == 64
    assert got[0].steps == ("await", "data", "f0")


def test_component_script_spans_are_shifted_and_script_setup_bindings_followed():
    src = (
        "<template><p>{{ note }}</p></template>\n"
        '<script setup lang="ts">\n'
        "interface Note { heading: string; body?: string }\n"
        "const { data } = await axios.get('/notes/latest');\n"
        "const heading = data.heading;\n"
        "await axios.post('/notes/seen', { heading, at: Date.now() });\n"
        "</script>\n"
    )
    f = extract_component("src/Note.vue", src, "vue")
    got = one(f, "axios.get")
    assert reads(src, got) == [(("await", "data", "heading"), ["await", "data", "heading"], False)]
    sent = one(f, "axios.post").args[1]
    assert keys(src, sent) == [("heading", "heading", True), ("at", "at", False)]
    (model,) = f.data_models
    assert spanned(src, model.span) == "Note"
    assert [(x.name, spanned(src, x.span), x.required) for x in model.fields] == [
        ("heading", "heading", True), ("body", "body", False)]


# --------------------------------------------------------------------------- data models


def test_classes_interfaces_and_object_type_aliases_are_data_models():
    src = (
        "import { IsString } from 'class-validator';\n"
        "export class CreateTaskDto extends BaseDto<Task> implements Named, ns.Dated {\n"
        "  @IsString() summary!: string;\n"
        "  details?: string;\n"
        "  readonly id: string;\n"
        "  priority: number = 1;\n"
        "  'due-on': string;\n"
        "  static total: number;\n"
        "  private secret: string;\n"
        "  #hidden = 0;\n"
        "  onChange = () => {};\n"
        "  get label() { return this.summary; }\n"
        "}\n"
        "class Service { constructor(private http: HttpClient) {} }\n"
        "interface Task extends Base<T>, Extra { title: string; readonly done?: boolean; run(): void;"
        " [key: string]: unknown }\n"
        "export type TaskPatch = Partial<Task> & { id: string } & { note?: string | null };\n"
        "type Plain = { a: string; b?: { c: number } };\n"
        "interface Props {}\n"
        "type Alias = string | number;\n"
        "function inner() { interface Hidden { x: string } }\n"
    )
    f = ts(src)
    got = {m.name: m for m in f.data_models}
    assert list(got) == ["CreateTaskDto", "Task", "TaskPatch", "Plain"]
    dto = got["CreateTaskDto"]
    assert (dto.kind, dto.bases, spanned(src, dto.span)) == ("class", ("BaseDto<Task>", "Named", "ns.Dated"),
                                                             "CreateTaskDto")
    assert [(x.name, x.type, x.required, x.read_only, spanned(src, x.span)) for x in dto.fields] == [
        ("summary", "string", True, False, "summary"),
        ("details", "string", False, False, "details"),
        ("id", "string", True, True, "id"),
        ("priority", "number", False, False, "priority"),
        ("due-on", "string", True, False, "due-on"),
    ]
    task = got["Task"]
    assert (task.kind, task.bases, task.open) == ("interface", ("Base<T>", "Extra"), True)
    assert task.fields == (FieldDecl("title", "string", True, task.fields[0].span),
                           FieldDecl("done", "boolean", False, task.fields[1].span, True))
    patch = got["TaskPatch"]
    assert (patch.kind, patch.bases) == ("interface", ("Partial<Task>",))
    assert [(x.name, x.type, x.required) for x in patch.fields] == [("id", "string", True),
                                                                   ("note", "string | null", False)]
    assert [(x.name, x.type, x.required) for x in got["Plain"].fields] == [("a", "string", True),
                                                                          ("b", "{ c: number }", False)]


def test_javascript_class_fields():
    src = "export class Draft extends Base { title; body = ''; static count; #secret; save = () => 1; }\nclass E {}\n"
    (m,) = ts(src, "javascript").data_models
    assert (m.name, m.bases, m.kind) == ("Draft", ("Base",), "class")
    assert [(x.name, x.type, x.required) for x in m.fields] == [("title", "", True), ("body", "", False)]


# --------------------------------------------------------------------------- NestJS request bodies


def test_nest_body_model_is_the_whole_body_parameter_type():
    src = (
        "import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';\n"
        "import * as dto from './dto';\n"
        "@Controller('tasks')\n"
        "export class TasksController {\n"
        "  @Post()\n"
        "  create(@Body() input: CreateTaskDto) {}\n"
        "  @Put(':id')\n"
        "  update(@Param('id') id: string, @Body() patch: dto.UpdateTaskDto) {}\n"
        "  @Post('rename')\n"
        "  rename(@Body('title') title: string) {}\n"
        "  @Get()\n"
        "  list(@Query() q: ListQuery) {}\n"
        "}\n"
    )
    f = extract("src/tasks.controller.ts", src)
    assert [(r.method, r.path, r.body_model) for r in f.routes] == [
        ("POST", "/tasks", "CreateTaskDto"), ("PUT", "/tasks/{id}", "dto.UpdateTaskDto"),
        ("POST", "/tasks/rename", None), ("GET", "/tasks", None)]


# --------------------------------------------------------------------------- incremental exactness


FIELDS = """\
import axios from 'axios';
export interface Row { id: string; label?: string }
export class RowDto { readonly id!: string; label = ''; }
export async function loadRows() {
  const { data } = await axios.get('/rows/all');
  return data.items.map((r) => r.label);
}
export const saveRow = (row) => axios.post('/rows/one', { id: row.id, label: row.label, ...row });
"""
FIELD_PIECES = ["x", "'", "(", ")", "{", "}", ";", "\n", ".data", "await ", "?", "interface Q { a: number }\n",
                "const r = await axios.get('/rows/x');\n", "r.json()", "[0]"]


def test_field_facts_stay_exact_under_incremental_edits():
    assert_edits_stay_exact("src/rows.ts", FIELDS, FIELD_PIECES)
    f = extract("src/rows.ts", FIELDS)
    assert [m.name for m in f.data_models] == ["Row", "RowDto"]
    assert [r.steps for r in one(f, "axios.get").reads] == [("await", "data", "items", "[]", "label")]


def test_a_return_in_an_anonymous_function_around_the_call_is_not_the_named_functions():
    src = (
        "export function useApiQuery(path: string) {\n"
        "  return { ...useQuery({ queryKey: [path], queryFn: async () => fetchJson(path) }) };\n"
        "}\n"
        "export function load(path: string) {\n"
        "  return fetchJson(path);\n"
        "}\n"
    )
    from specward.analyzers.extract import extract

    calls = {c.scope: c for c in extract("q.ts", src).calls if c.callee == "fetchJson"}
    assert all(not r.returned for r in calls["useApiQuery"].reads)
    assert [r.returned for r in calls["load"].reads] == [True]


def test_a_body_sent_only_when_there_is_one_is_that_body():
    from specward.analyzers.extract import extract
    from specward.analyzers.model import Arg, ObjVal, StrVal

    src = (
        "export async function send({ method, path, data }) {\n"
        "  return fetch(`/api/${path}`, { method, body: data ? JSON.stringify(data) : undefined });\n"
        "}\n"
        "fetch('/api/x', { method: 'POST', body: ok ? null : JSON.stringify({ a: 1 }) });\n"
    )
    calls = extract("s.ts", src).calls
    inner = calls[0].args[1].get("body")
    assert type(inner) is StrVal and inner.expr == (Arg(0, "data"),)
    top = calls[-1].args[1].get("body")
    assert type(top) is ObjVal and [k.name for k in top.keys] == ["a"]
