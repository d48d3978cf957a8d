"""What is installed and declared, for the import checks (``analyzers.imports``): read from
disk as plain data, never by importing or running anything.

- ``node_modules``: the root's and the one beside each given manifest, each listed one level
  deep (``node_modules/*`` and ``node_modules/@scope/*``), never walked.
- The Python environment: a configured interpreter's (its venv: the folder above
  ``bin/``), else ``.venv`` or ``venv`` in the root or beside a Python manifest, else
  ``VIRTUAL_ENV``'s. Its ``site-packages``
  is listed (modules, packages, extension modules) and each ``*.dist-info`` gives the
  import names it provides (``top_level.txt``, else the top-level entries of ``RECORD``;
  an editable install's ``__editable__*_finder.py`` mapping). A ``.venv`` that is a
  symlink out of the workspace is read all the same: it is the project's own environment.
  A system interpreter (no ``pyvenv.cfg`` above it) is not read: its site-packages cannot
  be found without running it, so third-party Python imports are judged only against the
  manifests.
- ``stdlib``: this process's ``sys.stdlib_module_names`` (specward cannot run the
  project's interpreter to ask it; the lists differ little between 3.10 and 3.14).
- Manifests: ``package.json``, ``pyproject.toml`` (``[project]`` dependencies and
  optional-dependencies, ``[dependency-groups]``, Poetry), ``requirements*.txt`` and
  ``setup.cfg`` ``install_requires``, from the paths the workspace walk found.

Bad input (a corrupt package.json, an unreadable RECORD) is skipped with a log line.
"""

from __future__ import annotations

import configparser
import json
import logging
import os
import re
import sys
import tomllib
from pathlib import Path
from typing import Callable, Iterable

from specward.analyzers.imports import Environment, Manifest, normalize_distribution

log = logging.getLogger(__name__)

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_NPM_FIELDS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_EXT_MODULE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.(?:[^.]+\.)?(?:so|pyd)$")
_MAPPING = re.compile(r"MAPPING\s*(?::[^=]*)?=\s*\{(.*?)\}", re.S)
_KEY = re.compile(r"['\"]([A-Za-z_][A-Za-z0-9_.]*)['\"]\s*:")


def is_manifest(path: str) -> bool:
    """The files :func:`read_manifest` reads (workspace-relative POSIX path)."""
    folder, _, name = path.rpartition("/")
    return (name in ("package.json", "pyproject.toml", "setup.cfg")
            or (name.endswith((".txt", ".in"))
                and (name.startswith("requirements") or folder.rpartition("/")[2] == "requirements")))


def read_environment(root: Path, settings_python: str | None = None, *, manifests: Iterable[str] | None = None,
                     read: Callable[[str], str | None] | None = None,
                     import_names: dict[str, str] | None = None) -> Environment:
    """The environment of the workspace at ``root``. ``manifests``: workspace-relative paths
    of the manifests the walk found (None: the root's only); ``read(path)`` their text
    (default: read the file under ``root``); ``settings_python``: a configured interpreter;
    ``import_names``: configured import name -> distribution."""
    root = Path(root)
    if read is None:
        def read(rel: str) -> str | None:
            try:
                return (root / rel).read_text("utf-8")
            except (OSError, UnicodeDecodeError) as e:
                log.info("packages: cannot read %s: %s", rel, e)
                return None
    if manifests is None:
        manifests = [p.name for p in _list(root) if p.is_file() and is_manifest(p.name)]
    parsed: dict[str, Manifest] = {}
    for rel in sorted(set(manifests)):
        if "node_modules/" in rel or not is_manifest(rel):
            continue
        text = read(rel)
        if text is None:
            continue
        m = read_manifest(rel, text)
        if m is not None:
            parsed[rel] = m
    folders = {""} | {m.folder for m in parsed.values() if m.kind == "npm"}
    node_modules = {}
    stamp: list[tuple[str, int, int]] = []
    for folder in sorted(folders):
        nm = root / folder / "node_modules" if folder else root / "node_modules"
        if nm.is_dir():
            node_modules[folder] = _installed_npm(nm)
            stamp += _stamp(root, nm)
    python_modules = None
    distributions: dict[str, frozenset[str]] = {}
    python_folders = sorted({m.folder for m in parsed.values() if m.kind == "python"}, key=lambda f: (f.count("/"), f))
    site = _site_packages(root, settings_python, python_folders)
    if site:
        python_modules, distributions = _installed_python(site)
        stamp += _stamp(site.parent, site, ())  # (an install changes its folder's time)
    return Environment(node_modules=node_modules, python_modules=python_modules,
                       stdlib=frozenset(sys.stdlib_module_names), manifests=parsed,
                       python_distributions=distributions, import_names=dict(import_names or {}),
                       python_version=f"{sys.version_info.major}.{sys.version_info.minor}",
                       node_modules_stamp=tuple(stamp), python_site=str(site) if site else None)


# ---------------------------------------------------------------------------- manifests
def read_manifest(path: str, text: str) -> Manifest | None:
    """What the manifest at ``path`` declares; None when it is not one (or not readable at
    all: logged)."""
    folder = path.rpartition("/")[0]
    name = path.rpartition("/")[2]
    try:
        if name == "package.json":
            return _package_json(path, folder, text)
        if name == "pyproject.toml":
            return _pyproject(path, folder, text)
        if name == "setup.cfg":
            return _setup_cfg(path, folder, text)
        if is_manifest(path):
            return Manifest("python", folder, frozenset(_requirements(text)), path)
    except (ValueError, TypeError, AttributeError, configparser.Error) as e:
        log.info("packages: %s skipped: %s", path, e)
    return None


def _package_json(path: str, folder: str, text: str) -> Manifest | None:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    declared: set[str] = set()
    complete = True
    for key in _NPM_FIELDS:
        deps = data.get(key)
        if isinstance(deps, dict):
            declared.update(k for k in deps if isinstance(k, str))
        elif deps is not None:
            complete = False
    name = data.get("name") if isinstance(data.get("name"), str) else None
    return Manifest("npm", folder, frozenset(declared), path, name, complete)


def _pyproject(path: str, folder: str, text: str) -> Manifest | None:
    data = tomllib.loads(text)
    declared: set[str] = set()
    project = data.get("project")
    name = None
    found = False
    if isinstance(project, dict):
        name = project.get("name") if isinstance(project.get("name"), str) else None
        if "dependencies" in project or "optional-dependencies" in project:
            found = True
        declared.update(_requirements(project.get("dependencies") or ()))
        for group in (project.get("optional-dependencies") or {}).values():
            declared.update(_requirements(group or ()))
        if "dependencies" in (project.get("dynamic") or ()):
            return Manifest("python", folder, frozenset(declared), path, name, complete=False)
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        found = True
        for group in groups.values():
            declared.update(_requirements(g for g in group if isinstance(g, str)))
    poetry = (data.get("tool") or {}).get("poetry")
    if isinstance(poetry, dict):
        found = True
        name = name or (poetry.get("name") if isinstance(poetry.get("name"), str) else None)
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        tables += [g.get("dependencies") for g in (poetry.get("group") or {}).values() if isinstance(g, dict)]
        for t in tables:
            if isinstance(t, dict):
                declared.update(normalize_distribution(k) for k in t if k.lower() != "python")
    if not found:
        return None  # a pyproject that declares nothing (a tool's configuration only)
    return Manifest("python", folder, frozenset(declared), path, name)


def _setup_cfg(path: str, folder: str, text: str) -> Manifest | None:
    cp = configparser.ConfigParser()
    cp.read_string(text)
    if not cp.has_option("options", "install_requires"):
        return None
    declared = set(_requirements(cp.get("options", "install_requires").splitlines()))
    if cp.has_section("options.extras_require"):
        for _, value in cp.items("options.extras_require"):
            declared.update(_requirements(value.splitlines()))
    name = cp.get("metadata", "name", fallback=None)
    return Manifest("python", folder, frozenset(declared), path, name)


def _requirements(lines: Iterable[str] | str) -> set[str]:
    """Normalized distribution names of requirement lines (``requests[socks]>=2``, comments,
    ``-r``/``-e`` options and URLs skipped)."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    out = set()
    for line in lines:
        if not isinstance(line, str):
            continue
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith(("-", "git+", "http:", "https:", "file:", ".", "/")):
            continue
        if " @ " in line:
            line = line.split(" @ ", 1)[0]
        m = _REQUIREMENT.match(line)
        if m:
            out.add(normalize_distribution(m.group(1)))
    return out


# ---------------------------------------------------------------------------- installed
def _list(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError as e:
        log.info("packages: cannot list %s: %s", folder, e)
        return []


INSTALL_STATE = (".package-lock.json", ".modules.yaml", ".yarn-state.yml", ".yarn-integrity")


def _stamp(root: Path, nm: Path, state: tuple[str, ...] = INSTALL_STATE) -> list[tuple[str, int, int]]:
    """What changes when packages are installed in ``nm``: the folder itself (a package
    added or removed) and the install state the package managers write there."""
    out = []
    for p in (nm, *(nm / n for n in state)):
        try:
            st = p.stat()
        except OSError:
            continue
        out.append((p.relative_to(root).as_posix(), st.st_mtime_ns, st.st_size))
    return out


def _installed_npm(nm: Path) -> frozenset[str]:
    names = set()
    for entry in _list(nm):
        n = entry.name
        if n.startswith("."):
            continue
        if n.startswith("@"):
            names.update(f"{n}/{sub.name}" for sub in _list(entry) if not sub.name.startswith("."))
        else:
            names.add(n)
    return frozenset(names)


def _site_packages(root: Path, settings_python: str | None, folders: list[str] = ()) -> Path | None:
    """The site-packages of the project's virtualenv: the configured interpreter's, else
    ``.venv``/``venv`` in the root, else beside a Python manifest (the shallowest first),
    else ``VIRTUAL_ENV``'s."""
    candidates = []
    if settings_python:
        exe = Path(settings_python)
        if not exe.is_absolute():
            exe = root / exe
        candidates.append(exe.parent.parent)  # <venv>/bin/python
        candidates.append(exe)  # a venv folder given as such
    candidates += [root / ".venv", root / "venv"]
    candidates += [root / f / name for f in folders if f for name in (".venv", "venv")]
    if os.environ.get("VIRTUAL_ENV"):
        candidates.append(Path(os.environ["VIRTUAL_ENV"]))
    for venv in candidates:
        if not (venv / "pyvenv.cfg").is_file():
            continue
        for lib in ("lib", "Lib", "lib64"):
            base = venv / lib
            if lib == "Lib" and (base / "site-packages").is_dir():
                return base / "site-packages"
            for py in sorted(_list(base)) if base.is_dir() else ():
                if py.name.startswith("python") and (py / "site-packages").is_dir():
                    return py / "site-packages"
    return None


def _installed_python(site: Path) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    modules: set[str] = set()
    providers: dict[str, set[str]] = {}
    for entry in _list(site):
        n = entry.name
        if n.endswith(".dist-info") or n.endswith(".egg-info"):
            dist = normalize_distribution(n.rsplit(".", 1)[0].split("-", 1)[0])
            for top in _provided(entry, site):
                modules.add(top)
                providers.setdefault(top, set()).add(dist)
        elif n.endswith(".py") and n != "__init__.py" and not n.startswith("__editable__"):
            modules.add(n[:-3])
        elif _EXT_MODULE.match(n):
            modules.add(_EXT_MODULE.match(n).group(1))
        elif entry.is_dir() and n.isidentifier() and n != "__pycache__":
            modules.add(n)
    return frozenset(modules), {k: frozenset(v) for k, v in providers.items()}


def _provided(info: Path, site: Path) -> set[str]:
    """The top-level import names a distribution installs."""
    out: set[str] = set()
    try:
        top = (info / "top_level.txt").read_text("utf-8")
        out.update(line.strip().replace("/", ".").partition(".")[0] for line in top.splitlines() if line.strip())
        if out:
            return out
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as e:
        log.info("packages: cannot read %s/top_level.txt: %s", info.name, e)
    try:
        record = (info / "RECORD").read_text("utf-8")
    except FileNotFoundError:
        return out
    except (OSError, UnicodeDecodeError) as e:
        log.info("packages: cannot read %s/RECORD: %s", info.name, e)
        return out
    for line in record.splitlines():
        path = line.split(",", 1)[0].strip().strip('"')
        if not path or path.startswith(("..", "/")):
            continue
        head, sep, _ = path.partition("/")
        if sep:
            if head.isidentifier() and head != "__pycache__" and not head.endswith((".dist-info", ".data")):
                out.add(head)
        elif head.endswith(".py"):
            stem = head[:-3]
            if stem.startswith("__editable__") and stem.endswith("_finder"):
                out.update(_editable(site / head))
            elif stem.isidentifier():
                out.add(stem)
        elif _EXT_MODULE.match(head):
            out.add(_EXT_MODULE.match(head).group(1))
    return out


def _editable(finder: Path) -> set[str]:
    """An editable install's finder: ``MAPPING = {'pkg': '/src/pkg', ...}``."""
    try:
        text = finder.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        log.info("packages: cannot read %s: %s", finder.name, e)
        return set()
    m = _MAPPING.search(text)
    if not m:
        return set()
    return {k.partition(".")[0] for k in _KEY.findall(m.group(1))}


# ---------------------------------------------------------------------------- versions (quick fixes)
def installed_distribution(root: Path, settings_python: str | None, folders: list[str],
                           distribution: str) -> tuple[str, str] | None:
    """``(name, version)`` of ``distribution`` as installed in the project's Python
    environment (found as :func:`read_environment` finds it, ``folders``: the Python
    manifests' folders), for the quick fix that declares it; None when not installed."""
    site = _site_packages(Path(root), settings_python, folders)
    return _installed_distribution(site, distribution) if site is not None else None


_METADATA_LIMIT = 1 << 20


def _installed_distribution(site: Path, distribution: str) -> tuple[str, str] | None:
    """``(name, version)`` of the distribution installed in ``site`` (site-packages) whose
    ``*.dist-info`` folder name matches ``distribution`` by PEP 503 normalization, read from
    its ``METADATA`` headers (``Name:``, ``Version:``); never imported or run. None when it
    is not there, its metadata cannot be read, or two copies disagree on the version."""
    want = normalize_distribution(distribution)
    found: set[tuple[str, str]] = set()
    try:
        entries = list(site.iterdir())
    except OSError:
        return None
    for entry in entries:
        n = entry.name
        if not n.endswith(".dist-info") or normalize_distribution(n[:-len(".dist-info")].split("-", 1)[0]) != want:
            continue
        try:
            with open(entry / "METADATA", "rb") as fh:
                raw = fh.read(_METADATA_LIMIT)
        except OSError:
            continue
        headers = raw.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n", 1)[0]
        meta = dict(re.findall(r"^(Name|Version):[ \t]*(\S+)[ \t]*$", headers, re.M))
        version = meta.get("Version")
        if not version:
            continue
        name = meta.get("Name", "")
        if normalize_distribution(name) != want:
            name = want
        found.add((name, version))
    if len({v for _, v in found}) != 1:
        return None
    return sorted(found)[0]
