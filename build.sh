#!/usr/bin/env bash
# Set up, build, serve, test and lint the Positional Encoding Explorer.
#
#   ./build.sh setup        .venv with the project and its test tools; Debian chromium and axe-core
#   ./build.sh build [DIR]  static site (Pyodide in a Web Worker) into DIR, default dist/
#   ./build.sh serve        build, then serve dist/ on http://localhost:$PORT (default 8000)
#   ./build.sh dev          panel serve app.py --autoreload, for work on the Python side
#   ./build.sh test [ARGS]  setup, build, then pytest ARGS
#   ./build.sh lint         ruff check and ruff format --check
#   ./build.sh bench [ARGS] benchmarks (timings, not tests): python -m benchmarks.run ARGS
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
VENV=$ROOT/.venv
PY=$VENV/bin/python
# What the worker installs with micropip besides Panel and Bokeh (which Panel adds itself, from
# cdn.holoviz.org). Listed explicitly: Panel's import scanner would look for a PyPI package
# called `components`. The project's own wheel is added by scripts/postprocess_site.py; numpy
# comes from Pyodide's own build. Not plotly.py: figures are plain dicts drawn by plotly.js
# (bundled by Panel), and the app never imports it (tests/unit/test_build.py checks).
SITE_REQUIREMENTS=(numpy)
# The offline Pyodide test harness and its runtime mirror, shared beside this checkout (used by
# tests/test_pyodide_*.py and the benchmarks; the mirror is read in place, never copied here).
SHARED_OFFLINE=$ROOT/../shared/pyodide-offline
SHARED_MIRROR=$(cd "$ROOT/.." && pwd)/shared/pyodide-mirror

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

apt_install() {
    command -v apt-get >/dev/null || die "please install: $*"
    local sudo=()
    [[ $EUID -eq 0 ]] || sudo=(sudo)
    log "apt-get install $*"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

# .venv with the project (editable) and its test extra. pip runs only when pyproject.toml changed
# since the last install, or the install is missing, so repeated calls take well under a second.
ensure_python_env() {
    if [[ ! -x $PY ]]; then
        python3 -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
        log "creating $VENV"
        python3 -m venv "$VENV"
    fi
    local stamp=$VENV/.pe-explorer-installed want
    want=$(sha256sum pyproject.toml | cut -d' ' -f1)
    if [[ -f $stamp && $(<"$stamp") == "$want" ]] &&
        "$PY" -c 'import importlib.metadata as m; m.version("pe-explorer")' 2>/dev/null; then
        return
    fi
    log "pip install -e .[test]"
    "$PY" -m pip install --quiet --disable-pip-version-check -e ".[test]"
    echo "$want" >"$stamp"
}

# Debian's chromium for the Playwright tests (never `playwright install`), and openssl for the
# offline Pyodide harness's certificate.
ensure_system_packages() {
    local missing=()
    command -v chromium >/dev/null || [[ -n ${CHROMIUM:-} ]] || missing+=(chromium)
    command -v openssl >/dev/null || missing+=(openssl)
    if ((${#missing[@]})); then
        apt_install "${missing[@]}"
    fi
}

# The Pyodide runtime for tests and benchmarks: an explicit $PYODIDE_MIRROR, else the shared mirror.
export_pyodide_mirror() {
    export PYODIDE_MIRROR=${PYODIDE_MIRROR:-$SHARED_MIRROR}
}

# The runtime files (Pyodide, wheels, Bokeh's and Panel's JS and CSS) go into the site, checked
# against scripts/runtime-files.json: from $PE_RUNTIME_DIR, a folder laid out by host, else the
# shared mirror beside this checkout, else downloaded once into ~/.cache/pe-explorer/runtime.
# Without any of them the site loads them from the CDNs, as Panel wrote it.
vendor_runtime() {
    local out=$1 wheel=$2 runtime=${PE_RUNTIME_DIR:-} status=0
    if [[ -z $runtime && -d $SHARED_MIRROR ]]; then
        runtime=$SHARED_MIRROR
    fi
    local flags=()
    [[ ${PE_BYTECODE:-1} == 0 ]] && flags+=(--no-bytecode)  # to measure what bytecode gains
    "$PY" scripts/runtime.py vendor "$out" --wheel "$wheel" ${runtime:+--runtime "$runtime"} \
        "${flags[@]}" || status=$?
    case $status in
        0) ;;
        3) log "runtime files unavailable: this site loads Pyodide, Bokeh and Panel from their CDNs" ;;
        *) die "the runtime files were refused (see above)" ;;
    esac
}

# axe-core, pinned, for the accessibility tests (tests/support/a11y_support.py reads
# .cache/npm/node_modules/axe-core/axe.min.js; never a CDN). npm runs only when it is missing
# or another version.
AXE_VERSION=4.14.1
NPM_PREFIX=$ROOT/.cache/npm
ensure_axe_core() {
    local package=$NPM_PREFIX/node_modules/axe-core/package.json
    if [[ -f $package ]] &&
        [[ $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
            "$package") == "$AXE_VERSION" ]]; then
        return
    fi
    command -v npm >/dev/null || apt_install npm
    log "npm install axe-core@$AXE_VERSION into ${NPM_PREFIX#"$ROOT"/}"
    mkdir -p "$NPM_PREFIX"
    npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$NPM_PREFIX" \
        "axe-core@$AXE_VERSION" >&2
}

cmd_setup() {
    ensure_python_env
    ensure_system_packages
    ensure_axe_core
}

cmd_build() {
    local out=${1:-dist}
    ensure_python_env
    [[ -f app.py ]] || die "no app.py in $ROOT"
    # The output folder is deleted first; refuse to delete anything this build did not write.
    if [[ -d $out && -n $(ls -A "$out") && ! -f $out/app.js ]]; then
        die "$out exists and does not look like a site built by build.sh; not deleting it"
    fi
    rm -rf "$out"
    mkdir -p "$out/wheels"

    # The sdist-then-wheel build runs in a temporary copy, so stale files in ./build/ can never
    # end up in the wheel.
    local wheel_tmp
    wheel_tmp=$(mktemp -d)
    log "building the project wheel"
    "$PY" -m build --outdir "$wheel_tmp" . >"$wheel_tmp/build.log" 2>&1 ||
        { cat "$wheel_tmp/build.log" >&2; rm -rf "$wheel_tmp"; die "wheel build failed"; }
    cp "$wheel_tmp"/*.whl "$out/wheels/"
    rm -rf "$wheel_tmp"
    local wheels=("$out"/wheels/*.whl)
    ((${#wheels[@]} == 1)) || die "expected one wheel, got: ${wheels[*]}"

    log "panel convert app.py --to pyodide-worker --out $out"
    "$VENV/bin/panel" convert app.py --to pyodide-worker --out "$out" \
        --requirements "${SITE_REQUIREMENTS[@]}"
    # panel convert reports a failed conversion but still exits 0.
    [[ -f $out/app.html && -f $out/app.js ]] || die "panel convert did not write $out/app.html"

    cp -R static "$out/static"
    "$PY" scripts/postprocess_site.py "$out" --wheel "wheels/$(basename "${wheels[0]}")" --root "$ROOT"
    # Panel 1.9.4's worker can drop a patch during fast drags: components/fixes/pyodide_worker.py.
    "$PY" -m pe_explorer.fixes.pyodide_worker "$out/app.js"
    vendor_runtime "$out" "wheels/$(basename "${wheels[0]}")"
    log "site written to $out/ (open it through a web server: ./build.sh serve)"
}

cmd_serve() {
    local port=${PORT:-8000} host=${HOST:-127.0.0.1}
    cmd_build dist
    log "serving dist/ on http://localhost:$port/ (Ctrl+C to stop)"
    exec "$PY" -m http.server --directory dist --bind "$host" "$port"
}

cmd_dev() {
    local port=${PORT:-5006} show=()
    ensure_python_env
    # Open a browser only where there is a display to open it on.
    if [[ -n ${DISPLAY:-}${WAYLAND_DISPLAY:-} ]]; then
        show=(--show)
    fi
    log "serving app.py on http://localhost:$port/app with autoreload"
    exec "$VENV/bin/panel" serve app.py --autoreload --port "$port" "${show[@]}"
}

cmd_test() {
    cmd_setup
    cmd_build dist
    # tests/conftest.py tests this build instead of building the site again.
    export PE_SITE_DIR=$ROOT/dist
    if [[ -d $SHARED_OFFLINE ]]; then
        PYTHONPATH=$(cd "$SHARED_OFFLINE" && pwd)${PYTHONPATH:+:$PYTHONPATH}
        export PYTHONPATH
    fi
    # Without a mirror the Pyodide tests skip, or fail under CI=true (.ci/run sets it).
    export_pyodide_mirror
    "$PY" -m pytest "$@"
}

cmd_lint() {
    ensure_python_env
    "$VENV/bin/ruff" check .
    "$VENV/bin/ruff" format --check .
}

cmd_bench() {
    cmd_setup
    export_pyodide_mirror
    "$PY" -m benchmarks.run "$@"
}

usage() {
    sed -n '2,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
    exit 2
}

command=${1:-}
[[ $# -gt 0 ]] && shift
case $command in
    setup) cmd_setup ;;
    build) cmd_build "$@" ;;
    serve) cmd_serve ;;
    dev) cmd_dev ;;
    test) cmd_test "$@" ;;
    lint) cmd_lint ;;
    bench) cmd_bench "$@" ;;
    *) usage ;;
esac
