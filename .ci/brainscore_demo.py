"""End-to-end check of toponeuro.brainscore against brainscore-vision itself (.ci/brainscore.sh).

Runs in toponeuro's environment; Brain-Score runs in the environment whose Python is
$TOPONEURO_BRAINSCORE_PYTHON. Steps: the shipped demo TopoNet toponet_demo.v2_tau_50
(SmallResNet, 32 px input; its package weights file) is exported as a plugin, zipped,
installed into brainscore_vision/models, loaded by its registry name, shown fLoc images
(../shared/data/floc; synthetic images when absent) through ModelCommitment.look_at (whose
activations must equal toponeuro.extract's from create_model, the card's own preprocessing), and
scored with Brain-Score's pls/ridge/rdm metrics and split-half ceilings on a local
NeuroidAssembly whose voxels were planted from the model's own layer activations (so the
committed layer must score high, and a voxel set planted from noise must not).
Exits non-zero on any failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import xarray as xr
from PIL import Image

from toponeuro.brainscore import export_plugin, install_plugin, score_with_brainscore

REPO = Path(__file__).resolve().parents[1]
# ../shared beside the clone (CI); one level further up for a git worktree in wt/<name>
_FLOC_CANDIDATES = [REPO.parent / "shared" / "data" / "floc",
                    REPO.parent.parent / "shared" / "data" / "floc"]
FLOC = Path(os.environ.get("TOPONEURO_FLOC_DIR")
            or next((p for p in _FLOC_CANDIDATES if p.is_dir()), _FLOC_CANDIDATES[0]))
DEMO_MODEL = "toponet_demo.v2_tau_50"
PER_CATEGORY = 4


def log(msg):
    print(f"[brainscore-demo {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def stimuli(work: Path):
    if FLOC.is_dir() and any(FLOC.iterdir()):
        cats = sorted(d.name for d in FLOC.iterdir() if d.is_dir())
        paths = [p for c in cats for p in sorted((FLOC / c).iterdir())[:PER_CATEGORY]]
        log(f"fLoc images from {FLOC}: {len(paths)} ({PER_CATEGORY} x {len(cats)} categories)")
    else:
        log(f"fLoc images NOT found at {FLOC}; using synthetic images instead")
        rng = np.random.default_rng(0)
        cats = [f"synthetic{i}" for i in range(11)]
        paths = []
        for c in cats:
            for j in range(PER_CATEGORY):
                p = work / "synthetic" / f"{c}-{j}.png"
                p.parent.mkdir(parents=True, exist_ok=True)
                Image.fromarray(rng.integers(0, 255, (96, 96, 3), dtype=np.uint8)).save(p)
                paths.append(p)
    ids = [p.stem for p in paths]
    categories = [p.stem.rsplit("-", 1)[0] for p in paths]
    return SimpleNamespace(ids=np.array(ids), items=[str(p) for p in paths],
                           categories=np.array(categories), metadata=None, name="floc-demo")


def features(model, paths, layer):
    """The layer's output from ``toponeuro.extract`` (the card's own preprocessing), every
    (channel, y, x) unit, in the order PyTorch flattens a feature map (as Brain-Score does)."""
    from toponeuro import extract

    acts = extract(model, list(paths), layers=layer, pooling=None, progress=False)
    if "y" not in acts.coords:  # a layer without spatial dims: one unit per channel
        return acts.values
    c, y, x = (acts[k].values for k in ("channel", "y", "x"))
    return acts.values[:, np.lexsort((x, y, c))]


def rsatoolbox_rdm_score(activations, responses):
    """rsatoolbox's correlation-distance RDMs compared by Spearman r (toponeuro's peer)."""
    import rsatoolbox

    rdms = [rsatoolbox.rdm.calc_rdm(rsatoolbox.data.Dataset(x), method="correlation")
            for x in (activations, responses)]
    return float(rsatoolbox.rdm.compare(rdms[0], rdms[1], method="spearman")[0, 0])


def main() -> int:
    t0 = time.time()
    work = Path(os.environ.get("TOPONEURO_BRAINSCORE_WORK") or tempfile.mkdtemp(prefix="tn-bs-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TOPONETS_BRAINSCORE_CACHE", str(work / "weights-cache"))
    # the current demo TopoNet (v2, tau 50): its package weights file, verified by sha256 in
    # the plugin's own downloader
    from toponeuro.models import create_model, model_card, package_file

    card = model_card(DEMO_MODEL)
    assert card.superseded_by is None, f"{card.name} is superseded by {card.superseded_by}"
    size, mean, std = int(card.input_size), tuple(card.mean), tuple(card.std)
    ckpt = package_file(card.package_path)
    log(f"demo weights: {card.name} from {ckpt} (sha256 {card.sha256[:12]}...); input "
        f"{size} px, mean {mean}, std {std}")
    plugin = export_plugin(card, work / "export", make_zip=True, overwrite=True,
                           weights_url=Path(ckpt).resolve().as_uri(), sha256=card.sha256,
                           identifier="toponeuro_ci_demo_toponet_v2_tau50")
    model_py = (plugin.path / "model.py").read_text()
    for line in (f"IMAGE_SIZE = {size}", f"NORMALIZE_MEAN = {mean!r}",
                 f"NORMALIZE_STD = {std!r}"):
        assert line in model_py, f"plugin model.py lacks {line!r}"
    names = zipfile.ZipFile(plugin.zip_path).namelist()
    assert f"{plugin.folder}/models/{plugin.folder}/__init__.py" in names, names
    log(f"exported {plugin.identifier} -> {plugin.path} (+ {plugin.zip_path.name}, "
        f"{len(names)} files); region_layer_map {plugin.region_layer_map}")

    stim = stimuli(work)
    # toponeuro's own loader (sha256-checked) and extract: what look_at must reproduce
    model = create_model(DEMO_MODEL, pretrained=True)
    assert model.weights_sha256 == card.sha256, model.weights_check
    rng = np.random.default_rng(1)
    n = len(stim.ids)
    blocks, rois = [], []
    for region, roi, n_vox in (("V1", "V1", 20), ("IT", "FFA", 20)):
        a = features(model, stim.items, plugin.region_layer_map[region])
        # voxels mix the layer's 5 leading principal components: low-dimensional signal that
        # the regressions can recover from n stimuli and that dominates the layer's RDM
        u, sv, _ = np.linalg.svd(a - a.mean(0), full_matrices=False)
        signal = (u[:, :5] * sv[:5]) @ rng.normal(size=(5, n_vox))
        blocks.append(signal / signal.std(0))
        rois += [roi] * n_vox
    # a control region planted from noise: Brain-Score must not find the model in it
    blocks.append(rng.normal(size=(n, 20)))
    rois += ["V4"] * 20
    clean = np.concatenate(blocks, axis=1)
    reps = [clean + 0.3 * rng.normal(size=clean.shape) for _ in range(2)]
    responses = xr.DataArray(
        np.concatenate(reps), dims=("stimulus", "voxel"),
        coords={"stimulus_id": ("stimulus", np.tile(stim.ids, 2)),
                "repetition": ("stimulus", np.repeat([0, 1], n)),
                "roi": ("voxel", rois), "subject": ("voxel", ["sub-01"] * len(rois)),
                # voxel centres (mm), as every volume loader gives them
                **{c: ("voxel", rng.uniform(-60, 60, len(rois))) for c in ("x", "y", "z")}},
    )
    log(f"planted BrainResponses: {responses.sizes['stimulus']} presentations x "
        f"{responses.sizes['voxel']} voxels (V1, IT from the model, V4 = noise control)")

    installed = install_plugin(plugin)
    log(f"installed into {installed}")
    ta = time.time()
    table = score_with_brainscore(plugin, stim, responses, work_dir=work / "score",
                                  install=False, keep_activations=True, timeout=900,
                                  compare="toponeuro")
    log(f"Brain-Score scoring took {time.time() - ta:.1f} s; look_at: {table.attrs['look_at']}")
    print(table.to_string(index=False), flush=True)

    # Brain-Score's look_at (the plugin's builder, downloader and Brain-Score's preprocessing)
    # gives the activations toponeuro's create_model + extract give
    for region in ("V1", "IT"):
        dumped = np.load(Path(table.attrs["activations_dir"]) / f"{region}.npz")
        order = {s: i for i, s in enumerate(stim.ids)}
        ours = features(model, [stim.items[order[s]] for s in dumped["stimulus_id"]],
                        plugin.region_layer_map[region])
        diff = np.abs(dumped["activations"] - ours).max()
        log(f"{region}: Brain-Score look_at vs toponeuro.extract, max |diff| = {diff:.2e}")
        assert dumped["activations"].shape == ours.shape and diff < 1e-3, diff

    # the plugin's own test.py (what Brain-Score's CI runs on a submission), offline
    tp = time.time()
    proc = subprocess.run(
        [os.environ["TOPONEURO_BRAINSCORE_PYTHON"], "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(installed / "test.py")], cwd=work, capture_output=True, text=True,
        env={**os.environ, "BS_INSTALL_DEPENDENCIES": "no", "RESULTCACHING_DISABLE": "1"},
    )
    tail = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    log(f"plugin test.py in the Brain-Score env: {tail} ({time.time() - tp:.1f} s)")
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        return 1

    get = table.set_index(["region", "metric"])
    failures = []
    # planted voxels; measured on toponet_demo.v2_tau_50: pls/ridge 0.958-0.962, rdm 0.574 (V1)
    # and 0.729 (IT)
    floors = {"pls": 0.8, "ridge": 0.8, "rdm": 0.3}
    for region in ("V1", "IT"):
        for metric, floor in floors.items():
            raw = get.loc[(region, metric), "raw"]
            if not raw > floor:
                failures.append(f"{region}/{metric} raw {raw:.3f} <= {floor} for planted voxels")
        ceiling = get.loc[(region, "pls"), "ceiling"]
        if not ceiling > 0.7:
            failures.append(f"{region} split-half ceiling {ceiling:.3f} <= 0.7")
    for metric in floors:  # noise control (measured: |raw| <= 0.019)
        control = get.loc[("V4", metric), "raw"]
        if not abs(control) < 0.2:
            failures.append(f"noise control V4/{metric} raw {control:.3f} not within +-0.2")
    for region in ("V1", "IT", "V4"):
        # Brain-Score's rdm metric == toponeuro's rdm + compare_rdms == rsatoolbox's, same data
        dumped = np.load(Path(table.attrs["activations_dir"]) / f"{region}.npz")
        bs, tn = get.loc[(region, "rdm"), "raw"], get.loc[(region, "rdm"), "toponeuro"]
        y = responses.groupby("stimulus_id").mean().sel(stimulus_id=dumped["stimulus_id"])
        region_of = {"V1": "V1", "FFA": "IT", "V4": "V4"}  # roi -> Brain-Score region
        y = y.values[:, np.array([region_of[r] == region for r in rois])]
        rt = rsatoolbox_rdm_score(dumped["activations"].astype(np.float64), y)
        log(f"{region}/rdm: brainscore {bs:.6f}, toponeuro {tn:.6f}, rsatoolbox {rt:.6f}")
        if not (abs(bs - tn) < 1e-6 and abs(bs - rt) < 1e-6):
            failures.append(f"{region}/rdm brainscore {bs} != toponeuro {tn} / rsatoolbox {rt}")
        for metric in ("pls", "ridge"):  # same data, different splits: close, not equal
            b, t = get.loc[(region, metric), "raw"], get.loc[(region, metric), "toponeuro"]
            log(f"{region}/{metric}: brainscore {b:.3f} (10 random 90/10 splits), toponeuro "
                f"{t:.3f} (10-fold KFold), difference {t - b:+.3f}")

    if failures:
        log("FAILED: " + "; ".join(failures))
        return 1
    log(f"OK in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
