# Sourced by .ci/brainscore.sh and .ci/brainscore_language.sh: their log line, the
# stamp-checked build of a pinned virtual environment and the run of the end-to-end check
# (one copy of that logic for both).
# The sourcing script sets repo (the checkout) and ci_name (its file name, for the log) first;
# this file sets start (for the log's seconds) and the two interpreters both scripts document:
# TOPONEURO_PYTHON (toponeuro's, default python) and BRAINSCORE_BASE_PYTHON (the Python 3.11
# a venv is built from, default python3.11).

start=$(date +%s)
toponeuro_py=${TOPONEURO_PYTHON:-python}
base_py=${BRAINSCORE_BASE_PYTHON:-python3.11}

log() { echo "[$ci_name +$(( $(date +%s) - start ))s] $*"; }

# build_venv VENV STAMP WANT BASE_PYTHON INSTALL_FUNCTION
# Reuses VENV when its python runs and the file STAMP holds WANT (the spec of what was
# installed), so a rerun with an unchanged spec skips the install. Otherwise deletes VENV,
# builds it from BASE_PYTHON, calls INSTALL_FUNCTION with the pip-install command as its
# arguments (it appends what to install), and writes WANT to STAMP.
build_venv() {
    local venv=$1 stamp=$2 want=$3 base_py=$4 install=$5
    if [[ -x $venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
        log "reusing $venv (requirements unchanged)"
        return 0
    fi
    log "building $venv from $("$base_py" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
    rm -rf "$venv"
    "$base_py" -m venv "$venv"
    "$install" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check
    echo "$want" > "$stamp"
    log "built $venv"
}

# run_check VENV DEMO_SCRIPT WORK_PREFIX WHAT
# Runs DEMO_SCRIPT (a .ci/*_demo.py) in toponeuro's interpreter ($toponeuro_py, repo on
# PYTHONPATH) with VENV's python as TOPONEURO_BRAINSCORE_PYTHON, nothing pip-installed at run
# time, and a fresh temporary work folder (TOPONEURO_BRAINSCORE_WORK) removed on exit.
run_check() {
    export TOPONEURO_BRAINSCORE_PYTHON=$1/bin/python
    export BS_INSTALL_DEPENDENCIES=no
    work=$(mktemp -d "${TMPDIR:-/tmp}/$3.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    log "running the end-to-end check in $work"
    TOPONEURO_BRAINSCORE_WORK=$work PYTHONPATH="$repo${PYTHONPATH:+:$PYTHONPATH}" \
        "$toponeuro_py" "$2"
    log "$4 check passed in $(( $(date +%s) - start )) s"
}
