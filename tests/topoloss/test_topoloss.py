import json

import pytest
import torch
from torch import nn

topoloss = pytest.importorskip("topoloss")

from toponeuro.exceptions import (  # noqa: E402
    OutputExistsError,
    OutputPathError,
    RecipeError,
    SheetError,
    UnknownNameError,
    UnsupportedLayerError,
)
from toponeuro.topoloss import (  # noqa: E402
    LayerSpec,
    TauSchedule,
    TopoLoss,
    constant,
    cosine_decay,
    linear_warmup,
)

OFFICIAL = {
    "weight": topoloss.LaplacianPyramid,
    "bias": topoloss.LaplacianPyramidOnBias,
    "input": topoloss.LaplacianPyramidOnInput,
}

CASES = [
    # (layer factory, factor_h, factor_w, target)
    (lambda: nn.Conv2d(3, 64, 3), 2, 2, "weight"),
    (lambda: nn.Conv2d(16, 96, 3, bias=False), 3, 4, "weight"),
    (lambda: nn.Conv2d(8, 50, 1), 2, 5, "weight"),
    (lambda: nn.Conv2d(4, 512, 3), 4, 4, "weight"),
    (lambda: nn.Conv2d(5, 38, 3), 2, 2, "weight"),  # 2 x 19 sheet
    (lambda: nn.Linear(20, 768), 3, 3, "weight"),
    (lambda: nn.Linear(7, 100), 2.5, 1.5, "weight"),
    (lambda: nn.Linear(30, 144), 3, 3, "bias"),
    (lambda: nn.Linear(12, 3072), 8, 8, "bias"),
    (lambda: nn.Linear(256, 40), 2, 2, "input"),
    (lambda: nn.Linear(768, 30), 4, 4, "input"),
]


@pytest.mark.parametrize("make,fh,fw,target", CASES)
def test_values_and_gradients_match_official(make, fh, fw, target):
    torch.manual_seed(0)
    layer = make()
    model = nn.Sequential(layer)
    ours = TopoLoss([LayerSpec("0", fh, fw, tau=2.5, target=target)])
    theirs = topoloss.TopoLoss([OFFICIAL[target]("0", factor_h=fh, factor_w=fw, scale=2.5)])
    a = ours(model)
    (ga,) = torch.autograd.grad(a, [layer.bias if target == "bias" else layer.weight])
    b = theirs.compute(model)
    (gb,) = torch.autograd.grad(b, [layer.bias if target == "bias" else layer.weight])
    assert abs(a.item() - b.item()) < 1e-6
    torch.testing.assert_close(ga, gb, atol=1e-6, rtol=0)
    un = ours.layerwise(model)["0" if target == "weight" else f"0:{target}"]
    assert abs(un.item() * 2.5 - a.item()) < 1e-6


@pytest.mark.parametrize("shape,fh,fw", [((1, 37), 1, 7), ((2, 19), 2, 3), ((16, 32), 3, 3), ((7, 9), 2.5, 1.7)])
def test_blur_equals_interpolate_down_up(shape, fh, fw):
    # the official package cannot check strips (its size assertion reads the wrong dims), so
    # compare our matrix blur with the definition directly
    import torch.nn.functional as F

    from toponeuro.topoloss import blur_sheet

    torch.manual_seed(0)
    x = torch.randn(*shape, 11, dtype=torch.float64)
    grid = x.permute(2, 0, 1).unsqueeze(0)
    small = F.interpolate(grid, scale_factor=(1 / fh, 1 / fw), mode="bilinear")
    ref = F.interpolate(small, size=shape, mode="bilinear")[0].permute(1, 2, 0)
    torch.testing.assert_close(blur_sheet(x, fh, fw), ref, atol=1e-12, rtol=0)


def test_multi_layer_mean_and_logging_only():
    torch.manual_seed(1)
    net = nn.Sequential(nn.Conv2d(3, 32, 3), nn.Conv2d(32, 64, 3), nn.Flatten(), nn.Linear(10, 48))
    ours = TopoLoss(
        [LayerSpec("0", 2, 2, tau=1.0), LayerSpec("1", 2, 4, tau=3.0), LayerSpec("3", 2, 2, tau=None)]
    )
    theirs = topoloss.TopoLoss(
        [
            topoloss.LaplacianPyramid("0", factor_h=2, factor_w=2, scale=1.0),
            topoloss.LaplacianPyramid("1", factor_h=2, factor_w=4, scale=3.0),
            topoloss.LaplacianPyramid("3", factor_h=2, factor_w=2, scale=None),
        ]
    )
    assert ours(net).item() == pytest.approx(theirs.compute(net).item(), abs=1e-6)
    assert set(ours.layerwise(net, scaled=True)) == {"0", "1"}
    assert set(ours.layerwise(net)) == {"0", "1", "3"}


def test_loss_is_zero_for_a_constant_sheet_and_falls_when_trained():
    lin = nn.Linear(5, 64)
    with torch.no_grad():
        lin.weight.copy_(torch.ones(64, 5))
    loss = TopoLoss([LayerSpec("0", 2, 2)])
    assert loss(nn.Sequential(lin)).item() == pytest.approx(0.0, abs=1e-6)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(16, 100))
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    first = loss(net).item()
    for _ in range(30):
        opt.zero_grad()
        loss(net).backward()
        opt.step()
    assert loss(net).item() < 0.5 * first


def test_named_parameters_and_wrappers():
    torch.manual_seed(0)
    rnn = nn.RNN(8, 36)
    mha = nn.MultiheadAttention(16, 2)
    holder = nn.ModuleDict({"rnn": rnn, "attn": mha})
    loss = TopoLoss([LayerSpec("rnn.weight_hh_l0", 2, 2), LayerSpec("attn.in_proj_weight", 2, 2)])
    val = loss(holder)
    val.backward()
    assert rnn.weight_hh_l0.grad is not None and mha.in_proj_weight.grad is not None
    # a 2-D parameter is a Linear-like (out, in) weight: same value as a Linear with it
    lin = nn.Linear(36, 36, bias=False)
    with torch.no_grad():
        lin.weight.copy_(rnn.weight_hh_l0)
    a = TopoLoss([LayerSpec("rnn.weight_hh_l0", 2, 2)]).layerwise(holder)["rnn.weight_hh_l0"]
    b = TopoLoss([LayerSpec("0", 2, 2)]).layerwise(nn.Sequential(lin))["0"]
    assert a.item() == pytest.approx(b.item(), abs=1e-7)


def test_blurpool_wrapper_resolves_to_its_conv():
    from toponeuro.models import SmallResNet

    m = SmallResNet(4, widths=(8, 16, 16, 32))
    loss = TopoLoss.for_layers(m, ["layer3.0.conv1"], 2, 2)
    inner = TopoLoss.for_layers(m, ["layer3.0.conv1.conv"], 2, 2)
    assert loss(m).item() == pytest.approx(inner(m).item())


def test_unsupported_and_unknown_layers_are_refused():
    net = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16), nn.Conv1d(4, 16, 3))
    with pytest.raises(UnsupportedLayerError, match="'1'.*BatchNorm2d"):
        TopoLoss.for_layers(net, ["1"], 2, 2)
    with pytest.raises(UnsupportedLayerError, match="Conv1d"):
        TopoLoss.for_layers(net, ["2"], 2, 2)
    with pytest.raises(UnsupportedLayerError, match="3 dims"):
        TopoLoss.for_layers(net, ["2.weight"], 2, 2)
    with pytest.raises(UnknownNameError, match="'0'"):
        TopoLoss.for_layers(net, ["O"], 2, 2)
    with pytest.raises(SheetError, match="smaller than its blur"):
        TopoLoss.for_layers(net, ["0"], 8, 2)  # 16 units -> 4 x 4 sheet
    with pytest.raises(UnsupportedLayerError, match="no bias"):
        TopoLoss.for_layers(nn.Sequential(nn.Linear(3, 16, bias=False)), ["0"], 2, 2, target="bias")
    with pytest.raises(UnsupportedLayerError):
        LayerSpec("0", 2, 2, target="output")
    with pytest.raises(SheetError):
        LayerSpec("0", 0.5, 2)


def test_schedules():
    assert constant()(1234) == 1.0
    w = linear_warmup(10)
    assert [w(s) for s in (0, 5, 10, 50)] == [0.0, 0.5, 1.0, 1.0]
    c = cosine_decay(total_steps=20, final=0.2)
    assert c(0) == pytest.approx(1.0) and c(20) == pytest.approx(0.2) and c(10) == pytest.approx(0.6)
    assert c(10) > c(15) > c(19)
    with pytest.raises(RecipeError):
        cosine_decay(total_steps=5, warmup_steps=5)
    with pytest.raises(UnknownNameError):
        TauSchedule("exponential")


def test_a_spec_declares_its_fields():
    """LayerSpec's fields are declared (validate_fields): canonical values; each refused
    value, of the wrong kind too, raises the error of what it breaks, naming the field."""
    import math
    from dataclasses import fields

    import numpy as np

    from toponeuro._util.params import declared_params

    assert set(declared_params(LayerSpec)) == {f.name for f in fields(LayerSpec)}
    spec = LayerSpec("fc", 2, np.float32(3), tau=5)
    assert (spec.factor_h, spec.factor_w, spec.tau) == (2.0, 3.0, 5.0)
    assert {type(v) for v in (spec.factor_h, spec.factor_w, spec.tau)} == {float}
    assert LayerSpec("  ", 2, 2, tau=None).tau is None  # a blank name is looked up as given
    for kwargs, error, message in [
        ({"name": ""}, RecipeError, r"^name='' is not a non-empty string\. Name a module"),
        ({"name": 3}, RecipeError, r"^name=3 is not a non-empty string \(got a int\)"),
        ({"factor_h": "2"}, SheetError, r"^factor_h='2' is not a finite number >= 1 \(got a "
                                        r"str\)\. 2\.0 is the TopoNets' value\.$"),
        ({"factor_w": math.inf}, SheetError, r"^factor_w=inf is not a finite number >= 1\."),
        ({"tau": -5.0}, RecipeError, r"^tau=-5 is not a finite number >= 0 or None\. None logs"),
        ({"tau": True}, RecipeError, r"^tau=True is not a finite number >= 0 or None \(got a"),
        ({"interpolation": 3}, UnknownNameError, r"^interpolation=3 is not one of 'bilinear'"),
        ({"target": 3}, UnsupportedLayerError, r"^target=3 is not one of 'weight', 'bias', "
                                               r"'input' \(got a int\)"),
    ]:
        with pytest.raises(error, match=message):
            LayerSpec(**{"name": "fc", "factor_h": 2, "factor_w": 2, **kwargs})


def test_a_schedule_declares_its_fields():
    """TauSchedule's fields are declared (validate_fields): canonical values; a recipe's
    error (RecipeError) for every refused number, of the wrong kind too; UnknownNameError for
    any kind that is no schedule; cosine_decay's rule across fields by hand."""
    import numpy as np

    from toponeuro._util.params import declared_params

    assert set(declared_params(TauSchedule)) == {"kind", "warmup_steps", "total_steps", "final"}
    s = TauSchedule("linear_warmup", warmup_steps=np.int64(3), final=1)
    assert (s.warmup_steps, type(s.warmup_steps), s.final, type(s.final)) == (3, int, 1.0, float)
    assert TauSchedule(total_steps=-5).total_steps == -5  # any whole number, as before
    for kwargs, message in [
        ({"warmup_steps": 2.0}, r"^warmup_steps=2 is not a whole number >= 0 \(got a float\)"),
        ({"warmup_steps": -1}, r"^warmup_steps=-1 is not a whole number >= 0\. 0 means no"),
        ({"total_steps": "5"}, r"^total_steps='5' is not a whole number \(got a str\)"),
        ({"final": True}, r"^final=True is not a finite number in \[0, 1\] \(got a bool\)"),
        ({"final": float("nan")}, r"^final=nan is not a finite number in \[0, 1\]\. final is"),
    ]:
        with pytest.raises(RecipeError, match=message):
            TauSchedule(**kwargs)
    with pytest.raises(UnknownNameError, match=r"^kind='cosine' is not one of 'constant', "
                                               r"'linear_warmup', 'cosine_decay'; did you mean"):
        TauSchedule("cosine")
    with pytest.raises(UnknownNameError, match=r"^kind=3 is not one of .*\(got a int\)"):
        TauSchedule(3)
    with pytest.raises(RecipeError, match="cosine_decay needs total_steps > warmup_steps"):
        TauSchedule("cosine_decay", warmup_steps=5, total_steps=5)


def test_schedule_scales_tau():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 64))
    loss = TopoLoss([LayerSpec("0", 2, 2, tau=4.0)], schedule=linear_warmup(100))
    full = loss(net).item()
    assert loss(net, step=25).item() == pytest.approx(full / 4)
    assert loss(net, step=0).item() == 0.0


def test_specs_and_schedules_roundtrip_json(tmp_path):
    loss = TopoLoss(
        [LayerSpec("a", 2, 3, tau=5.0), LayerSpec("b", 1.5, 2, tau=None, target="input")],
        schedule=cosine_decay(1000, warmup_steps=100, final=0.1),
    )
    path = tmp_path / "topo.json"
    loss.save(path)
    back = TopoLoss.load(path)
    assert back.specs == loss.specs and back.schedule == loss.schedule
    assert json.loads(path.read_text())["format"] == "toponeuro.topoloss/1"
    path.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(RecipeError):
        TopoLoss.load(path)


def test_fused_sheet_loss_gradient_is_exact():
    """The hand-written backward of the fused loss equals autograd's on the same formula,
    including units whose weight vector is zero (norm clamped at eps: no norm term)."""
    from toponeuro.topoloss._loss import _mean_cosine, blur_sheet, sheet_loss

    torch.manual_seed(0)
    sheet = torch.randn(6, 5, 7, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda s: sheet_loss(s, 2.0, 1.5), (sheet,))
    sheet = sheet.detach().clone()
    sheet[2, 3] = 0.0  # finite differences cannot cross the clamp; compare with autograd
    sheet.requires_grad_(True)
    (g_fused,) = torch.autograd.grad(sheet_loss(sheet, 2.0, 1.5), [sheet])
    ref = 1 - _mean_cosine(sheet.reshape(30, 7), blur_sheet(sheet, 2.0, 1.5).reshape(30, 7))
    (g_ref,) = torch.autograd.grad(ref, [sheet])
    torch.testing.assert_close(g_fused, g_ref, atol=1e-12, rtol=0)


def test_save_goes_through_the_one_writer(tmp_path):
    # before: open(path, "w") replaced any file there in place and wrote through a link
    loss = TopoLoss([LayerSpec("a", 2, 3, tau=5.0)])
    mine = tmp_path / "notes.json"
    mine.write_text("my notes")
    with pytest.raises(OutputExistsError, match="not written by toponeuro"):
        loss.save(mine)
    assert mine.read_text() == "my notes"
    (tmp_path / "link.json").symlink_to(mine)
    with pytest.raises(OutputExistsError):
        loss.save(tmp_path / "link.json")
    assert mine.read_text() == "my notes"
    (tmp_path / "nowhere.json").symlink_to(tmp_path / "absent" / "x.json")
    with pytest.raises(OutputPathError):
        loss.save(tmp_path / "nowhere.json")
    assert not (tmp_path / "absent").exists()
    own = tmp_path / "spec.json"
    loss.save(own)
    TopoLoss([LayerSpec("b", 1, 1)]).save(own)  # its own spec: replaced
    assert TopoLoss.load(own).specs[0].name == "b"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "link.json", "notes.json", "nowhere.json", "spec.json"]


def test_a_blur_of_one_on_both_sides_warns_that_the_loss_is_zero():
    """factor_h = factor_w = 1: the blurred sheet is the sheet, the loss is exactly 0 and
    tau does nothing (a 'tau = 1' run silently a tau = 0 one); said when the spec is made."""
    import warnings

    from toponeuro.exceptions import ToponeuroWarning
    from toponeuro.topoloss import LayerSpec, sheet_loss

    with pytest.warns(ToponeuroWarning, match="loss is 0 whatever the weights"):
        LayerSpec("fc", factor_h=1, factor_w=1, tau=1.0)
    assert float(sheet_loss(torch.randn(4, 6, 5), 1, 1)) == pytest.approx(0.0, abs=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ToponeuroWarning)
        LayerSpec("fc", factor_h=1, factor_w=2, tau=1.0)


@pytest.mark.parametrize("shape", [(4, 4, 3), (4, 4)])
def test_blur_and_loss_refuse_factors_larger_than_the_sheet_alike(shape):
    """blur_sheet and sheet_loss check a sheet's factors the one same way (3-D and 2-D)."""
    from toponeuro.topoloss import blur_sheet, sheet_loss

    sheet = torch.ones(*shape)
    for fn in (blur_sheet, sheet_loss):
        with pytest.raises(SheetError, match=r"exceed the sheet \(4 x 4\)"):
            fn(sheet, 5.0, 2.0)
        with pytest.raises(SheetError, match=r"exceed the sheet \(4 x 4\)"):
            fn(sheet, 2.0, 5.0)
    assert float(sheet_loss(torch.ones(4, 4, 3), 2.0, 2.0)) < 1e-6
    assert blur_sheet(sheet, 2.0, 2.0).shape == sheet.shape
    for fn in (blur_sheet, sheet_loss):
        assert "%(" not in fn.__doc__ and "interpolation : str" in fn.__doc__
