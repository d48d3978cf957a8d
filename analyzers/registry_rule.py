"""The ``hallucinated-package`` rule: a third-party import that is neither declared nor
installed, whose name no package registry knows (the "slopsquatting" case of AI-written
code: a plausible package name that nobody published, yet).

Pure: the import checks say which imports are neither declared nor installed, and a
``known(ecosystem, name)`` callable answers from what the registries said (``True``: the
name exists, ``False``: the registry answered that it does not, ``None``: not known, for
whatever reason). Only ``False`` produces a finding; nothing here asks a registry.

The names sent to a registry are chosen here too (``registry_name``), so that the engine
asks exactly what the rule will look up: an npm name as the registry spells it, a PyPI
name normalized (PEP 503), and for a Python import whose module name is well known to
differ from the distribution's (``yaml`` is PyYAML, ``cv2`` is opencv-python: the import
checks' ``KNOWN_DISTRIBUTIONS`` and the configured ``import_names``) the distribution's
name. A name that is not a valid package name is never asked.

    missing = missing_from_findings(facts, result.findings)      # result = check_imports(...)
    answers = registry.ask_many(names_to_ask(missing))            # the engine, off the index thread
    found = hallucinated_package_findings(facts.path, missing, registry.known)
    findings = replace_import_findings(result.findings, found)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from .codes import CODES
from .imports import KNOWN_DISTRIBUTIONS
from .model import FileFacts, Finding, Import

CODE = "hallucinated-package"
ECOSYSTEMS = ("npm", "pypi")
REGISTRY_TITLE = {"npm": "the npm registry", "pypi": "PyPI"}

# npm: an optional @scope/ then the name; lowercase for new packages, but old ones have
# capitals (JSONStream), so case is not checked. At most 214 characters.
_NPM_PART = r"[A-Za-z0-9~-][A-Za-z0-9._~-]*"
_NPM_NAME = re.compile(rf"(?:@{_NPM_PART}/)?{_NPM_PART}")
NPM_MAX_LENGTH = 214
# PEP 508 names: letters, digits, and . _ - inside
_PYPI_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
PYPI_MAX_LENGTH = 200


def normalize_pypi(name: str) -> str:
    """PEP 503: runs of ``-``, ``_`` and ``.`` become one ``-``, lowercase."""
    return re.sub(r"[-_.]+", "-", name).lower()


def registry_name(ecosystem: str, package: str, module: str | None = None,
                  import_names: Mapping[str, str] | None = None) -> str | None:
    """The name to ask ``ecosystem``'s registry about for the imported ``package`` (for
    Python: the top-level module; ``module`` the dotted module as written), or None when it
    is not a valid package name there (then it is never asked, and never flagged)."""
    if ecosystem == "npm":
        if len(package) <= NPM_MAX_LENGTH and _NPM_NAME.fullmatch(package) and not package.startswith((".", "_")):
            return package
        return None
    if ecosystem == "pypi":
        top = package.split(".", 1)[0]  # a dotted module: its top-level package
        if not top or len(top) > PYPI_MAX_LENGTH or not _PYPI_NAME.fullmatch(top):
            return None
        for key in (module, package, top):
            for table in (import_names or {}, KNOWN_DISTRIBUTIONS):
                if key and key in table and _PYPI_NAME.fullmatch(table[key]):
                    return normalize_pypi(table[key])
        return normalize_pypi(top)
    return None


def is_registry_name(ecosystem: str, name: str) -> bool:
    """Whether ``name`` may be sent to ``ecosystem``'s registry as it is: a valid npm name,
    or a normalized PyPI name (what ``registry_name`` returns)."""
    if ecosystem == "npm":
        return registry_name("npm", name) == name
    if ecosystem == "pypi":
        return len(name) <= PYPI_MAX_LENGTH and bool(_PYPI_NAME.fullmatch(name)) and normalize_pypi(name) == name
    return False


MissingImport = tuple[Import, str, str]  # (import, ecosystem, package name)


def names_to_ask(missing: Iterable[MissingImport],
                 import_names: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The (ecosystem, registry name) pairs the rule will look up for ``missing``, each
    once, in order of first appearance: what the engine asks the registries."""
    seen: dict[tuple[str, str], None] = {}
    for imp, ecosystem, package in missing:
        name = registry_name(ecosystem, package, imp.module, import_names)
        if name is not None:
            seen.setdefault((ecosystem, name), None)
    return list(seen)


def hallucinated_package_findings(file: str, missing: Iterable[MissingImport],
                                  known: Callable[[str, str], bool | None],
                                  import_names: Mapping[str, str] | None = None) -> list[Finding]:
    """A ``hallucinated-package`` finding for each import in ``missing`` (the file's imports
    that are neither declared nor installed) whose package the registry answered does not
    exist (``known`` returned ``False``). Placed on the module specifier when the import has
    one (``Import.module_span``), else on the import's span; one finding per place."""
    out: list[Finding] = []
    placed: set[tuple[int, int]] = set()
    for imp, ecosystem, package in missing:
        name = registry_name(ecosystem, package, imp.module, import_names)
        if name is None or known(ecosystem, name) is not False:
            continue
        span = imp.module_span if imp.module_span is not None else imp.span
        if (span.start, span.end) in placed:
            continue
        placed.add((span.start, span.end))
        message = f"'{package}' is not on {REGISTRY_TITLE[ecosystem]}: it may be a hallucinated package name"
        data: tuple[tuple[str, object], ...] = (("module", imp.module), ("package", package),
                                               ("ecosystem", ecosystem))
        if name != package:
            data += (("registry-name", name),)
        out.append(Finding(CODE, CODES[CODE].severity, message, file, span, data))
    return out


# what the import checks say of a package that is neither declared nor installed
_UNKNOWN_PACKAGE_CODES = ("phantom-import", "undeclared-dependency")
_UNKNOWN_PACKAGE_MARK = "it may be a hallucinated package name"


def missing_from_findings(facts: FileFacts, findings: Iterable[Finding]) -> list[MissingImport]:
    """The imports of ``facts`` that the import checks (``analyzers.imports``) found to be
    neither declared nor installed, as (import, ecosystem, package): their ``phantom-import``
    or ``undeclared-dependency`` findings that carry a ``package`` and say the name may be
    hallucinated. Each finding is matched to the import it is on (its module span, or its
    span when it has none)."""
    ecosystem = "pypi" if facts.language == "python" else "npm"
    by_place: dict[tuple[int, int, str], Import] = {}
    for imp in facts.imports:
        span = imp.module_span if imp.module_span is not None else imp.span
        by_place.setdefault((span.start, span.end, imp.module), imp)
    out: list[MissingImport] = []
    for f in findings:
        if f.code not in _UNKNOWN_PACKAGE_CODES or not f.message.endswith(_UNKNOWN_PACKAGE_MARK):
            continue
        data = dict(f.data)
        package, module = data.get("package"), data.get("module")
        if not isinstance(package, str) or not isinstance(module, str):
            continue
        imp = by_place.get((f.span.start, f.span.end, module))
        if imp is not None:
            out.append((imp, ecosystem, package))
    return out


def replace_import_findings(findings: Iterable[Finding], registry_findings: Iterable[Finding]) -> list[Finding]:
    """The import checks' findings with those ``registry_findings`` make more precise taken
    out: one diagnostic per import, the registry's answer (an ``undeclared-dependency`` or
    ``phantom-import`` saying "may be hallucinated" on the place of a ``hallucinated-package``
    says less). The result is ordered by place."""
    registry_findings = list(registry_findings)
    places = {(f.file, f.span) for f in registry_findings}
    kept = [f for f in findings
            if not (f.code in _UNKNOWN_PACKAGE_CODES and (f.file, f.span) in places
                    and f.message.endswith(_UNKNOWN_PACKAGE_MARK))]
    return sorted(kept + registry_findings, key=lambda f: (f.file, f.span.start, f.span.end))
