"""Options and outputs checked at the boundary, before any work (issue 45).

- Options passed through to another library (nilearn's ``vol_to_surf``) are checked against
  what it accepts before a map is read (before: ``kind='nope'`` reached nilearn's plain
  ``ValueError`` when the first volume was projected).
- What a job would find late is refused at once: ``cortex_threshold=nan`` (before: after
  the model was loaded and the activations extracted), a read-only ``out_dir`` (before: a
  ``PermissionError`` when the finished job saved), ``--out`` at a link to itself (before: a
  ``RuntimeError`` traceback); ``TopoLoss.save`` never writes through a link (before: it
  wrote through a link to another spec although its docstring says it refuses).
- A semicolon-separated table (a European spreadsheet's CSV) is read, and a ``sep`` that
  leaves its header unsplit names the real problem.
- A torch / torchvision pair that is not built for each other fails when a model is built,
  naming the ``pip install`` of a matching pair.
"""

from __future__ import annotations

import os

import nibabel as nib
import numpy as np
import pytest

import toponeuro
import toponeuro.exceptions as E
from toponeuro.atlases import load_cortex_maps
from toponeuro.stimuli import load_stimulus_table, make_image_folder


@pytest.fixture(scope="module")
def volume(tmp_path_factory):
    p = tmp_path_factory.mktemp("v2s") / "faces.nii.gz"
    rng = np.random.default_rng(0)
    affine = np.array([[4.0, 0, 0, -90], [0, 4, 0, -126], [0, 0, 4, -72], [0, 0, 0, 1]])
    nib.save(nib.Nifti1Image(rng.normal(size=(46, 55, 46)).astype(np.float32), affine), p)
    return p


# --- options passed through to nilearn ---------------------------------------------------
V2S = [
    ({"kind": "nope"}, E.InvalidDataError, r"kind='nope' is not one of \['auto', 'depth', "),
    ({"interpolation": "cubic"}, E.InvalidDataError, "interpolation='cubic' is not one of"),
    ({"radius": -1.0}, E.ParameterError, r"vol_to_surf\['radius'\]=-1"),
    ({"radius": "3"}, E.InputTypeError, r"vol_to_surf\['radius'\]"),
    ({"n_samples": 0}, E.ParameterError, r"vol_to_surf\['n_samples'\]=0"),
    ({"depth": "0.5"}, E.InputTypeError, r"vol_to_surf\['depth'\] must be a non-empty"),
    ({"depth": [0.0, float("nan")]}, E.ParameterError, r"vol_to_surf\['depth'\] entry"),
    ({"depth": [0.0, 1.0], "kind": "ball"}, E.InvalidDataError, "cannot be used with kind='ball'"),
    ({"mask_img": "/no/such/mask.nii.gz"}, E.MissingFileError, "mask_img"),
    ({"radisu": 2.0}, E.InvalidDataError, "Unknown vol_to_surf parameter 'radisu'"),
    ("radius=2", E.InputTypeError, r"vol_to_surf='radius=2' is not a mapping"),
]


@pytest.mark.parametrize(("options", "error", "match"), V2S, ids=[str(v[0]) for v in V2S])
def test_vol_to_surf_options_are_checked_before_any_map_is_read(volume, monkeypatch, options,
                                                                error, match):
    import nilearn.surface

    def never(*a, **k):
        raise AssertionError("nilearn's vol_to_surf was reached")

    monkeypatch.setattr(nilearn.surface, "vol_to_surf", never)
    with pytest.raises(error, match=match):
        load_cortex_maps({"faces": volume}, vol_to_surf=options)


@pytest.mark.slow  # a volume atlas projected with each vol_to_surf option (~2 s)
def test_valid_vol_to_surf_options_give_the_same_maps(volume):
    a = load_cortex_maps({"faces": volume}, hemispheres=["left"])
    b = load_cortex_maps({"faces": volume}, hemispheres=["left"],
                         vol_to_surf={"kind": "auto", "radius": 3, "interpolation": "linear"})
    np.testing.assert_array_equal(a["left"].maps["faces"], b["left"].maps["faces"])
    assert b["left"].source["vol_to_surf"]["radius"] == 3.0


def test_cli_vol_to_surf_kind_prints_one_line(volume, tmp_path, capsys):
    from test_cli_errors import FLOC, _run  # every test folder is on sys.path (conftest)

    floc = make_image_folder(tmp_path / "floc", FLOC, [1], suffix=".jpg", mode="RGB")
    rc, out, err = _run(["map", "--stimuli", str(floc), "--out", str(tmp_path / "m"),
                         "--cortex-maps", f"faces={volume}", "--vol-to-surf",
                         '{"kind": "nope"}', "--no-progress"], capsys)
    assert rc == 1 and "Traceback" not in out + err, err
    assert len(err.strip().splitlines()) == 1 and "kind='nope'" in err, err


# --- found late -------------------------------------------------------------------------
class _Loaded(Exception):
    pass


@pytest.fixture()
def no_model(monkeypatch):
    """load_model raises _Loaded: a job that reaches it has started its slow steps."""
    import toponeuro.models

    def loaded(*a, **k):
        raise _Loaded

    import toponeuro.reporting  # noqa: F401 - imported before the patch:
    import toponeuro.training  # noqa: F401 - a first import under it keeps it
    monkeypatch.setattr(toponeuro.models, "load_model", loaded)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "2"])
def test_cortex_threshold_is_refused_before_the_model_loads(tmp_path, no_model, value):
    with pytest.raises((E.ParameterError, E.InputTypeError), match="cortex.threshold"):
        toponeuro.run_map(out_dir=tmp_path / "m", cortex_threshold=value, progress=False)
    with pytest.raises((E.ParameterError, E.InputTypeError), match="cortex.threshold"):
        toponeuro.run_language_map(out_dir=tmp_path / "l", cortex_threshold=value,
                                   progress=False)
    assert not (tmp_path / "m").exists() and not (tmp_path / "l").exists()


@pytest.mark.parametrize("bad", [{"top_k": 0}, {"top_k": 1.5}, {"smooth_fwhm": -1.0},
                                 {"smooth_fwhm": float("nan")}])
def test_language_selection_parameters_are_refused_before_the_model_loads(tmp_path, no_model,
                                                                          bad):
    """top_k and smooth_fwhm were checked by language_selectivity, after extraction."""
    (name,) = bad
    with pytest.raises(E.ParameterError, match=name):
        toponeuro.run_language_map(out_dir=tmp_path / "l", progress=False, **bad)
    assert not (tmp_path / "l").exists()


def test_a_read_only_out_dir_is_refused_before_the_model_loads(tmp_path, no_model,
                                                               monkeypatch):
    import toponeuro._io.output as out

    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    # this test may run as root (who may write anywhere); the check asks os.access
    monkeypatch.setattr(out.os, "access", lambda p, mode, **k: (
        False if os.path.abspath(p) == str(ro) else real(p, mode, **k)))
    with pytest.raises(E.OutputPathError, match=r"out_dir=.*ro is not writable"):
        toponeuro.run_map(out_dir=ro, progress=False)
    with pytest.raises(E.OutputPathError, match=r"where it would be written.*not writable|"
                                                r"not writable"):
        toponeuro.run_map(out_dir=ro / "new" / "m", progress=False)
    assert list(ro.iterdir()) == []
    with pytest.raises(_Loaded):  # a writable folder passes on to the job
        toponeuro.run_map(out_dir=tmp_path / "ok", progress=False)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root may write into a read-only folder")
def test_a_real_read_only_folder_is_refused(tmp_path, no_model):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(E.OutputPathError, match="not writable"):
            toponeuro.run_map(out_dir=ro, progress=False)
    finally:
        ro.chmod(0o755)


def test_out_at_a_link_to_itself_is_a_typed_error(tmp_path, capsys, no_model):
    from test_cli_errors import _run

    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(E.OutputPathError, match="leads back to itself"):
        toponeuro.run_map(out_dir=loop, progress=False)
    with pytest.raises(E.OutputPathError, match="leads back to itself"):
        toponeuro.run_map(out_dir=loop / "inside", progress=False)
    rc, out, err = _run(["map", "--out", str(loop), "--no-progress"], capsys)
    assert rc == 1 and "Traceback" not in out + err and "--out" in err, err
    rc, out, err = _run(["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                         str(tmp_path), "--out", str(loop)], capsys)
    assert rc == 1 and "Traceback" not in out + err, err


def test_topoloss_save_refuses_a_link_to_another_spec(tmp_path):
    from toponeuro.topoloss import LayerSpec, TopoLoss

    other = tmp_path / "other.json"
    TopoLoss([LayerSpec("b", 1, 1)]).save(other)
    before = other.read_text()
    (tmp_path / "link.json").symlink_to(other)
    with pytest.raises(E.OutputExistsError, match="never written through a link"):
        TopoLoss([LayerSpec("a", 2, 3)]).save(tmp_path / "link.json")
    assert other.read_text() == before
    assert TopoLoss.load(tmp_path / "link.json").specs[0].name == "b"  # reading follows it


# --- semicolon-separated tables ---------------------------------------------------------
@pytest.fixture()
def semicolon_table(tmp_path):
    make_image_folder(tmp_path / "imgs", ["faces", "houses"], [1, 2], suffix=".png")
    files = sorted(p.relative_to(tmp_path / "imgs") for p in (tmp_path / "imgs").rglob("*.png"))
    p = tmp_path / "t.csv"
    p.write_text("file;category;note;rating\n"
                 + "".join(f"{f};{f.parent};a, b;{k},5\n" for k, f in enumerate(files)),
                 encoding="utf-8-sig")
    return p, files


def test_a_semicolon_table_is_read(semicolon_table):
    p, files = semicolon_table
    s = load_stimulus_table(p, p.parent / "imgs")
    assert len(s) == len(files) == 4
    assert sorted(set(s.categories)) == ["faces", "houses"]
    assert list(s.metadata["note"]) == ["a, b"] * 4  # commas inside cells stay
    # the decimal comma of a ';' table's numbers
    np.testing.assert_array_equal(s.metadata["rating"], [0.5, 1.5, 2.5, 3.5])


def test_a_wrong_sep_names_the_semicolons(semicolon_table):
    p, _ = semicolon_table
    with pytest.raises(E.InvalidDataError, match=r"header is separated by ';' \(semicolon.*"
                                                r"Pass sep=';'"):
        load_stimulus_table(p, p.parent / "imgs", sep=",")


# --- the install: torch and torchvision built for each other ----------------------------
def test_matching_torchvision():
    from toponeuro._util.optional import matching_torchvision

    assert matching_torchvision("2.5.1+cu121") == "0.20.1+cu121"
    assert matching_torchvision("2.0.0") == "0.15.0"
    assert matching_torchvision("1.13.1+cpu") == "0.14.1+cpu"
    assert matching_torchvision("nightly") is None


def test_a_mismatched_torchvision_is_named_when_a_model_is_built(monkeypatch):
    import toponeuro._util.optional as opt
    from toponeuro.models import create_model

    def broken():
        raise RuntimeError("operator torchvision::nms does not exist")

    versions = {"torch": "2.5.1+cpu", "torchvision": "0.20.1+cu121"}
    monkeypatch.setattr(opt, "_probe_torchvision", broken)
    monkeypatch.setattr(opt, "_version", versions.get)
    opt._checked_torchvision.cache_clear()
    try:
        with pytest.raises(E.DependencyMismatchError) as info:
            create_model("resnet18")
        msg = str(info.value)
        assert isinstance(info.value, ImportError)
        assert "torch 2.5.1+cpu and torchvision 0.20.1+cu121 are not built for each other" in msg
        assert "pip install torch==2.5.1 torchvision==0.20.1" in msg
        assert "torchvision::nms" in msg and "whl/cpu" in msg
    finally:
        monkeypatch.undo()
        opt._checked_torchvision.cache_clear()
    assert create_model("resnet18").__class__.__name__ == "ResNet"  # the real pair works


def test_vit_options_passed_to_torchvision_are_checked():
    from toponeuro.models import create_model

    with pytest.raises(E.UnknownNameError, match=r"vit_b_32: \['num_head'\] is not a "
                                                 "parameter.*did you mean 'num_heads'"):
        create_model("vit_b_32", size="tiny", num_head=2)
    assert len(create_model("vit_b_32", size="tiny", num_heads=2).encoder.layers) == 2


LATE = [  # (job, parameters): each was refused only after the model was loaded
    ("run_map", {"stimuli": "/no/such/floc"}, E.MissingFileError, "stimuli='/no/such/floc'"),
    ("run_map", {"device": "gpu0"}, E.DeviceError, "device='gpu0'"),
    ("run_map", {"model": "toponet_demo.tau_99"}, E.UnknownNameError, "toponet_demo.tau_0"),
    ("run_map", {"overwrite": "yes"}, E.InputTypeError, "overwrite='yes'"),
    ("run_map", {"random_init_baseline": "no"}, E.InputTypeError, "random_init_baseline"),
    ("run_map", {"layers": 3}, E.InputTypeError, "layers=3"),
    ("run_language_map", {"stimuli": "/no/such.csv"}, E.MissingFileError, "'langloc'"),
    ("run_language_map", {"token_pooling": "avg"}, E.UnknownNameError, "token_pooling"),
    ("run_language_map", {"trust_checkpoint": 1}, E.InputTypeError, "trust_checkpoint"),
]


@pytest.mark.parametrize(("job", "params", "error", "match"), LATE,
                         ids=[f"{c[0]}-{next(iter(c[1]))}" for c in LATE])
def test_job_parameters_are_checked_before_the_model_loads(tmp_path, no_model, job, params,
                                                           error, match):
    with pytest.raises(error, match=match):
        getattr(toponeuro, job)(out_dir=tmp_path / "o", progress=False, **params)
    assert not (tmp_path / "o").exists()
