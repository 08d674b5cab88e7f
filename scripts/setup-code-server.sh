#!/usr/bin/env bash
# Installs a real VS Code for end-to-end tests: code-server 4.100.3 (bundles VS Code 1.100, the newest
# release whose engines.node is 20), into .e2e-cache/ (git-ignored). Idempotent: a second run that
# finds it installed does nothing. `--check` only answers (exit 0: installed, 1: not).
# Run it through scripts/setup-test-env.sh, which first installs the Debian packages the build needs.
# See docs/testing.md (End-to-end in a real VS Code) for why each step exists.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${SPLITPOINT_E2E_CACHE:-$PWD/.e2e-cache}"
VERSION=4.100.3
BIN="$CACHE/code-server/node_modules/.bin/code-server"

installed() { [ -x "$BIN" ] && [ -f "$CACHE/code-server/.installed-$VERSION" ]; }
if [ "${1:-}" = "--check" ]; then
  installed
  exit
fi
if installed; then
  echo "code-server $VERSION already installed in $CACHE/code-server"
  exit 0
fi
echo "Installing code-server $VERSION into $CACHE/code-server (2-3 minutes, once)"

# code-server's inner @vscode/ripgrep postinstall downloads rg from GitHub (unreachable here); it
# first looks for a cached archive, so put the rg binary from the npm package there.
RG_CACHE="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
RG_TAR="$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -f "$RG_TAR" ]; then
  work="$(mktemp -d)"
  (cd "$work" && npm pack --silent @vscode/ripgrep-linux-x64@1.18.0 >/dev/null && tar xzf vscode-ripgrep-linux-x64-*.tgz)
  mkdir -p "$RG_CACHE" "$work/rg"
  cp "$work/package/bin/rg" "$work/rg/rg"
  chmod +x "$work/rg/rg"
  tar czf "$RG_TAR" -C "$work/rg" rg
  rm -rf "$work"
fi

mkdir -p "$CACHE/code-server"
cd "$CACHE/code-server"
# npm 11 skips dependency install scripts unless package.json allows them; code-server needs its
# postinstall (it installs and builds VS Code's own native modules).
cat > package.json <<'JSON'
{
  "name": "splitpoint-e2e-code-server",
  "private": true,
  "allowScripts": { "code-server": true, "argon2": true }
}
JSON
npm_config_yes=true npm_config_unsafe_perm=true npm install --no-audit --no-fund "code-server@$VERSION"
touch ".installed-$VERSION"
echo "code-server $VERSION installed: $BIN"
