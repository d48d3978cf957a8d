"""read_environment on real folders: node_modules listings, a virtualenv's site-packages and
distribution metadata, manifests of every kind, and bad input skipped."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from specward.server.engine.packages import is_manifest, read_environment, read_manifest


def write(root: Path, rel: str, text: str = "") -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, "utf-8")
    return p


def make_venv(venv: Path) -> Path:
    write(venv, "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n")
    site = venv / "lib" / "python3.12" / "site-packages"
    write(site, "yaml/__init__.py")
    write(site, "PyYAML-6.0.2.dist-info/top_level.txt", "_yaml\nyaml\n")
    write(site, "requests-2.32.3.dist-info/RECORD",
          "requests/__init__.py,sha256=x,100\nrequests/api.py,,\n../../../bin/normalizer,,\n"
          "requests-2.32.3.dist-info/METADATA,,\n")
    write(site, "requests/__init__.py")
    write(site, "python_dateutil-2.9.0.dist-info/top_level.txt", "dateutil\n")
    write(site, "six.py")
    write(site, "_cffi_backend.cpython-312-x86_64-linux-gnu.so")
    write(site, "mytool-0.1.dist-info/RECORD", "__editable___mytool_0_1_finder.py,,\n")
    write(site, "__editable___mytool_0_1_finder.py",
          "MAPPING: dict[str, str] = {'mytool': '/src/mytool', 'mytool_extras': '/src/x'}\n")
    (site / "broken-1.0.dist-info" / "RECORD").mkdir(parents=True)  # unreadable: a folder
    return site


@pytest.fixture(autouse=True)
def no_active_venv(monkeypatch):
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def test_node_modules_are_listed_one_level_deep_with_scopes(tmp_path: Path):
    write(tmp_path, "package.json", json.dumps({"name": "mono", "devDependencies": {"vitest": "^2"}}))
    write(tmp_path, "node_modules/react/package.json", "{}")
    write(tmp_path, "node_modules/@types/node/package.json", "{}")
    write(tmp_path, "node_modules/@acme/ui/package.json", "{}")
    write(tmp_path, "node_modules/.bin/tsc", "")
    write(tmp_path, "node_modules/react/node_modules/deep/package.json", "{}")
    write(tmp_path, "packages/web/package.json", json.dumps({"name": "@acme/web", "dependencies": {"vue": "^3"}}))
    write(tmp_path, "packages/web/node_modules/vue/package.json", "{}")
    env = read_environment(tmp_path, manifests=["package.json", "packages/web/package.json"])
    assert env.node_modules == {"": frozenset({"react", "@types/node", "@acme/ui"}),
                                "packages/web": frozenset({"vue"})}
    assert env.manifests["packages/web/package.json"].declared == frozenset({"vue"})
    assert env.manifests["packages/web/package.json"].name == "@acme/web"
    assert env.manifests["package.json"].folder == ""
    assert env.python_modules is None  # no virtualenv: Python packages judged by manifests only


def test_a_project_venv_gives_importable_names_and_their_distributions(tmp_path: Path):
    make_venv(tmp_path / ".venv")
    env = read_environment(tmp_path)
    assert {"yaml", "_yaml", "requests", "dateutil", "six", "_cffi_backend", "mytool", "mytool_extras"} <= env.python_modules
    assert "__editable___mytool_0_1_finder" not in env.python_modules
    assert env.python_distributions["yaml"] == frozenset({"pyyaml"})
    assert env.python_distributions["requests"] == frozenset({"requests"})
    assert env.python_distributions["dateutil"] == frozenset({"python-dateutil"})
    assert env.python_distributions["mytool"] == frozenset({"mytool"})
    assert "os" in env.stdlib and "json" in env.stdlib


def test_a_configured_interpreter_or_virtual_env_is_read(tmp_path: Path, monkeypatch):
    make_venv(tmp_path / "elsewhere" / "env")
    root = tmp_path / "project"
    root.mkdir()
    env = read_environment(root, str(tmp_path / "elsewhere" / "env" / "bin" / "python"))
    assert "yaml" in env.python_modules
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "elsewhere" / "env"))
    assert "requests" in read_environment(root).python_modules
    # a system interpreter (no pyvenv.cfg): its site-packages are not guessed
    monkeypatch.delenv("VIRTUAL_ENV")
    assert read_environment(root, "/usr/bin/python3").python_modules is None


def test_python_manifests_of_every_kind(tmp_path: Path):
    write(tmp_path, "pyproject.toml", """
[project]
name = "task-service"
dependencies = ["PyYAML>=6", "requests[socks] ; python_version > '3.8'"]
[project.optional-dependencies]
pdf = ["pypdf"]
[dependency-groups]
dev = ["pytest>=8", {include-group = "lint"}]
lint = ["ruff"]
[tool.poetry.dependencies]
python = "^3.11"
Django = "^5"
[tool.poetry.group.test.dependencies]
factory_boy = "*"
""")
    write(tmp_path, "requirements-dev.txt", "-r requirements.txt\n# tools\nblack==24.1 # formatter\n"
                                            "-e git+https://example.invalid/x.git#egg=x\nzope.interface\n"
                                            "mypkg @ https://example.invalid/mypkg.whl\n")
    write(tmp_path, "setup.cfg", "[metadata]\nname = legacy\n[options]\ninstall_requires =\n    click>=8\n"
                                 "[options.extras_require]\nyaml = ruamel.yaml\n")
    write(tmp_path, "tox.ini", "[tox]\n")
    env = read_environment(tmp_path)
    assert set(env.manifests) == {"pyproject.toml", "requirements-dev.txt", "setup.cfg"}
    py = env.manifests["pyproject.toml"]
    assert (py.kind, py.name) == ("python", "task-service")
    assert py.declared == frozenset({"pyyaml", "requests", "pypdf", "pytest", "ruff", "django", "factory-boy"})
    assert env.manifests["requirements-dev.txt"].declared == frozenset({"black", "zope-interface", "mypkg"})
    assert env.manifests["setup.cfg"].declared == frozenset({"click", "ruamel-yaml"})


def test_a_pyproject_with_dynamic_dependencies_is_not_complete():
    m = read_manifest("svc/pyproject.toml", '[project]\nname = "x"\ndynamic = ["dependencies"]\n')
    assert m is not None and m.folder == "svc" and not m.complete
    assert read_manifest("pyproject.toml", "[tool.ruff]\nline-length = 100\n") is None  # declares nothing


def test_bad_input_is_skipped_with_a_log_line(tmp_path: Path, caplog):
    write(tmp_path, "package.json", "{ not json")
    write(tmp_path, "web/package.json", json.dumps({"name": "web", "dependencies": ["react"]}))
    write(tmp_path, "pyproject.toml", "[project\n")
    make_venv(tmp_path / ".venv")
    with caplog.at_level(logging.INFO, logger="specward.server.engine.packages"):
        env = read_environment(tmp_path, manifests=["package.json", "web/package.json", "pyproject.toml", "gone/package.json"])
    assert set(env.manifests) == {"web/package.json"}
    assert not env.manifests["web/package.json"].complete  # dependencies is not an object
    assert "yaml" in env.python_modules  # the unreadable RECORD did not stop the rest
    logged = caplog.text
    assert "package.json skipped" in logged and "pyproject.toml skipped" in logged
    assert "broken-1.0.dist-info/RECORD" in logged
    assert "gone/package.json" in logged


def test_is_manifest():
    assert is_manifest("package.json") and is_manifest("a/b/pyproject.toml")
    assert is_manifest("requirements.txt") and is_manifest("requirements/dev.txt") and not is_manifest("docs/dev.txt")
    assert is_manifest("requirements-dev.in") and not is_manifest("package-lock.json")


def test_the_configured_interpreter_wins_and_a_venv_beside_a_manifest_is_found(tmp_path: Path):
    make_venv(tmp_path / "backend" / ".venv")
    write(tmp_path, "backend/pyproject.toml", '[project]\nname = "api"\ndependencies = ["requests"]\n')
    env = read_environment(tmp_path, manifests=["backend/pyproject.toml"])
    assert "requests" in env.python_modules
    other = tmp_path / "other"
    write(other, "pyvenv.cfg", "home = /usr/bin\n")
    write(other, "lib/python3.12/site-packages/only_here.py")
    env = read_environment(tmp_path, str(other / "bin" / "python"), manifests=["backend/pyproject.toml"])
    assert env.python_modules == frozenset({"only_here"})
