"""RSA inference at rsatoolbox's level (issue 31): the noise ceiling with sessions grouped by
subject, and bootstrap model comparison (``compare_rdm_models``), each equal to rsatoolbox
0.3.2 (``boot_noise_ceiling``, ``eval_bootstrap_pattern`` / ``_rdm`` / ``eval_bootstrap``)
given the same data and seed."""

import warnings

import numpy as np
import pytest
import rsatoolbox as rt
from rsatoolbox.inference import (
    boot_noise_ceiling,
    eval_bootstrap,
    eval_bootstrap_pattern,
    eval_bootstrap_rdm,
)
from scipy import stats

from toponeuro.analysis import (
    RDM_BOOTSTRAPS,
    compare_rdm_models,
    labelled_rdm,
    load_rdms,
    rdm_noise_ceiling,
)
from toponeuro.exceptions import (
    InputTypeError,
    InvalidDataError,
    ParameterError,
    UndefinedValueWarning,
    UnknownNameError,
)

N_STIM = 14
IDS = np.array([f"s{i:02d}" for i in range(N_STIM)])
N_PAIRS = N_STIM * (N_STIM - 1) // 2
RT_FN = {"stimuli": eval_bootstrap_pattern, "subjects": eval_bootstrap_rdm,
         "both": eval_bootstrap}


def _sessions(seed=0, n_subjects=4, n_sessions=2, noise=1.0):
    """A true RDM, subject-specific deviations shared by a subject's sessions, session noise:
    sessions of one subject are more alike than sessions of two subjects."""
    rng = np.random.default_rng(seed)
    truth = rng.random(N_PAIRS)
    rdms, subjects = [], []
    for s in range(n_subjects):
        own = truth + 0.8 * noise * rng.standard_normal(N_PAIRS)
        for _ in range(n_sessions):
            rdms.append(own + 0.5 * noise * rng.standard_normal(N_PAIRS))
            subjects.append(f"sub{s}")
    return truth, np.array(rdms), np.array(subjects)


def _rt_data(V, subjects=None):
    desc = {} if subjects is None else {"subject": np.asarray(subjects)}
    return rt.rdm.RDMs(V, rdm_descriptors=desc, pattern_descriptors={"stimulus_id": IDS})


# ------------------------------------------------------------ noise ceiling grouped by subject
@pytest.mark.parametrize("method, rt_method", [("spearman", "spearman"), ("pearson", "corr"),
                                               ("cosine", "cosine"), ("kendall_tau_a", "tau-a"),
                                               ("rho_a", "rho-a")])
@pytest.mark.filterwarnings("ignore:Noise ceiling for tau")  # rsatoolbox's own note
def test_grouped_noise_ceiling_equals_rsatoolbox(method, rt_method):
    _, V, subjects = _sessions(1)
    ours = rdm_noise_ceiling(V, method, subjects=subjects)
    ref = boot_noise_ceiling(_rt_data(V, subjects), method=rt_method, rdm_descriptor="subject")
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)
    # taking the sessions as subjects equals rsatoolbox's default, and lifts the lower bound
    as_sessions = rdm_noise_ceiling(V, method)
    np.testing.assert_allclose(as_sessions, boot_noise_ceiling(_rt_data(V), method=rt_method),
                               rtol=0, atol=1e-12)
    assert as_sessions[0] > ours[0]
    assert as_sessions[1] == pytest.approx(ours[1], abs=1e-12)  # the upper bound is the same


def test_grouped_noise_ceiling_from_an_attr_of_labelled_rdms():
    _, V, subjects = _sessions(2)
    labelled = [labelled_rdm(v, IDS, subject=s) for v, s in zip(V, subjects)]
    assert rdm_noise_ceiling(labelled, "spearman", subjects="subject") == pytest.approx(
        rdm_noise_ceiling(V, "spearman", subjects=subjects), abs=1e-12)


def test_noise_ceiling_subjects_bad_inputs():
    _, V, subjects = _sessions(0)
    with pytest.raises(InvalidDataError, match=r"one subject per RDM \(8\); got 7\. Sessions "
                                               r"of one subject share a label"):
        rdm_noise_ceiling(V, subjects=subjects[:-1])
    with pytest.raises(InvalidDataError, match="at least 2 subjects; subjects names 1"):
        rdm_noise_ceiling(V, subjects=["a"] * 8)
    with pytest.raises(InvalidDataError, match=r"subjects='subject' names an attr, but not "
                                               r"every RDM.*pass one subject per RDM"):
        rdm_noise_ceiling(V, subjects="subject")


@pytest.mark.shared
def test_real_hit_noise_ceiling_grouped_by_subject(r92_dir):
    """Issue 31's numbers: the 8 hIT session RDMs of 4 people, Spearman: lower bound 0.306
    with sessions grouped (rsatoolbox's), 0.328 when taken as 8 subjects."""
    from toponeuro.stimuli import load_92_images

    r92 = r92_dir
    hit = load_rdms(r92 / "92_brainRDMs.mat", load_92_images(r92), key="RDMs")
    subjects = [r.attrs["name"].split("|")[1].strip() for r in hit]
    grouped = rdm_noise_ceiling(hit, "spearman", subjects=subjects)
    eight = rdm_noise_ceiling(hit, "spearman")
    V = np.stack([np.asarray(r) for r in hit])
    data = rt.rdm.RDMs(V, rdm_descriptors={"subject": np.array(subjects)})
    np.testing.assert_allclose(grouped, boot_noise_ceiling(data, "spearman", "subject"),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(eight, boot_noise_ceiling(data, "spearman"), rtol=0, atol=1e-12)
    assert round(grouped[0], 3) == 0.306 and round(eight[0], 3) == 0.328
    assert round(grouped[1], 3) == 0.525


# ------------------------------------------------------- bootstrap comparison: parity
def _models(truth, seed=5):
    rng = np.random.default_rng(seed)
    return {"truth": truth, "half": truth + 2.0 * rng.standard_normal(N_PAIRS),
            "noise": rng.random(N_PAIRS)}


def _rt_run(bootstrap, models, V, subjects, seed, n):
    pat = {"stimulus_id": IDS}
    ms = [rt.model.ModelFixed(k, rt.rdm.RDMs(np.asarray(v)[None], pattern_descriptors=pat))
          for k, v in models.items()]
    kw = {} if subjects is None else {"rdm_descriptor": "subject"}
    np.random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RT_FN[bootstrap](ms, _rt_data(V, subjects), method="spearman", N=n, **kw)


@pytest.mark.parametrize("bootstrap", list(RDM_BOOTSTRAPS))
def test_bootstrap_comparison_equals_rsatoolbox_given_the_seed(bootstrap):
    truth, V, _ = _sessions(3, n_subjects=6, n_sessions=1)
    models = _models(truth)
    ours = compare_rdm_models({k: labelled_rdm(v, IDS) for k, v in models.items()},
                              [labelled_rdm(v, IDS) for v in V], "spearman",
                              bootstrap=bootstrap, n_bootstrap=20, random_state=7)
    ref = _rt_run(bootstrap, models, V, None, 7, 20)
    np.testing.assert_allclose(ours.evaluations, ref.evaluations, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.result.noise_ceiling, ref.noise_ceiling, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.mean, ref.get_means(), rtol=0, atol=1e-12)
    assert ours.result.dof == ref.dof
    p_pair, p_zero, p_noise = ref.test_all()
    np.testing.assert_allclose(ours.p_zero, p_zero, rtol=1e-10, atol=0)
    np.testing.assert_allclose(ours.p_pairwise.to_numpy(), p_pair, rtol=1e-10, atol=0)
    if bootstrap != "subjects":
        np.testing.assert_allclose(ours.sem, ref.get_sem(), rtol=1e-10, atol=0)
        np.testing.assert_allclose(ours.p_noise_ceiling, p_noise, rtol=1e-10, atol=0)
        lo, hi = ref.get_ci(0.95)
        np.testing.assert_allclose(ours.ci_low, lo, rtol=1e-10)
        np.testing.assert_allclose(ours.ci_high, hi, rtol=1e-10)
    else:
        # rsatoolbox 0.3.2's eval_bootstrap_rdm drops the ceiling from the covariance; ours
        # keeps it (documented): its own test on the full covariance gives our p
        ev = ref.evaluations
        ok = np.isfinite(ev[:, 0])
        full = np.cov(np.concatenate([ev[ok].T, ref.noise_ceiling[:, ok]]))
        again = rt.inference.Result(ref.models, ev, method="spearman", cv_method="bootstrap_rdm",
                                    noise_ceiling=ref.noise_ceiling, variances=full,
                                    dof=ref.dof, n_rdm=ref.n_rdm, n_pattern=None)
        np.testing.assert_allclose(ours.p_noise_ceiling, again.test_noise(), rtol=1e-10)
        np.testing.assert_allclose(ours.sem, again.get_sem(), rtol=1e-10)


def test_bootstrap_over_stimuli_with_sessions_grouped_equals_rsatoolbox():
    truth, V, subjects = _sessions(4)
    models = _models(truth)
    ours = compare_rdm_models(models, V, "spearman", bootstrap="stimuli", subjects=subjects,
                              n_bootstrap=20, random_state=11)
    ref = _rt_run("stimuli", models, V, subjects, 11, 20)
    np.testing.assert_allclose(ours.evaluations, ref.evaluations, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.result.noise_ceiling, ref.noise_ceiling, rtol=0, atol=1e-12)
    p_pair, p_zero, p_noise = ref.test_all()
    np.testing.assert_allclose(ours.p_zero, p_zero, rtol=1e-10)
    np.testing.assert_allclose(ours.p_noise_ceiling, p_noise, rtol=1e-10)
    np.testing.assert_allclose(ours.p_pairwise.to_numpy(), p_pair, rtol=1e-10)
    assert ours.noise_ceiling == pytest.approx(
        boot_noise_ceiling(_rt_data(V, subjects), "spearman", "subject"), abs=1e-12)
    assert ours.n_subjects == 4 and ours.n_stimuli == N_STIM


@pytest.mark.parametrize("bootstrap", ["subjects", "both"])
def test_bootstrap_over_subjects_grouped_resamples_subjects_with_their_dof(bootstrap):
    """Draws equal rsatoolbox's with rdm_descriptor="subject"; the t-test's degrees of freedom
    are subjects - 1 (rsatoolbox counts RDMs): p against 0 is a one-sided t on mean / sem."""
    truth, V, subjects = _sessions(5)
    models = _models(truth)
    ours = compare_rdm_models(models, V, "spearman", bootstrap=bootstrap, subjects=subjects,
                              n_bootstrap=20, random_state=2)
    ref = _rt_run(bootstrap, models, V, subjects, 2, 20)
    np.testing.assert_allclose(ours.evaluations, ref.evaluations, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.result.noise_ceiling, ref.noise_ceiling, rtol=0, atol=1e-12)
    assert ours.result.dof == 3 and ref.dof == 7
    expected = 1 - stats.t.cdf(ours.mean / ours.sem, df=3)
    np.testing.assert_allclose(ours.p_zero, expected, rtol=1e-8)


def test_data_rdms_in_their_own_orders_are_joined_by_id():
    truth, V, subjects = _sessions(8)
    rng = np.random.default_rng(0)
    from scipy.spatial.distance import squareform

    shuffled = []
    for v in V:
        perm = rng.permutation(N_STIM)
        shuffled.append(labelled_rdm(squareform(v)[np.ix_(perm, perm)], IDS[perm]))
    model = {"truth": labelled_rdm(truth, IDS)}
    a = compare_rdm_models(model, shuffled, subjects=subjects, n_bootstrap=5, random_state=0)
    b = compare_rdm_models(model, [labelled_rdm(v, IDS) for v in V], subjects=subjects,
                           n_bootstrap=5, random_state=0)
    # the numbers on all the data are the same (the bootstrap draws index the stimuli in the
    # first data RDM's order, so the samples themselves differ)
    assert a.value == pytest.approx(b.value, abs=1e-12)
    assert a.noise_ceiling == pytest.approx(b.noise_ceiling, abs=1e-12)
    assert a.value[0] > 0.2  # the true model, well above 0


def test_seed_reproduces_and_a_randomstate_is_accepted():
    truth, V, _ = _sessions(6, n_subjects=5, n_sessions=1)
    models = _models(truth)
    a = compare_rdm_models(models, V, n_bootstrap=15, random_state=3)
    b = compare_rdm_models(models, V, n_bootstrap=15, random_state=np.random.RandomState(3))
    np.testing.assert_array_equal(a.evaluations, b.evaluations)
    c = compare_rdm_models(models, V, n_bootstrap=15, random_state=4)
    assert not np.array_equal(a.evaluations, c.evaluations)


# ------------------------------------------------------------------ planted ground truth
def test_the_true_model_wins_and_reaches_the_ceiling():
    truth, V, subjects = _sessions(7, noise=0.4)
    res = compare_rdm_models(_models(truth), V, "spearman", subjects=subjects,
                             n_bootstrap=60, random_state=0)
    t = res.table().set_index("model")
    assert t.loc["truth", "mean"] > max(t.loc["half", "mean"], t.loc["noise", "mean"])
    assert res.p_pairwise.loc["truth", "noise"] < 0.01
    assert res.p_pairwise.loc["truth", "half"] < 0.01
    assert res.p_pairwise.loc["half", "noise"] > 0.05  # two models of nothing do not differ
    assert t.loc["truth", "p_zero"] < 0.001 and t.loc["noise", "p_zero"] > 0.05
    lower, upper = res.noise_ceiling
    assert lower < upper
    assert t.loc["truth", "value"] > lower  # the true RDM is not below the lower bound
    assert t.loc["noise", "p_noise_ceiling"] < 0.05  # a random model is below it
    assert (t.ci_low <= t["mean"]).all() and (t["mean"] <= t.ci_high).all()
    assert res.reference.startswith("Schütt") and res.method == "spearman"


def test_samples_of_fewer_than_3_stimuli_are_nan_with_a_warning():
    rng = np.random.default_rng(0)
    V = rng.random((4, 6))  # 4 stimuli: about a third of the samples draw fewer than 3
    with pytest.warns(UndefinedValueWarning, match="fewer than 3 distinct stimuli and are left"
                                                   " out"):
        res = compare_rdm_models({"m": rng.random(6)}, V, n_bootstrap=30, random_state=0)
    assert np.isnan(res.evaluations[:, 0]).any() and np.isfinite(res.mean).all()


# --------------------------------------------------------------------------- bad inputs
def test_compare_rdm_models_bad_inputs():
    truth, V, subjects = _sessions(0)
    m = {"truth": truth}
    with pytest.raises(InputTypeError, match="models must be a non-empty dict of name -> model"
                                             " RDM; got list"):
        compare_rdm_models([truth], V)
    with pytest.raises(UnknownNameError, match="bootstrap='stimulus' is not one of 'stimuli', "
                                               "'subjects', 'both'; did you mean 'stimuli'"):
        compare_rdm_models(m, V, bootstrap="stimulus")
    with pytest.raises(UnknownNameError, match="test='ttest' is not one of 't-test'"):
        compare_rdm_models(m, V, test="ttest")
    with pytest.raises(ParameterError, match=r"ci=95 is not a finite number in \(0, 1\)\. 0\.95"):
        compare_rdm_models(m, V, ci=95)
    with pytest.raises((ParameterError, InputTypeError), match="n_bootstrap"):
        compare_rdm_models(m, V, n_bootstrap=1)
    with pytest.raises(InputTypeError, match="random_state=-1 is not None, a whole number >= 0"
                                             " or a numpy.random.RandomState"):
        compare_rdm_models(m, V, random_state=-1)
    with pytest.raises(InputTypeError, match="data must be a list of RDMs .* got dict"):
        compare_rdm_models(m, {"a": V[0]})
    with pytest.raises(InvalidDataError, match="at least 2 of them; got 1"):
        compare_rdm_models(m, [V[0]])
    with pytest.raises(InvalidDataError, match=r"one subject per RDM \(8\); got 3"):
        compare_rdm_models(m, V, subjects=["a", "b", "c"])
