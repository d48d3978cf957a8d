"""The architecture rules (``analyzers.invariants.Rule``) of a workspace: specward's own
``[[invariants]]`` tables and import-linter's contracts (``.importlinter``, ``setup.cfg``,
``[tool.importlinter]`` in ``pyproject.toml``), so that import-linter users get editor
diagnostics for the contracts they already have.

Each rule is validated alone (pydantic): an invalid one is reported on its file
(``config-invalid``) and left out; the others still apply. A contract type specward does
not check (``acyclic_siblings``, ``protected``, a custom one) is reported once, as
information. Never raises.
"""

from __future__ import annotations

import configparser
import json
import logging
import re
import tomllib
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from wcmatch import glob as wcglob

from specward.analyzers.codes import CODES
from specward.analyzers.invariants import GLOB_FLAGS, Rule
from specward.analyzers.model import Finding, Span

from .config import config_problem as _problem
from .reading import read_data

log = logging.getLogger(__name__)

IMPORTLINTER_FILES = ("setup.cfg", ".importlinter", "pyproject.toml")  # in the order lint-imports looks
CONFIG_BYTES = 1_000_000


class _Invariant(BaseModel):
    """One ``[[invariants]]`` table of specward's configuration."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(min_length=1)
    type: Literal["layers", "forbidden", "independence", "required-symbol", "imports-resolve", "config-schema",
                  "pure", "no-hardcoded-config"]
    name: str = ""
    layers: list[str] = Field(default_factory=list, description="Highest first; 'a | b' independent siblings, "
                              "'a : b' siblings that may import each other.")
    containers: list[str] = Field(default_factory=list)
    source: list[str] = Field(default_factory=list)
    forbidden: list[str] = Field(default_factory=list)
    modules: list[str] = Field(default_factory=list)
    module: str = Field(default="", description="required-symbol: the module (dotted or a path) that must define symbols.")
    symbols: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list, description="imports-resolve: files whose imports must all "
                             "resolve; config-schema: globs of the files the schema governs.")
    schema_: str = Field(default="", alias="schema", description="config-schema: the JSON Schema file (JSON or YAML).")
    indirect: bool = True
    ignore: list[str] = Field(default_factory=list, description="'importer -> imported' import edges to leave out.")
    marker: str = Field(default="pure", description="pure: the decorator or doc tag (@pure) marking pure functions.")
    all_functions: bool = Field(default=False, description="pure: every function of the modules is pure.")
    effects: list[str] | None = Field(default=None, description="pure: side-effect APIs (`*` wildcards); "
                                      "omitted: body_rules.DEFAULT_EFFECTS.")
    config: str = Field(default="", description="no-hardcoded-config: the config module (dotted or a path).")
    keys: list[str] = Field(default_factory=list, description="no-hardcoded-config: the config keys.")

    @field_validator("layers", "containers", "source", "forbidden", "modules", "symbols", "files", "keys")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        if any(not v.strip() for v in value):
            raise ValueError("an empty name")
        return [v.strip() for v in value]

    @field_validator("ignore")
    @classmethod
    def _arrows(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if "->" not in v]
        if bad:
            raise ValueError(f"an ignored import is written 'importer -> imported', not {bad[0]!r}")
        return value

    def rule(self, origin: str) -> list[Rule]:
        ignore = tuple(tuple(x.strip() for x in v.split("->", 1)) for v in self.ignore)
        if self.type == "layers":
            if len(self.layers) < 2:
                raise ValueError("a layers rule needs at least two layers")
            rules = []
            for container in self.containers or [""]:
                layers, independent = [], []
                for line in self.layers:
                    sep = "|" if "|" in line else ":"
                    names = [n.strip().strip("()").strip() for n in line.split(sep) if n.strip()]
                    layers.append(tuple(f"{container}.{n}" if container else n for n in names))
                    independent.append(sep == "|" and len(names) > 1)
                rid = self.id if len(self.containers) < 2 else f"{self.id}:{container}"
                rules.append(Rule(rid, "layers", layers=tuple(layers), independent=tuple(independent),
                                  indirect=self.indirect, ignore=ignore, origin=origin, name=self.name))  # type: ignore[arg-type]
            return rules
        if self.type == "forbidden":
            if not self.source or not self.forbidden:
                raise ValueError("a forbidden rule needs source and forbidden modules")
            return [Rule(self.id, "forbidden", sources=tuple(self.source), targets=tuple(self.forbidden),
                         indirect=self.indirect, ignore=ignore, origin=origin, name=self.name)]  # type: ignore[arg-type]
        if self.type == "required-symbol":
            if not self.module or not self.symbols:
                raise ValueError("a required-symbol rule needs a module and symbols")
            return [Rule(self.id, "required-symbol", modules=(self.module,), symbols=tuple(self.symbols),
                         origin=origin, name=self.name)]
        if self.type == "config-schema":
            if not self.files or not self.schema_:
                raise ValueError("a config-schema rule needs files and a schema")
            return [Rule(self.id, "config-schema", sources=tuple(self.files), targets=(self.schema_,), origin=origin,
                         name=self.name)]
        if self.type == "pure":
            marker = self.marker.strip().lstrip("@")
            if not self.modules:
                raise ValueError("a pure rule needs modules")
            if not re.fullmatch(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*", marker):
                raise ValueError(f"a pure rule's marker is a name, not {self.marker!r}")
            effects = tuple(e.strip() for e in self.effects or ())
            if self.effects is not None and (not effects or not all(effects)):
                raise ValueError("a pure rule's effects cannot be empty (leave effects out for the default list)")
            return [Rule(self.id, "pure", modules=tuple(self.modules), marker=marker, all_functions=self.all_functions,
                         effects=effects, origin=origin, name=self.name)]
        if self.type == "no-hardcoded-config":
            config = self.config.strip()
            if not config or not self.keys:
                raise ValueError("a no-hardcoded-config rule needs a config module and keys")
            if wcglob.is_magic(config, flags=GLOB_FLAGS):
                raise ValueError(f"the config module is one module, not a pattern: {config!r}")
            return [Rule(self.id, "no-hardcoded-config", modules=tuple(self.modules), config=config,
                         keys=tuple(self.keys), origin=origin, name=self.name)]
        if self.type == "imports-resolve":
            if not self.files:
                raise ValueError("an imports-resolve rule needs files")
            return [Rule(self.id, "imports-resolve", sources=tuple(self.files), origin=origin, name=self.name)]
        if len(self.modules) < 2:
            raise ValueError("an independence rule needs at least two modules")
        return [Rule(self.id, "independence", modules=tuple(self.modules), indirect=self.indirect,
                     ignore=ignore, origin=origin, name=self.name)]  # type: ignore[arg-type]


def read_rules(root: Path, tables: list[dict]) -> tuple[tuple[Rule, ...], list[Finding]]:
    """The rules of specward's configuration (``tables``: the ``invariants`` setting, each a
    raw table) and of import-linter's configuration files, and the problems found."""
    rules: list[Rule] = []
    problems: list[Finding] = []
    origin = "specward.toml" if (root / "specward.toml").is_file() else "pyproject.toml"
    for i, table in enumerate(tables):
        rules_of, problem = _validated(table, origin, f"invariants[{i}]")
        rules.extend(rules_of)
        if problem:
            rid = table.get("id") if isinstance(table, dict) else None
            problems.append(_problem(origin, _rule_span(root, origin, rid if isinstance(rid, str) else ""), problem))
    for name in IMPORTLINTER_FILES:
        data, reason = read_data(str(root), name, CONFIG_BYTES)
        if data is None:
            continue
        try:
            text = data.decode("utf-8")
            contracts = _importlinter_contracts(name, text)
        except (UnicodeDecodeError, configparser.Error, tomllib.TOMLDecodeError) as exc:
            if name == ".importlinter":
                problems.append(_problem(name, Span(0, 0), f"cannot read {name}: {exc}"))
            continue
        for cid, contract in contracts:
            table = _from_importlinter(cid, contract)
            if isinstance(table, str):
                problems.append(Finding("config-invalid", "information", table, name, _span(text, cid)))
                continue
            rules_of, problem = _validated(table, name, f"contract {cid}")
            rules.extend(rules_of)
            if problem:
                problems.append(_problem(name, _span(text, cid), problem))
        if contracts:
            break  # import-linter reads the first of these files that has contracts
    seen: set[str] = set()
    unique = []
    for r in rules:
        if r.id not in seen:
            seen.add(r.id)
            unique.append(r)
    return tuple(unique), problems


def missing_modules(root: Path, rules: tuple[Rule, ...], sources: list[str]) -> list[Finding]:
    """A ``required-symbol`` rule whose module is no source file of the walk, or a
    ``no-hardcoded-config`` rule whose config module is none: reported on the configuration
    (judged again when the index is built or its inputs are read again)."""
    from specward.analyzers.body_rules import config_candidates
    from specward.analyzers.invariants import is_module

    out = []
    listed = set(sources)
    for rule in rules:
        if rule.kind == "no-hardcoded-config" and not listed.intersection(config_candidates(rule.config)):
            out.append(_problem(rule.origin, _rule_span(root, rule.origin, rule.id),
                                f"invalid architecture rule {rule.id}: no source file is the config module "
                                f"{rule.config}; the rule judges nothing until there is one"))
        if rule.kind == "required-symbol" and not any(is_module(rule.modules[0], s) for s in sources):
            out.append(Finding("invariant-violation", CODES["invariant-violation"].severity,
                               f"[{rule.id}] no file is the module {rule.modules[0]}, which must define "
                               f"{', '.join(rule.symbols)}", rule.origin, _rule_span(root, rule.origin, rule.id),
                               (("rule", rule.id), ("origin", rule.origin))))
    return out


def config_schema_globs(rules: tuple[Rule, ...]) -> tuple[str, ...]:
    """What a change of which re-reads the inputs: the files config-schema rules govern,
    and their schemas."""
    return tuple(p for r in rules if r.kind == "config-schema" for p in (*r.sources, *r.targets))


def governed(rel: str, globs: tuple[str, ...]) -> bool:
    return any(rel == g or wcglob.globmatch(rel, g, flags=GLOB_FLAGS) for g in globs)


def check_config_files(root: Path, rules: tuple[Rule, ...], listed: list[str], max_bytes: int) -> list[Finding]:
    """The config-schema findings: each governed file of ``listed`` against its schema; a
    schema that cannot be read or is not one is reported on the rule, and judges nothing."""
    from specward.analyzers.config_schema import check_document, schema_problem

    out: list[Finding] = []
    for rule in rules:
        if rule.kind != "config-schema":
            continue
        schema_rel = rule.targets[0]
        data, reason = read_data(str(root), schema_rel, CONFIG_BYTES)
        problem = None
        schema = None
        if data is None:
            problem = f"the schema {schema_rel} cannot be read: {reason}"
        else:
            try:
                text = data.decode("utf-8")
                schema = json.loads(text) if schema_rel.endswith(".json") else yaml.safe_load(text)
                problem = schema_problem(schema)
            except (UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
                problem = f"the schema {schema_rel} cannot be parsed: {str(exc).splitlines()[0]}"
        if problem:
            out.append(_problem(rule.origin, _rule_span(root, rule.origin, rule.id),
                                f"invalid architecture rule {rule.id}: {problem}; the rule is not checked"))
            continue
        for rel in listed:
            if rel == schema_rel or not governed(rel, rule.sources):
                continue
            doc, _ = read_data(str(root), rel, max_bytes)
            if doc is None:
                continue
            try:
                text = doc.decode("utf-8")
            except UnicodeDecodeError:
                continue  # not text: the walk reports what it cannot read
            out.extend(check_document(rel, text, schema, rule.id, rule.origin))
    return out


def _validated(table: dict, origin: str, where: str) -> tuple[list[Rule], str | None]:
    try:
        return _Invariant.model_validate(table).rule(origin), None
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        return [], f"invalid architecture rule {where}{' ' + loc if loc else ''}: {err['msg']}; the rule is not checked"
    except ValueError as exc:
        return [], f"invalid architecture rule {where}: {exc}; the rule is not checked"


def _lines(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [ln.strip() for ln in str(value or "").splitlines() if ln.strip() and not ln.strip().startswith("#")]


def _importlinter_contracts(name: str, text: str) -> list[tuple[str, dict]]:
    if name == "pyproject.toml":
        tool = tomllib.loads(text).get("tool", {})
        section = tool.get("importlinter") if isinstance(tool, dict) else None
        if not isinstance(section, dict):
            return []
        out = []
        for i, c in enumerate(section.get("contracts") or []):
            if isinstance(c, dict):
                out.append((str(c.get("id") or c.get("name") or f"contract-{i + 1}"), c))
        return out
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    if not parser.has_section("importlinter"):
        return []
    return [(sec.split(":", 2)[2], dict(parser[sec])) for sec in parser.sections()
            if sec.startswith("importlinter:contract:")]


def _from_importlinter(cid: str, c: dict) -> dict | str:
    kind = str(c.get("type", ""))
    table: dict = {"id": cid, "name": str(c.get("name", "")), "ignore": _lines(c.get("ignore_imports"))}
    if kind == "layers":
        table.update(type="layers", layers=_lines(c.get("layers")), containers=_lines(c.get("containers")))
    elif kind == "forbidden":
        allow = str(c.get("allow_indirect_imports", "false")).lower() in ("true", "1", "yes")
        table.update(type="forbidden", source=_lines(c.get("source_modules")),
                     forbidden=_lines(c.get("forbidden_modules")), indirect=not allow)
    elif kind == "independence":
        table.update(type="independence", modules=_lines(c.get("modules")))
    else:
        return f"import-linter contract {cid} is of type {kind or '(none)'}, which specward does not check"
    return table


def _span(text: str, cid: str) -> Span:
    m = re.search(rf"(?m)^\[importlinter:contract:{re.escape(cid)}\]", text) or re.search(re.escape(cid), text)
    if m is None:
        return Span(0, 0)
    start = len(text[: m.start()].encode())
    return Span(start, start + len(m.group(0).encode()))


def _rule_span(root: Path, origin: str, rule_id: str) -> Span:
    """Where a rule's id is written in its file (``Span(0, 0)`` when it cannot be found)."""
    data, _ = read_data(str(root), origin, CONFIG_BYTES)
    return _span(data.decode("utf-8", "replace") if data else "", rule_id) if rule_id else Span(0, 0)
