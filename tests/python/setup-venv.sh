#!/usr/bin/env bash
# Creates (once) the virtualenv holding the pinned Python multipart and YAML parsers used by
# the multipart and YAML differential tests, and prints the path of its python on the last line.
#
#   PY=$(bash tests/python/setup-venv.sh | tail -n 1)
#   "$PY" tests/python/multipart_readers.py < cases.json
#
# Location: $UTF8GATE_PYVENV, or target/pyvenv in the repository. Idempotent: a copy of
# requirements.txt kept inside the venv says what is installed; the venv is rebuilt only
# when requirements.txt changed or the venv is broken. Needs python3 with the venv module
# (Debian: python3-venv) and access to PyPI on first run.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$here/../.." && pwd)"
req="$REPO/tests/python/requirements.txt"
venv="${UTF8GATE_PYVENV:-$REPO/target/pyvenv}"
py="$venv/bin/python"
stamp="$venv/utf8gate-requirements.txt"
python="${PYTHON:-python3}"

up_to_date() {
    [[ -x "$py" && -f "$stamp" ]] && cmp -s "$req" "$stamp" && "$py" -c 'import sys' 2>/dev/null
}

mkdir -p "$(dirname "$venv")"
# Two test processes may run this at once: one builds, the other waits and reuses.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
fi

if ! up_to_date; then
    echo "setup-venv: creating $venv" >&2
    if [[ -e "$venv" && ! -f "$venv/pyvenv.cfg" && -n "$(ls -A "$venv" 2>/dev/null)" ]]; then
        echo "setup-venv: $venv exists and is not a virtualenv; not touching it" >&2
        exit 1
    fi
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$py" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" >&2
    # Fail now, not in the test, if a parser does not import.
    "$py" - >&2 <<'PY'
import python_multipart, werkzeug, multipart, lxml.etree, yaml, ruamel.yaml
import django.http.cookie, idna
assert hasattr(multipart, "PushMultipartParser"), "defnull multipart shadowed"
PY
    cp "$req" "$stamp"
fi

echo "$py"
