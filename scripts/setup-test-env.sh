#!/usr/bin/env bash
# Sets up what `npm test` needs beyond node_modules, and does nothing (one line, well under a
# second) when it is all there. `npm test` and `npm run test:e2e` run it first.
#   - Debian's chromium at /usr/bin/chromium: the webview tests, the end-to-end tests and the bench.
#     Not needed when SPLITPOINT_CHROMIUM names another Chromium or Chrome executable.
#   - code-server 4.100.3 (a real VS Code) in .e2e-cache/ for the end-to-end tests
#     (scripts/setup-code-server.sh), and, until it is installed, the Debian packages its build needs.
# Packages are installed with apt-get as root, or through sudo when sudo works without a password;
# otherwise this prints the missing packages and the command that installs them, and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

DEFAULT_CHROMIUM=/usr/bin/chromium
# What building code-server compiles (VS Code's native modules; kerberos needs libkrb5-dev).
CODE_SERVER_BUILD_PACKAGES=(build-essential python3 pkg-config libkrb5-dev libxkbfile-dev libsecret-1-dev ca-certificates)

missing=()
has_package() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }

# The browser: SPLITPOINT_CHROMIUM when set (it must be an executable file), else Debian's chromium.
if [ -n "${SPLITPOINT_CHROMIUM:-}" ]; then
  if [ ! -f "$SPLITPOINT_CHROMIUM" ] || [ ! -x "$SPLITPOINT_CHROMIUM" ]; then
    echo "setup-test-env: SPLITPOINT_CHROMIUM=$SPLITPOINT_CHROMIUM is not an executable file. Point it at a Chromium or Chrome executable, or unset it to use Debian's chromium ($DEFAULT_CHROMIUM)." >&2
    exit 1
  fi
  browser="$SPLITPOINT_CHROMIUM (SPLITPOINT_CHROMIUM)"
else
  [ -x "$DEFAULT_CHROMIUM" ] || missing+=(chromium)
  browser="$DEFAULT_CHROMIUM"
fi

code_server_ready=true
bash scripts/setup-code-server.sh --check || code_server_ready=false
# Without dpkg (not Debian) the build's packages cannot be checked: the build says what it lacks.
if ! $code_server_ready && command -v dpkg >/dev/null 2>&1; then
  for pkg in "${CODE_SERVER_BUILD_PACKAGES[@]}"; do has_package "$pkg" || missing+=("$pkg"); done
fi

if [ ${#missing[@]} -eq 0 ] && $code_server_ready; then
  echo "setup-test-env: ready (browser $browser; code-server in ${SPLITPOINT_E2E_CACHE:-.e2e-cache}/code-server)"
  exit 0
fi

if [ ${#missing[@]} -gt 0 ]; then
  install="apt-get install -y --no-install-recommends ${missing[*]}"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-test-env: npm test needs these Debian packages (or your system's equivalents), which are not installed: ${missing[*]}." >&2
    echo "  There is no apt-get here: install them with your package manager, then run npm test again." >&2
    exit 1
  fi
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    {
      echo "setup-test-env: npm test needs Debian packages that are not installed: ${missing[*]}"
      echo "  Installing them needs root (sudo would ask for a password, or is not installed). As root, or a user who can sudo, run:"
      echo "    sudo apt-get update && sudo $install"
      echo "  then run npm test again."
      [[ " ${missing[*]} " == *" chromium "* ]] && echo "  (chromium is for the webview and end-to-end tests; SPLITPOINT_CHROMIUM=/path/to/chrome uses another browser instead.)"
    } >&2
    exit 1
  fi
  echo "setup-test-env: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! $code_server_ready; then
  bash scripts/setup-code-server.sh
fi
echo "setup-test-env: ready (browser $browser; code-server in ${SPLITPOINT_E2E_CACHE:-.e2e-cache}/code-server)"
