"""Inline suppression comments through the workspace index (``WorkspaceIndex.findings``), its
updates, and the real ``specward check``: the editor and CI take the same findings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

CONTRACT = """{
  "version": "1.0",
  "feature": { "id": "notes", "title": "Notes", "description": "Reading notes" },
  "models": [],
  "endpoints": [
    {
      "id": "EP-001", "method": "GET", "path": "/api/notes", "description": "List notes",
      "auth": false, "successStatus": 200, "successDescription": "The notes"
    }
  ]
}
"""
ABOVE = "// specward: ignore[phantom-api]\nexport const b = () => fetch('/api/nope');\n"
SAME = "export const c = () => fetch('/api/gone'); // specward: ignore[phantom-api]\n"
CLEAN = "export const a = () => fetch('/api/notes');\n"
UNUSED = "// specward: ignore[phantom-api]\nexport const d = () => fetch('/api/notes');\n"
PHANTOM = "export const e = () => fetch('/api/nope');\n"

OPENAPI = """openapi: 3.0.3
info:
  title: Notes
  version: "1.0"
paths:
  /api/notes:
    get:
      responses:
        "200":
          description: the notes
  /api/admin:
    # the admin console (another repository) calls this one
    # specward: ignore[unused-endpoint]
    get:
      responses:
        "200":
          description: admin
  /api/stats:
    get:
      responses:
        "200":
          description: stats
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws/contracts").mkdir(parents=True)
    (tmp_path / "ws/contracts/notes.dsl.json").write_text(CONTRACT)
    src = tmp_path / "ws/src"
    src.mkdir()
    (src / "above.ts").write_text(CLEAN + ABOVE)
    (src / "same.ts").write_text(CLEAN + SAME)
    (src / "unused.ts").write_text(UNUSED)
    (src / "plain.ts").write_text(PHANTOM)
    return tmp_path / "ws"


def codes(idx: WorkspaceIndex, rel: str) -> list[str]:
    return sorted(f.code for f in idx.findings(rel))


def built(root: Path, **kw) -> WorkspaceIndex:
    idx = WorkspaceIndex(root, use_cache=False, **kw)
    idx.build()
    return idx


def test_suppressed_on_the_line_and_on_the_line_above(root: Path):
    idx = built(root)
    # the calls are phantom (the index judged them) but their findings are suppressed
    assert [st.status for st in idx.statuses["src/above.ts"]] == ["matched", "phantom"]
    assert [st.status for st in idx.statuses["src/same.ts"]] == ["matched", "phantom"]
    assert codes(idx, "src/above.ts") == []
    assert codes(idx, "src/same.ts") == []
    assert codes(idx, "src/plain.ts") == ["phantom-api"]  # no comment, no suppression
    assert "src/plain.ts" not in idx.suppressions  # files without a comment cost a dict lookup
    # what a judge of generated code reads (a comment cannot hide its own mistake there)
    assert sorted(f.code for f in idx.findings("src/above.ts", suppress=False)) == ["phantom-api"]


def test_an_unused_suppression_in_a_file_with_no_finding(root: Path):
    idx = built(root)
    assert "src/unused.ts" in idx.finding_paths()
    (f,) = idx.findings("src/unused.ts")
    assert f.code == "unused-suppression" and f.severity == "warning"
    text = (root / "src/unused.ts").read_bytes()
    assert text[f.span.start:f.span.end] == b"phantom-api" and f.span.start < text.index(b"\n")
    assert ("src/unused.ts", "unused-suppression") in {(g.file, g.code) for g in idx.all_findings()}


def test_a_code_turned_off_makes_its_suppression_unused(root: Path):
    idx = built(root, severity={"phantom-api": "off"})
    assert codes(idx, "src/above.ts") == ["unused-suppression"]
    quiet = built(root, severity={"unused-suppression": "off"})
    assert codes(quiet, "src/unused.ts") == []
    loud = built(root, severity={"unused-suppression": "error"})
    assert [f.severity for f in loud.findings("src/unused.ts")] == ["error"]


def test_a_contract_comment_suppresses_an_unused_endpoint(tmp_path: Path):
    root = tmp_path / "ws"
    (root / "contracts").mkdir(parents=True)
    (root / "contracts/openapi.yaml").write_text(OPENAPI)
    (root / "src").mkdir()
    (root / "src/a.ts").write_text(CLEAN)
    idx = built(root)
    found = [f for f in idx.findings("contracts/openapi.yaml") if f.code == "unused-endpoint"]
    assert [f.message for f in found] == ["GET /api/stats is not called anywhere in the workspace"]
    # an edit of the contract that drops the comment: the endpoint is reported again
    affected = idx.update("contracts/openapi.yaml", OPENAPI.replace("    # specward: ignore[unused-endpoint]\n", ""))
    assert "contracts/openapi.yaml" in affected
    assert len([f for f in idx.findings("contracts/openapi.yaml") if f.code == "unused-endpoint"]) == 2
    assert "contracts/openapi.yaml" not in idx.suppressions


def test_edits_that_add_and_remove_a_suppression(root: Path):
    idx = built(root)
    rel = "src/plain.ts"
    # a comment added on the line above: only a comment changed (the facts only moved)
    text = "// specward: ignore[phantom-api]\n" + PHANTOM
    assert rel in idx.update(rel, text, incremental=True)
    assert codes(idx, rel) == []
    # the code changed in the comment: nothing is suppressed, the typo is reported
    typo = text.replace("phantom-api", "phantom-apx")
    assert rel in idx.update(rel, typo, incremental=True)
    assert codes(idx, rel) == ["phantom-api", "unknown-suppression"]
    # the comment removed
    assert rel in idx.update(rel, PHANTOM, incremental=True)
    assert codes(idx, rel) == ["phantom-api"]
    assert rel not in idx.suppressions
    # a trailing comment, then the call fixed under it: the suppression is unused
    assert rel in idx.update(rel, PHANTOM.rstrip("\n") + " // specward: ignore[phantom-api]\n", incremental=True)
    assert codes(idx, rel) == []
    fixed = "export const e = () => fetch('/api/notes'); // specward: ignore[phantom-api]\n"
    assert rel in idx.update(rel, fixed, incremental=True)
    assert codes(idx, rel) == ["unused-suppression"]
    # the same as a fresh index of that text
    (root / rel).write_text(fixed)
    assert [(f.code, f.span) for f in built(root).findings(rel)] == [(f.code, f.span) for f in idx.findings(rel)]


def test_an_edit_of_a_comment_only_returns_the_file_as_affected(root: Path):
    idx = built(root)
    rel = "src/unused.ts"
    # the listed code changes (method-mismatch: still unused, but another finding)
    edited = UNUSED.replace("phantom-api", "method-mismatch")
    assert rel in idx.update(rel, edited, incremental=True)
    (f,) = idx.findings(rel)
    assert f.message == "unused suppression: no method-mismatch finding on the line below"
    # the file deleted: its suppressions go with it
    idx.update(rel, None)
    assert rel not in idx.suppressions and rel not in idx.finding_paths()


def test_specward_check_prints_the_same(root: Path):
    (root / ".git").mkdir()
    out = subprocess.run([sys.executable, "-m", "specward.server", "check", "--no-cache"], cwd=root,
                         capture_output=True, text=True, timeout=120)
    lines = out.stdout.splitlines()
    findings = sorted(line for line in lines if "[" in line.split(" ")[1])
    assert findings == [
        "src/plain.ts:1:30: error[phantom-api] GET /api/nope is not in the contract (nearest: GET /api/notes)",
        "src/unused.ts:1:21: warning[unused-suppression] unused suppression: no phantom-api finding on the line below",
    ], out.stderr
    assert out.returncode == 1


def test_the_score_of_generated_files_ignores_their_suppressions(root: Path):
    from specward.server.score_cli import measure_compliance

    idx = built(root)
    per, _, found = measure_compliance(idx, ("src/above.ts", "src/plain.ts"))
    assert [(p.path, p.errors) for p in per] == [("src/above.ts", 1), ("src/plain.ts", 1)]
    assert sorted(f.code for f in found) == ["phantom-api", "phantom-api"]
