"""Configuration: ``specward.toml`` (top-level keys, or one ``[tool.specward]`` table so the
``pyproject.toml`` table can be pasted as it is) or ``[tool.specward]`` in ``pyproject.toml``.

Validated with pydantic. An invalid configuration never stops specward: the problem is
reported on the config file (``config-invalid``) and the defaults are used.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from specward.analyzers.codes import CODES
from specward.analyzers.model import Finding, Span

from .reading import read_data

DEFAULT_CONTRACTS = (
    "**/*.dsl.json",
    "**/openapi.yml", "**/openapi.yaml", "**/openapi.json",
    "**/swagger.yml", "**/swagger.yaml", "**/swagger.json",
)

# Discovery also considers other JSON/YAML files whose name says "openapi" or "swagger"
# (any case, anywhere in the name), or has "api" or "spec" as a word of its own
# (``karakeep-openapi-spec.json``, ``api-swagger.yaml``, ``openapi.v2.json``, ``api/spec.yaml``),
# but only when their first bytes hold a top-level ``openapi`` or ``swagger`` key: a
# generator's configuration or a UI asset with such a name is not a contract.
SNIFFED_CONTRACT_NAME = re.compile(r"(?i)(openapi|swagger|(?<![a-z])(api|spec)(?![a-z])).*\.(json|ya?ml)$")
SNIFF_BYTES = 8192

DEFAULT_EXCLUDE = (
    "node_modules", ".git", ".hg", ".svn", "dist", "build", "out", ".next", ".nuxt", ".svelte-kit",
    ".output", "coverage", "__pycache__", ".venv", "venv", "env", ".env", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".specward", "target", "bower_components",
)

# How many folder levels below the workspace root the walk (and the file watcher) goes.
# Real projects stay far below it (a deep monorepo path is 15-25 levels); a generated or
# hostile tree thousands of levels deep would otherwise cost a watch, a listing and a
# stack frame in every library that walks recursively per level.
DEFAULT_MAX_DEPTH = 100

CONFIG_BYTES = 1_000_000

SeverityName = Literal["error", "warning", "information", "hint", "off"]


class ContextRule(BaseModel):
    """One ``[[context.requires]]`` or ``[[context.forbids]]`` table: for the tasks whose
    targets match ``targets`` (globs; default every task), the files and symbols their
    context must hold, or the symbols they must not use."""

    model_config = ConfigDict(extra="forbid")

    targets: list[str] = Field(default_factory=lambda: ["**"])
    files: list[str] = Field(default_factory=list)
    symbols: list[str] = Field(default_factory=list)


class ContextSettings(BaseModel):
    """The ``[context]`` table: context manifests (``docs/context.md``)."""

    model_config = ConfigDict(extra="forbid")

    depth: int = Field(default=2, ge=0, le=50, description="Import hops a capture follows from the targets.")
    max_rounds: int = Field(default=3, ge=1, le=20, description="Captures `context capture` repeats with the "
                            "includes `context check` asks for.")
    confidence_threshold: float = Field(default=0.5, ge=0.0, le=1.0, description="Entries below it get "
                                        "low-confidence-context.")
    requires: list[ContextRule] = Field(default_factory=list)
    forbids: list[ContextRule] = Field(default_factory=list)


def _unknown_codes(codes) -> list[str]:
    return sorted(set(codes) - set(CODES))


class Gates(BaseModel):
    """The ``[gates]`` table: which codes fail ``specward check`` whatever their severity
    (``hard``), and which never do (``soft``: reported, and listed in the summary as
    accepted). Every other code fails the run when its finding is an error."""

    model_config = ConfigDict(extra="forbid")

    hard: list[str] = Field(default_factory=list)
    soft: list[str] = Field(default_factory=list)

    @field_validator("hard", "soft")
    @classmethod
    def _known(cls, value: list[str]) -> list[str]:
        unknown = _unknown_codes(value)
        if unknown:
            raise ValueError(f"unknown diagnostic code(s) {', '.join(unknown)}")
        return value

    @model_validator(mode="after")
    def _apart(self) -> "Gates":
        both = sorted(set(self.hard) & set(self.soft))
        if both:
            raise ValueError(f"code(s) both hard and soft: {', '.join(both)}")
        return self


class Settings(BaseModel):
    """The ``[tool.specward]`` table. Every key is optional."""

    model_config = ConfigDict(extra="forbid")

    contracts: list[str] | None = Field(
        default=None, description="Globs of contract files; replaces discovery when set.")
    exclude: list[str] = Field(default_factory=list, description="Extra folder names or globs to skip.")
    respect_gitignore: bool = True
    max_file_size: int = Field(default=1_000_000, ge=1_000, description="Bytes; larger files are skipped.")
    max_depth: int = Field(default=DEFAULT_MAX_DEPTH, ge=1, le=10_000, description="Folder levels below "
                           "the workspace root that are walked; deeper folders are skipped (file-skipped).")
    base_paths: list[str] = Field(default_factory=list, description="Path prefixes that clients add "
                                  "(e.g. '/api') and contracts omit.")
    contract_sources: list[Literal["files", "routes"]] = Field(
        default_factory=lambda: ["files", "routes"], min_length=1,
        description="What client calls are judged against: the contract files, the backend's own routes "
        "(docs/routes.md), or both (the files when there are any, else the routes).")
    severity: dict[str, SeverityName] = Field(default_factory=dict)
    cache: bool = True
    case_sensitive: bool = Field(default=False, description="The backend routes with case (Starlette, "
                                 "FastAPI): a call matching a path only when case is ignored is a phantom.")
    repeat_error_count: int = Field(default=0, ge=0, description="A repeated-hallucination is an error once the "
                                    "ledger has recorded it this many times (0: always a warning).")
    python: str | None = Field(default=None, description="The project's Python interpreter (its environment "
                               "tells the import checks what is installed); default: .venv, venv, VIRTUAL_ENV.")
    import_names: dict[str, str] = Field(default_factory=dict, description="Python import name -> the "
                                         "distribution that provides it, for names installed metadata does not map.")
    invariants: list[Any] = Field(default_factory=list, description="Architecture rules ([[invariants]] "
                                   "tables: layers, forbidden, independence), each validated on its own.")
    context: ContextSettings = Field(default_factory=ContextSettings)
    context_requires: list[ContextRule] = Field(default_factory=list, description="The same as "
                                                "[[context.requires]] tables (the context harness' name).")
    model: str | None = Field(default=None, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$",
                              description="The litellm model name the LLM stages use when neither the environment "
                              "nor the user settings name one; read only in a workspace the user trusts.")
    build: str | None = Field(default=None, max_length=1000, description="The build or test command the slice "
                              "stage runs on its generated files (in a scratch copy) before they are offered; run "
                              "only in a workspace the user trusts.")
    baseline: str | None = Field(default=None, min_length=1, description="The baseline file (relative to the "
                                 "project root) whose findings `specward check` does not fail on and the editor "
                                 "shows as hints (docs/ci.md).")
    gates: Gates = Field(default_factory=Gates)
    # never a workspace's: a repository would send the user's key, or the prompts, where it likes
    api_base: Any = Field(default=None, exclude=True)
    api_key: Any = Field(default=None, exclude=True, repr=False)

    @field_validator("api_base", "api_key")
    @classmethod
    def _never_from_the_workspace(cls, value: Any, info) -> None:
        raise ValueError(f"`{info.field_name}` is not a workspace setting: a repository must not choose where your "
                         "key and prompts go; set SPECWARD_API_BASE/SPECWARD_API_KEY or api_base/api_key in your "
                         "user settings (~/.config/specward/settings.toml)")

    @field_validator("severity")
    @classmethod
    def _known_codes(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = _unknown_codes(value)
        if unknown:
            raise ValueError(f"unknown diagnostic code(s) {', '.join(unknown)}; known: {', '.join(sorted(CODES))}")
        return value

    @field_validator("baseline")
    @classmethod
    def _inside(cls, value: str | None) -> str | None:
        if value is not None:
            import posixpath

            norm = posixpath.normpath(value.replace("\\", "/"))
            if posixpath.isabs(norm) or re.match(r"^[A-Za-z]:", norm) or norm == ".." or norm.startswith("../"):
                raise ValueError(f"the baseline must be a path inside the project, relative to its root: {value!r} "
                                 "(--baseline FILE may name any file for one run)")
        return value

    @field_validator("base_paths")
    @classmethod
    def _slash(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if not v.startswith("/")]
        if bad:
            raise ValueError(f"base paths must start with '/': {', '.join(bad)}")
        return value


@dataclass
class LoadedConfig:
    settings: Settings
    source: Path | None = None
    problems: list[Finding] = field(default_factory=list)


def _key_span(text: str, key: str) -> Span:
    """Best-effort byte span of ``key = ...`` in a TOML text (tomllib keeps no positions)."""
    m = re.search(rf"(?m)^[ \t]*\"?{re.escape(key)}\"?[ \t]*=", text)
    if m is None:
        m = re.search(rf"(?m)^\[[^\]]*{re.escape(key)}[^\]]*\]", text)
    if m is None:
        return Span(0, 0)
    start = len(text[: m.start()].encode())
    line_end = text.find("\n", m.start())
    line_end = len(text) if line_end < 0 else line_end
    return Span(start + len(text[m.start():m.end()].encode()) - len(text[m.start():m.end()].lstrip().encode()),
                len(text[:line_end].encode()))


_TABLE_HEADER = re.compile(r"(?m)^[ \t]*\[[ \t]*\"?tool\"?[ \t]*\.[ \t]*\"?specward\"?[ \t]*[\].]")


def has_specward_table(pyproject: Path) -> bool:
    """Whether ``pyproject`` is a file with a ``[tool.specward]`` table (even a broken file
    whose text spells the header: it is still the project's configuration, to be reported)."""
    try:
        text = pyproject.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    try:
        tool = tomllib.loads(text).get("tool")
    except tomllib.TOMLDecodeError:
        return _TABLE_HEADER.search(text) is not None
    return isinstance(tool, dict) and "specward" in tool


def load_config(root: Path) -> LoadedConfig:
    """Read the workspace configuration; never raises."""
    for name, table_path in (("specward.toml", ()), ("pyproject.toml", ("tool", "specward"))):
        path = root / name
        if not path.is_file():
            continue
        rel = name
        # read like a workspace file: never through a symlink out of the workspace, never
        # blocking on a named pipe, never a huge file
        data, reason = read_data(str(root), name, CONFIG_BYTES)
        try:
            if data is None:
                raise OSError(reason)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return LoadedConfig(Settings(), path, [config_problem(rel, Span(0, 0), f"cannot read {name}: {exc}")])
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            span = Span(0, 0)
            if m:
                line = int(m.group(1)) - 1
                lines = text.split("\n")
                start = len("\n".join(lines[:line]).encode()) + (1 if line else 0)
                span = Span(start, start + len(lines[line].encode()) if line < len(lines) else start)
            return LoadedConfig(Settings(), path, [config_problem(rel, span, f"{name} is not valid TOML: {exc}; using defaults")])
        for key in table_path:
            data = data.get(key) if isinstance(data, dict) else None
        if data is None:
            continue
        if not table_path and isinstance(data.get("tool"), dict) and "specward" in data["tool"]:
            # specward.toml with the pyproject.toml table pasted in: that table is the configuration
            others = [k for k in data if k != "tool"] + [f"tool.{k}" for k in data["tool"] if k != "specward"]
            if others:
                return LoadedConfig(Settings(), path, [config_problem(
                    rel, _key_span(text, others[0].split(".")[-1]),
                    f"{name} has a [tool.specward] table and other settings ({', '.join(others)}): "
                    "put every setting in the table, or every setting at the top level; using defaults")])
            data = data["tool"]["specward"]
        if not isinstance(data, dict):
            return LoadedConfig(Settings(), path, [config_problem(rel, _key_span(text, "specward"), "[tool.specward] must be a table; using defaults")])
        try:
            return LoadedConfig(Settings.model_validate(data), path)
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                loc = [str(x) for x in err["loc"]]
                # the deepest key of the error's location that the file spells out
                spans = [_key_span(text, k) for k in reversed(loc)] + [_key_span(text, "specward")]
                span = next((sp for sp in spans if sp != Span(0, 0)), Span(0, 0))
                key = loc[0] if loc else "specward"
                problems.append(config_problem(rel, span,
                                         f"invalid setting {'.'.join(loc) or key}: {err['msg']}; using defaults"))
            return LoadedConfig(Settings(), path, problems)
    return LoadedConfig(Settings())


def config_problem(file: str, span: Span, message: str) -> Finding:
    """A ``config-invalid`` finding."""
    return Finding("config-invalid", CODES["config-invalid"].severity, message, file, span)
