"""``specward routes`` on real backend code shipped in registry packages, against the routes
written down by hand.

    python bench/routes_corpus.py [--report-only] [--only NAME ...] [--workdir DIR] [--verbose]

Each project (pinned below) is fetched once into ``bench/.work/routes-corpus`` (git-ignored):
an sdist from PyPI (``pip download --no-binary :all: --no-deps``), an npm tarball (``npm
pack``), or, for a generator whose templates are not plain source (``express-generator``,
``sv``, ``@nestjs/cli``), the app the generator writes (``npx -y NAME@VERSION ...``, no install). The
project's root gets a ``.git`` folder (the project root, as a checkout has it), and
``specward routes --no-cache --format json PATH ...`` runs there on the app's folders.

The expected routes are in ``bench/routes_corpus/<project>.json``, written by reading the
code and the framework's rules (never from specward's output)::

    {"project": ..., "notes": [...],
     "routes": [{"method": "GET", "path": "/users/{id}", "file": "app/users.py", "line": 12}, ...],
     "unresolved": [{"file": ..., "line": ..., "note": ...}, ...]}

``file`` is relative to the project root; ``line`` is the line of the route's path literal
(``"/users/{id}"`` in ``@router.get(``, ``router.get(``, ``path(``; on the next line when the
call spans lines), or, where the path has no literal, of the declaration: ``@Get()``, a file
route's ``export async function GET`` / ``export default``, SvelteKit's ``export const
actions``. A route specward finds is at that place when its file is the same and the line is
the line of its ``at`` or of its ``handler_at``.

Figures per project and in total:

- **recall**: expected routes found (resolved) with the same method and full path, at their place;
- **wrong targets**: found routes whose method and path are expected, but at another place
  (another handler answers that request);
- **false routes**: found routes whose method and path are not expected at all;
- **unresolved**: the expected unresolved routes specward lists as unresolved at that place
  (``u ok/expected``), and unresolved routes it lists that are not expected (``extra``).

Prints a table (and, with ``--verbose`` or on failure, each difference). Exit 1 when the
total recall is below 100 % or there is any wrong target, false route, missing expected
unresolved or unexpected unresolved route; ``--report-only`` always exits 0 (2 when the
harness itself breaks: a fetch fails, specward fails, an expectations file is invalid).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXPECTED_DIR = HERE / "routes_corpus"


@dataclass(frozen=True)
class Project:
    name: str  # the expectations file's stem
    source: tuple  # ("pypi", name, version) | ("npm", name, version) | ("npx", name, version, args...)
    root: str  # the project root inside what was unpacked or generated
    paths: tuple[str, ...]  # the folders or files listed, relative to the root
    framework: str
    license: str


PROJECTS = [
    Project("flask-tutorial", ("pypi", "flask", "3.1.2"), "examples/tutorial", ("flaskr",), "flask", "BSD-3-Clause"),
    Project("flask-js-example", ("pypi", "flask", "3.1.2"), "examples/javascript", ("js_example",), "flask",
            "BSD-3-Clause"),
    Project("flask-celery-example", ("pypi", "flask", "3.1.2"), "examples/celery", ("src",), "flask", "BSD-3-Clause"),
    Project("httpbin", ("pypi", "httpbin", "0.10.2"), ".", ("httpbin",), "flask", "ISC"),
    Project("fastapi-docs", ("pypi", "fastapi", "0.121.0"), "docs_src",
            ("bigger_applications/app", "sub_applications", "behind_a_proxy"), "fastapi", "MIT"),
    Project("django-debug-toolbar-example", ("pypi", "django-debug-toolbar", "6.1.0"), ".", ("example",), "django",
            "BSD-3-Clause"),
    Project("allauth-react-spa-backend", ("pypi", "django-allauth", "65.13.0"), "examples/react-spa/backend",
            ("backend",), "django, drf", "MIT"),
    Project("express-generator", ("npx", "express-generator", "4.16.1", "--no-view", "--force"), ".", (".",),
            "express", "MIT"),
    Project("fastify-examples", ("npm", "fastify", "5.12.8"), ".", ("examples",), "fastify", "MIT"),
    Project("nest-new", ("npx", "@nestjs/cli", "12.0.8", "new", "--skip-install", "--skip-git", "--package-manager",
                         "npm", "--language", "ts"), ".", ("src",), "nestjs", "MIT"),
    Project("create-next-app", ("npm", "create-next-app", "16.4.3"), "dist/templates",
            ("app-api/ts", "app-api/js", "default/ts", "default/js"), "nextjs", "MIT"),
    Project("sveltekit-demo", ("npx", "sv", "0.17.1", "create", "--template", "demo", "--types", "ts",
                               "--no-add-ons", "--no-install"), ".", ("src",), "sveltekit", "MIT"),
]


class HarnessError(Exception):
    """The harness itself cannot run (exit 2)."""


# ---------------------------------------------------------------------------------------------
# fetching


def _run(cmd: list[str], cwd: Path | None = None, timeout: int = 600) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise HarnessError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stdout[-1500:]}{proc.stderr[-1500:]}")


def fetch(workdir: Path, source: tuple) -> Path:
    """The unpacked package (or the generated app), fetched once."""
    kind, name, version, *args = source
    slug = f"{kind}-{name.replace('/', '-').lstrip('@')}-{version}"
    dest = workdir / slug
    if (dest / ".fetched").is_file():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    tmp = workdir / f"{slug}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if kind == "pypi":
        _run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps", "-d", str(tmp),
              f"{name}=={version}"])
        archive = next(tmp.glob("*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(tmp / "x", filter="data")
        (unpacked,) = (tmp / "x").iterdir()
        unpacked.rename(dest)
    elif kind == "npm":
        _run(["npm", "pack", "-q", "--pack-destination", str(tmp), f"{name}@{version}"])
        archive = next(tmp.glob("*.tgz"))
        with tarfile.open(archive) as tar:
            tar.extractall(tmp / "x", filter="data")
        (tmp / "x" / "package").rename(dest)
    elif kind == "npx":
        _run(["npx", "-y", f"{name}@{version}", *args, "app"], cwd=tmp)
        (tmp / "app").rename(dest)
    else:
        raise HarnessError(f"unknown source kind {kind!r}")
    shutil.rmtree(tmp, ignore_errors=True)
    (dest / ".fetched").write_text(json.dumps(list(source)) + "\n")
    return dest


# ---------------------------------------------------------------------------------------------
# expectations and specward's routes


def load_expected(name: str) -> dict:
    path = EXPECTED_DIR / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{path}: {exc}") from None
    problems = []
    for key in ("routes", "unresolved"):
        if not isinstance(data.get(key), list):
            problems.append(f"`{key}` missing or not a list")
    for i, r in enumerate(data.get("routes") or []):
        for key, typ in (("method", str), ("path", str), ("file", str), ("line", int)):
            if not isinstance(r.get(key), typ):
                problems.append(f"routes[{i}]: `{key}` missing or not a {typ.__name__}")
        if isinstance(r.get("path"), str) and not r["path"].startswith("/"):
            problems.append(f"routes[{i}]: the path must start with /")
    for i, r in enumerate(data.get("unresolved") or []):
        for key, typ in (("file", str), ("line", int), ("note", str)):
            if not isinstance(r.get(key), typ):
                problems.append(f"unresolved[{i}]: `{key}` missing or not a {typ.__name__}")
    if problems:
        raise HarnessError(f"{path}: " + "; ".join(problems))
    return data


@dataclass
class Found:
    method: str
    path: str
    file: str
    lines: tuple[int, ...]  # the declaration's line, then the handler's
    unresolved: str | None
    raw: dict = field(repr=False)

    def shown(self) -> str:
        return f"{self.method} {self.path} {self.file}:{self.lines[0]}" + (f" (unresolved: {self.unresolved})"
                                                                           if self.unresolved else "")


def _split_at(at: str) -> tuple[str, int]:
    file, line, _col = at.rsplit(":", 2)
    return file, int(line)


def run_specward(root: Path, paths: tuple[str, ...]) -> list[Found]:
    proc = subprocess.run([sys.executable, "-m", "specward.server", "routes", "--no-cache", "--format", "json", *paths],
                          cwd=root, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise HarnessError(f"specward routes failed in {root} ({proc.returncode}): {proc.stderr[-2000:]}")
    out = []
    for it in json.loads(proc.stdout)["routes"]:
        file, line = _split_at(it["at"])
        lines = [line]
        if it.get("handler_at"):
            hfile, hline = _split_at(it["handler_at"])
            if hfile == file:
                lines.append(hline)
        out.append(Found(it["method"], it["path"], file, tuple(lines), it.get("unresolved"), it))
    return out


# ---------------------------------------------------------------------------------------------
# comparison


@dataclass
class Result:
    name: str
    expected: int = 0
    found_ok: int = 0
    wrong: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    u_expected: int = 0
    u_ok: int = 0
    u_missed: list[str] = field(default_factory=list)
    u_extra: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.missed or self.wrong or self.false or self.u_missed or self.u_extra)


def compare(name: str, expected: dict, found: list[Found]) -> Result:
    res = Result(name, expected=len(expected["routes"]), u_expected=len(expected["unresolved"]))
    resolved = [f for f in found if not f.unresolved]
    unresolved = [f for f in found if f.unresolved]

    def at_place(f: Found, file: str, line: int) -> bool:
        return f.file == file and line in f.lines

    keys = {(e["method"], e["path"]) for e in expected["routes"]}
    for e in expected["routes"]:
        if any(f.method == e["method"] and f.path == e["path"] and at_place(f, e["file"], e["line"]) for f in resolved):
            res.found_ok += 1
        else:
            near = [f.shown() for f in found if at_place(f, e["file"], e["line"])]
            res.missed.append(f"{e['method']} {e['path']} {e['file']}:{e['line']}"
                              + (f"; specward there: {', '.join(near)}" if near else "; specward: nothing there"))
    for f in resolved:
        if any(f.method == e["method"] and f.path == e["path"] and at_place(f, e["file"], e["line"])
               for e in expected["routes"]):
            continue
        if (f.method, f.path) in keys:
            places = [f"{e['file']}:{e['line']}" for e in expected["routes"] if (e["method"], e["path"]) == (f.method, f.path)]
            res.wrong.append(f"{f.shown()} (expected at {', '.join(places)})")
        else:
            res.false.append(f.shown())
    for u in expected["unresolved"]:
        if any(at_place(f, u["file"], u["line"]) for f in unresolved):
            res.u_ok += 1
        else:
            res.u_missed.append(f"{u['file']}:{u['line']} ({u['note']})")
    for f in unresolved:
        if not any(at_place(f, u["file"], u["line"]) for u in expected["unresolved"]):
            res.u_extra.append(f.shown())
    return res


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "–"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report-only", action="store_true", help="exit 0 even when a figure misses (2 still on errors)")
    ap.add_argument("--only", nargs="*", metavar="NAME", help="run these projects only")
    ap.add_argument("--workdir", type=Path, default=HERE / ".work" / "routes-corpus")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every difference even when all pass")
    args = ap.parse_args()
    projects = [p for p in PROJECTS if not args.only or p.name in args.only]
    results = []
    try:
        for p in projects:
            expected = load_expected(p.name)
            base = fetch(args.workdir, p.source)
            root = (base / p.root).resolve()
            (root / ".git").mkdir(exist_ok=True)  # the project root
            results.append((p, compare(p.name, expected, run_specward(root, p.paths))))
    except (HarnessError, subprocess.TimeoutExpired, StopIteration, ValueError) as exc:
        print(f"routes corpus: error: {exc}", file=sys.stderr)
        return 2
    print("| project | framework | expected | found | recall | wrong targets | false routes | unresolved ok/expected | unresolved extra |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    tot = Result("total")
    for p, r in results:
        print(f"| {p.name} | {p.framework} | {r.expected} | {r.found_ok} | {pct(r.found_ok, r.expected)} | {len(r.wrong)} | "
              f"{len(r.false)} | {r.u_ok}/{r.u_expected} | {len(r.u_extra)} |")
        tot.expected += r.expected
        tot.found_ok += r.found_ok
        tot.wrong += r.wrong
        tot.false += r.false
        tot.missed += r.missed
        tot.u_expected += r.u_expected
        tot.u_ok += r.u_ok
        tot.u_missed += r.u_missed
        tot.u_extra += r.u_extra
    print(f"| **total** | | {tot.expected} | {tot.found_ok} | {pct(tot.found_ok, tot.expected)} | {len(tot.wrong)} | "
          f"{len(tot.false)} | {tot.u_ok}/{tot.u_expected} | {len(tot.u_extra)} |")
    if tot.failed or args.verbose:
        for p, r in results:
            for label, items in (("missed", r.missed), ("wrong target", r.wrong), ("false route", r.false),
                                 ("unresolved missed", r.u_missed), ("unresolved extra", r.u_extra)):
                for it in items:
                    print(f"  - {p.name}: {label}: {it}")
    if args.report_only:
        return 0
    return 1 if tot.failed else 0


if __name__ == "__main__":
    sys.exit(main())
