#!/usr/bin/env bash
# The packaging test (docs/install.md): specward as a user gets it, never the checkout.
#
#   bash tests/packaging/run.sh PYTHON      (PYTHON: an interpreter with specward installed
#                                            editable and the test extra, e.g. .venv/bin/python)
#
# Builds the wheel and the sdist with `python -m build`, installs them (and the git URL, and
# pipx) into fresh virtual environments, runs the installed `specward` from a temp folder
# outside the checkout with PYTHONPATH unset, and compares what it prints with the
# checkout's editable install; then runs the hook of .pre-commit-hooks.yaml through
# `pre-commit try-repo` on a fixture repository (tests/packaging/fixture/). One PASS/FAIL
# line per step; exits non-zero when any step failed. Everything lives in one temp folder,
# removed at the end: the checkout is only read.
#
# The source that is built is a git repository in the temp folder: a clone of the checkout's
# HEAD when the checkout has no uncommitted change (CI's clean clone), otherwise a snapshot
# commit of its working tree (tracked and untracked files that git does not ignore), so
# that a local run tests the files as they are. The git-URL and pre-commit steps use the
# checkout itself when it is clean, and that snapshot otherwise.
set -euo pipefail

PY=${1:?usage: bash tests/packaging/run.sh PYTHON}
PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/tests/packaging
TMP=$(mktemp -d "${TMPDIR:-/tmp}/specward-packaging.XXXXXX")
# SPECWARD_PACKAGING_KEEP=1 keeps the temp folder (its logs/ hold every step's output)
if [ "${SPECWARD_PACKAGING_KEEP:-}" = 1 ]; then trap 'echo "kept $TMP"' EXIT; else trap 'rm -rf "$TMP"' EXIT; fi
unset PYTHONPATH PYTHONHOME PIP_USER PIP_REQUIRE_VIRTUALENV VIRTUAL_ENV
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=packaging-test GIT_AUTHOR_EMAIL=packaging-test@example.invalid \
  GIT_COMMITTER_NAME=packaging-test GIT_COMMITTER_EMAIL=packaging-test@example.invalid
mkdir -p "$TMP/logs" "$TMP/work"
cd "$TMP/work"   # every command runs outside the checkout

START=$SECONDS
FAILED=()
# step NAME COMMAND...: runs COMMAND in a subshell that stops at its first failing command
# (not inside an `if`, where bash would ignore `set -e`), its output to logs/NAME.log; prints
# one PASS/FAIL line (and the end of the log on a failure).
step() {
  local name=$1 t0=$SECONDS rc
  shift
  set +e
  (set -e; "$@") >"$TMP/logs/$name.log" 2>&1
  rc=$?
  set -e
  if [ "$rc" = 0 ]; then
    echo "PASS $name ($((SECONDS - t0)) s)"
  else
    echo "FAIL $name ($((SECONDS - t0)) s)"
    # (pip's notes about this machine's absent local index folders are left out)
    grep -v "^WARNING: Location 'file:" "$TMP/logs/$name.log" | tail -n 40 | sed 's/^/    | /'
    FAILED+=("$name")
  fi
}
fail() { echo "$*" >&2; return 1; }

# A fresh venv (with the pip that Python bundles); "$1" is its folder.
new_venv() { "$PY" -m venv "$1"; }

# Prove that a venv's specward is its own: the modules load from its site-packages, no
# entry of sys.path is inside the checkout, and every module of both packages imports.
from_site_packages() {
  local venv=$1
  (cd "$TMP/work" && "$venv/bin/python" - "$REPO" <<'EOF'
import importlib, pkgutil, sys, sysconfig
from pathlib import Path
repo = Path(sys.argv[1]).resolve()
site = Path(sysconfig.get_paths()["purelib"]).resolve()
import specward, specward.server, specward.analyzers
# `specward` itself is a namespace package (no __init__.py): check its path entries and
# the two real packages' files
places = [*map(Path, specward.__path__), Path(specward.server.__file__), Path(specward.analyzers.__file__)]
for p in places:
    p = p.resolve()
    assert p.is_relative_to(site), f"{p} is not in {site}"
    assert not p.is_relative_to(repo), f"{p} is inside the checkout"
inside = [e for e in sys.path if e and Path(e).resolve().is_relative_to(repo)]
assert not inside, f"the checkout is on sys.path: {inside}"
names = []
for pkg in (specward.server, specward.analyzers):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        if info.name.endswith(".__main__"):  # runs the command line when imported
            continue
        importlib.import_module(info.name)
        names.append(info.name)
print(f"specward.server: {specward.server.__file__}")
print(f"{len(names)} modules imported from {site}")
EOF
  )
}

# run_commands SPECWARD OUTDIR: a fresh copy of examples/fullstack, and in it the commands
# that load the packaged resources (grammars, queries, the export and dashboard writers);
# each command's stdout and exit status go to OUTDIR/NAME.
run_commands() {
  local exe=$1 out=$2 ws
  ws=$(mktemp -d "$TMP/ws.XXXXXX")
  cp -R "$SRC/examples/fullstack/." "$ws/"
  mkdir -p "$out"
  (
    cd "$ws"
    r() { local name=$1; shift; local rc=0; "$exe" "$@" >"$out/$name" 2>"$out/$name.stderr" || rc=$?; echo "$rc" >"$out/$name.rc"; }
    r check check
    r check-json check --format json --no-cache
    r check-files check web/src/features/profile.ts scripts/sync_users.py --no-cache
    r calls calls
    r routes routes
    r export-openapi export openapi contracts/articles.dsl.json
    r export-client export client --lang ts contracts/articles.dsl.json
    r dashboard dashboard --output dashboard.html
    cp dashboard.html "$out/dashboard.html" 2>/dev/null || true
    r trend trend
  )
  rm -rf "$ws"
}

# same_as_reference OUTDIR: OUTDIR's outputs and exit statuses are the reference's.
same_as_reference() {
  local out=$1 f
  for f in "$TMP/out/reference"/*; do
    case $f in *.stderr) continue ;; esac
    cmp -s "$f" "$out/$(basename "$f")" || { diff -u "$f" "$out/$(basename "$f")" | head -n 30; fail "differs from the checkout's: $(basename "$f")"; }
  done
  grep -q 'error\[phantom-api\]' "$out/check" || fail "check reported no phantom-api"
  [ "$(cat "$out/check.rc")" = 1 ] || fail "check exited $(cat "$out/check.rc"), not 1"
  echo "same output and exit status as the checkout's for: $(cd "$out" && ls | grep -v -e '\.stderr$' -e '\.rc$' | tr '\n' ' ')"
}

check_version() {
  local v
  v=$("$1" --version)
  [ "$v" = "specward 0.1.0" ] || fail "--version printed '$v'"
  echo "$v"
}

# ------------------------------------------------------------------ the source to build
if [ -z "$(git -C "$REPO" status --porcelain --untracked-files=normal)" ]; then
  SRC_KIND="a clone of HEAD (the checkout is clean)"
  GIT_URL_REPO=$REPO
  git clone -q "$REPO" "$TMP/src"
else
  SRC_KIND="a snapshot of the working tree (the checkout has uncommitted changes)"
  mkdir -p "$TMP/src"
  (cd "$REPO" && git ls-files -z --cached --others --exclude-standard \
     | while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done \
     | tar --null -T - -cf -) | tar -C "$TMP/src" -xf -
  git -C "$TMP/src" init -q -b main
  git -C "$TMP/src" add -A
  git -C "$TMP/src" commit -q -m "the working tree of $REPO"
  GIT_URL_REPO=$TMP/src
fi
SRC=$TMP/src
echo "source: $SRC_KIND"

# ------------------------------------------------------------------ 1. build and the wheel
build() {
  (cd "$SRC" && "$PY" -m build --outdir "$TMP/dist" .)
  ls "$TMP"/dist/specward-0.1.0-py3-none-any.whl "$TMP"/dist/specward-0.1.0.tar.gz
}
step build build
[ -f "$TMP/dist/specward-0.1.0-py3-none-any.whl" ] || { echo "FAIL: no wheel, nothing else to test"; exit 1; }
WHEEL=$(ls "$TMP"/dist/*.whl)
SDIST=$(ls "$TMP"/dist/*.tar.gz)

# Every file of server/ and analyzers/ that git knows (modules, __init__.py of every package,
# the .scm queries and any other resource) is in the wheel under specward/server/ and
# specward/analyzers/, and the wheel holds nothing else but its metadata.
wheel_contents() {
  "$PY" - "$SRC" "$WHEEL" <<'EOF'
import subprocess, sys, zipfile
src, wheel = sys.argv[1:3]
files = subprocess.run(["git", "ls-files", "-z", "server", "analyzers"], cwd=src, check=True,
                       capture_output=True, text=True).stdout.split("\0")
want = {f"specward/{f}" for f in files if f and "__pycache__" not in f and not f.endswith(".pyc")}
have = set(zipfile.ZipFile(wheel).namelist())
missing = sorted(want - have)
extra = sorted(n for n in have - want if not n.startswith("specward-0.1.0.dist-info/"))
resources = sorted(n for n in want if not n.endswith(".py"))
packages = sorted(n for n in want if n.endswith("/__init__.py"))
print(f"{len(want)} files of server/ and analyzers/, {len(packages)} packages, "
      f"{len(resources)} non-Python resources: {', '.join(sorted({n.rsplit('.', 1)[-1] for n in resources}))}")
assert not missing, f"missing from the wheel: {missing}"
assert not extra, f"in the wheel but not in server/ or analyzers/: {extra}"
EOF
}
step wheel-contents wheel_contents

# ------------------------------------------------------------------ the reference
reference() {
  run_commands "$(dirname "$PY")/specward" "$TMP/out/reference"
  cat "$TMP/out/reference/check"
}
step reference-editable reference

# ------------------------------------------------------------------ 2. the wheel in a fresh venv
wheel_install() {
  new_venv "$TMP/venv-wheel"
  "$TMP/venv-wheel/bin/python" -m pip install -q "$WHEEL"
  from_site_packages "$TMP/venv-wheel"
  check_version "$TMP/venv-wheel/bin/specward"
  run_commands "$TMP/venv-wheel/bin/specward" "$TMP/out/wheel"
  same_as_reference "$TMP/out/wheel"
  ws=$(mktemp -d "$TMP/ws.XXXXXX") && cp -R "$SRC/examples/fullstack/." "$ws/"
  "$TMP/venv-wheel/bin/python" "$HERE/lsp_smoke.py" "$TMP/venv-wheel/bin/specward" "$ws" \
    web/src/features/profile.ts phantom-api
}
step wheel-install wheel_install

# ------------------------------------------------------------------ 3. the sdist
sdist_install() {
  new_venv "$TMP/venv-sdist"
  "$TMP/venv-sdist/bin/python" -m pip install -q "$SDIST"
  from_site_packages "$TMP/venv-sdist"
  check_version "$TMP/venv-sdist/bin/specward"
  run_commands "$TMP/venv-sdist/bin/specward" "$TMP/out/sdist"
  same_as_reference "$TMP/out/sdist"
}
step sdist-install sdist_install

# ------------------------------------------------------------------ 4. a git URL
git_url_install() {
  echo "pip install git+file://$GIT_URL_REPO"
  new_venv "$TMP/venv-git"
  "$TMP/venv-git/bin/python" -m pip install -q "git+file://$GIT_URL_REPO"
  from_site_packages "$TMP/venv-git"
  check_version "$TMP/venv-git/bin/specward"
  run_commands "$TMP/venv-git/bin/specward" "$TMP/out/git"
  same_as_reference "$TMP/out/git"
}
step git-url-install git_url_install

# ------------------------------------------------------------------ 5. pipx
pipx_install() {
  new_venv "$TMP/venv-tools"
  "$TMP/venv-tools/bin/python" -m pip install -q "pipx>=1.4,<2"
  export PIPX_HOME=$TMP/pipx/home PIPX_BIN_DIR=$TMP/pipx/bin PIPX_MAN_DIR=$TMP/pipx/man
  export PIPX_DEFAULT_PYTHON=$PY
  "$TMP/venv-tools/bin/pipx" install "$WHEEL"
  from_site_packages "$PIPX_HOME/venvs/specward"
  check_version "$PIPX_BIN_DIR/specward"
  run_commands "$PIPX_BIN_DIR/specward" "$TMP/out/pipx"
  same_as_reference "$TMP/out/pipx"
}
step pipx-install pipx_install

# ------------------------------------------------------------------ 6. pre-commit
# The fixture's app, clean, in a git repository: `pre-commit try-repo` must pass; a second
# commit adds calls to endpoints the contract lacks (in a .ts and an .mts file): it must fail,
# saying phantom-api and naming both files.
# Then the same through a .pre-commit-config.yaml of the three lines docs/install.md shows.
export PRE_COMMIT_HOME=$TMP/pre-commit-home
FIX=$TMP/fixture
pre_commit_clean() {
  mkdir -p "$FIX"
  cp -R "$HERE/fixture/clean/." "$FIX/"
  git -C "$FIX" init -q -b main
  git -C "$FIX" add -A
  git -C "$FIX" commit -q -m "a clean app"
  (cd "$FIX" && "$PY" -m pre_commit try-repo "$GIT_URL_REPO" specward --all-files) >"$TMP/try-repo.out" 2>&1 \
    || { cat "$TMP/try-repo.out"; fail "try-repo failed on the clean app"; }
  cat "$TMP/try-repo.out"
  grep -q '^specward\.*Passed' "$TMP/try-repo.out" || fail "the hook did not run (skipped?)"
}
step pre-commit-clean pre_commit_clean

pre_commit_phantom() {
  cp -R "$HERE/fixture/phantom/." "$FIX/"
  git -C "$FIX" add -A
  git -C "$FIX" commit -q -m "a phantom call"
  local rc=0
  (cd "$FIX" && "$PY" -m pre_commit try-repo "$GIT_URL_REPO" specward --all-files) >"$TMP/try-repo.out" 2>&1 || rc=$?
  cat "$TMP/try-repo.out"
  [ "$rc" != 0 ] || fail "try-repo passed on a phantom call"
  grep -q 'phantom-api' "$TMP/try-repo.out" || fail "the hook's output does not say phantom-api"
  grep -q 'web/src/refill.ts' "$TMP/try-repo.out" || fail "the hook's output does not name web/src/refill.ts"
  grep -q 'web/src/labels.mts' "$TMP/try-repo.out" || fail "the hook was not given web/src/labels.mts"
}
step pre-commit-phantom pre_commit_phantom

pre_commit_config() {
  local rev rc=0
  rev=$(git -C "$GIT_URL_REPO" rev-parse HEAD)
  cat >"$FIX/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $GIT_URL_REPO
    rev: $rev
    hooks: [{id: specward}]
EOF
  cat "$FIX/.pre-commit-config.yaml"
  (cd "$FIX" && "$PY" -m pre_commit run --all-files) >"$TMP/run.out" 2>&1 || rc=$?
  cat "$TMP/run.out"
  [ "$rc" != 0 ] && grep -q 'phantom-api' "$TMP/run.out" || fail "the configured hook did not fail with phantom-api"
  # a commit that touches only the clean file: pre-commit passes just that file, and
  # specward reports on it alone although the phantom call is still in the project
  git -C "$FIX" add .pre-commit-config.yaml
  echo "// the jars of one shelf" >>"$FIX/web/src/jars.ts"
  git -C "$FIX" add web/src/jars.ts
  (cd "$FIX" && "$PY" -m pre_commit run) >"$TMP/run.out" 2>&1 \
    || { cat "$TMP/run.out"; fail "the hook failed on a commit that touches only web/src/jars.ts"; }
  cat "$TMP/run.out"
  grep -q '^specward\.*Passed' "$TMP/run.out" || fail "the hook did not run on web/src/jars.ts (skipped?)"
}
step pre-commit-config pre_commit_config

echo "packaging: ${#FAILED[@]} failed step(s) in $((SECONDS - START)) s${FAILED[*]:+: ${FAILED[*]}}"
[ ${#FAILED[@]} = 0 ]
