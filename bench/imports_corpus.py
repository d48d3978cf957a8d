"""specward's import checks on real code from the package registries, against the real compilers.

    bench/imports_corpus.py [--only NAME ...] [--offline] [--mutations N] [--seed S]
                            [--json FILE] [--workdir DIR]

Into ``bench/.work/imports-corpus/`` (git-ignored) it fetches a fixed, pinned list of projects
(``PROJECTS``): application templates shipped on the npm registry (create-vite's TypeScript
templates, create-next-app's TypeScript app template, the SvelteKit demo of ``sv``, the Docus
Nuxt layer, create-docusaurus' TypeScript site, Expo's tabs template, Shopify Hydrogen's
skeleton, and what ``ng new`` of ``@angular/cli``, ``create-vue``, ``create-t3-app`` and
``nest new`` write)
and the source distributions of popular pure-Python projects from PyPI. It installs their dependencies
(``npm install --ignore-scripts`` with the template's own package.json; a ``.venv`` in the
project root with ``pip install '.[extras]'`` and the test dependencies), then runs

- specward: ``python -m specward.server check --format json --allow-no-contract --no-cache .``
  (an empty ``specward.toml`` makes the project folder the project root);
- the project's own checker: ``tsc --noEmit -p <its tsconfig>``, ``vue-tsc`` for Vue,
  ``svelte-check`` for Svelte, from the project's own ``node_modules``; pyright (the venv's,
  the ``test`` extra) with ``--pythonpath .venv/bin/python`` for Python.

Compiler output is mapped to verdicts as ``tests/imports/test_reference.py`` does (TS2307 ->
phantom-import; TS2305/TS2724/TS2614/TS1192/TS2613 -> missing-export; pyright
reportMissingImports/reportMissingModuleSource -> phantom-import, "is unknown import symbol" ->
missing-export). A specward finding and a compiler verdict agree when file and kind are the same
and the lines are at most ``WINDOW`` apart (a multi-line import is reported at the statement by
one and at the name by the other). ``undeclared-dependency`` has no compiler counterpart: each one
is listed as specward-only.

``--mutations N`` breaks up to N imports per project at once (a seeded sample of single-line
imports, round-robin over kinds: a relative module path, a package name, a name imported from a
workspace module, a name imported from a package), runs both tools on the mutated tree, restores
every file byte for byte, and counts a mutation as caught when specward has an import finding on
its line. Recall is over the mutations the compiler flags.

Exit status: 0 when specward has no finding the compiler lacks (beyond ``ALLOWED``, each with its
reason), 1 when it has one (a false alarm: each is listed with file:line and message) or when it
catches fewer than ``--min-caught`` of the mutations the compilers flag, 2 when the benchmark
itself breaks (a fetch, an install or a tool fails).
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from specward.analyzers.codes import TSC_EQUIVALENTS

REPO = Path(__file__).resolve().parent.parent
WORKDIR = REPO / "bench" / ".work" / "imports-corpus"
PYRIGHT = Path(sys.executable).parent / "pyright"
WINDOW = 6
IMPORT_CODES = ("phantom-import", "missing-export", "undeclared-dependency")
TS_CODES = {**TSC_EQUIVALENTS,
            # node16/nodenext: "relative import paths need explicit file extensions" with no file to
            # suggest (TS2835, with a suggestion, names a file that exists and is not mapped)
            "TS2834": "phantom-import"}
# (a file name may hold parentheses: Next.js and Expo Router route groups, `app/(tabs)/index.tsx`)
TSC_LINE = re.compile(r"^(?P<file>\S.*?)\((?P<line>\d+),\d+\): error (?P<code>TS\d+): (?P<msg>.*)$")
STAMP = ".imports-corpus.json"
NPM_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]


class BenchError(Exception):
    """The benchmark itself cannot run (exit 2)."""


@dataclass
class Project:
    name: str
    registry: str  # "npm", "npx" (the package's CLI writes the project: ``create``) or "pypi"
    package: str
    version: str
    sub: str = ""  # folder inside the npm package holding the template
    shared: str = ""  # a folder of the package copied first (files every template of it shares)
    checks: list[tuple[str, list[str]]] = field(default_factory=list)  # (tool, args) run in the project
    prepare: list[list[str]] = field(default_factory=list)  # commands after the install (node_modules/.bin first)
    extras: str = ""  # pip extras of the project itself
    pip: list[str] = field(default_factory=list)  # more pip requirements (test dependencies)
    package_json: dict | None = None  # written when the template has none (create-next-app writes it in code)
    dev_dependencies: dict = field(default_factory=dict)  # added to the package's own package.json
    files: dict = field(default_factory=dict)  # written beside it (what a project created from it has)
    create: list[str] = field(default_factory=list)  # npx: the CLI's arguments (the project is written into "app")
    note: str = ""


def _vite(t: str, checks: list[tuple[str, list[str]]]) -> Project:
    return Project(f"vite-{t}", "npm", "create-vite", "9.3.0", sub=f"template-{t}", checks=checks,
                   note="create-vite template; checked as its `build` script does")


NUXT_TSCONFIG = """{
  "files": [],
  "references": [
    { "path": "./.nuxt/tsconfig.app.json" },
    { "path": "./.nuxt/tsconfig.server.json" },
    { "path": "./.nuxt/tsconfig.shared.json" },
    { "path": "./.nuxt/tsconfig.node.json" }
  ]
}
"""

APP_NODE = [("tsc", ["-p", "tsconfig.app.json"]), ("tsc", ["-p", "tsconfig.node.json"])]
PROJECTS: list[Project] = [
    _vite("react-ts", APP_NODE),
    _vite("preact-ts", APP_NODE),
    _vite("solid-ts", APP_NODE),
    _vite("vanilla-ts", [("tsc", ["-p", "tsconfig.json"])]),
    _vite("lit-ts", [("tsc", ["-p", "tsconfig.json"])]),
    _vite("vue-ts", [("vue-tsc", ["-p", "tsconfig.app.json"]), ("tsc", ["-p", "tsconfig.node.json"])]),
    _vite("svelte-ts", [("svelte-check", ["--tsconfig", "./tsconfig.app.json"]), ("tsc", ["-p", "tsconfig.node.json"])]),
    Project("next-app-ts", "npm", "create-next-app", "16.4.3", sub="dist/templates/app/ts",
            checks=[("tsc", ["-p", "tsconfig.json"])], prepare=[["next", "typegen"]],
            package_json={"name": "next-app-ts", "version": "0.1.0", "private": True,
                          "scripts": {"dev": "next dev", "build": "next build"},
                          "dependencies": {"next": "16.4.3", "react": "19.2.0", "react-dom": "19.2.0"},
                          "devDependencies": {"typescript": "^5", "@types/node": "^20", "@types/react": "^19",
                                              "@types/react-dom": "^19", "eslint": "^9",
                                              "eslint-config-next": "16.4.3"}},
            note="create-next-app's `app` TypeScript template with ESLint; its package.json is the one "
                 "create-next-app writes in code (next and eslint-config-next = the CLI's version); "
                 "`next typegen` makes .next/types"),
    Project("sveltekit-demo", "npm", "sv", "0.17.1", sub="dist/templates/demo",
            checks=[("svelte-check", ["--tsconfig", "./tsconfig.json"])], prepare=[["svelte-kit", "sync"]],
            note="the SvelteKit demo app (`sv create --template demo --types ts`), put together from the "
                 "package's file lists; svelte.config.js is the minimal one (adapter-auto)"),
    Project("docus", "npm", "docus", "5.12.3",
            checks=[("vue-tsc", ["-p", f".nuxt/tsconfig.{t}.json"]) for t in ("app", "server", "shared", "node")],
            # (its own repository: Docus reads the enclosing repository's remote as a URL, and a
            # clone's `origin` may be a local path)
            prepare=[["git", "init", "-q"], ["nuxt", "prepare"]],
            dev_dependencies={"nuxt": "4.6.4", "vue-tsc": "3.3.14", "typescript": "5.9.3"},
            files={"tsconfig.json": NUXT_TSCONFIG},
            note="Docus, a Nuxt 4 layer (a real Nuxt app: app/, server/, modules/), with the peer `nuxt` and "
                 "`vue-tsc` added and the tsconfig.json a Nuxt 4 project has (references to .nuxt/); "
                 "`nuxt prepare` writes .nuxt (generated paths, `declare module` blocks); checked as "
                 "`nuxi typecheck` does, one vue-tsc run per generated tsconfig"),
    Project("docusaurus-ts", "npm", "create-docusaurus", "3.10.2", sub="templates/classic-typescript",
            shared="templates/shared", checks=[("tsc", ["-p", "tsconfig.json"])],
            note="create-docusaurus' classic-typescript site (its shared files, then the template's, as the "
                 "CLI copies them); checked by its `typecheck` script (tsc). Imports `@theme/*` and "
                 "`@docusaurus/*` modules that installed packages declare"),
    Project("angular-app", "npx", "@angular/cli", "21.2.30",
            create=["new", "app", "--defaults", "--skip-git", "--skip-install", "--ssr=false", "--style=css"],
            checks=[("tsc", ["-p", "tsconfig.app.json"]), ("tsc", ["-p", "tsconfig.spec.json"])],
            note="`ng new` with the defaults (standalone components, the router, Vitest specs); checked as its "
                 "build does (tsc on tsconfig.app.json, and the specs' tsconfig)"),
    Project("vue-app", "npx", "create-vue", "3.24.0", create=["--ts", "--router", "--pinia", "--vitest", "app"],
            checks=[("vue-tsc", ["-p", "tsconfig.app.json"]), ("vue-tsc", ["-p", "tsconfig.vitest.json"]),
                    ("tsc", ["-p", "tsconfig.node.json"])],
            note="`npm create vue` with TypeScript, Vue Router, Pinia and Vitest: single-file components, an "
                 "`@/*` alias, packages that augment `vue`'s module; checked as its `vue-tsc --build` does, "
                 "one run per referenced tsconfig"),
    Project("hydrogen-skeleton", "npm", "@shopify/create-hydrogen", "5.0.39", sub="dist/assets/hydrogen/starter",
            checks=[("tsc", ["-p", "tsconfig.json"])], prepare=[["react-router", "typegen"]],
            note="Shopify Hydrogen's skeleton storefront (the template `npm create @shopify/hydrogen` copies): "
                 "a React Router 7 framework-mode app, route modules importing their generated "
                 "`./+types/<route>` through `rootDirs` into `.react-router/types`, a `~/*` alias, GraphQL "
                 "codegen declaration files; checked by its `typecheck` script (`react-router typegen`, tsc)"),
    Project("t3-app", "npx", "create-t3-app", "7.40.0",
            create=["app", "--CI", "--trpc", "--tailwind", "--nextAuth", "--drizzle", "--appRouter", "--eslint",
                    "--noGit", "--noInstall"],
            checks=[("tsc", ["-p", "tsconfig.json"])],
            note="`create-t3-app` with tRPC, NextAuth.js, Drizzle and the app router: a `~/*` alias, server and "
                 "client modules, `declare module \"next-auth\"` in a `.ts` file; checked by its "
                 "`typecheck` script (tsc)"),
    Project("nest-app", "npx", "@nestjs/cli", "12.0.15",
            create=["new", "app", "--skip-git", "--skip-install", "--package-manager", "npm"],
            checks=[("tsc", ["-p", "tsconfig.json"])],
            note="`nest new`: a NestJS 12 backend in `nodenext` resolution (`.js` specifiers of `.ts` files, "
                 "`supertest/types.js`), Vitest specs; checked by tsc on its tsconfig"),
    Project("expo-tabs", "npm", "expo-template-tabs", "57.0.28", checks=[("tsc", ["-p", "tsconfig.json"])],
            note="the Expo Router tabs template (`create-expo-app --template tabs`): React Native, an `@/*` "
                 "path alias in a tsconfig that extends expo/tsconfig.base, platform files "
                 "(`useColorScheme.web.ts` beside `useColorScheme.ts`), route files with `+` and `(group)` names"),
    Project("httpx", "pypi", "httpx", "0.28.1", extras="brotli,cli,http2,socks,zstd",
            pip=["pytest==8.4.2", "trustme==1.2.1", "uvicorn==0.38.0", "trio==0.32.0", "chardet==5.2.0"]),
    Project("rich", "pypi", "rich", "15.0.0", pip=["pytest==8.4.2", "attrs==25.4.0"]),
    Project("flask", "pypi", "flask", "3.1.3", extras="async,dotenv", pip=["pytest==8.4.2"]),
    Project("attrs", "pypi", "attrs", "26.1.0", pip=["pytest==8.4.2", "hypothesis==6.140.3"]),
]

# (project, file glob, kind, what) -> reason: differences that are not specward's false alarms or
# misses. `what` is "+" (specward only) or "-" (compiler only); lines are left out so that a new
# release does not turn an entry stale by moving a line. Keep it small: each entry needs a reason
# that holds for every verdict it matches.
_GUARDED = ("the import is guarded (`try:` ... `except ImportError:`, or `if TYPE_CHECKING:`): "
            "specward does not judge a guarded package import, by design; pyright reports it")
ALLOWED: dict[tuple[str, str, str, str], str] = {
    ("httpx", "tests/*", "undeclared-dependency", "+"):
        "httpx declares its test dependencies (pytest, trio, trustme, uvicorn, chardet, ...) in the "
        "repository's requirements.txt, which the sdist does not ship; the benchmark installs them so that "
        "pyright resolves the imports. For this tree specward's verdict is right: no manifest it has declares them",
    ("httpx", "httpx/_decoders.py", "phantom-import", "-"): _GUARDED,
    ("docusaurus-ts", "sidebars.ts", "undeclared-dependency", "+"):
        "the template's `import type { SidebarsConfig } from '@docusaurus/plugin-content-docs'` names a package "
        "installed only as a dependency of @docusaurus/preset-classic and declared nowhere: an import of a "
        "transitive dependency, which is what the rule is for (under pnpm's strict layout tsc would not find it)",
    ("flask", "docs/conf.py", "undeclared-dependency", "+"):
        "`packaging` is installed as a dependency of Sphinx and declared nowhere: an import of a "
        "transitive dependency, which is what the rule is for",
    ("flask", "docs/conf.py", "phantom-import", "-"):
        "pallets-sphinx-themes is declared (dependency group `docs`) but not installed: a declared package "
        "that is missing is an installation problem, not flagged by design",
    ("flask", "examples/celery/src/task_app/*", "missing-export", "-"):
        "celery is declared in examples/celery/pyproject.toml and not installed: specward does not flag a "
        "declared package, nor judge names imported from a package that is not installed; pyright resolves `celery` to something "
        "else in the tree and calls the names unknown",
    ("flask", "src/flask/cli.py", "phantom-import", "-"): _GUARDED,
    ("flask", "src/flask/config.py", "phantom-import", "-"): _GUARDED,
    ("flask", "src/flask/sessions.py", "phantom-import", "-"): _GUARDED,
    ("flask", "tests/test_reqctx.py", "phantom-import", "-"): _GUARDED,
    ("flask", "tests/test_blueprints.py", "phantom-import", "-"):
        "`blueprintapp` lives in tests/test_apps, which the `test_apps` fixture puts on sys.path at run "
        "time: the import works, pyright cannot know it",
    ("rich", "rich/jupyter.py", "phantom-import", "-"): _GUARDED,
    ("rich", "rich/live.py", "phantom-import", "-"): _GUARDED,
    ("rich", "rich/progress.py", "phantom-import", "-"): _GUARDED,
    ("rich", "rich/_windows_renderer.py", "missing-export", "-"):
        "rich/_win32_console.py stops with ImportError unless sys.platform is win32; pyright judges for "
        "Linux, so the classes below are unreachable for it. specward does not evaluate platform checks",
    ("rich", "rich/console.py", "missing-export", "-"):
        "the same: LegacyWindowsTerm from rich/_win32_console.py, defined after the win32-only guard",
    ("attrs", "tests/test_slots.py", "phantom-import", "-"): _GUARDED,
    ("attrs", "src/attr/_compat.py", "missing-export", "-"):
        "`_GenericAlias` from `typing`: names imported from the standard library are not judged (pyright's "
        "typeshed stub leaves this private name out)",
}

SVELTE_CONFIG = """import adapter from '@sveltejs/adapter-auto';

/** @type {import('@sveltejs/kit').Config} */
const config = { kit: { adapter: adapter() } };

export default config;
"""


# ---------------------------------------------------------------------------------------------
# fetching


def _run(cmd: list[str], cwd: Path, timeout: int = 900, env: dict | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        raise BenchError(f"did not finish within {timeout} s: {' '.join(cmd)} (in {cwd})") from None
    except OSError as exc:
        raise BenchError(f"cannot run {cmd[0]}: {exc}") from None


def _must(cp: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    if cp.returncode != 0:
        raise BenchError(f"{what} failed (exit {cp.returncode}): {(cp.stderr or cp.stdout).strip()[-1500:]}")
    return cp


def _node_env(root: Path) -> dict:
    env = dict(os.environ, NEXT_TELEMETRY_DISABLED="1", SVELTEKIT_TELEMETRY_DISABLED="1", NUXT_TELEMETRY_DISABLED="1")
    env["PATH"] = f"{root / 'node_modules' / '.bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def fetch(p: Project, work: Path) -> Path:
    dest = work / p.name
    stamp = dest / STAMP
    want = {"package": p.package, "version": p.version, "sub": p.sub, "extras": p.extras, "pip": p.pip}
    if p.shared:
        want["shared"] = p.shared
    if p.create:
        want["create"] = p.create
    if p.prepare:
        want["prepare"] = p.prepare
    if p.package_json is not None:
        want["package_json"] = p.package_json
    if p.dev_dependencies or p.files:
        want["dev_dependencies"], want["files"] = p.dev_dependencies, p.files
    if stamp.is_file() and json.loads(stamp.read_text()).get("spec") == want:
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    t0 = time.perf_counter()
    if p.registry == "npm":
        _fetch_npm(p, dest)
    elif p.registry == "npx":
        _create_npx(p, dest)
    else:
        _fetch_pypi(p, dest)
    (dest / "specward.toml").write_text("# the project root for `specward check` (bench/imports_corpus.py)\n")
    stamp.write_text(json.dumps({"spec": want, "fetch_s": round(time.perf_counter() - t0, 1)}) + "\n")
    return dest


def _fetch_npm(p: Project, dest: Path) -> None:
    tmp = dest.parent / f".pack-{p.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    cp = _must(_run(["npm", "pack", f"{p.package}@{p.version}", "--json", "--silent"], tmp), f"npm pack {p.package}")
    tgz = tmp / json.loads(cp.stdout)[0]["filename"]
    with tarfile.open(tgz) as tar:
        tar.extractall(tmp / "x", filter="data")
    src = tmp / "x" / "package" / p.sub
    if (src / "files.types=typescript.json").is_file():
        _materialize_sv(src, tmp / "x" / "package" / "dist" / "shared.json", dest)
    else:
        if p.shared:
            shutil.copytree(tmp / "x" / "package" / p.shared, dest, dirs_exist_ok=True)
        shutil.copytree(src, dest, dirs_exist_ok=True)
    for gi in ("_gitignore", "gitignore"):  # what the CLIs rename on creation
        if (dest / gi).is_file():
            (dest / gi).rename(dest / ".gitignore")
    if p.package_json is not None:
        (dest / "package.json").write_text(json.dumps(p.package_json, indent=2) + "\n")
    if p.dev_dependencies:
        manifest = json.loads((dest / "package.json").read_text())
        manifest.setdefault("devDependencies", {}).update(p.dev_dependencies)
        (dest / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for rel, text in p.files.items():
        (dest / rel).write_text(text)
    shutil.rmtree(tmp, ignore_errors=True)
    _must(_run(["npm", "install", *NPM_FLAGS], dest, timeout=900), f"npm install in {p.name}")
    for cmd in p.prepare:
        _must(_run(cmd, dest, env=_node_env(dest), timeout=300), " ".join(cmd) + f" in {p.name}")


def _create_npx(p: Project, dest: Path) -> None:
    """What a user gets from the package's own generator (``npx @angular/cli new ...``), its
    templates from the npm package, then ``npm install``."""
    tmp = dest.parent / f".create-{p.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    _must(_run(["npx", "-y", f"{p.package}@{p.version}", *p.create], tmp, env=_node_env(tmp), timeout=600),
          f"{p.package} {' '.join(p.create)}")
    shutil.copytree(tmp / "app", dest, dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    _must(_run(["npm", "install", *NPM_FLAGS], dest, timeout=900), f"npm install in {p.name}")


def _materialize_sv(src: Path, shared: Path, dest: Path) -> None:
    """What `sv create --template <t> --types ts` writes: the template's assets and TypeScript
    files, the shared files for `typescript`, package.json merged with the shared one."""
    for f in (src / "assets").rglob("*"):
        if f.is_file():
            rel = "/".join(part.replace("DOT-", ".") for part in f.relative_to(src / "assets").parts)
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dest / rel)
    for f in json.loads((src / "files.types=typescript.json").read_text()):
        (dest / f["name"]).parent.mkdir(parents=True, exist_ok=True)
        (dest / f["name"]).write_text(f["contents"])
    pkg = json.loads((src / "package.json").read_text())
    for f in json.loads(shared.read_text())["files"]:
        # an entry is for this project when every condition it names holds (an entry for
        # `library` and `typescript` is the library template's tsconfig, not the demo's)
        if f["include"] and set(f["include"]) <= {"typescript", src.name} and "typescript" not in f["exclude"]:
            if f["name"] == "package.json":
                extra = json.loads(f["contents"])
                for key, value in extra.items():
                    if isinstance(value, dict):
                        pkg.setdefault(key, {}).update(value)
                    else:
                        pkg.setdefault(key, value)
            else:
                (dest / f["name"]).write_text(f["contents"])
    pkg["name"] = "sveltekit-demo"
    (dest / "package.json").write_text(json.dumps(pkg, indent="\t") + "\n")
    if not (dest / "svelte.config.js").exists():
        (dest / "svelte.config.js").write_text(SVELTE_CONFIG)


def _fetch_pypi(p: Project, dest: Path) -> None:
    dl = dest.parent / f".dl-{p.name}"
    shutil.rmtree(dl, ignore_errors=True)
    dl.mkdir()
    _must(_run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                "-d", str(dl), f"{p.package}=={p.version}"], dl, timeout=600),
          f"pip download {p.package}=={p.version}")
    found = sorted(dl.iterdir())
    if len(found) != 1:
        raise BenchError(f"pip download {p.package}=={p.version} gave {[f.name for f in found]}")
    data, name = found[0].read_bytes(), found[0].name
    shutil.rmtree(dl, ignore_errors=True)
    tmp = dest.parent / f".sdist-{p.name}"
    shutil.rmtree(tmp, ignore_errors=True)
    if name.endswith(".zip"):
        zipfile.ZipFile(io.BytesIO(data)).extractall(tmp)
    else:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(tmp, filter="data")
    (top,) = [d for d in tmp.iterdir() if d.is_dir()]
    shutil.copytree(top, dest, dirs_exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    _must(_run([sys.executable, "-m", "venv", ".venv"], dest), f"venv for {p.name}")
    py = str(dest / ".venv" / "bin" / "python")
    req = "." + (f"[{p.extras}]" if p.extras else "")
    _must(_run([py, "-m", "pip", "install", "--quiet", req, *p.pip], dest, timeout=900), f"pip install in {p.name}")


# ---------------------------------------------------------------------------------------------
# the tools


@dataclass
class Verdict:
    file: str
    line: int
    kind: str
    message: str


def in_project(root: Path, path: str) -> str | None:
    try:
        rel = (root / path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    return None if rel.startswith(("node_modules/", ".venv/")) or "/node_modules/" in rel else rel


def run_specward(root: Path) -> tuple[list[Verdict], float]:
    t0 = time.perf_counter()
    cp = _run([sys.executable, "-m", "specward.server", "check", "--format", "json", "--allow-no-contract",
               "--no-cache", "."], root, timeout=600)
    if cp.returncode not in (0, 1):
        raise BenchError(f"specward check failed in {root} (exit {cp.returncode}): {cp.stderr.strip()[-1500:]}")
    try:
        diags = json.loads(cp.stdout).get("diagnostics", [])
    except ValueError as exc:
        raise BenchError(f"specward printed no JSON in {root}: {exc}") from None
    out = []
    for d in diags:
        if d.get("code") in IMPORT_CODES:
            out.append(Verdict(d["file"], int(d["line"]), d["code"], d["message"]))
    return out, time.perf_counter() - t0


def run_checker(root: Path, tool: str, args: list[str]) -> tuple[list[Verdict], set[str], float]:
    """The verdicts of one checker run and the project files it checked."""
    env = _node_env(root)
    t0 = time.perf_counter()
    if tool == "pyright":
        cp = _run([str(PYRIGHT), "--outputjson", "--pythonpath", str(root / ".venv" / "bin" / "python"), "."], root,
                  timeout=600)
        try:
            data = json.loads(cp.stdout)
        except ValueError:
            raise BenchError(f"pyright printed no JSON in {root}: {cp.stderr.strip()[-800:]}") from None
        out = []
        for d in data["generalDiagnostics"]:
            rule, msg = d.get("rule"), d["message"]
            if rule in ("reportMissingImports", "reportMissingModuleSource"):
                kind = "phantom-import"
            elif rule == "reportAttributeAccessIssue" and "is unknown import symbol" in msg:
                kind = "missing-export"
            else:
                continue
            rel = in_project(root, d["file"])
            if rel:
                out.append(Verdict(rel, d["range"]["start"]["line"] + 1, kind, f"{rule}: {msg}"))
        scope = {rel for f in root.rglob("*.py") if (rel := in_project(root, str(f)))
                 and not any(part.startswith(".") or part == "__pycache__" for part in Path(rel).parts)}
        return out, scope, time.perf_counter() - t0
    exe = root / "node_modules" / ".bin" / tool
    if not exe.exists():
        raise BenchError(f"{tool} is not in {root}/node_modules/.bin (the template must declare it)")
    if tool == "svelte-check":
        cp = _run([str(exe), *args, "--output", "machine-verbose"], root, env=env, timeout=600)
        out = []
        for line in cp.stdout.splitlines():
            _, _, rest = line.partition(" ")
            if not rest.startswith("{"):
                continue
            d = json.loads(rest)
            kind = TS_CODES.get(f"TS{d.get('code')}")
            rel = in_project(root, d["filename"])
            if d.get("type") == "ERROR" and kind and rel:
                out.append(Verdict(rel, d["start"]["line"] + 1, kind, f"TS{d['code']}: {d['message']}"))
        tsconfig = args[args.index("--tsconfig") + 1]
        scope = _tsc_files(root, ["-p", tsconfig], env)
        scope |= {rel for f in root.rglob("*.svelte") if (rel := in_project(root, str(f)))}
        return out, scope, time.perf_counter() - t0
    cp = _run([str(exe), "--noEmit", "--pretty", "false", *args], root, env=env, timeout=600)
    if cp.returncode not in (0, 1, 2):
        raise BenchError(f"{tool} failed in {root}: {cp.stderr.strip()[-800:]}")
    out = []
    for line in cp.stdout.splitlines():
        m = TSC_LINE.match(line)
        if m and m.group("code") in TS_CODES:
            rel = in_project(root, m.group("file"))
            if rel:
                out.append(Verdict(rel, int(m.group("line")), TS_CODES[m.group("code")],
                                   f"{m.group('code')}: {m.group('msg')}"))
    return out, _tsc_files(root, args, env, exe), time.perf_counter() - t0


def _tsc_files(root: Path, args: list[str], env: dict, exe: Path | None = None) -> set[str]:
    exe = exe or root / "node_modules" / ".bin" / "tsc"
    cp = _run([str(exe), "--listFilesOnly", *args], root, env=env, timeout=300)
    return {rel for line in cp.stdout.splitlines() if line.strip() and (rel := in_project(root, line.strip()))}


def tool_versions(root: Path, p: Project) -> dict[str, str]:
    out = {}
    tools = {t for t, _ in p.checks} | ({"pyright"} if p.registry == "pypi" else set())
    for t in sorted(tools):
        if t == "pyright":
            cp = _run([str(PYRIGHT), "--version"], root, timeout=120)
            out[t] = cp.stdout.strip().split()[-1] if cp.stdout.strip() else "?"
            continue
        pkg = {"tsc": "typescript", "vue-tsc": "vue-tsc", "svelte-check": "svelte-check"}[t]
        try:
            out[t] = json.loads((root / "node_modules" / pkg / "package.json").read_text())["version"]
        except (OSError, ValueError, KeyError):
            out[t] = "?"
    return out


# ---------------------------------------------------------------------------------------------
# comparing


@dataclass
class Result:
    project: Project
    files: int = 0
    imports: int = 0
    versions: dict = field(default_factory=dict)
    ours: list[Verdict] = field(default_factory=list)
    theirs: list[Verdict] = field(default_factory=list)
    agree: list[tuple[Verdict, Verdict]] = field(default_factory=list)
    only_ours: list[Verdict] = field(default_factory=list)
    only_theirs: list[Verdict] = field(default_factory=list)
    allowed: list[tuple[Verdict, str, str]] = field(default_factory=list)
    mutations: list[dict] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)

    @property
    def false_alarms(self) -> list[Verdict]:
        return self.only_ours


def match(ours: list[Verdict], theirs: list[Verdict]) -> tuple[list, list, list]:
    pairs = sorted(((abs(a.line - b.line), i, j) for i, a in enumerate(ours) for j, b in enumerate(theirs)
                    if a.file == b.file and a.kind == b.kind and abs(a.line - b.line) <= WINDOW))
    used_a, used_b, agree = set(), set(), []
    for _, i, j in pairs:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            agree.append((ours[i], theirs[j]))
    return (agree, [a for i, a in enumerate(ours) if i not in used_a],
            [b for j, b in enumerate(theirs) if j not in used_b])


def allowed_reason(p: Project, v: Verdict, what: str) -> str | None:
    for (name, pattern, kind, w), why in ALLOWED.items():
        if name == p.name and kind == v.kind and w == what and fnmatch.fnmatchcase(v.file, pattern):
            return why
    return None


# ---------------------------------------------------------------------------------------------
# counting imports, and the mutations

TS_EXT = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte")
TS_IMPORT = re.compile(r"""^import\s+(?P<type>type\s+)?(?P<clause>[^'"]*?)\s+from\s+(?P<q>['"])(?P<spec>[^'"]+)(?P=q)""")
TS_ANY_IMPORT = re.compile(r"""(?m)^\s*(?:import|export)\b[^;'"]*?(?:from\s*)?['"][^'"]+['"]|\bimport\(\s*['"]""")
PY_FROM = re.compile(r"^from\s+(?P<mod>\.*[\w.]*)\s+import\s+(?P<names>[\w ,]+?)\s*(?:#.*)?$")
PY_IMPORT = re.compile(r"^import\s+(?P<mod>[\w.]+)\s*(?:#.*)?$")
PY_ANY_IMPORT = re.compile(r"(?m)^\s*(?:from\s+\.*[\w.]*\s+import\b|import\s+[\w.])")


def source_files(root: Path, p: Project) -> list[str]:
    exts = (".py",) if p.registry == "pypi" else TS_EXT
    out = []
    for f in sorted(root.rglob("*")):
        rel = in_project(root, str(f))
        if rel and f.is_file() and f.suffix in exts and not any(
                part.startswith(".") or part == "__pycache__" for part in Path(rel).parts):
            out.append(rel)
    return out


def count_imports(root: Path, files: list[str]) -> int:
    n = 0
    for rel in files:
        text = (root / rel).read_text("utf-8", errors="replace")
        n += len((PY_ANY_IMPORT if rel.endswith(".py") else TS_ANY_IMPORT).findall(text))
    return n


@dataclass
class Mutation:
    file: str
    line: int  # 1-based
    kind: str
    before: str
    after: str


def _stdlib() -> set[str]:
    return set(getattr(sys, "stdlib_module_names", ())) | {"__future__"}


def plan_mutations(root: Path, p: Project, scope: set[str], n: int, seed: int) -> list[Mutation]:
    """Candidates from the source text alone (never from specward's output), sampled round-robin
    over kinds, at most two per file, on lines the compiler checks."""
    by_kind: dict[str, list[Mutation]] = {}
    top_level = {d.name for base in (root, root / "src") if base.is_dir() for d in base.iterdir()
                 if (d / "__init__.py").is_file() or (d.suffix == ".py" and d.is_file())}
    top_level = {t.removesuffix(".py") for t in top_level}
    stdlib = _stdlib()
    for rel in sorted(scope):
        path = root / rel
        if not path.is_file() or any(part.startswith(".") for part in Path(rel).parts):  # .next/types: generated
            continue
        lines = path.read_text("utf-8", errors="replace").split("\n")
        for i, line in enumerate(lines):
            for m in (_ts_mutations(root, rel, i + 1, line) if not rel.endswith(".py")
                      else _py_mutations(rel, i + 1, line, top_level, stdlib)):
                by_kind.setdefault(m.kind, []).append(m)
    rng = random.Random(f"{seed}:{p.name}")
    for ms in by_kind.values():
        rng.shuffle(ms)
    out: list[Mutation] = []
    per_file: dict[str, int] = {}
    taken: set[tuple[str, int]] = set()
    kinds = sorted(by_kind)
    while len(out) < n and any(by_kind.values()):
        for k in kinds:
            while by_kind[k]:
                m = by_kind[k].pop()
                if (m.file, m.line) in taken or per_file.get(m.file, 0) >= 2:
                    continue
                out.append(m)
                taken.add((m.file, m.line))
                per_file[m.file] = per_file.get(m.file, 0) + 1
                break
            if len(out) >= n:
                break
    return out


def _ts_mutations(root: Path, rel: str, no: int, line: str) -> list[Mutation]:
    m = TS_IMPORT.match(line)
    if not m:
        return []
    spec, clause = m.group("spec"), m.group("clause")
    out = []
    s0, s1 = m.span("spec")
    if spec.startswith("."):
        head, _, last = spec.rpartition("/")
        stem, dot, ext = last.partition(".")
        if stem and stem not in (".", ".."):
            new = f"{head}/{stem}s{dot}{ext}" if head else f"{stem}s{dot}{ext}"
            target = (root / rel).parent / new
            if not any(target.parent.glob(Path(new).name.split(".")[0] + ".*")):
                kind = "module path" if not ext or f".{ext}" in TS_EXT or ext in ("js", "ts") else "asset path"
                out.append(Mutation(rel, no, kind, line, line[:s0] + new + line[s1:]))
        local = True
    else:
        local = False
        pkg = "/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0]
        if not spec.startswith(("node:", "virtual:", "$", "~", "#")) and "." not in pkg and pkg not in ("vue", "svelte"):
            new_pkg = pkg + "-kit" if not pkg.endswith("-kit") else pkg + "s"
            if not (root / "node_modules" / new_pkg).exists():
                out.append(Mutation(rel, no, "package name", line, line[:s0] + new_pkg + spec[len(pkg):] + line[s1:]))
    named = re.search(r"\{([^}]*)\}", clause)
    if named:
        names = [x.strip() for x in named.group(1).split(",") if x.strip()]
        plain = [x for x in names if re.fullmatch(r"(type\s+)?[A-Za-z_$][\w$]*", x)]
        if plain and not spec.endswith((".css", ".svg", ".json")):
            name = plain[0].split()[-1]
            if len(name) > 3:
                c0 = m.start("clause") + named.start(1)
                seg = named.group(1)
                j = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", seg)
                new_seg = seg[:j.start()] + f"{name[:-1]} as {name}" + seg[j.end():]
                out.append(Mutation(rel, no, "name from a workspace module" if local else "name from a package",
                                    line, line[:c0] + new_seg + line[c0 + len(seg):]))
    return out


def _py_mutations(rel: str, no: int, line: str, top_level: set[str], stdlib: set[str]) -> list[Mutation]:
    out = []
    m = PY_FROM.match(line) or PY_IMPORT.match(line)
    if not m:
        return out
    mod = m.group("mod")
    top = mod.lstrip(".").split(".")[0]
    local = mod.startswith(".") or top in top_level
    if top in stdlib and not local:
        return out
    s0, s1 = m.span("mod")
    parts = mod.split(".")
    if mod.startswith(".") and not mod.strip("."):
        pass  # `from . import x`: no module segment to rename
    elif local:
        new = ".".join(parts[:-1] + [parts[-1] + "s"])
        out.append(Mutation(rel, no, "module path", line, line[:s0] + new + line[s1:]))
    else:
        new = top + "_kit" + mod[len(top):]
        out.append(Mutation(rel, no, "package name", line, line[:s0] + new + line[s1:]))
    if "names" in m.re.groupindex:
        names = [x.strip() for x in m.group("names").split(",") if x.strip()]
        plain = [x for x in names if re.fullmatch(r"[A-Za-z_]\w*", x) and x != "*"]
        if plain and len(plain[0]) > 3:
            name = plain[0]
            n0 = m.start("names")
            seg = m.group("names")
            j = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", seg)
            new_seg = seg[:j.start()] + f"{name[:-1]} as {name}" + seg[j.end():]
            out.append(Mutation(rel, no, "name from a workspace module" if local else "name from a package",
                                line, line[:n0] + new_seg + line[n0 + len(seg):]))
    return out


def apply(root: Path, muts: list[Mutation]) -> dict[str, bytes]:
    saved: dict[str, bytes] = {}
    for m in muts:
        path = root / m.file
        if m.file not in saved:
            saved[m.file] = path.read_bytes()
        lines = path.read_text("utf-8").split("\n")
        if lines[m.line - 1] != m.before:
            raise BenchError(f"mutation target moved: {m.file}:{m.line}")
        lines[m.line - 1] = m.after
        path.write_text("\n".join(lines), encoding="utf-8")
    return saved


def restore(root: Path, saved: dict[str, bytes]) -> None:
    for rel, data in saved.items():
        (root / rel).write_bytes(data)


# ---------------------------------------------------------------------------------------------
# one project


def check_all(root: Path, p: Project) -> tuple[list[Verdict], list[Verdict], set[str], dict]:
    ours, s_ours = run_specward(root)
    theirs, scope, s_theirs = [], set(), 0.0
    checks = p.checks or [("pyright", [])]
    for tool, args in checks:
        v, sc, s = run_checker(root, tool, args)
        theirs += v
        scope |= sc
        s_theirs += s
    # one verdict per (file, line, kind) on each side (two tsconfigs may both see a file)
    theirs = list({(v.file, v.line, v.kind): v for v in theirs}.values())
    return ours, theirs, scope, {"specward_s": round(s_ours, 1), "compiler_s": round(s_theirs, 1)}


def bench_project(p: Project, root: Path, n_mut: int, seed: int) -> Result:
    r = Result(p)
    files = source_files(root, p)
    r.files, r.imports = len(files), count_imports(root, files)
    r.versions = tool_versions(root, p)
    r.ours, r.theirs, scope, r.seconds = check_all(root, p)
    agree, only_ours, only_theirs = match(r.ours, r.theirs)
    r.agree = agree
    for v in only_ours:
        why = allowed_reason(p, v, "+")
        (r.allowed.append((v, "+", why)) if why else r.only_ours.append(v))
    for v in only_theirs:
        why = allowed_reason(p, v, "-")
        (r.allowed.append((v, "-", why)) if why else r.only_theirs.append(v))
    if n_mut > 0:
        muts = plan_mutations(root, p, scope, n_mut, seed)
        if muts:
            base_ours = {(v.file, v.line, v.kind) for v in r.ours}
            base_theirs = {(v.file, v.line, v.kind) for v in r.theirs}
            saved = apply(root, muts)
            try:
                m_ours, m_theirs, _, secs = check_all(root, p)
            finally:
                restore(root, saved)
            r.seconds["mutated_s"] = round(secs["specward_s"] + secs["compiler_s"], 1)
            at = {(m.file, m.line) for m in muts}
            for m in muts:
                ours_here = [v for v in m_ours if v.file == m.file and v.line == m.line
                             and (v.file, v.line, v.kind) not in base_ours]
                theirs_here = [v for v in m_theirs if v.file == m.file and abs(v.line - m.line) <= 0
                               and (v.file, v.line, v.kind) not in base_theirs]
                r.mutations.append({"file": m.file, "line": m.line, "kind": m.kind, "after": m.after.strip(),
                                    "compiler": [v.kind for v in theirs_here], "specward": [v.kind for v in ours_here],
                                    "specward_message": ours_here[0].message if ours_here else None,
                                    "compiler_message": theirs_here[0].message if theirs_here else None})
            # new specward findings away from every mutated line: possible false alarms the mutations caused
            for v in m_ours:
                if (v.file, v.line, v.kind) not in base_ours and (v.file, v.line) not in at:
                    r.mutations.append({"file": v.file, "line": v.line, "kind": "collateral", "after": "",
                                        "compiler": [], "specward": [v.kind], "specward_message": v.message,
                                        "compiler_message": None})
    return r


# ---------------------------------------------------------------------------------------------
# the report


def by_code(vs: list[Verdict]) -> str:
    counts: dict[str, int] = {}
    for v in vs:
        counts[v.kind] = counts.get(v.kind, 0) + 1
    return ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "0"


def print_report(results: list[Result], out=sys.stdout) -> None:
    w = out.write
    w("| project | version | checker | files | imports | specward findings | compiler verdicts | agree | "
      "specward only (false alarms) | compiler only (misses) | allowed | mutations: compiler flags / specward catches |\n")
    w("|---|---|---|---:|---:|---|---|---:|---:|---:|---:|---|\n")
    for r in results:
        real = [m for m in r.mutations if m["kind"] != "collateral"]
        flagged = [m for m in real if m["compiler"]]
        caught = [m for m in flagged if m["specward"]]
        checker = ", ".join(f"{t} {v}" for t, v in r.versions.items())
        w(f"| {r.project.name} | {r.project.package} {r.project.version} | {checker} | {r.files} | {r.imports} | "
          f"{by_code(r.ours)} | {by_code(r.theirs)} | {len(r.agree)} | {len(r.only_ours)} | {len(r.only_theirs)} | "
          f"{len(r.allowed)} | {len(flagged)} / {len(caught)} of {len(real)} |\n")
    real = [m for r in results for m in r.mutations if m["kind"] != "collateral"]
    if real:
        w("\n| mutation kind | made | compiler flags | specward catches (of those) | specward only |\n|---|---:|---:|---:|---:|\n")
        for k in sorted({m["kind"] for m in real}):
            ms = [m for m in real if m["kind"] == k]
            fl = [m for m in ms if m["compiler"]]
            w(f"| {k} | {len(ms)} | {len(fl)} | {sum(1 for m in fl if m['specward'])} | "
              f"{sum(1 for m in ms if m['specward'] and not m['compiler'])} |\n")
    for r in results:
        name = r.project.name
        items = [f"FALSE ALARM {name} {v.file}:{v.line} [{v.kind}] {v.message}" for v in r.only_ours]
        items += [f"miss {name} {v.file}:{v.line} [{v.kind}] {v.message}" for v in r.only_theirs]
        items += [f"allowed ({what}) {name} {v.file}:{v.line} [{v.kind}] {v.message} -- {why}" for v, what, why in r.allowed]
        for m in r.mutations:
            if m["kind"] == "collateral":
                items.append(f"mutation collateral {name} {m['file']}:{m['line']} {m['specward']} {m['specward_message']}")
            elif m["compiler"] and not m["specward"]:
                items.append(f"mutation missed {name} {m['file']}:{m['line']} ({m['kind']}) `{m['after']}` "
                             f"compiler: {m['compiler_message']}")
            elif m["specward"] and not m["compiler"]:
                items.append(f"mutation specward only {name} {m['file']}:{m['line']} ({m['kind']}) `{m['after']}` "
                             f"specward: {m['specward_message']}")
        if items:
            w(f"\n{name}:\n" + "".join(f"  - {x}\n" for x in items))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", metavar="NAME", help="only this project (repeatable)")
    ap.add_argument("--offline", action="store_true", help="reuse what was fetched; fail for a project not fetched")
    ap.add_argument("--mutations", type=int, default=8, metavar="N", help="imports broken per project (0: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", metavar="FILE", help="also write every result as JSON")
    ap.add_argument("--workdir", type=Path, default=WORKDIR)
    ap.add_argument("--min-caught", type=float, default=0.0, metavar="FRACTION",
                    help="exit 1 when specward catches fewer than this share of the mutations the compilers flag")
    args = ap.parse_args(argv)
    names = {p.name for p in PROJECTS}
    unknown = set(args.only or ()) - names
    if unknown:
        ap.error(f"unknown project(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(names))}")
    projects = [p for p in PROJECTS if not args.only or p.name in args.only]
    if any(p.registry == "pypi" for p in projects) and not PYRIGHT.exists():
        print(f"imports corpus: pyright is not installed beside {sys.executable} (pip install -e '.[test]')", file=sys.stderr)
        return 2
    args.workdir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = []
    try:
        for p in projects:
            t = time.perf_counter()
            root = args.workdir / p.name
            if args.offline:
                if not (root / STAMP).is_file():
                    raise BenchError(f"{p.name} was not fetched ({root}); run without --offline once")
            else:
                print(f"imports corpus: fetching {p.name} ({p.package} {p.version})", file=sys.stderr)
                root = fetch(p, args.workdir)
            print(f"imports corpus: checking {p.name}", file=sys.stderr)
            r = bench_project(p, root, args.mutations, args.seed)
            r.seconds["total_s"] = round(time.perf_counter() - t, 1)
            results.append(r)
    except BenchError as exc:
        print(f"imports corpus: {exc}", file=sys.stderr)
        return 2
    print_report(results)
    total = time.perf_counter() - t0
    print(f"\n{len(results)} project(s), {total:.0f} s; {args.mutations} mutation(s) per project, seed {args.seed}")
    if args.json:
        Path(args.json).write_text(json.dumps({"seconds": round(total, 1), "projects": [
            {"name": r.project.name, "package": r.project.package, "version": r.project.version, "files": r.files,
             "imports": r.imports, "versions": r.versions, "seconds": r.seconds,
             "specward": [v.__dict__ for v in r.ours], "compiler": [v.__dict__ for v in r.theirs],
             "agree": len(r.agree), "false_alarms": [v.__dict__ for v in r.only_ours],
             "misses": [v.__dict__ for v in r.only_theirs],
             "allowed": [dict(v.__dict__, what=what, reason=why) for v, what, why in r.allowed],
             "mutations": r.mutations} for r in results]}, indent=2) + "\n")
    bad = sum(len(r.only_ours) for r in results) + sum(
        1 for r in results for m in r.mutations if m["kind"] == "collateral")
    if bad:
        print(f"imports corpus: {bad} specward finding(s) the compiler does not have (false alarms)", file=sys.stderr)
    flagged = [m for r in results for m in r.mutations if m["kind"] != "collateral" and m["compiler"]]
    caught = sum(1 for m in flagged if m["specward"])
    low = bool(flagged) and caught < args.min_caught * len(flagged)
    if low:
        print(f"imports corpus: specward catches {caught} of the {len(flagged)} mutations the compilers flag "
              f"({caught / len(flagged):.1%}), fewer than --min-caught {args.min_caught:.0%}", file=sys.stderr)
    return 1 if bad or low else 0


if __name__ == "__main__":
    raise SystemExit(main())
