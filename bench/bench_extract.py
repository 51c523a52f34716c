"""Benchmark ``toponeuro.extract``: overhead over a bare forward pass, and streamed memory.

1. Ratio: ``extract`` (hooks on every TopoLoss layer + fc, mean pooling, in memory) against a
   bare ``model(x)`` loop over the same batches built the same way. Target <= 1.10.
2. Peak RSS of a streamed run (``store=`` folder) at 1k and 20k stimuli, each in a fresh
   process, next to the peak RSS of a bare forward loop over the same stimuli. Target: flat.

Model: the demo TopoNet architecture (``toponet_demo``: SmallResNet, widths 16/32/64/128,
BlurPool), randomly initialised. Stimuli: synthetic 32 x 32 RGB tensors generated on demand
from their index (a lazy StimulusSet stand-in), so the stimuli themselves take no memory.

The ratio is also measured on an untrained BlurPool ResNet-18 at 224 px (16 TopoLoss convs),
where the forward pass dominates as it does for the released TopoNets.

Run: ``PYTHONPATH=. python bench/bench_extract.py [--n-ratio 2000] [--resnet18 128]
[--sizes 1000 20000]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time

import numpy as np
import torch
from _common import peak_rss_mib, run_child

WIDTHS = (16, 32, 64, 128)
SIZE = 32
BATCH = 64


class SyntheticImages:
    """``n`` deterministic random images, made when asked for (StimulusSet interface)."""

    kind = "image"
    categories = None

    def __init__(self, n: int, size: int = SIZE):
        self.n, self.size = n, size
        self.ids = np.array([f"img-{i:06d}" for i in range(n)])

    def __len__(self):
        return self.n

    def get(self, i):
        g = torch.Generator().manual_seed(int(i))
        return torch.rand(3, self.size, self.size, generator=g)

    def content_hash(self):
        return hashlib.sha256(f"synthetic-{self.n}-{self.size}".encode()).hexdigest()


def _model(name: str = "toponet_demo.tau_0"):
    from toponeuro.models import create_model

    torch.manual_seed(0)
    kwargs = {"widths": WIDTHS} if name.startswith("toponet_demo") else {}
    return create_model(name, **kwargs)


def _bare(model, stim):
    with torch.inference_mode():
        for start in range(0, len(stim), BATCH):
            items = [stim.get(i) for i in range(start, min(start + BATCH, len(stim)))]
            model(torch.stack(items))


def ratio(n: int, repeats: int = 7, name: str = "toponet_demo.tau_0", size: int = SIZE) -> dict:
    """Interleaved bare / extract runs; the minimum of each over ``repeats``.

    CPU time of this (single-threaded) process is the primary measure: on a shared machine
    wall time mostly measures the neighbours.
    """
    from toponeuro import extract

    model = _model(name)
    stim = SyntheticImages(n, size)
    layers = [*model.model_card.topo_layers, "fc"]
    _bare(model, SyntheticImages(BATCH, size))  # warm up
    cpu_b, cpu_e, wall_b, wall_e = [], [], [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        _bare(model, stim)
        cpu_b.append(time.process_time() - c0)
        wall_b.append(time.perf_counter() - w0)
        c0, w0 = time.process_time(), time.perf_counter()
        acts = extract(model, stim, layers, batch_size=BATCH, progress=False)
        cpu_e.append(time.process_time() - c0)
        wall_e.append(time.perf_counter() - w0)
    return {
        "model": name,
        "size": size,
        "n_topo_layers": len(layers) - 1,
        "n_stimuli": n,
        "n_units": int(acts.sizes["unit"]),
        "bare_cpu_s": min(cpu_b),
        "extract_cpu_s": min(cpu_e),
        "cpu_ratio": min(cpu_e) / min(cpu_b),
        "wall_ratio": min(wall_e) / min(wall_b),
    }


def _child(mode: str, n: int) -> None:
    model = _model()
    stim = SyntheticImages(n)
    t0, c0 = time.perf_counter(), time.process_time()
    if mode == "bare":
        _bare(model, stim)
        units = 0
    else:
        from toponeuro import extract

        with tempfile.TemporaryDirectory() as d:
            acts = extract(
                model, stim, ["layer1.0.conv1", "fc"], batch_size=BATCH, store=d, progress=False
            )
            units = int(acts.sizes["unit"])
    peak_mib = peak_rss_mib()
    print(
        json.dumps(
            {
                "mode": mode,
                "n": n,
                "units": units,
                "s": time.perf_counter() - t0,
                "cpu_s": time.process_time() - c0,
                "peak_rss_mib": peak_mib,
            }
        )
    )


def memory(sizes) -> list[dict]:
    out = []
    for n in sizes:
        for mode in ("bare", "stream"):
            out.append(run_child(__file__, "--child", mode, str(n)))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-ratio", type=int, default=1000)
    p.add_argument("--sizes", type=int, nargs="*", default=[1000, 20000])
    p.add_argument(
        "--resnet18", type=int, default=128, help="stimuli for the ResNet-18 ratio (0: skip)"
    )
    p.add_argument("--child", nargs=2, metavar=("MODE", "N"), help=argparse.SUPPRESS)
    args = p.parse_args()
    torch.set_num_threads(1)
    if args.child:
        _child(args.child[0], int(args.child[1]))
        return
    runs = [ratio(args.n_ratio)] if args.n_ratio else []
    if args.resnet18:
        runs.append(ratio(args.resnet18, repeats=3, name="resnet18", size=224))
    for r in runs:
        print(
            f"extract vs bare forward, {r['model']} ({r['size']} px), {r['n_stimuli']} stimuli, "
            f"{r['n_units']} units ({r['n_topo_layers']} TopoLoss layers + fc, mean pooling), "
            f"1 thread: CPU bare {r['bare_cpu_s']:.2f} s, extract {r['extract_cpu_s']:.2f} s, "
            f"ratio {r['cpu_ratio']:.3f} (target <= 1.10); wall-time ratio {r['wall_ratio']:.3f}"
        )
    for m in memory(args.sizes):
        print(
            f"{m['mode']:>6} n={m['n']:>6}: wall {m['s']:7.1f} s, CPU {m['cpu_s']:7.1f} s, "
            f"peak RSS {m['peak_rss_mib']:7.1f} MiB"
            + (f" ({m['units']} units streamed to disk)" if m["mode"] == "stream" else "")
        )


if __name__ == "__main__":
    main()
