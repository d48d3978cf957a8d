"""specward's architecture verdicts against import-linter's on a real project that keeps
import-linter contracts in its source distribution, as it is and with imports broken on
purpose.

    python bench/invariants_corpus.py [--mutations N] [--seed S] [--workdir DIR]

The project (pinned below) is fetched from PyPI as an sdist (``pip download --no-binary``)
and unpacked under ``bench/.work/invariants-corpus``. ``lint-imports --no-cache`` (the
``test`` extra installs it) and ``specward check`` judge the tree; then each mutation adds
one import (at its end) to a module of a lower layer naming a module of a higher one
(chosen with the seed), and both judge again. A verdict is a chain's first import: (contract, importer
module, line). Prints a table; exits 1 when the two differ anywhere.
"""

from __future__ import annotations

import argparse
import configparser
import json
import random
import re
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECTS = [("import-linter", "2.17", "src")]  # (PyPI name, version, import root inside the sdist)
CHAIN_START = re.compile(r"^-\s+(?P<importer>[\w.]+) -> (?P<imported>[\w.]+) \(l\.(?P<line>\d+)\)")
LINK = re.compile(r"^\s+(?P<importer>[\w.]+) -> (?P<imported>[\w.]+) \(l\.\d+\)")

Verdict = tuple[str, str, int]  # (contract name, importer module, line)


def lint_imports_chains(stdout: str) -> dict[Verdict, list[str]]:
    """(contract name, importer module, line) -> the chain's modules, from lint-imports' report."""
    out: dict[Verdict, list[str]] = {}
    lines = stdout.splitlines()
    contract, current = None, None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and lines[i + 1] and set(lines[i + 1]) == {"-"} and len(lines[i + 1]) == len(line):
            contract = line  # a title, underlined
            continue
        m = CHAIN_START.match(line)
        if m and contract:
            current = out[(contract, m["importer"], int(m["line"]))] = [m["importer"], m["imported"]]
            continue
        m = LINK.match(line)
        if m and current is not None:
            current.append(m["imported"])
    return out


def run_lint_imports(root: Path, src: str) -> dict[Verdict, list[str]]:
    exe = Path(sys.executable).parent / "lint-imports"
    proc = subprocess.run([str(exe if exe.exists() else "lint-imports"), "--no-cache"], cwd=root, capture_output=True,
                          text=True, timeout=600, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root / src)})
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"lint-imports failed ({proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return lint_imports_chains(proc.stdout)


def contract_names(root: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(root / ".importlinter")
    return {sec.split(":", 2)[2]: parser[sec].get("name", sec.split(":", 2)[2]) for sec in parser.sections()
            if sec.startswith("importlinter:contract:")}


def run_specward(root: Path, src: str) -> dict[Verdict, str]:
    """The same verdicts from ``specward check --format json`` (rule id -> contract name)."""
    names = contract_names(root)
    proc = subprocess.run([sys.executable, "-m", "specward.server", "check", "--no-cache", "--allow-no-contract",
                           "--format", "json", "."], cwd=root, capture_output=True, text=True, timeout=600)
    out: dict[Verdict, str] = {}
    for d in json.loads(proc.stdout)["diagnostics"]:
        if d["code"] != "invariant-violation":
            continue
        rule = re.match(r"\[([^\]]+)\]", d["message"])
        module = d["file"][len(src) + 1:] if d["file"].startswith(src + "/") else d["file"]
        module = module.rsplit(".", 1)[0].replace("/", ".").removesuffix(".__init__")
        out[(names.get(rule[1], rule[1]) if rule else "?", module, d["line"])] = d["message"]
    return out


def fetch(workdir: Path, name: str, version: str) -> Path:
    dest = workdir / f"{name}-{version}"
    if dest.is_dir():
        return dest
    workdir.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                    "-d", str(workdir), f"{name}=={version}"], check=True, timeout=600)
    sdist = next(workdir.glob(f"{name.replace('-', '_')}-{version}.tar.gz"), None) or next(workdir.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(workdir, filter="data")
    unpacked = next(p for p in workdir.iterdir() if p.is_dir() and p.name.lower().replace("_", "-") == f"{name}-{version}")
    if unpacked != dest:
        unpacked.rename(dest)
    (dest / ".git").mkdir(exist_ok=True)  # the project root, as a checkout has it
    return dest


def layer_modules(root: Path, src: str) -> list[list[Path]]:
    """The files of each layer of the first layers contract, highest first."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(root / ".importlinter")
    sec = next(s for s in parser.sections() if s.startswith("importlinter:contract:") and parser[s].get("type") == "layers")
    containers = [c.strip() for c in parser[sec].get("containers", "").splitlines() if c.strip()] or [""]
    layers = [ln.strip() for ln in parser[sec]["layers"].splitlines() if ln.strip()]
    out = []
    for layer in layers:
        dotted = f"{containers[0]}.{layer}" if containers[0] else layer
        base = root / src / dotted.replace(".", "/")
        files = sorted(base.rglob("*.py")) if base.is_dir() else ([base.with_suffix(".py")] if base.with_suffix(".py").exists() else [])
        out.append(files)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutations", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", type=Path, default=HERE / ".work" / "invariants-corpus")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows, failures = [], []
    for name, version, src in PROJECTS:
        root = fetch(args.workdir, name, version)
        runs = [("as shipped", None)]
        layers = [files for files in layer_modules(root, src) if files]
        for _ in range(args.mutations):
            hi = rng.randrange(len(layers) - 1)
            lo = rng.randrange(hi + 1, len(layers))
            runs.append(("mutation", (rng.choice(layers[lo]), rng.choice(layers[hi]))))
        agree = flagged_both = 0
        for kind, mutation in runs:
            original = None
            if mutation is not None:
                lower, higher = mutation
                original = lower.read_text()
                target = str(higher.relative_to(root / src).with_suffix("")).replace("/", ".").removesuffix(".__init__")
                # appended: a line before `from __future__` would not be Python any more
                lower.write_text(original.rstrip("\n") + f"\nimport {target}  # mutation\n")
                line = original.rstrip("\n").count("\n") + 2
                module = str(lower.relative_to(root / src).with_suffix("")).replace("/", ".").removesuffix(".__init__")
            try:
                theirs, ours = run_lint_imports(root, src), run_specward(root, src)
            finally:
                if mutation is not None:
                    mutation[0].write_text(original)  # type: ignore[arg-type]
            same = set(theirs) == set(ours)
            agree += same
            if mutation is not None and any(v[1:] == (module, line) for v in theirs) \
                    and any(v[1:] == (module, line) for v in ours):
                flagged_both += 1
            if not same:
                failures.append(f"{name} {kind} {mutation}: lint-imports only {sorted(set(theirs) - set(ours))}, "
                                f"specward only {sorted(set(ours) - set(theirs))}")
        rows.append((name, version, len(runs), agree, args.mutations, flagged_both))
    print("| project | version | runs | same verdicts | mutations | both flag the mutation |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    for f in failures:
        print("  - " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
