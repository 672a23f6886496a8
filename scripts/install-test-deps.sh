#!/usr/bin/env bash
# Installs the system packages the test suite uses, on Debian or Ubuntu (apt-get). Safe to run again: when every
# tool is already there it changes nothing and needs no network. `.ci/run` runs this same script.
#
#   python3-openpyxl        the independent .xlsx reader the write tests check files with (/usr/bin/python3)
#   python3-yaml            an independent YAML parser for compose.yaml (test/house/deploy-files.test.ts)
#   dbus, dbus-x11, gnome-keyring, libsecret-tools
#                           a real Secret Service for the keychain tests (test/secrets/keychain.test.ts,
#                           test/cli/login-google-keychain.test.ts); `secret-tool` checks what landed in it
#   curl                    runs the lines `npm start` prints and the README's examples as a user would
#   chromium                the dashboard's browser tests (test/ui/, playwright-core at /usr/bin/chromium)
#   libreoffice-calc-nogui  `soffice --headless`, the spreadsheet app that opens written workbooks and computes
#                           their formulas itself
#   postgresql              team mode's database: the suites start a temporary cluster (initdb, pg_ctl) and run
#                           every store against it as well as SQLite (test/global-setup.ts)
set -euo pipefail

PACKAGES=(python3-openpyxl python3-yaml dbus dbus-x11 gnome-keyring libsecret-tools curl chromium libreoffice-calc-nogui postgresql)

have_tools() { for tool in "$@"; do command -v "$tool" >/dev/null || return 1; done; }
installed() {
  /usr/bin/python3 -c 'import openpyxl, yaml' 2>/dev/null \
    && have_tools dbus-run-session dbus-launch gnome-keyring-daemon secret-tool curl \
    && [ -x /usr/bin/chromium ] && [ -x /usr/bin/soffice ] \
    && compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

if installed; then
  echo "install-test-deps: every package the tests need is installed."
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "install-test-deps: this script needs apt-get (Debian or Ubuntu); see the README's Development section." >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
if ! installed; then
  echo "install-test-deps: installed ${PACKAGES[*]}, but a tool is still missing (on Ubuntu, chromium is a snap:" \
    "/usr/bin/chromium must be a Chromium the tests can start)." >&2
  exit 1
fi
echo "install-test-deps: installed ${PACKAGES[*]}."
