"""Architecture rules as the index keeps them: read from specward's configuration and from
import-linter's files (an invalid rule reported and left out), and judged again when a file
of a chain changes."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.index import WorkspaceIndex
from specward.server.engine.invariants_config import read_rules

APP = {
    "app/api/handlers.py": "from app.services.orders import place\n",
    "app/services/orders.py": "from app.models.order import Order\n",
    "app/models/order.py": "from app.helpers.fmt import show\n\nclass Order: ...\n",
    "app/helpers/fmt.py": "def show(x):\n    return str(x)\n",
}


def _ws(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _violations(idx: WorkspaceIndex) -> list[tuple[str, str]]:
    return [(rel, dict(f.data)["rule"]) for rel in sorted(idx.facts) for f in idx.findings(rel)
            if f.code == "invariant-violation"]


def test_a_rule_is_judged_again_when_a_file_of_its_chain_changes(tmp_path: Path):
    root = _ws(tmp_path, {**APP, "specward.toml": (
        '[[invariants]]\nid = "layers"\ntype = "layers"\nlayers = ["app.api", "app.services", "app.models"]\n')})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _violations(idx) == []
    (root / "app/helpers/fmt.py").write_text("from app.api.handlers import place\n\ndef show(x):\n    return str(x)\n")
    assert "app/models/order.py" in idx.update_from_disk("app/helpers/fmt.py")
    assert _violations(idx) == [("app/models/order.py", "layers")]
    (root / "app/helpers/fmt.py").write_text(APP["app/helpers/fmt.py"])
    idx.update_from_disk("app/helpers/fmt.py")
    assert _violations(idx) == []


def test_an_invalid_rule_is_reported_and_the_others_still_apply(tmp_path: Path):
    root = _ws(tmp_path, {**APP, "specward.toml": (
        '[[invariants]]\nid = "half"\ntype = "layers"\nlayers = ["app.api"]\n\n'
        '[[invariants]]\nid = "typo"\ntype = "layered"\n\n'
        '[[invariants]]\nid = "no-api"\ntype = "forbidden"\nsource = ["app.services"]\nforbidden = ["app.models"]\n')})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert _violations(idx) == [("app/services/orders.py", "no-api")]
    problems = [f.message for f in idx.findings("specward.toml") if f.code == "config-invalid"]
    assert len(problems) == 2
    assert problems[0].startswith("invalid architecture rule invariants[0]: a layers rule needs at least two layers")
    assert "invariants[1] type" in problems[1]


def test_import_linter_contracts_in_pyproject_and_setup_cfg(tmp_path: Path):
    root = _ws(tmp_path, {"pyproject.toml": (
        '[project]\nname = "app"\n\n[tool.importlinter]\nroot_package = "app"\n\n'
        '[[tool.importlinter.contracts]]\nid = "apart"\nname = "Helpers stay apart"\ntype = "forbidden"\n'
        'source_modules = ["app.helpers"]\nforbidden_modules = ["app.api"]\nallow_indirect_imports = "True"\n\n'
        '[[tool.importlinter.contracts]]\nname = "No cycles"\ntype = "acyclic_siblings"\n')})
    rules, problems = read_rules(root, [])
    assert [(r.id, r.kind, r.sources, r.targets, r.indirect, r.origin) for r in rules] == [
        ("apart", "forbidden", ("app.helpers",), ("app.api",), False, "pyproject.toml")]
    assert [(p.severity, p.message) for p in problems] == [
        ("information", "import-linter contract No cycles is of type acyclic_siblings, which specward does not check")]
    (root / "setup.cfg").write_text("[importlinter]\nroot_package = app\n\n[importlinter:contract:one]\n"
                                    "name = One\ntype = independence\nmodules =\n    app.api\n    app.helpers\n")
    rules, _ = read_rules(root, [])
    assert [r.id for r in rules] == ["one"]  # the first file with contracts, in import-linter's order


def test_a_required_module_that_does_not_exist_is_reported_on_the_configuration(tmp_path: Path):
    root = _ws(tmp_path, {**APP, "specward.toml": (
        '[[invariants]]\nid = "limits"\ntype = "required-symbol"\nmodule = "app.middleware.rate_limit"\n'
        'symbols = ["limit"]\n')})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    found = [(f.code, f.message) for f in idx.findings("specward.toml")]
    assert found == [("invariant-violation",
                      "[limits] no file is the module app.middleware.rate_limit, which must define limit")]
    assert idx.findings("specward.toml")[0].span.start == len('[[invariants]]\nid = "')


def test_config_files_are_checked_against_their_schema_and_again_when_one_changes(tmp_path: Path):
    root = _ws(tmp_path, {"specward.toml": (
        '[[invariants]]\nid = "cfg"\ntype = "config-schema"\nfiles = ["config/*.json"]\nschema = "schema.json"\n\n'
        '[[invariants]]\nid = "broken"\ntype = "config-schema"\nfiles = ["x/*.yaml"]\nschema = "nope.json"\n'),
        "schema.json": '{"type": "object", "properties": {"retries": {"type": "integer"}}}',
        "config/app.json": '{"retries": 3}'})
    idx = WorkspaceIndex(root, use_cache=False)
    idx.build()
    assert idx.findings("config/app.json") == []
    assert [f.message for f in idx.findings("specward.toml")] == [
        "invalid architecture rule broken: the schema nope.json cannot be read: the file no longer exists; "
        "the rule is not checked"]
    (root / "config/app.json").write_text('{"retries": "three"}')
    assert idx.tracked("config/app.json")
    assert "config/app.json" in idx.update_from_disk("config/app.json")
    assert [f.message for f in idx.findings("config/app.json")] == ["[cfg] retries: 'three' is not of type 'integer'"]
    (root / "schema.json").write_text('{"type": "object", "properties": {"retries": {"type": "string"}}}')
    assert "config/app.json" in idx.update_from_disk("schema.json")
    assert idx.findings("config/app.json") == []
