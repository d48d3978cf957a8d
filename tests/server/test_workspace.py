"""The workspace on real files: the project root, contract discovery, contracts named
explicitly (inside or outside the root), and the configuration file's two spellings."""

from __future__ import annotations

from pathlib import Path

from specward.server.engine.config import Settings, load_config
from specward.server.engine.index import WorkspaceIndex
from specward.server.engine.workspace import Workspace, find_project_root, looks_like_contract

OPENAPI_YAML = """openapi: 3.0.3
info:
  title: Notes
  version: "1"
paths:
  /notes:
    get:
      responses:
        "200":
          description: the notes
"""
OPENAPI_JSON = '{\n  "openapi": "3.1.0",\n  "info": {"title": "Notes", "version": "1"},\n  "paths": {}\n}\n'
SWAGGER_YAML = 'swagger: "2.0"\ninfo:\n  title: Notes\n  version: "1"\npaths: {}\n'


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_discovery_reads_names_that_say_openapi_or_swagger(tmp_path: Path):
    write(tmp_path, {
        "karakeep-openapi-spec.json": OPENAPI_JSON,
        "packages/api/api-swagger.yaml": SWAGGER_YAML,
        "docs/openapi.v2.json": OPENAPI_JSON,
        "swagger/v1/swagger.json": OPENAPI_JSON,
        "api/spec.yaml": OPENAPI_YAML,
        "server/Notes.OpenAPI.YML": OPENAPI_YAML,
        "contracts/notes.dsl.json": "{}",
        # named like a contract, but not one: a generator's configuration, UI assets, data
        "openapi-generator-config.json": '{"generatorName": "typescript-axios", "openapiNormalizer": {"x": true}}',
        "public/swagger-ui/swagger-initializer.json": '{"url": "/openapi.json", "dom_id": "#swagger-ui"}',
        "fixtures/api.json": '{"items": [{"openapi": "3.0.0"}]}',
        "spec/notes.yaml": "notes:\n  openapi: 3.0.0\n",
        # a contract in an excluded folder is still excluded
        "node_modules/some-sdk/openapi-spec.json": OPENAPI_JSON,
        "web/capi.json": OPENAPI_JSON,  # "api" is not a word of this name
    })
    _, contracts = Workspace(tmp_path, Settings()).walk()
    assert contracts == ["api/spec.yaml", "contracts/notes.dsl.json", "docs/openapi.v2.json",
                         "karakeep-openapi-spec.json", "packages/api/api-swagger.yaml",
                         "server/Notes.OpenAPI.YML", "swagger/v1/swagger.json"]


def test_sniffing_looks_for_a_top_level_key_only():
    assert looks_like_contract(OPENAPI_YAML) and looks_like_contract(OPENAPI_JSON)
    assert looks_like_contract("# generated\n---\nswagger: '2.0'\n")
    assert looks_like_contract('{"info": {"title": "a \\"quoted\\" {title"}, "openapi": "3.0.0"}')
    assert not looks_like_contract('{"info": {"openapi": "3.0.0"}}')
    assert not looks_like_contract("config:\n  openapi: 3.0.0\n")
    assert not looks_like_contract('[{"openapi": "3.0.0"}]')


def test_a_sniffed_contract_follows_its_edits(tmp_path: Path):
    write(tmp_path, {"api-spec.yaml": "title: not yet a contract\n", "src/a.ts": "fetch('/notes');\n"})
    idx = WorkspaceIndex(tmp_path, use_cache=False)
    idx.build()
    assert idx.contracts == {}
    idx.update("api-spec.yaml", OPENAPI_YAML)
    assert list(idx.contracts) == ["api-spec.yaml"] and len(idx.table.endpoints) == 1
    # an edit that removes the openapi key leaves a contract to report, not a silent gap
    idx.update("api-spec.yaml", "title: oops\n")
    assert [f.code for f in idx.findings("api-spec.yaml")] == ["contract-invalid"]


def test_explicit_contracts_outside_the_root_are_keyed_by_absolute_path(tmp_path: Path):
    """What the editor's `contracts` setting does (the server passes it as contract_globs)."""
    front, back = tmp_path / "frontend", tmp_path / "backend"
    write(front, {"src/notes.ts": "export const load = () => fetch('/notes/archive');\n"})
    write(back, {"openapi.yaml": OPENAPI_YAML})
    idx = WorkspaceIndex(front, contract_globs=["../backend/openapi.yaml"], use_cache=False)
    idx.build()
    key = (back / "openapi.yaml").resolve().as_posix()
    assert list(idx.contracts) == [key]
    assert [f.code for f in idx.findings("src/notes.ts")] == ["phantom-api"]
    assert idx.ws.rel(back / "openapi.yaml") == key and idx.ws.is_contract(key)
    assert idx.ws.read(key).text == OPENAPI_YAML
    assert idx.ws.rel(back / "other.yaml") is None  # only the named file is reachable
    # an edit of that contract (an open document) declares the endpoint
    idx.update(key, OPENAPI_YAML.replace("/notes:", "/notes/archive:"))
    assert idx.findings("src/notes.ts") == []


def test_an_explicit_file_is_one_file_not_a_pattern(tmp_path: Path):
    write(tmp_path, {"openapi.yaml": OPENAPI_YAML, "old/openapi.yaml": OPENAPI_YAML,
                     "build/openapi.yaml": OPENAPI_YAML})
    assert Workspace(tmp_path, Settings(contracts=["openapi.yaml"])).walk()[1] == ["openapi.yaml"]
    # named explicitly, a file in an excluded folder is used
    assert Workspace(tmp_path, Settings(contracts=["build/openapi.yaml"])).walk()[1] == ["build/openapi.yaml"]
    assert Workspace(tmp_path, Settings(contracts=["**/openapi.yaml"])).walk()[1] == ["old/openapi.yaml",
                                                                                      "openapi.yaml"]


def test_specward_toml_takes_the_pyproject_table_as_it_is(tmp_path: Path):
    (tmp_path / "specward.toml").write_text('[tool.specward]\nbase_paths = ["/api"]\n\n'
                                            '[tool.specward.severity]\nunused-endpoint = "off"\n')
    cfg = load_config(tmp_path)
    assert cfg.problems == []
    assert cfg.settings.base_paths == ["/api"] and cfg.settings.severity == {"unused-endpoint": "off"}
    (tmp_path / "specward.toml").write_text('cache = false\n[tool.specward]\nbase_paths = ["/api"]\n')
    cfg = load_config(tmp_path)
    assert [p.message.split(":")[0] for p in cfg.problems] == [
        "specward.toml has a [tool.specward] table and other settings (cache)"]
    assert cfg.settings == Settings()


def test_project_root_is_the_nearest_marker(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "apps/web/src").mkdir(parents=True)
    (repo / "apps/web/src/a.ts").write_text("")
    assert find_project_root(repo / "apps/web/src/a.ts") == find_project_root(tmp_path)  # none yet (None here)
    (repo / ".git").write_text("gitdir: ../elsewhere\n")  # a worktree's .git is a file
    assert find_project_root(repo / "apps/web/src/a.ts") == (repo, ".git")
    (repo / "apps/pyproject.toml").write_text('[project]\nname = "apps"\n')
    assert find_project_root(repo / "apps/web/src") == (repo, ".git")
    (repo / "apps/pyproject.toml").write_text('[project]\nname = "apps"\n[tool.specward]\ncache = false\n')
    assert find_project_root(repo / "apps/web/src") == (repo / "apps", "pyproject.toml")
    (repo / "apps/pyproject.toml").write_text('[tool.specward]\ncache = "no\n')  # broken, still the configuration
    assert find_project_root(repo / "apps/web") == (repo / "apps", "pyproject.toml")
    (repo / "apps/web/specward.toml").write_text("")
    assert find_project_root(repo / "apps/web/src/a.ts") == (repo / "apps/web", "specward.toml")
    # nothing above the repository root counts
    (tmp_path / "specward.toml").write_text("")
    (repo / "apps/web/specward.toml").unlink()
    (repo / "apps/pyproject.toml").unlink()
    assert find_project_root(repo / "apps") == (repo, ".git")
