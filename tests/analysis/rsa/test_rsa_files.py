"""RDMs from a lab's files keep their stimuli (issue 31): ``labelled_rdm`` gives a plain matrix its
ids, ``load_rdms`` reads .npy/.npz/.mat/rsatoolbox files, and a labelled RDM is never paired
with a plain one by position."""

import numpy as np
import pytest
import rsatoolbox as rt
import scipy.io
import xarray as xr
from scipy.spatial.distance import squareform
from scipy.stats import spearmanr

from toponeuro import exceptions as E
from toponeuro.analysis import (
    compare_rdm_models,
    compare_rdms,
    labelled_rdm,
    load_rdms,
    rdm_noise_ceiling,
    to_rsatoolbox_rdms,
)

N = 12
IDS = [f"img{i:02d}" for i in range(1, N + 1)]


def _square(seed=0, n=N):
    rng = np.random.default_rng(seed)
    return squareform(rng.random(n * (n - 1) // 2))


def _permuted(square, perm):
    return square[np.ix_(perm, perm)]


# ---------------------------------------------------------------- ground truth: join by id
def test_labelled_rdm_in_permuted_order_scores_as_the_original():
    """A model RDM in stimulus order against the same data RDM stored in another row order:
    joined by id it scores the true value; by position (the 0.3 behaviour) it would not."""
    model = _square(0)
    data = model + 0.3 * _square(1)
    np.fill_diagonal(data, 0)
    perm = np.random.default_rng(2).permutation(N)
    truth = spearmanr(squareform(model), squareform(data)).statistic
    m = labelled_rdm(model, IDS, metric="correlation")
    d_perm = labelled_rdm(_permuted(data, perm), np.asarray(IDS)[perm])
    assert compare_rdms(m, d_perm, "spearman") == pytest.approx(truth, abs=1e-12)
    by_position = spearmanr(squareform(model), squareform(_permuted(data, perm))).statistic
    assert abs(by_position - truth) > 0.3  # what pairing by position would have reported
    # the noise ceiling and the model comparison join by id too
    data2 = labelled_rdm(data, IDS)
    assert rdm_noise_ceiling([d_perm, data2], "spearman") == pytest.approx(
        rdm_noise_ceiling([labelled_rdm(data, IDS), data2], "spearman"), abs=1e-12)


@pytest.mark.parametrize("call", ["compare_rdms", "rdm_noise_ceiling", "compare_rdm_models"])
def test_a_labelled_rdm_against_a_plain_matrix_is_refused(call):
    labelled = labelled_rdm(_square(0), IDS)
    plain = _square(1)
    with pytest.raises(E.AlignmentError) as err:
        if call == "compare_rdms":
            compare_rdms(labelled, plain)
        elif call == "rdm_noise_ceiling":
            rdm_noise_ceiling([labelled, plain, plain])
        else:
            compare_rdm_models({"m": labelled}, [plain, plain], n_bootstrap=2, random_state=0)
    msg = str(err.value)
    assert "carries stimulus ids" in msg and "plain array" in msg  # got
    assert "by position" in msg  # why
    assert "labelled_rdm(matrix, stimulus_ids)" in msg  # fix
    # the other way round too
    with pytest.raises(E.AlignmentError, match="plain array"):
        compare_rdms(plain, labelled)


def test_plain_matrices_together_are_still_compared_in_their_order():
    a, b = _square(0), _square(1)
    assert compare_rdms(a, b, "spearman") == pytest.approx(
        spearmanr(squareform(a), squareform(b)).statistic, abs=1e-12)


def test_labelled_rdm_forms_and_attrs():
    sq = _square(3)
    r = labelled_rdm(sq, IDS, metric="correlation", subject="BE", session=1)
    assert r.dims == ("pair",) and r.attrs["n_stimuli"] == N
    assert r.attrs["stimulus_id"].tolist() == IDS and r.attrs["metric"] == "correlation"
    assert (r.attrs["subject"], r.attrs["session"]) == ("BE", 1)
    np.testing.assert_array_equal(r.values, squareform(sq))
    # a condensed vector gives the same
    np.testing.assert_array_equal(labelled_rdm(squareform(sq), IDS).values, r.values)
    # a labelled DataArray keeps its ids and attrs, the same ids given again are fine
    again = labelled_rdm(r)
    assert again.attrs["stimulus_id"].tolist() == IDS and again.attrs["subject"] == "BE"
    assert labelled_rdm(r, IDS).attrs["metric"] == "correlation"
    # a StimulusSet gives its ids
    from toponeuro.stimuli import StimulusSet

    s = StimulusSet(IDS, [f"{i}.png" for i in IDS], "image")
    assert labelled_rdm(sq, s).attrs["stimulus_id"].tolist() == IDS


def test_labelled_rdm_from_rsatoolbox():
    sq = _square(4)
    one = to_rsatoolbox_rdms(sq, "euclidean", stimulus_ids=IDS)
    r = labelled_rdm(one)
    assert r.attrs["stimulus_id"].tolist() == IDS and r.attrs["metric"] == "euclidean"
    np.testing.assert_allclose(r.values, squareform(sq))
    plain = rt.rdm.RDMs(squareform(sq)[None])
    assert labelled_rdm(plain, IDS).attrs["stimulus_id"].tolist() == IDS


# ------------------------------------------------------------------------------ bad inputs
def test_labelled_rdm_bad_inputs_name_the_fix():
    sq = _square(0)
    with pytest.raises(E.InputTypeError, match=r"one id per stimulus \(12\); got the string.*"
                                             r"Pass a list"):
        labelled_rdm(sq, "abc")
    with pytest.raises(E.DimensionError, match=r"describes 12 stimuli but stimulus_ids lists 11;"
                                             r" give one id per row"):
        labelled_rdm(sq, IDS[:-1])
    with pytest.raises(E.AlignmentError, match=r"stimulus_ids repeat \(\['img01'\]\).*own id"):
        labelled_rdm(sq, ["img01"] + IDS[:-1])
    with pytest.raises(E.InvalidDataError, match="carries no stimulus ids and none were given; "
                                               "pass stimulus_ids="):
        labelled_rdm(sq)
    asym = sq.copy()
    asym[0, 1] += 1
    with pytest.raises(E.InvalidDataError, match=r"not symmetric.*\(A \+ A.T\) / 2"):
        labelled_rdm(asym, IDS)
    with pytest.raises(E.InvalidDataError, match="non-zero diagonal.*np.fill_diagonal"):
        labelled_rdm(sq + np.eye(N), IDS)
    with pytest.raises(E.DimensionError, match=r"square matrix or a condensed vector; got shape"):
        labelled_rdm(np.zeros((3, 4)), IDS[:3])
    r = labelled_rdm(sq, IDS)
    with pytest.raises(E.AlignmentError, match="already carries stimulus ids.*Leave stimulus_ids"
                                             " out"):
        labelled_rdm(r, IDS[::-1])
    two = to_rsatoolbox_rdms([sq, sq], "euclidean", stimulus_ids=IDS)
    with pytest.raises(E.DimensionError, match="holds 2 RDMs; labelled_rdm makes one. Use "
                                             "toponeuro.analysis.from_rsatoolbox_rdms"):
        labelled_rdm(two)


# ------------------------------------------------------------------- files in real formats
def test_mat_numeric_stack_as_matlab_saves_it(tmp_path):
    """MATLAB's (n, n, k) stack, saved with scipy.io.savemat (the format MATLAB's save -v7
    writes), read back as k labelled RDMs in file order."""
    a, b = _square(0), _square(1)
    scipy.io.savemat(tmp_path / "rdms.mat", {"RDMs": np.stack([a, b], axis=2)})
    out = load_rdms(tmp_path / "rdms.mat", IDS, metric="correlation")
    assert len(out) == 2
    np.testing.assert_array_equal(out[0].values, squareform(a))
    np.testing.assert_array_equal(out[1].values, squareform(b))
    assert all(r.attrs["stimulus_id"].tolist() == IDS for r in out)
    assert out[0].attrs["source"] == "rdms.mat" and out[0].attrs["metric"] == "correlation"
    # a (k, n, n) stack and a condensed row / column vector too
    scipy.io.savemat(tmp_path / "k.mat", {"R": np.stack([a, b])})
    np.testing.assert_array_equal(load_rdms(tmp_path / "k.mat", IDS)[1].values, squareform(b))
    scipy.io.savemat(tmp_path / "row.mat", {"v": squareform(a)})  # saved as (1, n_pairs)
    np.testing.assert_array_equal(load_rdms(tmp_path / "row.mat", IDS)[0].values, squareform(a))
    scipy.io.savemat(tmp_path / "col.mat", {"v": squareform(a)[:, None]})
    np.testing.assert_array_equal(load_rdms(tmp_path / "col.mat", IDS)[0].values, squareform(a))


def test_mat_struct_array_as_the_rsa_toolbox_saves_it(tmp_path):
    """The MATLAB RSA toolbox's struct array (fields RDM, name), shape (1, subjects, sessions)
    as 92_brainRDMs.mat: read in C order (subject 1 session 1, subject 1 session 2, ...)."""
    st = np.zeros((1, 2, 2), dtype=[("RDM", object), ("name", object), ("color", object)])
    sq = {}
    for s in range(2):
        for k in range(2):
            sq[s, k] = _square(10 * s + k)
            st[0, s, k] = (sq[s, k], f"hIT | S{s} | Session: {k + 1}", np.array([1.0, 0, 0]))
    scipy.io.savemat(tmp_path / "brain.mat", {"RDMs": st})
    out = load_rdms(tmp_path / "brain.mat", IDS, key="RDMs")
    assert [r.attrs["name"] for r in out] == [
        "hIT | S0 | Session: 1", "hIT | S0 | Session: 2", "hIT | S1 | Session: 1",
        "hIT | S1 | Session: 2"]
    assert [r.attrs["index_in_file"] for r in out] == [(0, 0, 0), (0, 0, 1), (0, 1, 0),
                                                       (0, 1, 1)]
    np.testing.assert_array_equal(out[2].values, squareform(sq[1, 0]))
    assert "color" not in out[0].attrs  # numeric fields other than RDM are not descriptors
    # RDM fields holding the upper triangle as a row vector, as some toolboxes save them
    vec = np.zeros((1, 2), dtype=[("RDM", object)])
    vec[0, 0], vec[0, 1] = (squareform(sq[0, 0])[None],), (squareform(sq[1, 1])[None],)
    scipy.io.savemat(tmp_path / "vec.mat", {"RDMs": vec})
    out = load_rdms(tmp_path / "vec.mat", IDS)
    np.testing.assert_array_equal(out[1].values, squareform(sq[1, 1]))
    stack = np.zeros((1, 1), dtype=[("RDM", object)])
    stack[0, 0] = (np.stack([sq[0, 0], sq[1, 1]]),)
    scipy.io.savemat(tmp_path / "stack.mat", {"RDMs": stack})
    with pytest.raises(E.DimensionError, match="'RDM' field of .* holds 2 RDMs; expected one RDM"
                                             " per entry"):
        load_rdms(tmp_path / "stack.mat", IDS)


def test_npy_npz_and_rsatoolbox_files(tmp_path):
    a, b = _square(0), _square(1)
    np.save(tmp_path / "one.npy", a)
    np.save(tmp_path / "stack.npy", np.stack([squareform(a), squareform(b)]))
    np.savez(tmp_path / "z.npz", rdms=np.stack([a, b]), other=np.arange(3))
    assert len(load_rdms(tmp_path / "one.npy", IDS)) == 1
    np.testing.assert_array_equal(load_rdms(tmp_path / "stack.npy", IDS)[1].values,
                                  squareform(b))
    np.testing.assert_array_equal(load_rdms(tmp_path / "z.npz", IDS, key="rdms")[0].values,
                                  squareform(a))
    # rsatoolbox's own files carry their ids and measure
    rdms = to_rsatoolbox_rdms([a, b], "euclidean", stimulus_ids=IDS)
    for kind, name in (("hdf5", "r.hdf5"), ("pkl", "r.pkl")):
        rdms.save(str(tmp_path / name), file_type=kind)
        out = load_rdms(tmp_path / name, trust_pickle=kind == "pkl")
        assert [r.attrs["stimulus_id"].tolist() for r in out] == [IDS, IDS]
        assert out[0].attrs["metric"] == "euclidean" and out[0].attrs["source"] == name
        np.testing.assert_allclose(out[1].values, squareform(b))
    # an rsatoolbox object in memory reads the same
    assert len(load_rdms(rdms)) == 2
    # the file's order is kept: a model in another order joins by id
    perm = np.random.default_rng(0).permutation(N)
    np.save(tmp_path / "perm.npy", _permuted(a, perm))
    read = load_rdms(tmp_path / "perm.npy", np.asarray(IDS)[perm])[0]
    assert compare_rdms(labelled_rdm(a, IDS), read, "pearson") == pytest.approx(1.0)


def test_load_rdms_bad_inputs(tmp_path):
    sq = _square(0)
    with pytest.raises(E.MissingFileError, match="does not exist; pass an existing file"):
        load_rdms(tmp_path / "nope.npy", IDS)
    (tmp_path / "x.txt").write_text("1")
    with pytest.raises(E.UnknownNameError, match=r"Cannot read RDMs from a .txt file \(x.txt\); "
                                               r"expected one of"):
        load_rdms(tmp_path / "x.txt", IDS)
    with pytest.raises(E.InputTypeError, match="reads a file path or an rsatoolbox RDMs; got "
                                             r"ndarray. For an array use .*labelled_rdm"):
        load_rdms(sq, IDS)
    np.save(tmp_path / "a.npy", sq)
    with pytest.raises(E.InvalidDataError, match="holds RDMs without stimulus ids; pass "
                                               "stimulus_ids="):
        load_rdms(tmp_path / "a.npy")
    np.save(tmp_path / "o.npy", np.array([sq, None], dtype=object), allow_pickle=True)
    with pytest.raises(E.InvalidDataError, match="holds Python objects.*expected a numeric"):
        load_rdms(tmp_path / "o.npy", IDS)
    np.save(tmp_path / "bad.npy", np.zeros((2, 3, 4)))
    with pytest.raises(E.DimensionError, match=r"has shape \(2, 3, 4\); expected an RDM"):
        load_rdms(tmp_path / "bad.npy", IDS)
    scipy.io.savemat(tmp_path / "two.mat", {"A": sq, "B": sq})
    with pytest.raises(E.InvalidDataError, match=r"holds the variables \['A', 'B'\]; pass key="):
        load_rdms(tmp_path / "two.mat", IDS)
    with pytest.raises(E.UnknownNameError, match="has no variable 'Aa'; did you mean 'A'"):
        load_rdms(tmp_path / "two.mat", IDS, key="Aa")
    scipy.io.savemat(tmp_path / "txt.mat", {"labels": "faces"})
    with pytest.raises(E.InvalidDataError, match="no numeric variable or struct array"):
        load_rdms(tmp_path / "txt.mat", IDS)
    with pytest.raises(E.InvalidDataError, match=r"holds text \(dtype <U5\), not numbers"):
        load_rdms(tmp_path / "txt.mat", IDS, key="labels")
    st = np.zeros((1, 1), dtype=[("dist", object)])
    st[0, 0] = (sq,)
    scipy.io.savemat(tmp_path / "st.mat", {"RDMs": st})
    with pytest.raises(E.InvalidDataError, match=r"struct array with fields \['dist'\] but no "
                                               "'RDM'"):
        load_rdms(tmp_path / "st.mat", IDS)
    (tmp_path / "junk.mat").write_bytes(b"not a MATLAB file" * 20)
    with pytest.raises(E.InvalidDataError, match=r"could not be read as a MATLAB file.*-v7"):
        load_rdms(tmp_path / "junk.mat", IDS)
    (tmp_path / "junk.hdf5").write_bytes(b"not hdf5" * 20)
    with pytest.raises(E.InvalidDataError, match="could not be read as a rsatoolbox hdf5 file.*RDMs.save"):
        load_rdms(tmp_path / "junk.hdf5")
    np.savez(tmp_path / "z.npz", a=sq, b=sq)
    with pytest.raises(E.InvalidDataError, match=r"holds the arrays \['a', 'b'\]; pass key="):
        load_rdms(tmp_path / "z.npz", IDS)
    with pytest.raises(E.UnknownNameError, match="has no array 'c'"):
        load_rdms(tmp_path / "z.npz", IDS, key="c")
    # an rsatoolbox file without ids: refused, never returned plain
    rt.rdm.RDMs(squareform(sq)[None]).save(str(tmp_path / "plain.hdf5"), file_type="hdf5")
    with pytest.raises(E.InvalidDataError, match="without a 'stimulus_id' pattern descriptor"):
        load_rdms(tmp_path / "plain.hdf5")
    assert load_rdms(tmp_path / "plain.hdf5", IDS)[0].attrs["stimulus_id"].tolist() == IDS


# ------------------------------------------------------------------------- real files
@pytest.mark.shared
def test_real_92_image_brain_rdms(r92_dir):
    """rsatoolbox's demo file 92_brainRDMs.mat: 4 subjects x 2 sessions of hIT RDMs, read as
    8 labelled RDMs whose values are the file's, in subject-then-session order."""
    from toponeuro.stimuli import load_92_images

    r92 = r92_dir
    stimuli = load_92_images(r92)
    hit = load_rdms(r92 / "92_brainRDMs.mat", stimuli, key="RDMs")
    raw = scipy.io.loadmat(r92 / "92_brainRDMs.mat")["RDMs"]
    assert raw.shape == (1, 4, 2) and len(hit) == 8
    assert [r.attrs["name"].split("|")[1].strip() for r in hit] == [
        "BE", "BE", "KO", "KO", "SN", "SN", "TI", "TI"]
    assert [r.attrs["name"].rsplit(" ", 1)[1] for r in hit] == ["1", "2"] * 4
    np.testing.assert_array_equal(hit[3].values, squareform(raw[0, 1, 1]["RDM"], checks=False))
    assert all(isinstance(r, xr.DataArray) and r.attrs["n_stimuli"] == 92 for r in hit)
    assert hit[0].attrs["stimulus_id"].tolist() == stimuli.ids.tolist()
    # the same hIT RDM in category-sorted row order joins back by id
    order = np.argsort(stimuli.categories, kind="stable")
    sq = squareform(hit[0].values)
    shuffled = labelled_rdm(sq[np.ix_(order, order)], stimuli.ids[order])
    assert compare_rdms(hit[1], shuffled, "spearman") == pytest.approx(
        compare_rdms(hit[1], hit[0], "spearman"), abs=1e-12)
    assert compare_rdms(np.asarray(hit[1]), np.asarray(shuffled), "spearman") < 0.5 * \
        compare_rdms(hit[1], hit[0], "spearman")
