# Sourced by .ci/brainscore.sh and .ci/brainscore_language.sh: their log line and the
# stamp-checked build of a pinned virtual environment (one copy of that logic for both).
# The sourcing script sets ci_name (its file name, for the log) and start (date +%s).

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
