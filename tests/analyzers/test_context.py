"""Context manifests' pure rules: the schema, the capture plan, what changed since an entry
was read, what a task lacks, and forbidden symbols found in the parse."""

from __future__ import annotations

import json

from specward.analyzers.context import (
    Current,
    Entry,
    Manifest,
    context_hash,
    dumps,
    forbidden_uses,
    manifest_findings,
    parse_manifest,
    plan_capture,
    requirements_met,
    sha256_text,
    staleness,
)

A = sha256_text("export const a = 1;\n")
B = sha256_text("export const a = 2;\n")


def entry(path="src/a.ts", sha=A, source="target", confidence=1.0, blob="b1", commit="c1") -> Entry:
    return Entry(path=path, sha256=sha, blob=blob, commit=commit, read_at="2026-12-02T06:00:00+00:00",
                 source=source, confidence=confidence)


def manifest(*entries: Entry, active=False, **kw) -> Manifest:
    return Manifest(task="payments", created_at="2026-12-02T06:00:00+00:00", commit="c1", targets=["src/a.ts"],
                    entries=list(entries), context_hash=context_hash(entries), active=active, **kw)


def test_a_manifest_round_trips_and_its_hash_covers_every_entry():
    m = manifest(entry(), entry("src/b.ts", B, "dependency", 0.9))
    back, problems = parse_manifest(".specward/context/p.json", dumps(m))
    assert problems == [] and back == m
    assert context_hash(m.entries) != context_hash([entry()])
    assert context_hash(reversed(m.entries)) == m.context_hash  # order does not matter


def test_broken_manifests_say_what_is_wrong_and_where():
    path = ".specward/context/p.json"
    assert parse_manifest(path, "{")[0] is None
    assert "not JSON" in parse_manifest(path, "{")[1][0].message
    data = json.loads(dumps(manifest(entry(), entry("src/b.ts", B))))
    data["entries"][1]["confidence"] = 1.5
    text = json.dumps(data, indent=2)
    m, (problem,) = parse_manifest(path, text)
    assert m is None and problem.code == "context-invalid"
    assert "entries.1.confidence" in problem.message
    assert text.encode()[problem.span.start:problem.span.end] == b'"path": "src/b.ts"'
    data["entries"][1]["confidence"] = 0.5  # valid again, but the hash no longer matches the entries
    data["entries"][1]["sha256"] = A
    m, (problem,) = parse_manifest(path, json.dumps(data))
    assert m is not None and "context_hash does not match" in problem.message
    data["entries"][0]["path"] = "../outside.ts"
    assert "not a workspace-relative path" in parse_manifest(path, json.dumps(data))[1][0].message


def test_the_capture_plan_follows_imports_to_the_depth_and_adds_configs_and_includes():
    graph = {"src/a.ts": ["src/b.ts", "src/c.ts"], "src/b.ts": ["src/d.ts"], "src/d.ts": ["src/e.ts"], "src/c.ts": []}
    configs = {"src/a.ts": ["tsconfig.json", "package.json"], "src/b.ts": ["tsconfig.json"]}
    plan = plan_capture(["src/a.ts"], 2, ["docs/payments.md", "src/c.ts"], lambda p: graph.get(p, []),
                        lambda p: configs.get(p, []))
    got = {p.path: (p.source, p.confidence, p.hops) for p in plan}
    assert got == {
        "src/a.ts": ("target", 1.0, 0),
        "src/b.ts": ("dependency", 0.9, 1), "src/c.ts": ("dependency", 1.0, 0),  # an include is named: sure
        "src/d.ts": ("dependency", 0.675, 2),  # src/e.ts is three hops away
        "tsconfig.json": ("config", 0.6, 0), "package.json": ("config", 0.6, 0),
        "docs/payments.md": ("doc", 1.0, 0),
    }
    assert [p.path for p in plan_capture(["src/a.ts"], 0, [], graph.get, lambda p: [])] == ["src/a.ts"]


def test_what_changed_since_an_entry_was_read():
    e = entry()
    assert staleness(e, Current(A, A, "c1", "b1")) is None
    assert staleness(e, Current(A, A, "c2", "b1")) is None  # a new commit that leaves the file alone
    assert staleness(e, Current(B, A, "c1", "b1")) == "edited in an unsaved buffer"
    assert staleness(e, Current(B, B, "c1", "b1")) == "edited (not committed)"
    assert staleness(e, Current(B, B, "c2deadbeef", "b2")) == "changed by a new commit c2deadb"
    assert staleness(e, Current(None)) == "deleted"
    assert staleness(e, Current(None, renamed_to="src/z.ts")) == "renamed to src/z.ts"
    outside_git = entry(blob=None, commit=None)
    assert staleness(outside_git, Current(B)) == "edited (not committed)"


def test_requirements_name_the_include_that_adds_them():
    m = manifest(entry())
    defined = {"retryCount": ["src/config/paymentConfig.ts"], "rateLimit": ["src/a.ts"]}
    missing = requirements_met(m, ["src/middleware/rateLimit.ts"], ["retryCount", "rateLimit", "nowhere"],
                               lambda s: defined.get(s, []))
    assert [(x.what, x.remedy) for x in missing] == [
        ("required file src/middleware/rateLimit.ts is not in the context", "--include src/middleware/rateLimit.ts"),
        ("required symbol retryCount (defined in src/config/paymentConfig.ts) is not in the context",
         "--include src/config/paymentConfig.ts"),
        ("required symbol nowhere is defined in no workspace file", None),
    ]


def test_findings_on_a_manifest_are_placed_at_their_entries():
    m = manifest(entry(), entry("src/b.ts", B, "dependency", 0.3), active=True)
    text = dumps(m)
    missing = requirements_met(m, ["src/c.ts"], [], lambda s: [])
    found = manifest_findings(".specward/context/p.json", text, m, {"src/a.ts": "deleted"}, 0.5, missing)
    assert [(f.code, f.severity) for f in found] == [("stale-context", "warning"),
                                                      ("low-confidence-context", "information"),
                                                      ("incomplete-context", "warning")]
    at = [text.encode()[f.span.start:f.span.end].decode() for f in found]
    assert at[:2] == ['"path": "src/a.ts"', '"path": "src/b.ts"'] and at[2] == '"targets"'
    assert "deleted" in found[0].message and "needs review" in found[1].message
    assert "--include src/c.ts" in found[2].message
    inactive = m.model_copy(update={"active": False})
    assert [f.code for f in manifest_findings("p", text, inactive, {}, 0.5, missing)] == ["low-confidence-context"]


def test_forbidden_symbols_are_found_in_the_parse_not_in_strings_or_comments():
    ts = ('import { legacyCharge } from "./legacy";\n'
          '// legacyCharge is gone\n'
          'const s = "legacyCharge";\n'
          'export const pay = () => billing.legacyCharge(1) + legacyCharge(2);\n')
    found = forbidden_uses("src/pay.ts", ts, frozenset({"legacyCharge"}), "payments", "m.json")
    assert [ts.encode()[f.span.start:f.span.end].decode() for f in found] == ["legacyCharge"] * 3
    assert [ts.encode()[:f.span.start].count(b"\n") for f in found] == [0, 3, 3]
    py = "from billing import legacy_charge\n\n# legacy_charge\ndef pay():\n    return legacy_charge('legacy_charge')\n"
    found = forbidden_uses("pay.py", py, frozenset({"legacy_charge"}), "payments", "m.json")
    assert [py.encode()[:f.span.start].count(b"\n") for f in found] == [0, 4]
    vue = '<template><p>legacyCharge</p></template>\n<script setup lang="ts">\nlegacyCharge()\n</script>\n'
    (f,) = forbidden_uses("Pay.vue", vue, frozenset({"legacyCharge"}), "payments", "m.json")
    assert vue.encode()[f.span.start:f.span.end] == b"legacyCharge" and f.span.start > vue.index("<script")
    assert forbidden_uses("pay.py", "\udcff\x00 garbage(", frozenset({"x"}), "t", "m") == []


def test_a_patch_outside_the_context_or_using_a_forbidden_symbol_is_refused_with_reasons():
    from specward.analyzers.context import patch_refusals

    m = manifest(entry(), active=True)
    ok = {"src/a.ts": "export const a = 3;\n"}
    assert patch_refusals(m, "m.json", frozenset({"legacyCharge"}), ok) == []
    bad = {"src/a.ts": "import { legacyCharge } from './l';\nexport const a = legacyCharge();\n", "src/z.ts": None}
    assert patch_refusals(m, "m.json", frozenset({"legacyCharge"}), bad) == [
        "src/a.ts:1: legacyCharge is forbidden to task 'payments' (m.json)",
        "src/a.ts:2: legacyCharge is forbidden to task 'payments' (m.json)",
        "src/z.ts is not in the context of task 'payments' (m.json)",
    ]
