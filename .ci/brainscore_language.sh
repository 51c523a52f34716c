#!/usr/bin/env bash
# Prove toponeuro's language export with brainscore-language itself (called by .ci/run).
#
# 1. Build (or reuse) a third virtual environment, .venv-bsl, with brainscore-language 2.3.0
#    and what it needs (numpy<2, transformers<5, xarray 2022.3, torch), pinned in
#    .ci/brainscore-language-requirements.txt; toponeuro's own environment has numpy 2 and
#    transformers 5, which brainscore-language refuses. A stamp file records what was
#    installed, so a rerun with an unchanged spec skips the install (~2 s).
#    torch: the CPU wheel when the machine's wheel folder has it (TOPONEURO_BSL_TORCH,
#    default torch==2.13.0+cpu, a ~200 MB local install), else torch==2.14.1 from PyPI
#    (the CUDA build, ~9 min to install once).
# 2. Run .ci/brainscore_language_demo.py in toponeuro's environment: export a toponeuro
#    NanoGPT as a brainscore-language plugin, install it into brainscore_language/models,
#    load it by registry name, check its ArtificialSubject outputs (reading times, next word,
#    language_system recordings), and score it and the same weights through
#    brainscore-language's own HuggingfaceSubject on SyntaxGym suites read from the files the
#    wheel ships (offline). BS_INSTALL_DEPENDENCIES=no: nothing is pip-installed at run time.
#
# Environment: TOPONEURO_PYTHON (toponeuro's interpreter, default: python),
# BRAINSCORE_BASE_PYTHON (a Python 3.11 to build the venv from, default: python3.11),
# TOPONEURO_BSL_VENV (default: <repo>/.venv-bsl). Exits non-zero on failure.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ci_name=brainscore_language.sh
# shellcheck source=.ci/_venv.sh
source "$repo/.ci/_venv.sh"
venv=${TOPONEURO_BSL_VENV:-$repo/.venv-bsl}
req=$repo/.ci/brainscore-language-requirements.txt
no_deps="brainscore-language==2.3.0 brainscore-core==2.5.0"
torch_spec=${TOPONEURO_BSL_TORCH:-torch==2.13.0+cpu}
stamp=$venv/.toponeuro-bsl-stamp
want="$(sha256sum "$req" | cut -c1-64) $no_deps $torch_spec"

install_bsl() {
    if ! "$@" "$torch_spec" 2>/dev/null; then
        log "$torch_spec is not available here; installing torch==2.14.1 from the index"
        "$@" torch==2.14.1
    fi
    "$@" -r "$req"
    # brainscore-language declares gensim (only its word-embedding model plugins import it),
    # brainscore-core psycopg2-binary (only its submission database uses it): not installed.
    # shellcheck disable=SC2086
    "$@" --no-deps $no_deps
}
build_venv "$venv" "$stamp" "$want" "$base_py" install_bsl

BS_INSTALL_DEPENDENCIES=no "$venv/bin/python" - <<'PY'
import numpy, torch, transformers, xarray
import brainscore_language  # noqa: F401
from brainscore_language.model_helpers.huggingface import HuggingfaceSubject  # noqa: F401
assert numpy.__version__.startswith("1."), numpy.__version__
assert transformers.__version__.startswith("4."), transformers.__version__
print("brainscore-language env: numpy", numpy.__version__, "xarray", xarray.__version__,
      "torch", torch.__version__, "transformers", transformers.__version__)
PY

run_check "$venv" "$repo/.ci/brainscore_language_demo.py" toponeuro-bsl brainscore-language
