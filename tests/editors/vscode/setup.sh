#!/usr/bin/env bash
# Prepares everything e2e.mjs needs; idempotent (each step is skipped when already done).
#   - Debian packages: chromium (the browser playwright-core drives), libkrb5-dev (code-server's
#     native modules compile against it)
#   - Node.js 24 (code-server requires it) in tests/editors/vscode/.tools/ (git-ignored)
#   - code-server + playwright-core, pinned in package.json / package-lock.json, via `npm ci`
#   - the extension package client-vscode/specward-0.1.0.vsix (`npm ci && npm run package`;
#     vsce runs the minified bundle, vscode:prepublish), rebuilt when missing or older than the
#     extension's sources, icon or manifest
# Runs as root (apt-get) without a terminal. SPECWARD_E2E_REBUILD_VSIX=1 forces the .vsix build.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
NODE_VERSION=24.21.0
TOOLS="$HERE/.tools"
CLIENT="$REPO/client-vscode"
VSIX="$CLIENT/specward-0.1.0.vsix"

say() { printf '[setup] %s\n' "$*"; }
t_start=$SECONDS

# ---- Debian packages ------------------------------------------------------------------
missing=()
for pkg in chromium libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
for tool in make g++ python3; do
  command -v "$tool" >/dev/null || missing+=(build-essential python3)
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq </dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
else
  say "Debian packages present: chromium, libkrb5-dev"
fi

# ---- Node.js 24 -----------------------------------------------------------------------
NODE="$TOOLS/node_modules/.bin/node"
if [[ -x "$NODE" && "$("$NODE" --version 2>/dev/null)" == "v$NODE_VERSION" ]]; then
  say "Node $NODE_VERSION present in ${TOOLS#$REPO/}"
else
  say "installing Node $NODE_VERSION into ${TOOLS#$REPO/}"
  mkdir -p "$TOOLS"
  # the `node` package's preinstall links the platform binary; npm 11 runs it only when allowed
  printf '{ "private": true, "allowScripts": { "node": true } }\n' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --no-audit --no-fund --save-exact "node@$NODE_VERSION" </dev/null)
  [[ "$("$NODE" --version)" == "v$NODE_VERSION" ]] || { say "Node $NODE_VERSION did not install"; exit 1; }
fi
export PATH="$TOOLS/node_modules/.bin:$PATH"   # npm below runs (and builds) with Node 24

# ---- code-server + playwright-core ----------------------------------------------------
stamp="$HERE/node_modules/.specward-e2e-installed"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1) $NODE_VERSION" ]] \
   && [[ -f "$HERE/node_modules/code-server/out/node/entry.js" && -d "$HERE/node_modules/playwright-core" ]]; then
  say "code-server and playwright-core present (package-lock.json unchanged)"
else
  say "installing code-server and playwright-core (npm ci; compiles native modules, ~2 min)"
  (cd "$HERE" && npm ci --no-audit --no-fund </dev/null)
  echo "$(sha256sum "$HERE/package-lock.json" | cut -d' ' -f1) $NODE_VERSION" > "$stamp"
fi
say "code-server $(node -p 'require(process.argv[1]).version' "$HERE/node_modules/code-server/package.json"), playwright-core $(node -p 'require(process.argv[1]).version' "$HERE/node_modules/playwright-core/package.json"), node $(node --version)"

# ---- the .vsix ------------------------------------------------------------------------
newer=""
if [[ -f "$VSIX" ]]; then
  newer="$(find "$CLIENT/src" "$CLIENT/images" "$CLIENT/package.json" "$CLIENT/package-lock.json" "$CLIENT/README.md" \
    "$CLIENT/CHANGELOG.md" "$CLIENT/LICENSE" -newer "$VSIX" -print -quit 2>/dev/null || true)"
  [[ -f "$CLIENT/.vscodeignore" && "$CLIENT/.vscodeignore" -nt "$VSIX" ]] && newer="$CLIENT/.vscodeignore"
fi
if [[ -f "$VSIX" && -z "$newer" && "${SPECWARD_E2E_REBUILD_VSIX:-0}" != 1 ]]; then
  say "${VSIX#$REPO/} up to date"
else
  say "building ${VSIX#$REPO/}${newer:+ (${newer#$REPO/} changed)} (npm ci && npm run package)"
  (cd "$CLIENT" && npm ci --no-audit --no-fund </dev/null && npm run package </dev/null)
fi

say "done in $((SECONDS - t_start)) s"
