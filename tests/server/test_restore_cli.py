"""Snapshots and `specward restore RUN_ID`: real runs of `specward generate` against the
LLM stub (tests/llm_stub.py), then `specward restore` as a subprocess on real files."""

from __future__ import annotations

import json
from pathlib import Path

from llm_stub import LLMStub
from test_generate_cli import (
    SPEC_MD,
    VALID,
    base_env,
    fenced,
    runs,
    specward,
    write_spec,
    ws,  # noqa: F401 - the fixture: a workspace with a .git folder
)

OTHER_SPEC = SPEC_MD.replace("People lose their notes.", "People forget their notes.")


def spec_answer(md: str) -> str:
    return "````md path=specs/x.md\n" + md + "````\n"


def generate_spec_over_existing(ws: Path, tmp_path: Path) -> str:
    (ws / "specs").mkdir(parents=True)
    (ws / "specs/my-notes.md").write_text("# My own notes spec\n")
    with LLMStub([spec_answer(OTHER_SPEC)]) as stub:
        out = specward("generate", "spec", "notes", "--slug", "my-notes", "--yes", cwd=ws,
                       env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    [rec] = runs(ws)
    return rec.run_id


def test_snapshot_and_restore_an_overwritten_file(ws: Path, tmp_path: Path):
    run_id = generate_spec_over_existing(ws, tmp_path)
    assert (ws / "specs/my-notes.md").read_text() == OTHER_SPEC
    manifest = json.loads((ws / f".specward/snapshots/{run_id}/manifest.json").read_text())
    [entry] = manifest["files"]
    assert entry["path"] == "specs/my-notes.md" and entry["existed"] is True and entry["written"].startswith("sha256:")
    out = specward("restore", run_id, cwd=ws, env=base_env(tmp_path))  # no terminal, no --yes: asks, no
    assert out.returncode == 1 and "pass --yes" in out.stderr
    assert "specward will overwrite specs/my-notes.md" in out.stdout and "+# My own notes spec" in out.stdout
    assert (ws / "specs/my-notes.md").read_text() == OTHER_SPEC
    out = specward("restore", run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 0, out.stderr
    assert (ws / "specs/my-notes.md").read_text() == "# My own notes spec\n"
    again = specward("restore", run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert again.returncode == 0 and "already as it was before" in again.stderr


def test_restore_removes_a_created_file_and_leaves_later_work_alone(ws: Path, tmp_path: Path):
    write_spec(ws)
    with LLMStub([fenced(VALID)]) as stub:
        out = specward("generate", "contract", "specs/notes.md", "--yes", cwd=ws, env=base_env(tmp_path, **stub.env()))
    assert out.returncode == 0, out.stderr
    [rec] = runs(ws)
    contract = ws / "specs/notes.dsl.json"
    contract.write_text(contract.read_text() + " ")  # the user's later edit
    out = specward("restore", rec.run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 1
    assert "specs/notes.dsl.json: changed since run" in out.stderr and "left alone" in out.stderr
    assert contract.read_text().endswith(" ")
    contract.write_text(contract.read_text()[:-1])  # back to what the run wrote: now removed
    out = specward("restore", rec.run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "removed specs/notes.dsl.json" in out.stderr and not contract.exists()
    assert (ws / "specs/notes.md").read_text() == SPEC_MD  # the spec was never a target


def test_a_damaged_manifest_changes_nothing(ws: Path, tmp_path: Path):
    run_id = generate_spec_over_existing(ws, tmp_path)
    manifest = ws / f".specward/snapshots/{run_id}/manifest.json"
    text = manifest.read_text()
    manifest.write_text(text[: len(text) // 2])  # half-written
    out = specward("restore", run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "damaged or half-written" in out.stderr and "nothing changed" in out.stderr
    assert (ws / "specs/my-notes.md").read_text() == OTHER_SPEC
    # a manifest that names a path out of the workspace: refused, nothing changed
    doc = json.loads(text)
    doc["files"][0]["path"] = "../outside.md"
    manifest.write_text(json.dumps(doc))
    out = specward("restore", run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "nothing changed" in out.stderr
    assert not (ws.parent / "outside.md").exists() and (ws / "specs/my-notes.md").read_text() == OTHER_SPEC
    # a kept copy that was tampered with: refused
    doc["files"][0]["path"] = "specs/my-notes.md"
    manifest.write_text(json.dumps(doc))
    (manifest.parent / doc["files"][0]["blob"]).write_text("something else\n")
    out = specward("restore", run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "missing or damaged" in out.stderr
    assert (ws / "specs/my-notes.md").read_text() == OTHER_SPEC


def test_unknown_run_and_bad_ids(ws: Path, tmp_path: Path):
    out = specward("restore", "20260101T000000Z-abcdef", "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "no snapshot of run" in out.stderr
    out = specward("restore", "../../etc", "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "not a run id" in out.stderr


def test_a_symlinked_target_out_of_the_workspace_is_not_restored(ws: Path, tmp_path: Path):
    run_id = generate_spec_over_existing(ws, tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "my-notes.md").write_text(OTHER_SPEC)
    specs = ws / "specs"
    (specs / "my-notes.md").rename(tmp_path / "kept.md")
    specs.rmdir()
    specs.symlink_to(outside)
    out = specward("restore", run_id, "--yes", cwd=ws, env=base_env(tmp_path))
    assert out.returncode == 2 and "symlink" in out.stderr
    assert (outside / "my-notes.md").read_text() == OTHER_SPEC
