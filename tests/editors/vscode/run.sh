#!/usr/bin/env bash
# Runs setup.sh, then the end-to-end test of the VS Code extension in code-server.
#   tests/editors/vscode/run.sh [PYTHON]
# PYTHON: an interpreter that can `import specward.server` (default: python3).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${1:-python3}"

"$HERE/setup.sh"
export PATH="$HERE/.tools/node_modules/.bin:$PATH"   # Node 24, for code-server
exec node "$HERE/e2e.mjs" "$PYTHON"
