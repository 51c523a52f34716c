"""efficiency_curve (and the model surgery it uses) and trajectory on tiny torch models."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from toponeuro.analysis import TOPONETS_NANOGPT_KEEP, efficiency_curve, pool_matrix
from toponeuro.exceptions import (
    CheckpointError,
    InvalidDataError,
    ParameterError,
    UnknownNameError,
)
from toponeuro.models import SmallResNet, downsample_weights, restoring
from toponeuro.training import trajectory


def _net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))


X = torch.randn(7, 5, generator=torch.Generator().manual_seed(1))


def _capture(layer_idx):
    """An evaluate that records what the hooked layer outputs (after toponeuro's hook)."""
    seen = []

    def evaluate(model):
        h = model[layer_idx].register_forward_hook(lambda m, i, o: seen.append(o.detach().clone()))
        with torch.no_grad():
            out = model(X)
        h.remove()
        return float(out.abs().sum())

    return evaluate, seen


def test_remove_zeroes_the_requested_units_and_restores():
    net = _net()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    net.train()
    evaluate, seen = _capture(0)
    curve = efficiency_curve(
        net, ["0"], [0.0, 0.25, 0.5], evaluate, method="remove", random_state=0
    )
    assert curve["removed_fraction"].tolist() == [0.0, 0.25, 0.5]
    zero_units = [int((o.abs().sum(0) == 0).sum()) for o in seen]
    assert zero_units == [0, 4, 8]
    # nested: units removed at 25 % stay removed at 50 %
    z1 = set(np.flatnonzero(seen[1].abs().sum(0).numpy() == 0))
    z2 = set(np.flatnonzero(seen[2].abs().sum(0).numpy() == 0))
    assert z1 < z2
    with torch.no_grad():
        assert curve["score"][0] == pytest.approx(float(net(X).abs().sum()))
    for k, v in net.state_dict().items():
        assert torch.equal(v, before[k])
    assert net.training and not net[0]._forward_hooks


def test_pool_replaces_units_by_their_block_mean():
    net = _net()
    evaluate, seen = _capture(0)
    curve = efficiency_curve(net, ["0"], evaluate=evaluate, method="pool", pool_sizes=(1, 2, 4))
    with torch.no_grad():
        raw = net[0](X)
    np.testing.assert_allclose(seen[0].numpy(), raw.numpy(), rtol=1e-6)
    p2 = torch.as_tensor(pool_matrix(16, 2), dtype=torch.float32)
    np.testing.assert_allclose(seen[1].numpy(), (raw @ p2).numpy(), rtol=1e-5, atol=1e-6)
    # a 4 x 4 sheet in 2 x 2 blocks keeps 4 of 16 units; one 4 x 4 block keeps 1
    assert curve["removed_fraction"].tolist() == [0.0, 0.75, 1 - 1 / 16]
    assert curve["pool_size"].tolist() == [1, 2, 4]
    assert np.allclose(seen[2].numpy(), seen[2].numpy()[:, :1])


def test_pool_matrix_blocks_on_a_rectangular_sheet():
    p = pool_matrix(12, 2)  # 3 x 4 sheet: blocks of 4, 4, 2, 2 units
    np.testing.assert_allclose(p.sum(1), 1.0)
    assert sorted({round(1 / v) for v in p[p > 0]}) == [2, 4]
    np.testing.assert_allclose(p, p.T)


def test_magnitude_pruning_zeroes_smallest_weights():
    net = _net()
    w0 = net[2].weight.detach().clone()
    fractions_seen = []

    def evaluate(model):
        w = model[2].weight
        fractions_seen.append(float((w == 0).float().mean()))
        kept = w[w != 0].abs()
        pruned_max = w0[w == 0].abs().max() if (w == 0).any() else torch.tensor(0.0)
        assert kept.numel() == 0 or kept.min() >= pruned_max
        return {"acc": 1.0 - fractions_seen[-1], "n": float(kept.numel())}

    curve = efficiency_curve(net, ["2"], [0.0, 0.5, 0.9], evaluate, method="magnitude")
    np.testing.assert_allclose(fractions_seen, [0.0, 0.5, 0.9], atol=1 / 48)
    assert list(curve.columns[-2:]) == ["acc", "n"]
    assert torch.equal(net[2].weight, w0)


def test_small_resnet_all_methods():
    model = SmallResNet(num_classes=4, widths=(8, 8, 16, 16))
    model.eval()
    x = torch.randn(2, 3, 12, 12, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        base = model(x).clone()
    before = {k: v.clone() for k, v in model.state_dict().items()}

    def evaluate(m):
        with torch.no_grad():
            return float((m(x) - base).abs().max())

    curve = efficiency_curve(
        model, ["layer3.0.conv2", "layer4.0.conv1"], [0.0, 0.5], evaluate, random_state=0
    )
    assert list(curve["method"]) == [
        "remove",
        "remove",
        "pool",
        "pool",
        "pool",
        "pool",
        "magnitude",
        "magnitude",
    ]
    intact = curve[
        (curve["fraction"] == 0) | ((curve["method"] == "pool") & (curve["pool_size"] == 1))
    ]
    assert np.allclose(intact["score"], 0.0)
    assert (curve.loc[curve["removed_fraction"] > 0, "score"] > 0).all()
    for k, v in model.state_dict().items():
        assert torch.equal(v, before[k])
    assert not model.training


def test_efficiency_bad_inputs():
    net = _net()
    with pytest.raises(UnknownNameError, match="did you mean 'pool'"):
        efficiency_curve(net, ["0"], [0.0], lambda m: 0.0, method="pooll")
    with pytest.raises(InvalidDataError, match=r"\[0, 1\)"):
        efficiency_curve(net, ["0"], [1.0], lambda m: 0.0)
    with pytest.raises(InvalidDataError, match="evaluate"):
        efficiency_curve(net, ["0"], [0.0])
    with pytest.raises(UnknownNameError):
        efficiency_curve(net, ["9"], [0.0], lambda m: 0.0)


def _save_run(folder, n=3, model=None):
    model = model or _net()
    for e in range(n):
        with torch.no_grad():
            model[0].bias.fill_(float(e))
        torch.save(
            {"model": model.state_dict(), "epoch": e, "tau": 0.5}, folder / f"epoch_{e:03d}.pt"
        )
    return model


def test_trajectory_over_epoch_checkpoints(tmp_path):
    model = _save_run(tmp_path, n=3)
    (tmp_path / "notes.txt").write_text("not a checkpoint")
    df = trajectory(
        tmp_path, lambda m: {"bias": float(m[0].bias.detach().mean()), "n": 16}, model=model
    )
    assert list(df.columns) == ["epoch", "checkpoint", "metric", "value"]
    bias = df[df.metric == "bias"]
    assert bias["epoch"].tolist() == [0, 1, 2] and bias["value"].tolist() == [0.0, 1.0, 2.0]
    assert len(df) == 6
    assert (
        float(model[0].bias.detach().mean()) == 2.0
    )  # the caller's model is untouched (last save)
    files = sorted(tmp_path.glob("epoch_*.pt"))[::-1]
    raw = trajectory(files, lambda ck: ck["tau"])
    assert raw["epoch"].tolist() == [2, 1, 0] and raw["metric"].tolist() == ["value"] * 3


class _Custom:
    pass


def test_trajectory_bad_checkpoints(tmp_path):
    with pytest.raises(CheckpointError, match="No epoch_XXX.pt"):
        trajectory(tmp_path, lambda c: 0.0)
    _save_run(tmp_path, n=1)
    with pytest.raises(CheckpointError, match="another architecture"):
        trajectory(tmp_path, lambda m: 0.0, model=nn.Linear(5, 16))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "epoch_000.pt").write_bytes(b"\x80\x02trunc")
    with pytest.raises(CheckpointError, match="truncated"):
        trajectory(bad, lambda c: 0.0)
    torch.save({"weights": {}}, bad / "epoch_001.pt")
    with pytest.raises(CheckpointError, match="not a (complete )?toponeuro training checkpoint"):
        trajectory([bad / "epoch_001.pt"], lambda c: 0.0)
    torch.save({"model": {}, "obj": _Custom()}, bad / "epoch_002.pt")
    with pytest.raises(CheckpointError, match="Unpickling|weights_only|Weights only"):
        trajectory([bad / "epoch_002.pt"], lambda c: 0.0)
    with pytest.raises(CheckpointError, match="not found"):
        trajectory([tmp_path / "epoch_099.pt"], lambda c: 0.0)


# -- the TopoNets NanoGPT analysis: 100/80/50/20 % of the c_fc parameters kept ---------------
def _tiny_gpt():
    from toponeuro.models import GPT, GPTConfig

    torch.manual_seed(0)
    return GPT(GPTConfig(n_layer=2, n_head=2, n_embd=16, vocab_size=40, block_size=8)).eval()


C_FC = ["transformer.h.0.mlp.c_fc", "transformer.h.1.mlp.c_fc"]
TOKENS = torch.randint(0, 40, (3, 8), generator=torch.Generator().manual_seed(2))


def test_downsample_on_a_tiny_nanogpt_keeps_the_paper_fractions():
    gpt = _tiny_gpt()
    before = {k: v.clone() for k, v in gpt.state_dict().items()}
    w0 = gpt.transformer.h[1].mlp.c_fc.weight.detach().clone()  # (64, 16): an 8 x 8 sheet
    seen = []

    def val_loss(model):
        seen.append(float((model.transformer.h[1].mlp.c_fc.weight.detach() - w0).abs().max()))
        with torch.no_grad():
            logits = model(TOKENS[:, :-1])
            return float(torch.nn.functional.cross_entropy(
                logits.reshape(-1, 40), TOKENS[:, 1:].reshape(-1)))

    curve = efficiency_curve(gpt, C_FC, evaluate=val_loss, method="downsample")
    assert TOPONETS_NANOGPT_KEEP == (1.0, 0.8, 0.5, 0.2)
    assert curve["method"].unique().tolist() == ["downsample"]
    np.testing.assert_allclose(curve["fraction"], [0.0, 0.2, 0.5, 0.8])
    # an 8 x 8 sheet shrinks to 7 x 7, 6 x 6, 4 x 4: 49, 36 and 16 of 64 units' parameters
    np.testing.assert_allclose(curve["removed_fraction"], [0, 1 - 49 / 64, 1 - 36 / 64, 0.75])
    assert seen[0] == 0 and all(d > 0 for d in seen[1:4])
    with torch.no_grad():
        intact = val_loss(gpt)
    assert curve["score"][0] == pytest.approx(intact)
    assert curve["score"][3] != pytest.approx(intact)
    for k, v in gpt.state_dict().items():
        assert torch.equal(v, before[k]), k


def test_downsample_weights_of_a_constant_sheet_is_exact_and_restored():
    net = nn.Sequential(nn.Linear(3, 64))
    with torch.no_grad():
        net[0].weight.fill_(0.5)
    with restoring(net):
        kept = downsample_weights(net, ["0"], 0.25)
        assert kept == 0.25
        np.testing.assert_allclose(net[0].weight.detach().numpy(), 0.5, rtol=1e-6)
        net[0].weight.data.zero_()
    assert float(net[0].weight.detach().mean()) == 0.5
    with pytest.raises(ParameterError, match=r"^keep=0 is not a finite number in \(0, 1\]"):
        downsample_weights(net, ["0"], 0.0)


def test_downsample_smooths_a_planted_gradient_less_than_noise():
    """A smooth sheet (weights vary slowly over units) survives downsampling better."""
    torch.manual_seed(0)
    rr, cc = np.mgrid[:16, :16]
    smooth = np.stack([np.sin(rr / 5.0 + k) + np.cos(cc / 4.0 - k) for k in range(4)], -1)
    noise = np.random.default_rng(0).standard_normal(smooth.shape)
    errs = []
    for sheet in (smooth, noise):
        net = nn.Sequential(nn.Linear(4, 256))
        with torch.no_grad():
            net[0].weight.copy_(torch.as_tensor(sheet.reshape(256, 4), dtype=torch.float32))
        w0 = net[0].weight.detach().clone()
        with restoring(net):
            downsample_weights(net, ["0"], 0.5)
            errs.append(float((net[0].weight.detach() - w0).pow(2).mean() / w0.pow(2).mean()))
    assert errs[0] < 0.1 < errs[1]
