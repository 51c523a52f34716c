"""TopoLoss speed: toponeuro vs the official topoloss 0.0.2, on ResNet-18.

Times forward+backward of the loss over every conv layer inside ResNet-18's residual blocks
(the layers the released TopoNets use), for both packages in one run, and the overhead the
loss adds to a full ResNet-18 training step. Prints ratios (toponeuro / topoloss: below 1.0
means toponeuro is faster) and peak RSS.

Run: python bench/bench_topoloss.py [--repeats 20] [--batch 16] [--device cpu]
"""

from __future__ import annotations

import argparse
import resource
import time

import torch
import torchvision

from toponeuro.topoloss import TopoLoss


def block_convs(model):
    return [
        n
        for n, m in model.named_modules()
        if isinstance(m, torch.nn.Conv2d) and n.startswith("layer") and "downsample" not in n
    ]


def timeit(fn, repeats, device):
    for _ in range(3):
        fn()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--device", default="cpu")
    p.add_argument("--factor", type=float, default=3.0)
    args = p.parse_args()
    import topoloss as official

    torch.manual_seed(0)
    model = torchvision.models.resnet18().to(args.device)
    names = block_convs(model)
    ours = TopoLoss.for_layers(model, names, args.factor, args.factor, tau=1.0)
    theirs = official.TopoLoss(
        [official.LaplacianPyramid(n, factor_h=args.factor, factor_w=args.factor) for n in names]
    )

    def run_ours():
        model.zero_grad(set_to_none=True)
        ours(model).backward()

    def run_theirs():
        model.zero_grad(set_to_none=True)
        theirs.compute(model).backward()

    a = ours(model).item()
    b = theirs.compute(model).item()
    print(f"layers: {len(names)} conv layers in residual blocks; loss ours={a:.7f} official={b:.7f}")
    t_ours = timeit(run_ours, args.repeats, args.device)
    t_theirs = timeit(run_theirs, args.repeats, args.device)
    print(f"loss fwd+bwd   toponeuro {t_ours * 1e3:8.2f} ms   topoloss {t_theirs * 1e3:8.2f} ms   "
          f"ratio {t_ours / t_theirs:.3f} (target <= 1.0)")

    x = torch.randn(args.batch, 3, 224, 224, device=args.device)
    y = torch.randint(0, 1000, (args.batch,), device=args.device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    ce = torch.nn.CrossEntropyLoss()

    def step(with_topo):
        opt.zero_grad(set_to_none=True)
        loss = ce(model(x), y)
        if with_topo:
            loss = loss + ours(model)
        loss.backward()
        opt.step()

    t_plain = timeit(lambda: step(False), max(5, args.repeats // 4), args.device)
    t_topo = timeit(lambda: step(True), max(5, args.repeats // 4), args.device)
    print(f"train step (batch {args.batch}, 224 px)  plain {t_plain * 1e3:8.1f} ms   with TopoLoss "
          f"{t_topo * 1e3:8.1f} ms   overhead {100 * (t_topo / t_plain - 1):+.1f} % (target <= 10 %)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
