"""Labels are read wherever they are (issue 45): stimulus ids in a DataFrame's index, a
'stimulus_id' column, a Series' index or a DataArray's 'stimulus' coordinate join by id in
encoding, RDMs and searchlights, as a 'stimulus_id' coord always did."""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from toponeuro.analysis import (
    RidgeEncoder,
    compare_rdms,
    encoding_score,
    labelled_rdm,
    load_rdms,
    rdm,
    rdm_noise_ceiling,
    searchlight_rsa,
)
from toponeuro.exceptions import AlignmentError, InvalidDataError, PairedByPositionWarning

N, P, V = 90, 12, 6
IDS = np.array([f"img-{i:03d}" for i in range(N)])


@pytest.fixture(scope="module")
def planted():
    """Responses that are a linear map of the features (r ~ 0.97 when paired right), and
    the same responses in a shuffled row order."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, P))
    Y = X @ rng.standard_normal((P, V)) + 0.3 * rng.standard_normal((N, V))
    feats = xr.DataArray(X, dims=("stimulus", "unit"),
                         coords={"stimulus_id": ("stimulus", IDS)})
    perm = rng.permutation(N)
    return feats, Y, perm


def _score(feats, resp):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PairedByPositionWarning)  # a join, never by position
        return encoding_score(feats, resp, model=RidgeEncoder(alphas=[0.1, 10.0]), cv=5).values


def test_shuffled_dataframe_index_gives_the_aligned_r(planted):
    """Before: median r 0.99 -> -0.16 (paired by position, 'a plain array' warning)."""
    feats, Y, perm = planted
    aligned = _score(feats, xr.DataArray(Y, dims=("stimulus", "voxel"),
                                         coords={"stimulus_id": ("stimulus", IDS)}))
    assert np.median(aligned) > 0.9
    df = pd.DataFrame(Y[perm], index=IDS[perm], columns=[f"v{j}" for j in range(V)])
    np.testing.assert_allclose(_score(feats, df), aligned, atol=1e-12)
    # the result keeps the table's column names as its voxels
    s = encoding_score(feats, df, model=RidgeEncoder(alphas=[0.1, 10.0]), cv=5)
    assert s["voxel"].values.tolist() == [f"v{j}" for j in range(V)]


@pytest.mark.parametrize("carrier", ["column", "named_index", "series", "dim_coord",
                                     "features_frame"])
def test_each_label_carrier_joins_by_id(planted, carrier):
    feats, Y, perm = planted
    if carrier == "column":
        resp = pd.DataFrame(Y[perm]).assign(stimulus_id=IDS[perm])
        want = _score(feats, xr.DataArray(Y, dims=("stimulus", "voxel"),
                                          coords={"stimulus_id": ("stimulus", IDS)}))
        np.testing.assert_allclose(_score(feats, resp), want, atol=1e-12)
    elif carrier == "named_index":
        resp = pd.DataFrame(Y[perm], index=pd.Index(IDS[perm], name="stimulus"))
        assert np.median(_score(feats, resp)) > 0.9
    elif carrier == "series":
        resp = pd.Series(Y[perm, 0], index=IDS[perm])
        want = _score(feats, xr.DataArray(Y[:, :1], dims=("stimulus", "voxel"),
                                          coords={"stimulus_id": ("stimulus", IDS)}))
        np.testing.assert_allclose(_score(feats, resp), want, atol=1e-12)
    elif carrier == "dim_coord":
        resp = xr.DataArray(Y[perm], dims=("stimulus", "voxel"), coords={"stimulus": IDS[perm]})
        assert np.median(_score(feats, resp)) > 0.9
    else:  # the features as a table, the responses labelled
        ftab = pd.DataFrame(feats.values[perm], index=IDS[perm])
        resp = xr.DataArray(Y, dims=("stimulus", "voxel"),
                            coords={"stimulus_id": ("stimulus", IDS)})
        assert np.median(_score(ftab, resp)) > 0.9


def test_default_index_is_positions_and_says_so(planted):
    """pandas' own 0..n-1 index is no label: paired by position, with the warning."""
    feats, Y, _ = planted
    with pytest.warns(PairedByPositionWarning, match="no ids in a coord, index or"):
        encoding_score(feats, pd.DataFrame(Y), model=RidgeEncoder(alphas=[0.1, 10.0]), cv=5)


def test_ids_that_differ_refused_and_text_columns_refused(planted):
    feats, Y, _ = planted
    other = pd.DataFrame(Y, index=[f"x{i}" for i in range(N)])
    with pytest.raises(AlignmentError, match="do not hold the same stimuli"):
        encoding_score(feats, other, cv=5)
    with pytest.raises(InvalidDataError, match="non-numeric columns"):
        encoding_score(feats, pd.DataFrame(Y, index=IDS).assign(note="x"), cv=5)


def test_ridge_fit_joins_a_table_by_id(planted):
    feats, Y, perm = planted
    a = RidgeEncoder(alphas=[0.1, 10.0]).fit(feats, xr.DataArray(
        Y, dims=("stimulus", "voxel"), coords={"stimulus_id": ("stimulus", IDS)}))
    b = RidgeEncoder(alphas=[0.1, 10.0]).fit(feats, pd.DataFrame(Y[perm], index=IDS[perm]))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)


def test_rdm_of_a_table_is_labelled_and_square_tables_join(planted):
    feats, _, perm = planted
    tab = pd.DataFrame(feats.values[perm], index=IDS[perm])
    r = rdm(tab)
    assert r.attrs["stimulus_id"].tolist() == IDS[perm].tolist()
    assert compare_rdms(rdm(feats), r) == pytest.approx(1.0)
    sq = rdm(feats, square=True)
    table = pd.DataFrame(sq.values, index=IDS, columns=IDS).iloc[perm, perm[::-1]]
    assert compare_rdms(rdm(feats), table) == pytest.approx(1.0)
    with pytest.raises(AlignmentError, match="index and columns do not name the same"):
        compare_rdms(rdm(feats), table.rename(columns={IDS[0]: "other"}))


def test_searchlight_joins_a_table_by_id():
    rng = np.random.default_rng(1)
    pat = rng.standard_normal((8, 1))
    data = np.hstack([pat + 0.01 * rng.standard_normal((8, 3)), rng.standard_normal((8, 3))])
    ids = np.array([f"s{i}" for i in range(8)])
    model = labelled_rdm(rdm(np.hstack([pat, np.zeros((8, 1))]), "euclidean", square=True)
                         .values, ids)
    xyz = np.array([[x, 0.0, 0.0] for x in range(6)])
    want = searchlight_rsa(data, np.asarray(model), radius=1.0, coords=xyz, metric="euclidean")
    perm = rng.permutation(8)
    got = searchlight_rsa(pd.DataFrame(data[perm], index=ids[perm]), model, radius=1.0,
                          coords=xyz, metric="euclidean")
    np.testing.assert_allclose(got.values, want.values, atol=1e-12)
    # the model RDM as a square table in yet another order joins too
    sq = rdm(np.hstack([pat, np.zeros((8, 1))]), "euclidean", square=True).values
    back = rng.permutation(8)
    table = pd.DataFrame(sq[np.ix_(back, back)], index=ids[back], columns=ids[back])
    got2 = searchlight_rsa(pd.DataFrame(data[perm], index=ids[perm]), table, radius=1.0,
                           coords=xyz, metric="euclidean")
    np.testing.assert_allclose(got2.values, want.values, atol=1e-12)


# ------------------------------------------------------------------ the same folder
def test_flat_image_folder_loads_as_the_cli_reads_it(tmp_path):
    """Before: load_image_folder refused a flat folder that `toponeuro extract` read."""
    from argparse import Namespace

    from toponeuro.cli._train import _extract_stimuli
    from toponeuro.stimuli import load_image_folder, make_image_folder

    folder = make_image_folder(tmp_path / "cats", categories=("cat",), numbers=(1, 2))
    flat = tmp_path / "flat"
    flat.mkdir()
    for p in sorted(folder.rglob("*.png")):
        p.rename(flat / p.name)
    api = load_image_folder(flat)
    assert api.ids.tolist() == ["cat-1", "cat-2"] and api.categories is None
    cli = _extract_stimuli(Namespace(stimuli=str(flat), category_from="auto", ids="path"))
    assert cli.ids.tolist() == api.ids.tolist() and cli.categories is None
    nested = load_image_folder(make_image_folder(tmp_path / "n", ("a", "b"), (1,)))
    assert nested.categories.tolist() == ["a", "b"]  # sub-folders: categories, as before


# ------------------------------------------------------------------ the 92-image file
@pytest.mark.shared
def test_r92_subjects_read_from_the_rdm_names(r92_dir):
    """Before: attrs held only 'name', so rdm_noise_ceiling(subjects='subject') failed."""
    from toponeuro.stimuli import load_92_images

    hit = load_rdms(r92_dir / "92_brainRDMs.mat", load_92_images(r92_dir), key="RDMs")
    assert [r.attrs["subject"] for r in hit] == ["BE", "BE", "KO", "KO", "SN", "SN",
                                                 "TI", "TI"]
    assert [r.attrs["session"] for r in hit] == ["1", "2"] * 4
    assert {r.attrs["region"] for r in hit} == {"hIT"}
    lo, hi = rdm_noise_ceiling(hit, subjects="subject")
    by_list = rdm_noise_ceiling(hit, subjects=[r.attrs["subject"] for r in hit])
    assert (lo, hi) == by_list and round(lo, 3) == 0.306  # the docstring's figure


def test_labelled_rdm_reads_a_square_table():
    """Before: a DataFrame RDM 'carries no stimulus ids' although its index named them."""
    m = np.array([[0.0, 0.2, 0.9], [0.2, 0.0, 0.8], [0.9, 0.8, 0.0]])
    df = pd.DataFrame(m, index=["a", "b", "c"], columns=["a", "b", "c"])
    r = labelled_rdm(df.iloc[[2, 0, 1], [1, 2, 0]])  # rows and columns in other orders
    assert r.attrs["stimulus_id"].tolist() == ["c", "a", "b"]
    assert compare_rdms(labelled_rdm(m, ["a", "b", "c"]), r, "pearson") == pytest.approx(1.0)
    with pytest.raises(AlignmentError, match="differ"):
        labelled_rdm(df, ["x", "y", "z"])
