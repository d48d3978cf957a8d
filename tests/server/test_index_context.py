"""Context manifests on real git repositories: ``specward context capture/check`` through the
real command line, and every staleness cause (an edit on disk, an uncommitted edit, an
unsaved buffer, a delete, a rename, a new commit) seen by the index, with the findings an
active manifest puts on the files it governs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from specward.server.engine.index import WorkspaceIndex

from conftest import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

CONFIG = """[context]
confidence_threshold = 0.7

[[context.requires]]
targets = ["src/payments/**"]
files = ["src/middleware/rateLimit.ts"]
symbols = ["retryCount"]

[[context.forbids]]
targets = ["src/payments/**"]
symbols = ["legacyCharge"]
"""

FILES = {
    "specward.toml": CONFIG,
    "package.json": '{"name": "shop", "version": "1.0.0"}\n',
    "src/config/paymentConfig.ts": "export const retryCount = 3;\nexport const currency = 'EUR';\n",
    "src/middleware/rateLimit.ts": "export function rateLimit(limit: number) {\n  return limit > 0;\n}\n",
    "src/payments/charge.ts": ('import { money } from "./money";\n'
                               'import { round } from "../util/round";\n\n'
                               "export function charge(amount: number) {\n  return money(round(amount));\n}\n"),
    "src/payments/money.ts": "export function money(n: number) {\n  return n.toFixed(2);\n}\n",
    "src/util/round.ts": 'import { clamp } from "./clamp";\n\nexport const round = (n: number) => clamp(Math.round(n));\n',
    "src/util/clamp.ts": "export const clamp = (n: number) => Math.max(0, n);\n",
    "src/legacy/billing.ts": "export function legacyCharge(n: number) {\n  return n;\n}\n",
    "src/reports/summary.ts": "export const summary = () => 'ok';\n",
}


def make_repo(root: Path) -> Path:
    """The shop as a git repository of one commit."""
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".gitignore").write_text(".specward/cache.sqlite*\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "shop")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop")


def specward(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "specward.server", *args], cwd=root, capture_output=True, text=True,
                          timeout=120)


def test_capture_follows_the_import_graph_and_repeats_with_the_includes_the_check_asks_for(repo: Path):
    once = specward(repo, "context", "capture", "src/payments/charge.ts", "--rounds", "1", "--task", "retry payments")
    assert once.returncode == 1, once.stderr
    path = once.stdout.splitlines()[0]
    assert path == ".specward/context/retry-payments.json"
    assert "remedy: --include src/middleware/rateLimit.ts" in once.stdout
    assert "remedy: --include src/config/paymentConfig.ts" in once.stdout
    m = json.loads((repo / path).read_text())
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    got = {e["path"]: (e["source"], e["confidence"]) for e in m["entries"]}
    assert got == {"src/payments/charge.ts": ("target", 1.0), "src/payments/money.ts": ("dependency", 0.9),
                   "src/util/round.ts": ("dependency", 0.9), "src/util/clamp.ts": ("dependency", 0.675),
                   "package.json": ("config", 0.6)}
    blob = git(repo, "rev-parse", "HEAD:src/payments/charge.ts").stdout.strip()
    first = m["entries"][0]
    assert (first["blob"], first["commit"], m["commit"]) == (blob, head, head)
    import hashlib
    assert first["sha256"] == hashlib.sha256(FILES["src/payments/charge.ts"].encode()).hexdigest()

    rounds = specward(repo, "context", "capture", "src/payments/charge.ts", "--task", "retry payments")
    assert rounds.returncode == 0, rounds.stdout + rounds.stderr
    assert "round 1: adding src/middleware/rateLimit.ts, src/config/paymentConfig.ts" in rounds.stderr
    m = json.loads((repo / path).read_text())
    assert m["includes"] == ["src/middleware/rateLimit.ts", "src/config/paymentConfig.ts"]
    ok = specward(repo, "context", "check", path)
    assert ok.returncode == 0 and "is complete" in ok.stdout

    (repo / "src/util/clamp.ts").write_text("export const clamp = (n: number) => Math.max(1, n);\n")
    stale = specward(repo, "context", "check", path)
    assert stale.returncode == 1
    assert "missing: src/util/clamp.ts changed since it was read: edited (not committed)" in stale.stdout
    (repo / path).write_text("{ half a manifest")
    broken = specward(repo, "context", "check", path)
    assert broken.returncode == 2 and "invalid context manifest: not JSON" in broken.stderr


def findings(index: WorkspaceIndex, rel: str) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in index.findings(rel)
            if f.code in ("stale-context", "out-of-context-edit", "forbidden-symbol", "incomplete-context",
                          "low-confidence-context", "context-invalid")]


def captured(repo: Path, *extra: str) -> str:
    out = specward(repo, "context", "capture", "src/payments/charge.ts", "--include", "src/middleware/rateLimit.ts",
                   "--include", "src/config/paymentConfig.ts", "--task", "pay", *extra)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout.splitlines()[0]


def test_every_cause_of_staleness_is_named_on_the_entry(repo: Path):
    manifest = captured(repo)
    index = WorkspaceIndex(repo, use_cache=False)
    index.build()
    assert [c for c, _ in findings(index, manifest)] == ["low-confidence-context"] * 2  # clamp.ts, package.json

    def change_of(entry: str) -> str | None:
        got = [f for f in index.findings(manifest) if f.code == "stale-context" and dict(f.data)["entry"] == entry]
        return dict(got[0].data)["change"] if got else None

    # an unsaved buffer: the editor's text, not the disk's
    money = "src/payments/money.ts"
    affected = index.update(money, FILES[money].replace("2", "3"))
    assert manifest in affected and change_of(money) == "edited in an unsaved buffer"
    index.update(money, FILES[money])  # typed back: fresh again
    assert change_of(money) is None
    # an edit saved to disk, not committed
    (repo / money).write_text(FILES[money].replace("2", "4"))
    index.update_from_disk(money)
    assert change_of(money) == "edited (not committed)"
    # committed
    git(repo, "commit", "-qam", "four digits")
    index.update_from_disk(money)
    head = git(repo, "rev-parse", "--short=7", "HEAD").stdout.strip()
    assert change_of(money) == f"changed by a new commit {head}"
    # deleted
    (repo / "src/util/clamp.ts").unlink()
    index.update_from_disk("src/util/clamp.ts")
    assert change_of("src/util/clamp.ts") == "deleted"
    # renamed (git sees it)
    git(repo, "mv", "src/middleware/rateLimit.ts", "src/middleware/limits.ts")
    index.update_from_disk("src/middleware/rateLimit.ts")
    index.update_from_disk("src/middleware/limits.ts")
    assert change_of("src/middleware/rateLimit.ts") == "renamed to src/middleware/limits.ts"
    assert change_of("src/payments/charge.ts") is None  # untouched entries stay fresh
    # the same through the command line, which says what to do
    out = specward(repo, "context", "check", manifest)
    assert out.returncode == 1 and out.stdout.count("remedy: re-capture the manifest") == 3


def test_an_active_task_marks_edits_outside_its_context_changed_files_and_forbidden_symbols(repo: Path):
    manifest = captured(repo, "--activate")
    index = WorkspaceIndex(repo, use_cache=False)
    index.build()
    assert findings(index, "src/reports/summary.ts") == []
    # typing in a file the task was not given
    index.update("src/reports/summary.ts", "export const summary = () => 'changed';\n")
    (code, msg), = findings(index, "src/reports/summary.ts")
    assert code == "out-of-context-edit" and "'pay'" in msg
    # a new file on disk, outside the context
    (repo / "src/payments/refund.ts").write_text("import { legacyCharge } from '../legacy/billing';\n"
                                                 "export const refund = () => legacyCharge(-1);\n")
    index.update_from_disk("src/payments/refund.ts")
    got = findings(index, "src/payments/refund.ts")
    assert [c for c, _ in got] == ["out-of-context-edit", "forbidden-symbol", "forbidden-symbol"]
    assert got[1][1] == f"legacyCharge is forbidden to task 'pay' ({manifest})"
    # a file the task read, changed: marked on the file itself too
    index.update("src/payments/money.ts", "export const money = (n: number) => `${n}`;\n")
    (code, msg), = findings(index, "src/payments/money.ts")
    assert code == "stale-context" and "edited in an unsaved buffer" in msg
    # a requirement the manifest no longer meets (configuration now asks for more)
    (repo / "specward.toml").write_text(CONFIG.replace('symbols = ["retryCount"]', 'symbols = ["retryCount", "clamp"]')
                                        .replace("confidence_threshold = 0.7", "confidence_threshold = 0.7\n"))
    index.update_from_disk("specward.toml")
    assert not any(c == "incomplete-context" for c, _ in findings(index, manifest))  # clamp.ts is in the context
    (repo / "specward.toml").write_text(CONFIG + '\n[[context_requires]]\ntargets = ["src/payments/**"]\nsymbols = ["summary"]\n')
    index.update_from_disk("specward.toml")
    incomplete = [m for c, m in findings(index, manifest) if c == "incomplete-context"]
    assert incomplete == ["task 'pay': required symbol summary (defined in src/reports/summary.ts) is not in the "
                          "context: add it with --include src/reports/summary.ts"]
    # typed into a file of the context, the symbol is there: the requirement is met, live
    index.update("src/payments/money.ts", FILES["src/payments/money.ts"] + "export const summary = 'in money';\n")
    assert not any(c == "incomplete-context" for c, _ in findings(index, manifest))
    index.update("src/payments/money.ts", "export const money = (n: number) => `${n}`;\n")
    assert any(c == "incomplete-context" for c, _ in findings(index, manifest))
    # a generated patch is vetted against the active task before it is applied
    from specward.server.engine.contexts import vet_patch

    assert vet_patch(index, {"src/payments/money.ts": "export const money = (n: number) => n;\n"}) == []
    assert vet_patch(index, {"src/reports/summary.ts": "export const s = legacyCharge;\n"}) == [
        f"src/reports/summary.ts is not in the context of task 'pay' ({manifest})",
        f"src/reports/summary.ts:1: legacyCharge is forbidden to task 'pay' ({manifest})"]
    # deactivated: only the manifest's own findings remain
    out = specward(repo, "context", "deactivate", manifest)
    assert out.returncode == 0, out.stderr
    index.update_from_disk(manifest)
    assert findings(index, "src/reports/summary.ts") == [] and findings(index, "src/payments/refund.ts") == []


def test_a_broken_manifest_is_reported_and_the_others_still_count(repo: Path):
    manifest = captured(repo, "--activate")
    (repo / ".specward/context/broken.json").write_text('{"version": 1, "task": "x"}')
    index = WorkspaceIndex(repo, use_cache=False)
    index.build()
    (code, msg), = findings(index, ".specward/context/broken.json")
    assert code == "context-invalid" and "created_at: Field required" in msg
    index.update("src/reports/summary.ts", "export const summary = 1;\n")
    assert [c for c, _ in findings(index, "src/reports/summary.ts")] == ["out-of-context-edit"]
    assert manifest in {f.file for f in index.all_findings()}


def test_a_repository_configuration_never_makes_git_run_a_command(repo: Path):
    """The manifests ask git; a hostile repository's fsmonitor hook, external diff or
    textconv driver must not run."""
    manifest = captured(repo, "--activate")
    git(repo, "config", "core.fsmonitor", f"touch {repo}/PWNED-fsmonitor; false")
    git(repo, "config", "diff.external", f"touch {repo}/PWNED-external")
    git(repo, "config", "diff.evil.textconv", f"touch {repo}/PWNED-textconv; cat")
    (repo / ".gitattributes").write_text("* diff=evil\n")
    git(repo, "-c", "core.fsmonitor=false", "add", ".gitattributes")
    git(repo, "-c", "core.fsmonitor=false", "commit", "-qm", "attributes")
    (repo / "src/payments/money.ts").write_text(FILES["src/payments/money.ts"].replace("2", "6"))
    git(repo, "-c", "core.fsmonitor=false", "mv", "src/util/clamp.ts", "src/util/clamps.ts")
    out = specward(repo, "check", "--allow-no-contract")
    assert "changed by a new commit" not in out.stdout and "edited (not committed)" in out.stdout, out.stdout
    assert "renamed to src/util/clamps.ts" in out.stdout
    assert sorted(p.name for p in repo.glob("PWNED*")) == []
    assert manifest in out.stdout


def test_check_requires_every_import_of_a_target_to_resolve(repo: Path):
    (repo / "src/payments/refund.ts").write_text('import { undo } from "./undo";\n\nexport const refund = undo;\n')
    out = specward(repo, "context", "capture", "src/payments/refund.ts", "--include", "src/middleware/rateLimit.ts",
                   "--include", "src/config/paymentConfig.ts")
    assert out.returncode == 1
    assert ("missing: src/payments/refund.ts: cannot find module './undo'" in out.stdout
            and "(every import of a target must resolve)" in out.stdout), out.stdout
    assert "remedy" not in out.stdout  # no include can fix an import that names nothing
