#!/usr/bin/env bash
# Set up, build, serve, test and lint the Positional Encoding Explorer.
#
#   ./build.sh setup        .venv with the project and its test tools; chromium, axe-core, Biome
#   ./build.sh build [DIR]  static site (Pyodide in a Web Worker) into DIR, default dist/
#   ./build.sh serve        build, then serve dist/ on http://localhost:$PORT (default 8000)
#   ./build.sh dev          panel serve app.py --autoreload, for work on the Python side
#   ./build.sh test [TIER] [ARGS]  setup, build, then pytest ARGS: the unit tier on every core,
#                           then the rest in one process (PE_TEST_WORKERS=2 for two); TIER
#                           unit|site|browser|pyodide runs tests/TIER alone (unit: no build, no
#                           browser; site: the built site's files, no browser)
#   ./build.sh lint         ruff check and ruff format --check; Biome on the JavaScript
#   ./build.sh bench [ARGS] benchmarks (timings, not tests): python -m benchmarks.run ARGS
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
VENV=$ROOT/.venv
PY=$VENV/bin/python
# The offline Pyodide test harness and its runtime mirror, shared beside this checkout unless
# $PYODIDE_OFFLINE and $PYODIDE_MIRROR name them (used by
# tests/test_pyodide_*.py and the benchmarks; the mirror is read in place, never copied here).
SHARED_OFFLINE=${PYODIDE_OFFLINE:-$ROOT/../shared/pyodide-offline}
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
    # --no-compile: Python compiles a module when it is first imported, and most of what is
    # installed (torch's 700 MB among it) never is; compiling it all took 35 s of a fresh setup.
    "$PY" -m pip install --quiet --no-compile --disable-pip-version-check -e ".[test]"
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

# Pinned npm packages, installed into the ignored .cache/npm (never a CDN, never global): axe-core
# for the accessibility tests (tests/support/a11y_support.py reads it there), plotly.js's partial
# bundle for the site, and Biome, the JavaScript linter of ./build.sh lint and
# tests/unit/test_lint.py, at the version biome.json's $schema names, so the configuration and
# the tool change together.
AXE_VERSION=4.14.1
# plotly.js's cartesian bundle, the page's plotly.js (scripts/plotly_bundle.py): Panel's version.
PLOTLY_PARTIAL=plotly.js-cartesian-dist-min@3.1.0
BIOME_VERSION=$(sed -n 's|.*"https://biomejs.dev/schemas/\([0-9.]*\)/schema.json".*|\1|p' biome.json)
NPM_PREFIX=$ROOT/.cache/npm
BIOME=$NPM_PREFIX/node_modules/.bin/biome

# The version of the npm package NAME in .cache/npm, or nothing.
npm_version() {
    local package=$NPM_PREFIX/node_modules/$1/package.json
    [[ -f $package ]] &&
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$package"
}

# npm runs only when a package is missing or another version, and then installs them all: an
# `npm install --no-save` removes from the folder what an earlier one installed.
ensure_npm_packages() {
    local specs=("axe-core@$AXE_VERSION" "@biomejs/biome@$BIOME_VERSION" "$PLOTLY_PARTIAL") spec
    local stale=()
    [[ -n $BIOME_VERSION ]] || die "biome.json's \$schema names no Biome version"
    for spec in "${specs[@]}"; do
        [[ $(npm_version "${spec%@*}") == "${spec##*@}" ]] || stale+=("$spec")
    done
    ((${#stale[@]})) || return 0
    command -v npm >/dev/null || apt_install npm
    log "npm install ${specs[*]} into ${NPM_PREFIX#"$ROOT"/}"
    mkdir -p "$NPM_PREFIX"
    npm install --no-save --no-audit --no-fund --no-package-lock --prefix "$NPM_PREFIX" \
        "${specs[@]}" >&2
}

cmd_setup() {
    ensure_python_env
    ensure_system_packages
    ensure_npm_packages
}

cmd_build() {
    ensure_python_env
    # The partial plotly.js bundle comes from npm, unless $PE_PLOTLY_PARTIAL names it.
    [[ -n ${PE_PLOTLY_PARTIAL:-} ]] || ensure_npm_packages
    # The build, step by step: scripts/build_site.py, a module of the package scripts. Its
    # runtime files come from $PE_RUNTIME_DIR, else ../shared/pyodide-mirror, else a download
    # (it stops if none works).
    "$PY" -m scripts.build_site "${1:-dist}"
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
    # A first argument naming a tier runs that folder of tests alone; the rest go to pytest.
    local tier=
    case ${1:-} in
        unit | site | browser | pyodide)
            tier=$1
            shift
            set -- "tests/$tier" "$@"
            ;;
    esac
    # The unit tier runs on every core (pytest-xdist; it needs no browser, only the CPU). The
    # browser tiers run in one process unless PE_TEST_WORKERS says otherwise: two browsers at
    # once can starve a Pyodide page or a served step's timing (benchmarks/RESULTS.md).
    local workers=${PE_TEST_WORKERS:-0} unit_workers=${PE_UNIT_WORKERS:-auto}
    if [[ $tier == unit ]]; then
        # The unit tier needs neither a built site nor Chromium and axe-core.
        ensure_python_env
        "$PY" -m pytest -n "$unit_workers" "$@"
        return
    fi
    if [[ $workers != 0 && " $* " != *" -n "* ]]; then
        set -- -n "$workers" --dist loadfile "$@"
    fi
    cmd_setup
    local unit_pid= unit_log=$ROOT/.cache/unit.log
    if [[ -z $tier && $# -eq 0 ]]; then
        # Everything. The unit tier needs only the CPU, and the browser tiers leave about a
        # quarter of the two cores idle (a page waits on its worker, the worker on the page): so
        # the unit tier runs beside the build and the browser tiers in the idle scheduling class
        # (SCHED_IDLE: a core only when nothing else wants it), and the browser tiers start as
        # soon as the site is built (benchmarks/RESULTS.md, "CI's time").
        mkdir -p "$ROOT/.cache"
        local idle=(chrt --idle 0)
        "${idle[@]}" true 2>/dev/null || idle=(nice -n 19)
        "${idle[@]}" "$PY" -m pytest -n "$unit_workers" -p no:cacheprovider tests/unit \
            >"$unit_log" 2>&1 &
        unit_pid=$!
        # The slowest modules' times in the log: where CI's 20 minutes go (benchmarks/RESULTS.md).
        set -- --durations=15 tests/site tests/browser tests/pyodide
    fi
    cmd_build dist
    # tests/conftest.py tests this build instead of building the site again.
    export PE_SITE_DIR=$ROOT/dist
    if [[ -d $SHARED_OFFLINE ]]; then
        PYTHONPATH=$(cd "$SHARED_OFFLINE" && pwd)${PYTHONPATH:+:$PYTHONPATH}
        export PYTHONPATH
    fi
    # Without a mirror the Pyodide tests skip, or fail under CI=true (.ci/run sets it).
    export_pyodide_mirror
    local status=0
    "$PY" -m pytest "$@" || status=$?
    if [[ -n $unit_pid ]]; then
        local unit_status=0
        wait "$unit_pid" || unit_status=$?
        log "the unit tier, run beside the build and the browser tiers:"
        cat "$unit_log" >&2
        if ((unit_status != 0)); then
            log "the unit tier failed (exit $unit_status)"
            status=$unit_status
        fi
    fi
    return "$status"
}

cmd_lint() {
    ensure_python_env
    ensure_npm_packages
    "$VENV/bin/ruff" check .
    "$VENV/bin/ruff" format --check .
    # biome.json names the files: the modules of components/js (linted and formatted), and the
    # classic scripts and workers of static/ and scripts/ (linted; their 'use strict' is needed).
    "$BIOME" ci --error-on-warnings .
}

cmd_bench() {
    cmd_setup
    export_pyodide_mirror
    "$PY" -m benchmarks.run "$@"
}

usage() {
    sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
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
