"""The pure ``hallucinated-package`` rule: which names it asks about, and which answers
become findings."""

from __future__ import annotations

import pytest

from specward.analyzers.codes import CODES
from specward.analyzers.extract import extract
from specward.analyzers.imports import Environment, Manifest, check_imports
from specward.analyzers.model import Finding, Import, Span
from specward.analyzers.registry_rule import (
    hallucinated_package_findings,
    is_registry_name,
    missing_from_findings,
    names_to_ask,
    normalize_pypi,
    registry_name,
    replace_import_findings,
)
from specward.analyzers.resolve import Resolver, ResolverConfig

SOURCE = (
    "import axios from 'axios';\n"
    "import { useQueryCache } from '@tanstack/query-cache-tools';\n"
    "const fmt = require('fast-date-formatterz');\n"
)


def at(text: str, needle: str) -> Span:
    start = text.encode().index(needle.encode())
    return Span(start, start + len(needle.encode()))


AXIOS = Import("axios", "default", "axios", at(SOURCE, "axios "), module_span=at(SOURCE, "'axios'"))
SCOPED = Import("@tanstack/query-cache-tools", "useQueryCache", "useQueryCache", at(SOURCE, "useQueryCache"),
                module_span=at(SOURCE, "'@tanstack/query-cache-tools'"))
REQUIRED = Import("fast-date-formatterz", "*", "fmt", at(SOURCE, "fmt"), kind="require")  # no module span


def answers(table: dict[tuple[str, str], bool | None]):
    asked: list[tuple[str, str]] = []

    def known(ecosystem: str, name: str) -> bool | None:
        asked.append((ecosystem, name))
        return table.get((ecosystem, name))

    return known, asked


def test_only_names_the_registry_denies_are_flagged():
    missing = [(AXIOS, "npm", "axios"), (SCOPED, "npm", "@tanstack/query-cache-tools"),
               (REQUIRED, "npm", "fast-date-formatterz")]
    known, asked = answers({("npm", "axios"): True, ("npm", "@tanstack/query-cache-tools"): False,
                            ("npm", "fast-date-formatterz"): False})
    findings = hallucinated_package_findings("src/app.ts", missing, known)
    assert asked == [("npm", "axios"), ("npm", "@tanstack/query-cache-tools"), ("npm", "fast-date-formatterz")]
    assert [(f.code, f.severity, f.file) for f in findings] == [("hallucinated-package", "error", "src/app.ts")] * 2
    assert CODES["hallucinated-package"].severity == findings[0].severity
    # on the specifier when the import has one, else on the import's span
    shown = [SOURCE.encode()[f.span.start:f.span.end].decode() for f in findings]
    assert shown == ["'@tanstack/query-cache-tools'", "fmt"]
    assert findings[0].message == ("'@tanstack/query-cache-tools' is not on the npm registry: "
                                   "it may be a hallucinated package name")
    assert dict(findings[1].data) == {"module": "fast-date-formatterz", "package": "fast-date-formatterz",
                                      "ecosystem": "npm"}


def test_unknown_is_never_a_finding():
    missing = [(AXIOS, "npm", "axios"), (REQUIRED, "pypi", "fast_date_formatterz")]
    known, asked = answers({})  # the registry could not be asked
    assert hallucinated_package_findings("a.ts", missing, known) == []
    assert asked == [("npm", "axios"), ("pypi", "fast-date-formatterz")]


def test_pypi_message_and_normalized_lookup():
    text = "from flask_sqlalchemy_plus import Model\n"
    imp = Import("flask_sqlalchemy_plus", "Model", "Model", at(text, "Model"),
                 module_span=at(text, "flask_sqlalchemy_plus"))
    known, asked = answers({("pypi", "flask-sqlalchemy-plus"): False})
    [finding] = hallucinated_package_findings("app/models.py", [(imp, "pypi", "flask_sqlalchemy_plus")], known)
    assert asked == [("pypi", "flask-sqlalchemy-plus")]
    assert finding.message == "'flask_sqlalchemy_plus' is not on PyPI: it may be a hallucinated package name"
    assert finding.span == at(text, "flask_sqlalchemy_plus")
    assert dict(finding.data)["registry-name"] == "flask-sqlalchemy-plus"


def test_one_finding_per_place():
    text = "from magic_numbers_lib import one, two\n"
    spec = at(text, "magic_numbers_lib")
    one = Import("magic_numbers_lib", "one", "one", at(text, "one"), module_span=spec)
    two = Import("magic_numbers_lib", "two", "two", at(text, "two"), module_span=spec)
    known, _ = answers({("pypi", "magic-numbers-lib"): False})
    findings = hallucinated_package_findings("m.py", [(one, "pypi", "magic_numbers_lib"),
                                                      (two, "pypi", "magic_numbers_lib")], known)
    assert [f.span for f in findings] == [spec]
    assert names_to_ask([(one, "pypi", "magic_numbers_lib"), (two, "pypi", "magic_numbers_lib")]) == [
        ("pypi", "magic-numbers-lib")]


@pytest.mark.parametrize("name,normalized", [("Flask_Login", "flask-login"), ("zope.interface", "zope-interface"),
                                             ("A__B--C..d", "a-b-c-d"), ("requests", "requests")])
def test_pep_503_normalization(name, normalized):
    assert normalize_pypi(name) == normalized


@pytest.mark.parametrize("ecosystem,package,asked", [
    ("npm", "lodash", "lodash"),
    ("npm", "@scope/pkg.name_x", "@scope/pkg.name_x"),
    ("npm", "JSONStream", "JSONStream"),  # old packages have capitals
    ("npm", "../secrets", None),
    ("npm", ".hidden", None),
    ("npm", "_private", None),
    ("npm", "@scope/", None),
    ("npm", "a/b", None),
    ("npm", "has space", None),
    ("npm", "x" * 215, None),
    ("npm", "name?x=1", None),
    ("pypi", "yaml", "pyyaml"),  # the module's distribution has another name
    ("pypi", "PIL", "pillow"),
    ("pypi", "sklearn", "scikit-learn"),
    ("pypi", "google.cloud.storage", "google"),  # a dotted module: its top-level package
    ("pypi", "Some_Pkg", "some-pkg"),
    ("pypi", "-bad", None),
    ("pypi", "", None),
    ("pypi", "name/../x", None),
    ("cargo", "serde", None),
])
def test_registry_name(ecosystem, package, asked):
    assert registry_name(ecosystem, package) == asked
    if asked is not None:
        assert is_registry_name(ecosystem, asked)


def test_invalid_names_are_neither_asked_nor_flagged():
    bad = Import("../../etc/passwd", "*", "x", Span(0, 1))
    assert hallucinated_package_findings("a.js", [(bad, "npm", "../../etc/passwd")], lambda e, n: False) == []
    assert names_to_ask([(bad, "npm", "../../etc/passwd")]) == []
    assert not is_registry_name("pypi", "Flask_Login") and is_registry_name("pypi", "flask-login")
    assert not is_registry_name("npm", "../x") and not is_registry_name("gems", "rails")


def test_configured_import_names_choose_the_distribution():
    imp = Import("ldap", "*", "ldap", Span(7, 11))
    assert registry_name("pypi", "ldap", "ldap", {"ldap": "python-ldap"}) == "python-ldap"
    assert names_to_ask([(imp, "pypi", "ldap")], {"ldap": "python-ldap"}) == [("pypi", "python-ldap")]
    assert registry_name("pypi", "google", "google.protobuf") == "protobuf"
    known, asked = answers({("pypi", "python-ldap"): False})
    [finding] = hallucinated_package_findings("a.py", [(imp, "pypi", "ldap")], known, {"ldap": "python-ldap"})
    assert asked == [("pypi", "python-ldap")] and "'ldap' is not on PyPI" in finding.message


# ---------------------------------------------------------------- with the real import checks
JS = (
    "import { createStore } from 'zustand';\n"
    "import { money } from 'vue-money-formatter-pro';\n"
    "import { local } from './local';\n"
)
PY = "import requests\nfrom pydantic_settings_extra import Env\nimport json\n"


def checked(path: str, text: str, manifest: Manifest, files=()):
    facts = extract(path, text)
    resolver = Resolver(ResolverConfig.build({}), lambda p: p in files)
    env = Environment(manifests={manifest.path: manifest})
    return facts, check_imports(facts, resolver, lambda p: None, env).findings


def test_the_imports_neither_declared_nor_installed_are_taken_from_the_import_checks():
    npm = Manifest("npm", "", frozenset({"zustand"}), path="package.json", name="shop")
    facts, findings = checked("src/store.ts", JS, npm)
    missing = missing_from_findings(facts, findings)
    assert [(imp.module, eco, pkg) for imp, eco, pkg in missing] == [
        ("vue-money-formatter-pro", "npm", "vue-money-formatter-pro")]
    assert names_to_ask(missing) == [("npm", "vue-money-formatter-pro")]
    known, _ = answers({("npm", "vue-money-formatter-pro"): False})
    found = hallucinated_package_findings(facts.path, missing, known)
    merged = replace_import_findings(findings, found)
    on_it = [f for f in merged if dict(f.data).get("package") == "vue-money-formatter-pro"]
    assert [f.code for f in on_it] == ["hallucinated-package"]
    # every other finding of the import checks is kept
    assert [f for f in merged if f not in found] == [f for f in findings if f.span != found[0].span]

    py = Manifest("python", "", frozenset({"requests"}), path="pyproject.toml", name="svc")
    facts, findings = checked("svc/app.py", PY, py)
    missing = missing_from_findings(facts, findings)
    assert [(imp.module, eco, pkg) for imp, eco, pkg in missing] == [
        ("pydantic_settings_extra", "pypi", "pydantic_settings_extra")]
    assert names_to_ask(missing) == [("pypi", "pydantic-settings-extra")]


def test_replace_keeps_findings_the_registry_did_not_judge():
    a = Finding("undeclared-dependency", "warning", "'x' is not declared in package.json and is not installed "
                "(no node_modules): it may be a hallucinated package name", "a.ts", Span(10, 13), (("package", "x"),))
    b = Finding("undeclared-dependency", "warning", "'y' is not declared in package.json", "a.ts", Span(20, 23))
    c = Finding("phantom-import", "error", "cannot find module './z'", "a.ts", Span(1, 5))
    h = Finding("hallucinated-package", "error", "'x' is not on the npm registry: it may be a hallucinated "
                "package name", "a.ts", Span(10, 13))
    assert replace_import_findings([a, b, c], [h]) == [c, h, b]
    assert replace_import_findings([a, b, c], []) == [c, a, b]
