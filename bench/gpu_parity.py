"""CUDA against CPU: the same numbers from toponeuro's GPU paths, and what the GPU buys.

For each path that takes ``device=`` the script computes the result on the CPU and on the
first CUDA GPU from the same inputs and prints the largest difference, its tolerance (float32
arithmetic in another order) and both wall times (medians of ``--repeats`` runs after one
warm-up, CUDA synchronised):

1. ``TopoLoss`` on ResNet-18's residual-block convs: value and every gradient, and the
   official ``topoloss==0.0.2`` on the same GPU (toponeuro's parity target);
2. ``extract`` of the shipped demo TopoNet (``toponet_demo.v2_tau_50``) on 64 images, and of
   the shipped topographic LM (``toponet_lm_demo.tau_1``) on 32 sentences;
3. ``RidgeEncoder(backend="torch")`` on a planted linear map (test scores and predictions);
4. ``toponeuro.training.run_recipe("demo-smoke")`` for one epoch: the losses must be finite
   and the TopoLoss term must fall by the same order as on the CPU (training is bit-for-bit
   seeded on the CPU only; on a GPU cuDNN may pick other algorithms).

Exits 1 when a difference exceeds its tolerance. Needs a machine with a CUDA GPU.

Run: PYTHONPATH=. python bench/gpu_parity.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

FAILED: list[str] = []
DEVICE = "cuda"  # --device: another device to compare with the CPU (cpu: a dry run)


def timed(fn, repeats: int, cuda: bool):
    fn()  # warm-up (cuDNN autotuning, allocator, lazy imports)
    times = []
    for _ in range(repeats):
        if cuda and torch.cuda.is_available():
            torch.cuda.synchronize()
        t = time.perf_counter()
        out = fn()
        if cuda and torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def report(name: str, diff: float, tol: float, t_cpu: float | None = None,
           t_gpu: float | None = None) -> None:
    ok = bool(np.isfinite(diff) and diff <= tol)
    times = ""
    if t_cpu is not None and t_gpu is not None:
        times = f"   cpu {t_cpu * 1e3:9.1f} ms  cuda {t_gpu * 1e3:8.1f} ms  ({t_cpu / t_gpu:6.1f}x)"
    print(f"{'ok  ' if ok else 'FAIL'} {name:<44} max|diff| {diff:.2e} (tol {tol:.0e}){times}")
    if not ok:
        FAILED.append(name)


def check_topoloss(repeats: int) -> None:
    import torchvision

    from toponeuro.topoloss import TopoLoss

    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    names = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Conv2d)
             and n.startswith("layer") and "downsample" not in n]

    def value_and_grads(m, loss):
        m.zero_grad(set_to_none=True)
        value = loss(m)
        value.backward()
        return value.detach().cpu().double(), [
            m.get_submodule(n).weight.grad.detach().cpu().double() for n in names]

    ours = TopoLoss.for_layers(model, names, factor_h=3, factor_w=3, tau=10)
    (v_cpu, g_cpu), t_cpu = timed(lambda: value_and_grads(model, ours), repeats, False)
    gpu = model.to(DEVICE)
    (v_gpu, g_gpu), t_gpu = timed(lambda: value_and_grads(gpu, ours), repeats, True)
    report("TopoLoss value (cpu vs cuda)", float(abs(v_cpu - v_gpu)), 1e-5, t_cpu, t_gpu)
    report("TopoLoss gradients (cpu vs cuda)",
           max(float((a - b).abs().max()) for a, b in zip(g_cpu, g_gpu)), 1e-6)
    try:
        import topoloss as official
    except ImportError:
        print("skip official topoloss 0.0.2 on cuda: not installed")
        return
    theirs = official.TopoLoss([official.LaplacianPyramid(n, factor_h=3, factor_w=3)
                                for n in names])
    ours_tau1 = TopoLoss.for_layers(gpu, names, factor_h=3, factor_w=3, tau=1.0)
    (v_off, _), t_off = timed(lambda: (theirs.compute(gpu).detach().cpu().double(), None),
                              repeats, True)
    (v_ours, _), t_ours = timed(lambda: (ours_tau1(gpu).detach().cpu().double(), None),
                                repeats, True)
    report("TopoLoss vs official topoloss, both cuda", float(abs(v_ours - v_off)), 1e-5,
           t_off, t_ours)
    print("     (the times above: official, then toponeuro; the ratio is official/toponeuro)")


def _images(folder: Path, n: int) -> Path:
    from PIL import Image

    rng = np.random.default_rng(0)
    for c in ("faces", "places"):
        (folder / c).mkdir(parents=True, exist_ok=True)
        for i in range(n // 2):
            arr = rng.integers(0, 256, (96, 96, 3), dtype=np.uint8)
            Image.fromarray(arr).save(folder / c / f"{c}-{i}.png")
    return folder


def check_extract(repeats: int, tmp: Path) -> None:
    from toponeuro import extract
    from toponeuro.exceptions import MissingWeightsError
    from toponeuro.stimuli import load_image_folder

    stimuli = load_image_folder(_images(tmp / "images", 64))
    kw = dict(layers="topo", progress=False, batch_size=32)
    a_cpu, t_cpu = timed(lambda: extract("toponet_demo.v2_tau_50", stimuli, device="cpu", **kw),
                         repeats, False)
    a_gpu, t_gpu = timed(lambda: extract("toponet_demo.v2_tau_50", stimuli, device=DEVICE, **kw),
                         repeats, True)
    same = bool((a_cpu.stimulus.values == a_gpu.stimulus.values).all()
                and (a_cpu.unit.values == a_gpu.unit.values).all())
    scale = float(np.abs(a_cpu.values).max())
    report("extract demo TopoNet, 64 images (rel.)",
           float(np.abs(a_cpu.values - a_gpu.values).max()) / scale if same else np.inf,
           1e-4, t_cpu, t_gpu)
    items = [f"The {w} walked slowly across the quiet room." for w in
             ("teacher", "dog", "stranger", "child")] * 8
    items = [f"{s} ({i})" for i, s in enumerate(items)]
    kw = dict(layers="topo", progress=False, batch_size=16)
    try:
        l_cpu, t_cpu = timed(lambda: extract("toponet_lm_demo.tau_1", items, device="cpu", **kw),
                             repeats, False)
        l_gpu, t_gpu = timed(lambda: extract("toponet_lm_demo.tau_1", items, device=DEVICE, **kw),
                             repeats, True)
    except MissingWeightsError as err:  # its tokenizer's package is not installed there
        print(f"skip extract topographic LM: {err}")
        return
    except Exception as err:  # noqa: BLE001 - report the path, not a traceback
        report(f"extract topographic LM ({type(err).__name__}: {err})"[:44], np.inf, 1e-4)
        return
    scale = float(np.abs(l_cpu.values).max())
    report("extract topographic LM, 32 sentences (rel.)",
           float(np.abs(l_cpu.values - l_gpu.values).max()) / scale, 1e-4, t_cpu, t_gpu)


def check_ridge(repeats: int) -> None:
    from toponeuro.analysis import RidgeEncoder

    rng = np.random.default_rng(0)
    n, p, v = 3000, 512, 4000
    X = rng.standard_normal((n, p)).astype(np.float32)
    W = rng.standard_normal((p, v)).astype(np.float32) / np.sqrt(p)
    Y = X @ W + rng.standard_normal((n, v)).astype(np.float32)
    train, test = slice(0, 2400), slice(2400, None)

    def fit(backend, device):
        enc = RidgeEncoder(backend=backend, device=device, cv=5, random_state=0)
        enc.fit(X[train], Y[train])
        return np.asarray(enc.predict(X[test]), dtype=np.float64)

    p_cpu, t_cpu = timed(lambda: fit("numpy", "cpu"), repeats, False)
    p_gpu, t_gpu = timed(lambda: fit("torch", DEVICE), repeats, True)
    scale = float(np.abs(p_cpu).max())
    report(f"RidgeEncoder {n}x{p} -> {v} predictions (rel.)",
           float(np.abs(p_cpu - p_gpu).max()) / scale, 1e-3, t_cpu, t_gpu)
    r_cpu = 1 - ((Y[test] - p_cpu) ** 2).sum(0) / ((Y[test] - Y[test].mean(0)) ** 2).sum(0)
    r_gpu = 1 - ((Y[test] - p_gpu) ** 2).sum(0) / ((Y[test] - Y[test].mean(0)) ** 2).sum(0)
    report("RidgeEncoder test R2 per target", float(np.abs(r_cpu - r_gpu).max()), 1e-3)


def check_training(tmp: Path) -> None:
    from toponeuro.training import run_recipe

    runs = []
    for i, device in enumerate(("cpu", DEVICE)):
        t = time.perf_counter()
        res = run_recipe("demo-smoke", tmp / f"run-{i}", progress=False, device=device)
        runs.append((res.history[-1], time.perf_counter() - t))
    (h_cpu, t_cpu), (h_gpu, t_gpu) = runs
    print(f"     demo-smoke last epoch  cpu {h_cpu}\n                            cuda {h_gpu}")
    finite = all(np.isfinite(float(x)) for x in h_gpu.values() if isinstance(x, int | float))
    keys = [k for k in h_cpu if "loss" in k and isinstance(h_cpu[k], int | float)]
    diff = max((abs(float(h_cpu[k]) - float(h_gpu[k])) for k in keys), default=np.nan)
    report("demo-smoke 1 epoch: |loss cpu - loss cuda|", diff if finite else np.inf, 0.05,
           t_cpu, t_gpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default="cuda", help="cpu: a dry run of the script itself")
    args = ap.parse_args()
    global DEVICE
    DEVICE = args.device
    if DEVICE.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_parity: no CUDA GPU here; run it on a machine with one.", file=sys.stderr)
        return 2
    gpu_name = torch.cuda.get_device_name(0) if DEVICE.startswith("cuda") else DEVICE
    print(f"torch {torch.__version__}, {gpu_name}, "
          f"{torch.get_num_threads()} CPU threads")
    torch.backends.cuda.matmul.allow_tf32 = False  # compare float32 with float32
    torch.backends.cudnn.allow_tf32 = False
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for check in (lambda: check_topoloss(args.repeats),
                      lambda: check_extract(args.repeats, tmp),
                      lambda: check_ridge(args.repeats),
                      lambda: check_training(tmp)):
            try:
                check()
            except Exception as err:  # noqa: BLE001 - one broken path must not hide the others
                report(f"{type(err).__name__}: {err}"[:44], np.inf, 0.0)
    print("all paths agree" if not FAILED else f"{len(FAILED)} path(s) differ: {FAILED}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
