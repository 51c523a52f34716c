#!/usr/bin/env bash
# Prove toponeuro's Brain-Score export with brainscore-vision itself (called by .ci/run).
#
# 1. Build (or reuse) a second virtual environment, .venv-brainscore, with brainscore-vision
#    2.4.2 and what it needs (numpy<2, xarray 2022.3, scikit-learn 1.7.2, torch 2.14.1,
#    torchvision 0.29.1), pinned in .ci/brainscore-requirements.txt. A stamp file records
#    what was installed, so a rerun with an unchanged spec skips the install (~2 s).
# 2. Run .ci/brainscore_demo.py in toponeuro's environment: export the current demo TopoNet,
#    toponet_demo.v2_tau_50 (32 px input), as a plugin (+ zip), install it into
#    brainscore_vision/models, load it by registry name, look_at fLoc images
#    (../shared/data/floc; synthetic images when absent, and it says so), check the
#    activations equal toponeuro.extract's, and score them with Brain-Score's pls/ridge/rdm
#    metrics and split-half ceilings on a local NeuroidAssembly. BS_INSTALL_DEPENDENCIES=no: nothing is pip-installed at run time.
#
# Environment: TOPONEURO_PYTHON (toponeuro's interpreter, default: python),
# BRAINSCORE_BASE_PYTHON (a Python 3.11 to build the venv from, default: python3.11),
# TOPONEURO_BRAINSCORE_VENV (default: <repo>/.venv-brainscore). Exits non-zero on failure.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ci_name=brainscore.sh
# shellcheck source=.ci/_venv.sh
source "$repo/.ci/_venv.sh"
venv=${TOPONEURO_BRAINSCORE_VENV:-$repo/.venv-brainscore}
req=$repo/.ci/brainscore-requirements.txt
no_deps="brainscore-vision==2.4.2 brainscore-core==2.5.0 result-caching==0.5"
stamp=$venv/.toponeuro-brainscore-stamp
want="$(sha256sum "$req" | cut -c1-64) $no_deps"

install_brainscore() {
    "$@" -r "$req"
    # brainscore-vision declares scikit-learn<1.6 and jupyter; 1.7.2 runs its ModelCommitment
    # and metrics, and jupyter is not needed to score, so these three go in without deps.
    # shellcheck disable=SC2086
    "$@" --no-deps $no_deps
}
build_venv "$venv" "$stamp" "$want" "$base_py" install_brainscore

BS_INSTALL_DEPENDENCIES=no "$venv/bin/python" - <<'PY'
import numpy, xarray, sklearn, torch, torchvision
import brainscore_vision
from brainscore_vision.model_helpers.brain_transformation import ModelCommitment  # noqa: F401
assert numpy.__version__.startswith("1."), numpy.__version__
print("brainscore env: numpy", numpy.__version__, "xarray", xarray.__version__, "sklearn",
      sklearn.__version__, "torch", torch.__version__, "torchvision", torchvision.__version__)
PY

run_check "$venv" "$repo/.ci/brainscore_demo.py" toponeuro-brainscore brainscore
