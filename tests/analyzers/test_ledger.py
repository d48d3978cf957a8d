"""The fix-history ledger's pure side (analyzers/ledger.py): pattern keys, both formats,
aggregation, matching imports (with the real extractor and the real module resolver), the
quick fixes as edits, and the prompt."""

from __future__ import annotations

import hashlib
import json
import pickle
import random
import textwrap
from dataclasses import replace

from fixtures import split

from specward.analyzers import ledger as L
from specward.analyzers.extract import extract
from specward.analyzers.model import FileFacts, Span
from specward.analyzers.resolve import Resolver, ResolverConfig, is_resolver_config

OWN = ".specward/fix-history.jsonl"


def rec(source, names, *, reason="file_not_found", file="src/app.ts", line=1, kind="create_file", target="",
        stage="ai", ts="2026-04-07T19:42:30.000Z", run="run-1") -> L.Record:
    return L.make_record(source, names, reason, file, line, kind, target, stage, ts, run)


# ---------------------------------------------------------------- keys and lines


def test_pattern_key_is_ai_specs_formula_and_ignores_the_order_of_names():
    want = hashlib.sha256(b"@/apis/task/type\x00Task,TaskStatus").hexdigest()[:12]
    assert L.pattern_key("@/apis/task/type", ["TaskStatus", "Task"]) == want
    assert L.pattern_key("@/apis/task/type", ["Task", "TaskStatus"]) == want
    assert L.pattern_key("@/apis/task/type", ["Task"]) != want
    assert L.pattern_key("./types", []) == hashlib.sha256(b"./types\x00").hexdigest()[:12]


def test_a_record_line_reads_back_as_the_same_record():
    r = rec("next-auth/client", ["useAuth", "signIn"], reason="missing_export", kind="rewrite_import",
            target="next-auth/react", stage="editor", file="web/src/pages/login.tsx", line=4)
    line = L.record_line(r)
    assert line.endswith("\n") and line.count("\n") == 1
    obj = json.loads(line)
    assert list(obj) == sorted(obj) and obj["patternKey"] == r.pattern_key
    assert obj["brokenImport"]["names"] == ["useAuth", "signIn"]
    assert obj["checksum"].startswith("sha256:")
    records, problems = L.parse_jsonl(line, OWN)
    assert problems == () and records == (r,)
    assert records[0].ledger == OWN and records[0].line == 1 and records[0].origin == L.SPECWARD


def test_a_record_edited_by_hand_fails_its_checksum_and_the_others_still_read():
    a, b = rec("./a", ["x"], run="r1"), rec("./b", ["y"], run="r2")
    tampered = L.record_line(b).replace('"line":1', '"line":7')
    data = L.record_line(a) + tampered + L.record_line(replace(a, run_id="r3"))
    records, problems = L.parse_jsonl(data, OWN)
    assert [r.run_id for r in records] == ["r1", "r3"]
    (p,) = problems
    assert p.code == "ledger-invalid" and p.severity == "warning" and p.file == OWN
    assert "checksum" in p.message and "line 2" in p.message
    start = len(L.record_line(a))
    assert (p.span.start, p.span.end) == (start, start + len(tampered) - 1)


def test_a_line_without_checksum_or_with_a_wrong_key_is_not_a_record():
    r = rec("./a", ["x"])
    plain = json.dumps(L.record_json(r)) + "\n"
    obj = L.record_json(r)
    obj["patternKey"] = "000000000000"
    obj["checksum"] = L._checksum(obj)
    wrong = json.dumps(obj) + "\n"
    records, problems = L.parse_jsonl(plain + wrong, OWN)
    assert records == ()
    assert "no `checksum`" in problems[0].message
    assert "`patternKey`" in problems[1].message


def test_conflict_markers_are_reported_once_each_and_both_sides_are_read():
    ours, theirs, base = rec("./ours", ["a"], run="o"), rec("./theirs", ["b"], run="t"), rec("./base", [], run="b")
    data = (L.record_line(base) + "<<<<<<< HEAD\n" + L.record_line(ours) + "=======\n" + L.record_line(theirs)
            + ">>>>>>> feature/login\n")
    records, problems = L.parse_jsonl(data, OWN)
    assert [r.run_id for r in records] == ["b", "o", "t"]
    assert len(problems) == 3
    assert [data.encode()[p.span.start:p.span.end].decode() for p in problems] == [
        "<<<<<<< HEAD", "=======", ">>>>>>> feature/login"]
    assert all("merge conflict marker" in p.message for p in problems)


def test_a_partial_last_line_is_ignored_with_a_warning_and_byte_spans_count_bytes():
    first = rec("./données", ["café"], file="src/été.ts")  # non-ASCII: bytes, not characters
    line = L.record_line(first)
    partial = L.record_line(rec("./b", ["y"]))[:40]
    data = line + "\n   \n" + partial  # a blank line is skipped silently
    records, problems = L.parse_jsonl(data, OWN)
    assert records == (first,)
    (p,) = problems
    assert "incomplete last line" in p.message
    start = len(line.encode()) + len("\n   \n")
    assert (p.span.start, p.span.end) == (start, start + len(partial))
    # a last record complete but for its newline is a record
    records, problems = L.parse_jsonl(line.rstrip("\n"), OWN)
    assert records == (first,) and problems == ()


def test_lines_that_are_not_json_or_not_records_are_reported_and_skipped():
    good = rec("./ok", ["a"])
    data = "not json at all\n" + '["an", "array"]\n' + L.record_line(good) + '{"ts": "yesterday"}\n'
    records, problems = L.parse_jsonl(data.encode(), OWN)
    assert records == (good,)
    assert [p.message.split(":")[0] for p in problems] == [
        "line 1 is not a ledger record", "line 2 is not a ledger record", "line 4 is not a ledger record"]
    assert L.NOT_JSON in problems[0].message and "not a JSON object" in problems[1].message


# ---------------------------------------------------------------- ai-spec's ledger

AI_SPEC = """\
{
  "version": "1.0",
  "entries": [
    {
      "ts": "2026-04-07T19:42:30.000Z",
      "runId": "20260407-194230-c1d2",
      "patternKey": "PLACEHOLDER",
      "brokenImport": {
        "source": "@/apis/task/type",
        "names": ["Task"],
        "reason": "file_not_found",
        "file": "src/views/TaskList.vue",
        "line": 12
      },
      "fix": { "kind": "create_file", "target": "src/apis/task/type.ts", "stage": "deterministic" }
    },
    {
      "ts": "2026-04-09T08:01:02.000Z",
      "runId": "20260409-080102-77aa",
      "patternKey": "PLACEHOLDER",
      "brokenImport": {
        "source": "@/apis/task/type",
        "names": ["Task"],
        "reason": "file_not_found",
        "file": "src/views/TaskBoard.vue",
        "line": 3
      },
      "fix": { "kind": "rewrite_import", "target": "src/views/TaskBoard.vue", "stage": "ai" }
    },
    {
      "ts": "2026-04-09T08:01:02.000Z",
      "runId": "20260409-080102-77aa",
      "brokenImport": { "source": "@/utils/date", "names": "formatDate" },
      "fix": { "kind": "rewrite_import", "target": "x", "stage": "ai" }
    }
  ]
}
"""


def test_the_ai_spec_ledger_is_read_as_ai_spec_writes_it():
    records, problems = L.parse_ai_spec(AI_SPEC, L.AI_SPEC_LEDGER)
    assert [(r.broken.file, r.broken.line, r.fix.stage) for r in records] == [
        ("src/views/TaskList.vue", 12, "deterministic"), ("src/views/TaskBoard.vue", 3, "ai")]
    assert {r.pattern_key for r in records} == {L.pattern_key("@/apis/task/type", ["Task"])}
    assert all(r.origin == L.AI_SPEC and r.ledger == L.AI_SPEC_LEDGER for r in records)
    assert [r.line for r in records] == [4, 17]
    (p,) = problems  # the third entry: names is not a list
    assert "entry 3" in p.message and "names" in p.message
    assert AI_SPEC.encode()[p.span.start:p.span.end] == b"{"
    assert AI_SPEC[: p.span.start].count("\n") == 29


def test_a_broken_ai_spec_ledger_is_a_finding_never_an_exception():
    merged = AI_SPEC.replace('    {\n      "ts": "2026-04-09', '<<<<<<< HEAD\n    {\n      "ts": "2026-04-09', 1)
    merged = merged.replace('  ]\n}', '=======\n>>>>>>> other\n  ]\n}')
    records, problems = L.parse_ai_spec(merged, L.AI_SPEC_LEDGER)
    assert sum("merge conflict marker" in p.message for p in problems) == 3
    assert records and records[0].broken.file == "src/views/TaskList.vue"  # what can be recovered
    for text, words in (("", "unexpected end of input"), ("null", "not an ai-spec"), ("[1, 2]", "an array"), ('{"entries": {}}', "`entries` is an object"),
                        ('{"entries": [', "invalid JSON")):
        records, problems = L.parse_ai_spec(text, L.AI_SPEC_LEDGER)
        assert records == () and problems and any(words in p.message for p in problems), (text, problems)


# ---------------------------------------------------------------- patterns


def test_patterns_count_repeats_dedupe_and_rank_deterministically():
    recs = [rec("./a", ["x"], ts=f"2026-04-0{d}T10:00:00.000Z", run=f"r{d}", kind="rewrite_import", target=f"./a{d}")
            for d in (3, 1, 2)]
    recs += [rec("./b", [], ts="2026-04-05T10:00:00Z", run="rb"), rec("./c", [], ts="2026-04-05T10:00:00Z", run="rc")]
    recs += [rec("./d", ["y"], ts="2026-05-01T00:00:00+02:00", run="rd1"), rec("./d", ["y"], ts="2026-04-01T00:00:00Z")]
    copy = replace(recs[0], ledger="/home/me/.local/share/specward/fix-history.jsonl", line=9)
    p = L.Patterns(recs + [copy])
    assert len(p.records) == len(recs)  # the same record in two ledgers counts once
    a = p.get(L.pattern_key("./a", ["x"]))
    assert (a.count, a.first_seen[:10], a.last_seen[:10], a.runs, a.fix.target) == (3, "2026-04-01", "2026-04-03", 3, "./a3")
    order = [x.source for x in p]
    assert order == ["./a", "./d", *sorted(["./b", "./c"], key=lambda s: L.pattern_key(s, []))]
    for seed in range(5):
        shuffled = recs[:]
        random.Random(seed).shuffle(shuffled)
        assert [x.key for x in L.Patterns(shuffled)] == [x.key for x in p]
    # plain data: it pickles as its records (to worker processes) and compares by them
    again = pickle.loads(pickle.dumps(p))
    assert again == p and [x.key for x in again] == [x.key for x in p] and again.get(a.key) == a
    assert L.Patterns(reversed(recs)) == p and L.Patterns(recs[1:]) != p


# ---------------------------------------------------------------- matching

WORKSPACE = """\
//- tsconfig.json
{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] } } }
//- src/apis/task/index.ts
export interface TaskItem { id: number }
//- src/apis/user.ts
export const getUser = () => null
//- src/views/board/TaskBoard.ts
import { Task } from '../../apis/task/type';
import { Task as T2 } from '@/apis/task/types';
import { useAuth, signIn } from 'next-auth/client';
import { getUser } from '@/apis/user';
import def from '@/apis/user';
//- src/legacy/tasks.js
const { Task } = require('../apis/task/type');
"""


class Project:
    def __init__(self, fixture: str = WORKSPACE) -> None:
        self.files = split(fixture)
        self.config = ResolverConfig.build({p: t for p, t in self.files.items() if is_resolver_config(p)})
        self.resolver = Resolver(self.config, self.files.__contains__)

    def facts(self, path: str, with_module_spans: bool = True) -> FileFacts:
        facts = extract(path, self.files[path])
        if not with_module_spans or any(i.module_span for i in facts.imports):
            return facts
        # the specifier's span, as the extractor gives it for JS/TS (not yet for Python)
        data = self.files[path].encode()
        imports = []
        for imp in facts.imports:
            i = data.rfind(imp.module.encode(), 0, imp.span.start)
            imports.append(replace(imp, module_span=Span(i, i + len(imp.module.encode()))))
        return replace(facts, imports=tuple(imports))

    def target_of(self, path: str):
        return lambda spec: L.target_key(self.resolver.resolve(path, spec))


def apply(text: str, edits) -> str:
    data = text.encode()
    for _, _, start, end, new in sorted(edits, key=lambda e: -e[2]):
        data = data[:start] + new.encode() + data[end:]
    return data.decode()


def test_the_same_missing_module_through_a_relative_path_and_an_alias_matches():
    w = Project()
    path = "src/views/board/TaskBoard.ts"
    # recorded in another folder, through the alias; last fixed by pointing it at the folder's index
    patterns = L.Patterns([rec("@/apis/task/type", ["Task"], file="src/views/List.ts", kind="rewrite_import",
                               target="@/apis/task", stage="editor", ts="2026-04-02T09:00:00.000Z"),
                           rec("@/apis/task/type", ["Task"], file="src/views/Old.ts", ts="2026-03-01T09:00:00.000Z")])
    (f,) = L.match_imports(w.facts(path), patterns, w.target_of(path))
    text = w.files[path]
    assert f.code == "repeated-hallucination" and f.severity == "warning" and f.file == path
    assert text.encode()[f.span.start:f.span.end] == b"../../apis/task/type"  # the specifier
    assert f.message == ("import { Task } from '../../apis/task/type' repeats a recorded hallucination (the module "
                         "did not exist, recorded as '@/apis/task/type'): seen twice, first 2026-03-01, last "
                         "2026-04-02; last fixed by rewriting the import to '@/apis/task'")
    fixes = dict(f.data)["fixes"]
    assert fixes == (("Replay the last fix: import from '@/apis/task'", path, f.span.start, f.span.end,
                      "@/apis/task"),)
    data = dict(f.data)
    # what recording the replayed fix needs (the lead's code action records it as stage editor)
    assert (data["module"], data["names"], data["reason"], data["fix_kind"], data["fix_target"]) == (
        "../../apis/task/type", ("Task",), "file_not_found", "rewrite_import", "@/apis/task")
    fixed = apply(text, fixes)
    assert "import { Task } from '@/apis/task';" in fixed
    assert L.match_imports(replace(w.facts(path), imports=extract(path, fixed).imports), patterns,
                           w.target_of(path)) == ()
    # `types` (with an s) is another place: no match
    assert all(f.span.start < text.index("@/apis/task/types") for f in L.match_imports(
        w.facts(path), patterns, w.target_of(path)))


def test_a_relative_pattern_is_respelled_for_the_file_it_is_matched_in():
    w = Project()
    # recorded in src/legacy/tasks.js as '../apis/task/type'; TaskBoard.ts writes it '../../apis/task/type'
    patterns = L.Patterns([rec("../apis/task/type", ["Task"], file="src/legacy/tasks.js", kind="rewrite_import",
                               target="../apis/task")])
    board = "src/views/board/TaskBoard.ts"
    (f,) = L.match_imports(w.facts(board), patterns, w.target_of(board))
    assert "recorded as" not in f.message  # the same spelling, once respelled
    assert dict(f.data)["fixes"][0][4] == "../../apis/task"
    # without a resolver answer (target_of knows nothing), the respelled spelling still matches
    (f,) = L.match_imports(w.facts(board), patterns, lambda spec: None)
    assert f.span.start > 0
    # the same spelling from a folder where it points elsewhere does not match
    other = Project(WORKSPACE + "//- src/views/list/a.ts\nimport { Task } from '../apis/task/type';\n")
    assert L.match_imports(other.facts("src/views/list/a.ts"), patterns, other.target_of("src/views/list/a.ts")) == ()


def test_a_renamed_binding_matches_and_the_rename_is_replayed():
    w = Project()
    path = "src/views/board/TaskBoard.ts"
    patterns = L.Patterns([rec("@/apis/task/types", ["Task"], reason="missing_export", kind="rename",
                               target="TaskItem", stage="deterministic")])
    (f,) = L.match_imports(w.facts(path), patterns, w.target_of(path))
    assert "import { Task } from '@/apis/task/types'" in f.message and "renaming Task to TaskItem" in f.message
    ((title, file, start, end, new),) = dict(f.data)["fixes"]
    assert (title, new) == ("Replay the last fix: import TaskItem instead of Task", "TaskItem as T2")
    fixed = apply(w.files[path], dict(f.data)["fixes"])
    imp = next(i for i in extract(path, fixed).imports if i.module == "@/apis/task/types")
    assert (imp.name, imp.local) == ("TaskItem", "T2")
    # a CommonJS destructuring is renamed in its own syntax
    legacy = "src/legacy/tasks.js"
    patterns = L.Patterns([rec("../apis/task/type", ["Task"], file=legacy, kind="rename", target="Task=TaskItem")])
    (f,) = L.match_imports(w.facts(legacy, with_module_spans=False), patterns, w.target_of(legacy))
    fixed = apply(w.files[legacy], dict(f.data)["fixes"])
    assert fixed.startswith("const { TaskItem: Task } = require(")
    assert [(i.name, i.local) for i in extract(legacy, fixed).imports] == [("TaskItem", "Task")]


def test_names_decide_and_a_pattern_without_names_matches_any_import_of_the_module():
    w = Project()
    path = "src/views/board/TaskBoard.ts"
    facts, target_of = w.facts(path), w.target_of(path)
    auth = lambda names: L.Patterns([rec("next-auth/client", names, reason="missing_export")])  # noqa: E731
    assert L.match_imports(facts, auth(["getSession"]), target_of) == ()
    (f,) = L.match_imports(facts, auth(["signIn", "getSession"]), target_of)
    assert f.message.startswith("import { signIn } from 'next-auth/client' repeats")
    (f,) = L.match_imports(facts, auth([]), target_of)
    assert f.message.startswith("import { signIn, useAuth } from 'next-auth/client'")
    # a package matches by its spelling only: another subpath is another module
    assert L.match_imports(facts, L.Patterns([rec("next-auth/react", [])]), target_of) == ()


def test_an_import_a_recorded_fix_made_valid_is_not_a_repeat():
    w = Project()
    path = "src/views/board/TaskBoard.ts"
    made = L.Patterns([rec("@/apis/user", ["getUser"], reason="missing_export", kind="append_to_file",
                           target="src/apis/user.ts")])
    assert L.match_imports(w.facts(path), made, w.target_of(path)) == ()
    elsewhere = L.Patterns([rec("@/apis/user", ["getUser"], reason="missing_export", kind="append_to_file",
                                target="src/apis/other.ts")])
    assert len(L.match_imports(w.facts(path), elsewhere, w.target_of(path))) == 1


def test_severity_turns_to_error_from_the_configured_count_and_history_is_on_the_finding():
    w = Project()
    path = "src/views/board/TaskBoard.ts"
    recs = [rec("next-auth/client", ["useAuth"], reason="missing_export", run=f"r{i}",
                ts=f"2026-04-0{i}T12:00:00.000Z", file=f"src/p{i}.tsx", line=i) for i in range(1, 4)]
    facts, target_of = w.facts(path), w.target_of(path)
    assert L.match_imports(facts, L.Patterns(recs[:2]), target_of, error_from=3)[0].severity == "warning"
    (f,) = L.match_imports(facts, L.Patterns(recs), target_of, error_from=3)
    assert f.severity == "error"
    assert L.match_imports(facts, L.Patterns(recs), target_of)[0].severity == "warning"
    ((key, source, names, reason, count, first, last, records),) = dict(f.data)["history"]
    assert (source, names, count, first[:10], last[:10]) == ("next-auth/client", ("useAuth",), 3, "2026-04-01",
                                                              "2026-04-03")
    assert [r[4:6] for r in records] == [("src/p1.tsx", 1), ("src/p2.tsx", 2), ("src/p3.tsx", 3)]
    hover = L.hover_text(f, limit=2)
    assert "seen 3 times" in hover and "src/p3.tsx:3" in hover and "src/p1.tsx" not in hover
    assert "1 earlier" in hover
    assert L.match_imports(facts, L.Patterns(), target_of) == ()


def test_python_imports_match_and_relative_ones_are_respelled():
    w = Project(textwrap.dedent("""\
        //- app/api/routes.py
        from ..models import Invoice
        from app.services.billing import charge
        """))
    path = "app/api/routes.py"
    billing = rec("app.services.billing", ["charge"], file="app/jobs.py", kind="rewrite_import", target="app.billing")
    patterns = L.Patterns([rec(".models", ["Invoice"], file="app/views.py", reason="missing_export", kind="rename",
                               target="InvoiceRecord"), billing])
    findings = L.match_imports(w.facts(path, with_module_spans=False), patterns, w.target_of(path))
    assert [f.message.split(" repeats")[0] for f in findings] == [
        "import { Invoice } from '..models'", "import { charge } from 'app.services.billing'"]
    fixed = apply(w.files[path], dict(findings[0].data)["fixes"])
    assert fixed.startswith("from ..models import InvoiceRecord as Invoice\n")
    bare = w.facts(path, with_module_spans=False)
    bare = replace(bare, imports=tuple(replace(i, module_span=None) for i in bare.imports))
    (f,) = L.match_imports(bare, L.Patterns([billing]), w.target_of(path))
    assert dict(f.data)["fixes"] == ()  # no specifier span: nothing rewritten blindly
    # with the dotted name's span (or a quoted string's: the quotes are kept), the module is rewritten
    facts = w.facts(path)
    (f,) = L.match_imports(facts, L.Patterns([billing]), w.target_of(path))
    assert apply(w.files[path], dict(f.data)["fixes"]).endswith("from app.billing import charge\n")
    quoted = replace(facts, imports=tuple(replace(i, module_span=Span(i.module_span.start - 1, i.module_span.end + 1))
                                          for i in facts.imports))
    (f,) = L.match_imports(quoted, L.Patterns([billing]), w.target_of(path))
    ((_, _, start, end, new),) = dict(f.data)["fixes"]
    assert (start, end, new) == (facts.imports[1].module_span.start, facts.imports[1].module_span.end, "app.billing")


def test_respell():
    assert L.respell("./types", "src/a/x.ts", "src/b/y.ts") == "../a/types"
    assert L.respell("../lib/http", "src/a/x.ts", "src/a/deep/y.ts") == "../../lib/http"
    assert L.respell("./", "src/a/x.ts", "src/y.ts") == "./a/"
    assert L.respell("../../../../x", "src/a/x.ts", "src/y.ts") == "../../../../x"  # out of the workspace
    assert L.respell("@/x", "src/a/x.ts", "y.ts") == "@/x"
    assert L.respell(".models", "app/views.py", "app/api/routes.py", python=True) == "..models"
    assert L.respell("..core", "app/api/v1/a.py", "app/b.py", python=True) == ".api.core"


# ---------------------------------------------------------------- the prompt


def test_the_prompt_lists_the_top_ten_and_is_byte_identical_for_the_same_records():
    recs = []
    for i in range(12):
        for j in range(12 - i):
            recs.append(rec(f"@/hallucinated/module{i:02d}", [f"thing{i}"], run=f"r{i}-{j}",
                            ts=f"2026-03-{j + 1:02d}T08:00:00.000Z", kind="rewrite_import",
                            target=f"@/real/module{i:02d}", reason="missing_export" if i % 2 else "file_not_found"))
    text = L.prompt(L.Patterns(recs))
    for seed in range(3):
        shuffled = recs[:]
        random.Random(seed).shuffle(shuffled)
        assert L.prompt(L.Patterns(shuffled)) == text
    lines = text.splitlines()
    assert "DO NOT REPEAT" in lines[0] and lines[-1].startswith("=== End")
    dont = [ln for ln in lines if ". DO NOT: " in ln]
    assert len(dont) == 10
    assert dont[0] == "1. DO NOT: import { thing0 } from '@/hallucinated/module00'"
    assert dont[9].startswith("10. DO NOT: import { thing9 }")
    i = lines.index(dont[1])
    assert lines[i + 1] == "   Why: the module had no such export (seen 11 times, last 2026-03-11)"
    assert lines[i + 2] == "   Instead: import from '@/real/module01'"
    assert "(2 more pattern(s) not shown" in text
    assert L.prompt(L.Patterns()) == ""
    assert len([ln for ln in L.prompt(L.Patterns(recs), limit=3).splitlines() if "DO NOT: " in ln]) == 3
