"""TopoLoss speed: toponeuro vs the official topoloss 0.0.2, on ResNet-18.

Times forward+backward of the loss over every conv layer inside ResNet-18's residual blocks
(the layers the released TopoNets use), for both packages in one run, and the overhead the
loss adds to a full ResNet-18 training step. Prints ratios (toponeuro / topoloss: below 1.0
means toponeuro is faster) and peak RSS.

The step overhead (step with TopoLoss minus the plain step) is printed next to the loss's
own forward+backward, for toponeuro's loss (a fused autograd function) and, as the
reference, the same loss written as plain autograd operations (what toponeuro used before):
the target is an overhead of at most 1.2 x the loss's own cost. Plain, TopoLoss and
loss-only runs are interleaved round by round so that other jobs on a shared machine slow
them alike; medians of wall-clock time and of this process's CPU time are both printed (with
``--threads 1`` the CPU time is robust to other jobs).

Run: python bench/bench_topoloss.py [--repeats 20] [--batch 16] [--size 224] [--threads N]
     [--device cpu] [--small]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import torch
import torchvision

from toponeuro.topoloss import TopoLoss
from toponeuro.topoloss._layers import sheet_tensor
from toponeuro.topoloss._loss import _mean_cosine, blur_sheet


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
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--step-repeats", type=int, default=7)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--small", action="store_true",
                   help="quick run: batch 2, 64 px, 5 loss repeats, 3 step rounds")
    args = p.parse_args()
    if args.small:
        args.batch, args.size, args.repeats, args.step_repeats = 2, 64, 5, 3
    if args.threads:
        torch.set_num_threads(args.threads)
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

    def autograd_loss(model):  # the same loss as plain autograd operations (the reference)
        parts = []
        for spec in ours.specs:
            sheet = sheet_tensor(model, spec.name, spec.target)
            h, w, e = sheet.shape
            blurred = blur_sheet(sheet, spec.factor_h, spec.factor_w)
            cos = _mean_cosine(sheet.reshape(h * w, e), blurred.reshape(h * w, e))
            parts.append((1 - cos) * spec.tau)
        return torch.stack(parts).mean()

    assert abs(autograd_loss(model).item() - a) < 1e-6
    x = torch.randn(args.batch, 3, args.size, args.size, device=args.device)
    y = torch.randint(0, 1000, (args.batch,), device=args.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: every round sees the same model
    ce = torch.nn.CrossEntropyLoss()

    def step(loss_fn):
        opt.zero_grad(set_to_none=True)
        loss = ce(model(x), y)
        if loss_fn is not None:
            loss = loss + loss_fn(model)
        loss.backward()
        opt.step()

    def own(loss_fn):
        model.zero_grad(set_to_none=True)
        loss_fn(model).backward()

    cases = {"plain": lambda: step(None), "step": lambda: step(ours),
             "own": lambda: own(ours), "step_ref": lambda: step(autograd_loss),
             "own_ref": lambda: own(autograd_loss)}
    for fn in cases.values():
        fn()
    wall = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(args.step_repeats):
        for k, fn in cases.items():
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            if args.device.startswith("cuda"):
                torch.cuda.synchronize()
            wall[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
    print(f"train step (ResNet-18, batch {args.batch}, {args.size} px, {torch.get_num_threads()} "
          f"threads, median of {args.step_repeats} interleaved rounds)")
    for clock, times in (("wall", wall), ("cpu", cpu)):
        m = {k: statistics.median(v) for k, v in times.items()}
        for tag, label in (("", "toponeuro (fused)"), ("_ref", "autograd reference")):
            over = m["step" + tag] - m["plain"]
            print(f"  {clock:4s} {label:19s} plain {m['plain'] * 1e3:8.1f} ms  with TopoLoss "
                  f"{m['step' + tag] * 1e3:8.1f} ms  overhead {over * 1e3:7.1f} ms "
                  f"({100 * over / m['plain']:+.1f} %)  loss alone {m['own' + tag] * 1e3:7.1f} ms"
                  f"  overhead / loss alone {over / m['own' + tag]:.2f} (target <= 1.2)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
