"""Score an installed Brain-Score plugin on toponeuro's benchmark files, with Brain-Score.

Runs INSIDE the Brain-Score environment (numpy<2, xarray<2022.6, brainscore-vision 2.4.2),
as a script: ``python _runner.py --benchmark DIR --identifier ID --out result.json``. It
imports only numpy, pandas and brainscore; never toponeuro. Steps:

1. build a ``StimulusSet`` (``stimulus_id`` + ``stimulus_paths``) and a ``NeuroidAssembly``
   (presentation x neuroid) from the files written by ``write_brainscore_benchmark``;
2. ``brainscore_vision.load_model(identifier)`` (``BS_INSTALL_DEPENDENCIES=no``), and check
   that the ``ModelCommitment`` uses the plugin's region_layer_map JSON;
3. per region: ``start_recording(region, time_bins=[(70, 170)])`` and ``look_at`` the
   stimuli (as ``NeuralBenchmark`` does), then Brain-Score's metrics (``pls``, ``ridge``,
   ``rdm``) against the repetition-averaged responses, and split-half ceilings
   (``InternalConsistency``, Spearman-Brown corrected) when the responses hold repetitions:
   ``explained_variance`` (r**2 / ceiling) for the regressions, r / ceiling for ``rdm``.

With ``--look-at-only`` it stops after one ``look_at`` per region and reports shapes.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

TIME_BINS = [(70, 170)]
PLS_COMPONENTS = 25  # brainscore_vision's pls_regression default
MIN_STIMULI_PLS = 30  # int(0.9 * 30) = 27 > 25 training stimuli


def _load_benchmark(folder):
    import numpy as np
    import pandas as pd
    from brainscore_core.supported_data_standards.brainio.assemblies import NeuroidAssembly
    from brainscore_core.supported_data_standards.brainio.stimuli import StimulusSet

    folder = Path(folder)
    manifest = json.loads((folder / "benchmark.json").read_text())
    table = pd.read_csv(folder / "stimuli.csv", dtype={"stimulus_id": str})
    paths = {sid: str(folder / fn) for sid, fn in zip(table["stimulus_id"], table["filename"])}
    missing = [p for p in paths.values() if not Path(p).is_file()]
    if missing:
        raise FileNotFoundError(f"{len(missing)} stimulus images are missing, e.g. {missing[:3]}")
    stimulus_set = StimulusSet(table.drop(columns=["filename"]))
    stimulus_set.stimulus_paths = paths
    stimulus_set.identifier = manifest["stimulus_set_identifier"]

    values = np.load(folder / "responses.npy")
    pres = pd.read_csv(folder / "presentation.csv", dtype={"stimulus_id": str})
    neuroid = pd.read_csv(folder / "neuroid.csv")
    # Brain-Score merges assemblies through a temporary variable named "z"
    # (brainio's merge_data_arrays), so a neuroid level "z" breaks the repetition averaging;
    # the voxel centres travel as voxel_x/_y/_z.
    neuroid = neuroid.rename(columns={c: f"voxel_{c}" for c in ("x", "y", "z")})
    coords = {c: ("presentation", pres[c].values) for c in pres.columns}
    if "category" in table.columns:  # for stratified cross-validation
        cat = dict(zip(table["stimulus_id"], table["category"].astype(str)))
        coords["category"] = ("presentation", [cat[s] for s in pres["stimulus_id"]])
    coords.update({c: ("neuroid", neuroid[c].values) for c in neuroid.columns})
    assembly = NeuroidAssembly(values, coords=coords, dims=["presentation", "neuroid"])
    assembly.attrs["stimulus_set"] = stimulus_set
    assembly.attrs["stimulus_set_identifier"] = stimulus_set.identifier
    return manifest, stimulus_set, assembly


def _has_coord(assembly, name):
    try:  # MultiIndex levels are not listed in .coords by old xarray
        assembly[name]
    except KeyError:
        return False
    return True


def _stratify(assembly):
    """Stratify the cross-validation by category when every fold can hold every class."""
    import numpy as np

    if not _has_coord(assembly, "category"):
        return None
    ids, first = np.unique(assembly["stimulus_id"].values, return_index=True)
    cats = assembly["category"].values[first]
    _, counts = np.unique(cats, return_counts=True)
    n_test = int(np.ceil(0.1 * len(ids)))
    return "category" if counts.min() >= 2 and n_test >= len(counts) else None


def _region_layer_map(model):
    layer_model = model.layer_model
    rlm = getattr(layer_model, "region_layer_map", None)
    if rlm is None:
        rlm = layer_model._layer_model.region_layer_map
    return rlm


def _finite(x):
    import numpy as np

    x = float(np.asarray(x).squeeze())
    return x if np.isfinite(x) else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", required=True, help="folder of benchmark files")
    parser.add_argument("--identifier", required=True, help="model registry name")
    parser.add_argument("--metrics", default="pls,ridge,rdm")
    parser.add_argument("--regions", default=None, help="comma-separated subset of regions")
    parser.add_argument("--expected-map", default=None, help="JSON of the committed layers")
    parser.add_argument("--look-at-only", action="store_true")
    parser.add_argument("--dump-activations", default=None,
                        help="folder to save each region's look_at activations (.npz)")
    parser.add_argument("--out", required=True, help="result JSON")
    args = parser.parse_args(argv)
    if os.environ.get("BS_INSTALL_DEPENDENCIES", "yes") != "no":
        print("warning: BS_INSTALL_DEPENDENCIES is not 'no'; Brain-Score may pip-install",
              file=sys.stderr)

    import brainscore_vision
    import numpy as np
    from brainscore_core.metrics import Score
    from brainscore_vision import load_metric, load_model
    from brainscore_vision.benchmark_helpers.neural_common import (
        average_repetition,
        explained_variance,
    )
    from brainscore_vision.metrics.internal_consistency.ceiling import InternalConsistency
    from brainscore_vision.metrics.rdm.metric import RDMMetric

    t0 = time.time()
    manifest, stimulus_set, assembly = _load_benchmark(args.benchmark)
    model = load_model(args.identifier)
    committed = {k: v for k, v in dict(_region_layer_map(model)).items()}
    if args.expected_map:
        expected = json.loads(args.expected_map)
        if committed != expected:
            raise AssertionError(
                f"ModelCommitment did not pick up the plugin's region_layer_map: committed "
                f"{committed}, expected {expected}")
    regions = args.regions.split(",") if args.regions else manifest["regions"]
    has_reps = _has_coord(assembly, "repetition") and manifest.get("min_repetitions", 1) >= 2
    metrics = [m for m in args.metrics.split(",") if m]
    n_train = int(0.9 * len(stimulus_set))
    if "pls" in metrics and n_train <= PLS_COMPONENTS:
        raise ValueError(
            f"Brain-Score's pls metric fits {PLS_COMPONENTS} components on 90% of the stimuli; "
            f"{len(stimulus_set)} stimuli give {n_train} training stimuli. Use at least "
            f"{MIN_STIMULI_PLS} stimuli, or leave pls out of the metrics.")
    result = {
        "identifier": args.identifier, "brainscore_vision": brainscore_vision.__file__,
        "region_layer_map": committed, "n_stimuli": len(stimulus_set),
        "n_presentations": int(assembly.sizes["presentation"]), "scores": [], "look_at": {},
    }
    for region in regions:
        target_full = assembly[{"neuroid": assembly["region"].values == region}]
        if target_full.sizes["neuroid"] == 0:
            raise ValueError(f"no neuroids in region {region!r}")
        model.start_recording(region, time_bins=TIME_BINS)
        source = model.look_at(stimulus_set)
        if "time_bin" in source.dims and source.sizes["time_bin"] == 1:
            source = source.squeeze("time_bin")
        layers = sorted(set(np.asarray(source["layer"].values).tolist()))
        result["look_at"][region] = {
            "presentations": int(source.sizes["presentation"]),
            "neuroids": int(source.sizes["neuroid"]), "layers": layers,
            "finite": bool(np.isfinite(source.values).all()),
        }
        if args.dump_activations:
            Path(args.dump_activations).mkdir(parents=True, exist_ok=True)
            np.savez(Path(args.dump_activations) / f"{region}.npz",
                     activations=np.asarray(source.transpose("presentation", "neuroid").values),
                     stimulus_id=np.asarray(source["stimulus_id"].values).astype(str))
        if args.look_at_only:
            continue
        target = average_repetition(target_full) if has_reps else target_full
        stratify = _stratify(target)
        ceilings = {}
        if has_reps:
            ceilings["regression"] = InternalConsistency()(target_full)
            ceilings["rdm"] = InternalConsistency(consistency_metric=RDMMetric(),
                                                  aggregate=None)(target_full)
        for name in metrics:
            if name in ("pls", "ridge"):
                metric = load_metric(name, crossvalidation_kwargs=dict(
                    stratification_coord=stratify))
                raw = metric(source, target)
                ceiling = ceilings.get("regression")
                ceiled = explained_variance(raw, ceiling) if ceiling is not None else None
            elif name == "rdm":
                raw = load_metric("rdm")(source, target)
                ceiling = ceilings.get("rdm")
                ceiled = Score(raw.values / ceiling.values) if ceiling is not None else None
            else:
                raise ValueError(f"unsupported metric {name!r}; use pls, ridge or rdm")
            error = raw.attrs.get("error")
            result["scores"].append({
                "region": region, "metric": name, "layer": ",".join(layers),
                "n_neuroids": int(target.sizes["neuroid"]),
                "raw": _finite(raw), "raw_error": None if error is None else _finite(error),
                "ceiling": None if ceiling is None else _finite(ceiling),
                "score": None if ceiled is None else _finite(ceiled),
                "stratified_by": stratify,
            })
    result["seconds"] = round(time.time() - t0, 2)
    Path(args.out).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
