"""Model comparison with bootstrap inference, as rsatoolbox does it (and with rsatoolbox).

:func:`compare_rdm_models` evaluates fixed model RDMs against a group of data RDMs (subjects,
or sessions grouped by subject) and asks rsatoolbox's questions: how well does each model do
(mean and confidence interval over bootstrap samples), is it better than 0, is it below the
noise ceiling, and which models differ. The bootstrap loop is rsatoolbox 0.3.2's
``eval_bootstrap_pattern`` / ``eval_bootstrap_rdm`` / ``eval_bootstrap``, run on rsatoolbox's
own objects (``RDMs.subsample_pattern``, ``rdm.compare``, ``boot_noise_ceiling``,
``inference.Result`` and its tests); only the random draws are toponeuro's, from a
``numpy.random.RandomState`` seeded by ``random_state``, made in the order rsatoolbox makes
them, so ``random_state=s`` gives exactly rsatoolbox's result after ``np.random.seed(s)``.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from ..._util.constraints import NDARRAY
from ..._util.frozen import validate_fields
from ..._util.params import (
    MAX_PERMUTATIONS,
    NON_NEGATIVE_INT,
    PROBABILITY,
    InstanceOf,
    Interval,
    Options,
    Text,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ...exceptions import (
    InputTypeError,
    InvalidDataError,
    UndefinedValueWarning,
    UnknownNameError,
)
from ._rsa import align_rdms
from ._rsa_compare import (
    CI,
    COMPARE_METHOD,
    RSATOOLBOX_METHODS,
    _compare_vectors,
    _constant,
    _method,
    rdm_groups,
    rdm_noise_ceiling,
)
from ._rsa_convert import _rsatoolbox

__all__ = ["compare_rdm_models", "RDMModelComparison", "RDM_BOOTSTRAPS", "RDM_TESTS"]

#: what a bootstrap sample resamples -> the rsatoolbox function it follows
RDM_BOOTSTRAPS = {
    "stimuli": "eval_bootstrap_pattern",
    "subjects": "eval_bootstrap_rdm",
    "both": "eval_bootstrap",
}
#: rsatoolbox's tests (``Result.test_all(test_type=...)``)
RDM_TESTS = ("t-test", "bootstrap", "ranksum")
_REFERENCE = ("Schütt, Kipnis, Diedrichsen & Kriegeskorte (2023), Statistical inference on "
              "representational geometries, eLife 12:e82566; rsatoolbox 0.3.2 "
              "rsatoolbox.inference")


@dataclass(frozen=True)
@validate_fields({
    "models": InstanceOf(tuple, "a tuple of model names", example=("m",)), "method": Text(),
    "bootstrap": Text(), "test": Text(), "value": NDARRAY, "mean": NDARRAY, "sem": NDARRAY,
    "ci_low": NDARRAY, "ci_high": NDARRAY,
    "noise_ceiling": InstanceOf(tuple, "a (lower, upper) tuple", example=(0.0, 1.0)),
    "p_zero": NDARRAY, "p_noise_ceiling": NDARRAY,
    "p_pairwise": InstanceOf(pd.DataFrame, "a pandas.DataFrame", example=pd.DataFrame),
    "evaluations": NDARRAY, "n_bootstrap": NON_NEGATIVE_INT, "n_subjects": NON_NEGATIVE_INT,
    "n_stimuli": NON_NEGATIVE_INT, "ci": PROBABILITY, "reference": Text(empty=True)})
class RDMModelComparison:
    """Bootstrap evaluation of model RDMs against data RDMs (see :func:`compare_rdm_models`).

    Parameters
    ----------
    models : tuple of str
        The models' names, in order.
    method : str
        The comparison (toponeuro's name; rsatoolbox's in ``result.method``).
    bootstrap : {"stimuli", "subjects", "both"}
        What was resampled.
    test : str
        The rsatoolbox test behind the p-values.
    value : numpy.ndarray (n_models,)
        Each model's evaluation on all the data: the mean over data RDMs of its comparison
        with each (rsatoolbox's ``eval_fixed``).
    mean, sem, ci_low, ci_high : numpy.ndarray (n_models,)
        Mean and standard error over bootstrap samples, and the ``ci`` interval (rsatoolbox's
        ``get_means``, ``get_sem``, ``get_ci``).
    noise_ceiling : (float, float)
        Lower and upper bound on all the data (:func:`rdm_noise_ceiling`, subjects grouped).
    p_zero, p_noise_ceiling : numpy.ndarray (n_models,)
        The p of "the model is above 0" (one-sided) and of "the model differs from the lower
        noise-ceiling bound" (two-sided for the t-test; rsatoolbox's ``test_zero`` /
        ``test_noise``).
    p_pairwise : pandas.DataFrame (models x models)
        Two-sided p of "the two models differ" (rsatoolbox's ``test_pairwise``), uncorrected.
    evaluations : numpy.ndarray (n_bootstrap, n_models)
        Mean evaluation per bootstrap sample (NaN for samples of fewer than 3 stimuli).
    n_bootstrap, n_subjects, n_stimuli : int
        Bootstrap samples drawn, and the subjects and stimuli of the data.
    ci : float
        Coverage of ``ci_low`` / ``ci_high``.
    reference : str
        The method's source (Schütt et al., 2023; rsatoolbox).
    result : rsatoolbox.inference.Result
        The rsatoolbox object itself (for ``rsatoolbox.vis.plot_model_comparison``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(45)
    >>> data = truth + 0.5 * rng.standard_normal((6, 45))
    >>> res = compare_rdm_models({"truth": truth, "noise": rng.random(45)}, data,
    ...                          n_bootstrap=100, random_state=0)
    >>> res.table().columns.tolist()[:4]
    ['model', 'value', 'mean', 'sem']
    """

    models: tuple
    method: str
    bootstrap: str
    test: str
    value: np.ndarray
    mean: np.ndarray
    sem: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    noise_ceiling: tuple
    p_zero: np.ndarray
    p_noise_ceiling: np.ndarray
    p_pairwise: pd.DataFrame
    evaluations: np.ndarray
    n_bootstrap: int
    n_subjects: int
    n_stimuli: int
    ci: float = 0.95
    reference: str = _REFERENCE
    result: object = field(default=None, repr=False, compare=False)

    def table(self) -> pd.DataFrame:
        """One row per model: value, mean, sem, CI, p against 0 and against the ceiling.

        Returns
        -------
        pandas.DataFrame
            One row per model.

        Examples
        --------
        >>> rng = np.random.default_rng(1)
        >>> truth = rng.random(28)
        >>> res = compare_rdm_models({"m": truth}, truth + rng.standard_normal((4, 28)),
        ...                          n_bootstrap=50, random_state=0)
        >>> res.table().shape
        (1, 8)
        """
        return pd.DataFrame({
            "model": list(self.models), "value": self.value, "mean": self.mean,
            "sem": self.sem, "ci_low": self.ci_low, "ci_high": self.ci_high,
            "p_zero": self.p_zero, "p_noise_ceiling": self.p_noise_ceiling,
        })


def _draw(rng, select):
    return select[rng.randint(0, len(select), size=len(select))]


def _evaluate(rt, pred, sample, method, missing):
    """Mean comparison of one model RDM with each data RDM of ``sample``.

    Complete data go to ``rsatoolbox.rdm.compare``; with ``missing`` (NaN entries in the
    data), each data RDM is compared on the pairs defined in both, as :func:`compare_rdms`
    does (rsatoolbox needs one NaN pattern for every RDM and raises otherwise).
    """
    if not missing:
        return np.mean(rt.rdm.compare(pred, sample, method))
    name, fn = _method(method)
    p = np.asarray(pred.dissimilarities[0], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        vals = []
        for v in np.asarray(sample.dissimilarities, dtype=float):
            try:
                vals.append(_compare_vectors(p, v, name, fn))
            except InvalidDataError:  # fewer than 2 pairs left in this sample
                vals.append(np.nan)
    return np.mean(vals)


def _noise(sample, method, rdm_desc, missing):
    """rsatoolbox's ``boot_noise_ceiling``; :func:`rdm_noise_ceiling` for data with NaN."""
    from rsatoolbox.inference import boot_noise_ceiling

    if not missing:
        return boot_noise_ceiling(sample, method=method, rdm_descriptor=rdm_desc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        try:
            return rdm_noise_ceiling(np.asarray(sample.dissimilarities, dtype=float), method,
                                     subjects=np.asarray(sample.rdm_descriptors[rdm_desc]))
        except InvalidDataError:  # one subject drawn, or too few pairs left
            return np.nan, np.nan


def _loop(rt, models, data, method, bootstrap, n_bootstrap, rdm_desc, rng, missing=False):
    """rsatoolbox 0.3.2's bootstrap loop (evaluate.py), the draws from ``rng``."""

    pat_desc = "index"
    evaluations = np.zeros((n_bootstrap, len(models)))
    noise = np.full((2, n_bootstrap), np.nan)
    preds = [m.predict_rdm() for m in models]
    for i in range(n_bootstrap):
        sample, pattern_idx = data, None
        if bootstrap in ("subjects", "both"):
            rdm_idx = _draw(rng, np.unique(data.rdm_descriptors[rdm_desc]))
            sample = sample.subsample(rdm_desc, rdm_idx)
        if bootstrap in ("stimuli", "both"):
            pattern_idx = _draw(rng, np.unique(data.pattern_descriptors[pat_desc]))
            sample = sample.subsample_pattern(pat_desc, pattern_idx)
            if len(np.unique(pattern_idx)) < 3:
                evaluations[i] = np.nan
                continue
        for j, pred in enumerate(preds):
            p = pred if pattern_idx is None else pred.subsample_pattern(pat_desc, pattern_idx)
            evaluations[i, j] = _evaluate(rt, p, sample, method, missing)
        noise[:, i] = _noise(sample, method, rdm_desc, missing)
    return evaluations, noise


@validate_params({
    "method": COMPARE_METHOD,
    "bootstrap": Options(RDM_BOOTSTRAPS, error=UnknownNameError),
    "n_bootstrap": Interval(Integral, 2, MAX_PERMUTATIONS, closed="both"),
    "test": Options(RDM_TESTS, error=UnknownNameError),
    "ci": CI,
})
def compare_rdm_models(
    models: dict,
    data,
    method: str = "spearman",
    *,
    bootstrap: str = "stimuli",
    subjects=None,
    n_bootstrap: int = 1000,
    test: str = "t-test",
    ci: float = 0.95,
    random_state=None,
) -> RDMModelComparison:
    """Evaluate model RDMs against data RDMs with rsatoolbox's bootstrap inference.

    Each bootstrap sample resamples the stimuli (``"stimuli"``: generalises to new stimuli
    from the same population; rsatoolbox's ``eval_bootstrap_pattern``), the subjects
    (``"subjects"``: to new subjects; ``eval_bootstrap_rdm``) or both (``eval_bootstrap``).
    In each, every model is compared with every data RDM (mean over RDMs) and the noise
    ceiling is recomputed on the sample, so a model can be tested against the ceiling
    with the covariance of both. A subject's sessions are resampled and left out together
    (``subjects``).

    Parameters
    ----------
    models : dict of str -> RDM
        Fixed model RDMs (from :func:`~toponeuro.analysis.rdm`,
        :func:`~toponeuro.analysis.labelled_rdm`, or plain arrays when the data are plain
        too). Labelled RDMs are aligned to the data's stimulus ids (exact join); a labelled
        and a plain one together raise :class:`~toponeuro.exceptions.AlignmentError`.
    data : list of RDMs or array (n_rdms, n_pairs) / (n_rdms, n, n)
        One RDM per subject, or per session with ``subjects``.
    method : str
        A :func:`compare_rdms` method (rsatoolbox's names accepted).
    bootstrap : {"stimuli", "subjects", "both"}
        What is resampled: stimuli, subjects (data RDMs grouped by ``subjects``) or both.
    subjects : sequence or str, optional
        The subject of each data RDM (sessions of one subject share a label), or the name
        of an attr every data RDM carries. Default: each RDM its own subject.
    n_bootstrap : int
        Bootstrap samples drawn.
    test : {"t-test", "bootstrap", "ranksum"}
        rsatoolbox's test for the p-values and ``sem``-based CI (``"t-test"``, its default,
        uses the bootstrap covariance; ``"bootstrap"`` the bootstrap percentiles).
    ci : float
        Confidence level of ``ci_low`` / ``ci_high``.
    random_state : None, int or numpy.random.RandomState
        Seeds a ``RandomState`` (rsatoolbox draws with numpy's legacy global generator):
        ``random_state=s`` reproduces ``np.random.seed(s)`` followed by rsatoolbox. The
        draws index the stimuli in the order of the first data RDM (labelled ones are
        aligned to it), so the same seed on data in another stimulus order gives other
        samples from the same distribution.

    Returns
    -------
    RDMModelComparison
        The evaluations, intervals, noise ceiling and p-values.

    Notes
    -----
    Undefined inputs mean what they mean in :func:`compare_rdms`: a model RDM that is
    constant over the chosen stimuli (all zero for ``"cosine"``) has no comparison with the
    data, so its value, interval and p-values (pairwise too) are NaN with an
    :class:`~toponeuro.exceptions.UndefinedValueWarning` and the other models' numbers are
    those of a run without it (rsatoolbox would give it 0 and a confident p); a constant data
    RDM, or every model constant, raises :class:`~toponeuro.exceptions.InvalidDataError`.
    NaN entries of the data (or model) RDMs are missing pairs, left out RDM by RDM as
    :func:`compare_rdms` does, and the noise ceilings are :func:`rdm_noise_ceiling`'s
    (rsatoolbox needs one NaN pattern for all RDMs); complete data go through rsatoolbox's
    own ``compare`` and ``boot_noise_ceiling``.

    As in rsatoolbox, samples of fewer than 3 distinct stimuli are NaN and left out; the
    p-values are uncorrected for the number of models or pairs; with ``bootstrap="subjects"``
    rsatoolbox 0.3.2 drops the noise ceiling from the covariance (so its t-test against the
    ceiling fails), while here the covariance with the ceiling is kept, as for the two other
    bootstraps. The t-test's degrees of freedom follow rsatoolbox: stimuli - 1, subjects - 1,
    or the smaller for ``"both"``; with sessions grouped by ``subjects``, subjects are
    counted, not RDMs (rsatoolbox 0.3.2 counts RDMs: 8 session RDMs of 4 people give it 7
    degrees of freedom, here 3, since the people are the independent samples). The
    evaluations and the bootstrap noise ceilings equal rsatoolbox's given the same seed,
    and so do the p-values wherever the two agree on the degrees of freedom and the
    covariance (everywhere but these two differences). Bootstrapping stimuli makes the evaluation less certain
    than the spread over subjects suggests, and with 4 subjects, bootstrapping subjects
    is coarse (at most 35 distinct samples).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(190)  # an RDM of 20 stimuli
    >>> data = truth + 0.3 * rng.standard_normal((6, 190))
    >>> res = compare_rdm_models({"truth": truth, "noise": rng.random(190)}, data,
    ...                          n_bootstrap=200, random_state=0)
    >>> bool(res.mean[0] > res.mean[1]), bool(res.p_pairwise.loc["truth", "noise"] < 0.05)
    (True, True)
    >>> lower, upper = res.noise_ceiling
    >>> bool(lower < upper)
    True
    """
    rt = _rsatoolbox()
    if not isinstance(models, dict) or not models:
        raise InputTypeError(
            f"models must be a non-empty dict of name -> model RDM; got "
            f"{type(models).__name__}. E.g. {{'TopoNet': rdm(acts), 'category': labelled_rdm(...)}}."
        )
    name, _ = _method(method)
    if isinstance(random_state, np.random.RandomState):
        rng = random_state
    elif random_state is None or (isinstance(random_state, int | np.integer)
                                  and not isinstance(random_state, bool) and random_state >= 0):
        rng = np.random.RandomState(random_state)
    else:
        raise InputTypeError(
            f"random_state={random_state!r} is not None, a whole number >= 0 or a "
            "numpy.random.RandomState (rsatoolbox's generator)."
        )
    if isinstance(data, np.ndarray) and data.ndim in (2, 3):
        data_list = list(data)
    elif isinstance(data, list | tuple):
        data_list = list(data)
    else:
        raise InputTypeError(
            f"data must be a list of RDMs (one per subject or session) or an array "
            f"(n_rdms, n_pairs); got {type(data).__name__}."
        )
    if len(data_list) < 2:
        raise InvalidDataError(
            f"Inference over data RDMs needs at least 2 of them; got {len(data_list)}."
        )
    groups = rdm_groups(data if isinstance(data, list | tuple) else None, subjects,
                        len(data_list))
    names = [str(k) for k in models]
    everything = data_list + list(models.values())
    labels = [f"data RDM {i}" for i in range(len(data_list))] + [f"model {k!r}" for k in names]
    vecs, ids = align_rdms(everything, labels)
    V = np.stack(vecs[: len(data_list)])
    n = int(round((1 + np.sqrt(1 + 8 * V.shape[1])) / 2))
    if ids is None:
        ids = np.array([f"stim-{i:04d}" for i in range(n)])
    rt_method = RSATOOLBOX_METHODS[name]
    model_vecs = vecs[len(data_list):]
    missing = bool(not np.isfinite(V).all()
                   or any(not np.isfinite(v).all() for v in model_vecs))
    if missing and name.endswith("_cov"):
        raise InvalidDataError(
            f"method={name!r} needs complete RDMs; the data or model RDMs hold NaN entries. "
            "Use 'spearman' or 'pearson' (missing pairs are left out), or fill them."
        )
    flat = [k for k, v in enumerate(V) if _undefined_rdm(v, name)]
    if flat:
        raise InvalidDataError(
            f"Data RDM(s) {flat[:5]} are constant (or empty) over the stimuli, so no model "
            f"can be compared with them under {name!r}; expected RDMs of data that vary "
            "across stimuli. Drop them from data (and from subjects)."
        )
    const = [k for k, v in zip(names, model_vecs) if _undefined_rdm(v, name)]
    keep = [j for j, k in enumerate(names) if k not in const]
    if not keep:
        raise InvalidDataError(
            f"Every model RDM is constant over the chosen stimuli ({const[:5]}), so none can "
            f"be evaluated under {name!r}; give models whose values vary across stimuli."
        )
    if const:
        warnings.warn(
            f"Model RDM(s) {const[:5]} are constant over the chosen stimuli, so their "
            f"{name!r} comparison with the data is undefined; their evaluation, "
            "interval and p-values are NaN (not 0). Check the model's values over these "
            "stimuli.", UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    res = _infer(rt, [names[j] for j in keep], [model_vecs[j] for j in keep], V, ids, groups,
                 name, rt_method, bootstrap, n_bootstrap, test, ci, rng, n, missing)
    return _with_undefined(res, names, keep)


def _undefined_rdm(v, name) -> bool:
    """Whether every comparison with RDM ``v`` is undefined under ``name``: a constant RDM
    has no correlation, an all-zero one no cosine (NaN entries are missing pairs)."""
    v = v[np.isfinite(v)]
    if name in ("cosine", "cosine_cov"):
        return v.size == 0 or not np.any(v)
    return _constant(v)


def _with_undefined(res, names, keep):
    """``res`` over all ``names``: the models not in ``keep`` (constant RDMs) NaN."""
    if len(keep) == len(names):
        return res
    idx = np.asarray(keep)

    def full(a):
        out = np.full(len(names), np.nan)
        out[idx] = a
        return out

    ev = np.full((res.evaluations.shape[0], len(names)), np.nan)
    ev[:, idx] = res.evaluations
    pair = pd.DataFrame(np.nan, index=names, columns=names)
    pair.loc[list(res.models), list(res.models)] = res.p_pairwise.values
    return dataclasses.replace(
        res, models=tuple(names), value=full(res.value), mean=full(res.mean),
        sem=full(res.sem), ci_low=full(res.ci_low), ci_high=full(res.ci_high),
        p_zero=full(res.p_zero), p_noise_ceiling=full(res.p_noise_ceiling), p_pairwise=pair,
        evaluations=ev)


def _infer(rt, names, model_vecs, V, ids, groups, name, rt_method, bootstrap, n_bootstrap,
           test, ci, rng, n, missing):
    """The bootstrap evaluation of :func:`compare_rdm_models` on checked, aligned RDMs."""
    pattern = {"stimulus_id": np.asarray(ids)}
    rdm_desc = "index" if groups is None else "subject"
    desc = {} if groups is None else {"subject": groups}
    data_rt = rt.rdm.RDMs(V, rdm_descriptors=desc, pattern_descriptors=pattern)
    models_rt = [rt.model.ModelFixed(k, rt.rdm.RDMs(v[None], pattern_descriptors=pattern))
                 for k, v in zip(names, model_vecs)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Noise ceiling for tau")
        evaluations, noise = _loop(rt, models_rt, data_rt, rt_method, bootstrap, n_bootstrap,
                                   rdm_desc, rng, missing)
    ok = np.isfinite(evaluations[:, 0])
    if missing:  # a sample may leave a data RDM too few pairs: left out whole
        ok = np.isfinite(evaluations).all(1) & np.isfinite(noise).all(0)
        evaluations[~ok] = np.nan
    if ok.sum() < 2:
        raise InvalidDataError(
            f"Only {int(ok.sum())} of {n_bootstrap} bootstrap samples were defined; use more "
            "stimuli (at least 3 distinct ones per sample)."
        )
    if (~ok).any():
        warnings.warn(
            f"{int((~ok).sum())} of {n_bootstrap} bootstrap samples had fewer than 3 distinct "
            "stimuli and are left out (NaN), as in rsatoolbox"
            + (" (or, with missing entries, too few defined pairs)." if missing else "."), UndefinedValueWarning,
            stacklevel=user_stacklevel(),
        )
    variances = np.cov(np.concatenate([evaluations[ok].T, noise[:, ok]]))
    n_rdm = data_rt.n_rdm if groups is None else int(np.unique(groups).size)
    dof = {"stimuli": n - 1, "subjects": n_rdm - 1, "both": min(n_rdm, n) - 1}[bootstrap]
    cv = {"stimuli": "bootstrap_pattern", "subjects": "bootstrap_rdm", "both": "bootstrap"}
    result = rt.inference.Result(
        models_rt, evaluations, method=rt_method, cv_method=cv[bootstrap], noise_ceiling=noise,
        variances=variances, dof=dof, n_rdm=data_rt.n_rdm if bootstrap != "stimuli" else None,
        n_pattern=n if bootstrap != "subjects" else None)
    result.n_rdm, result.n_pattern = data_rt.n_rdm, n
    p_pair, p_zero, p_noise = result.test_all(test_type=test)
    ci_low, ci_high = result.get_ci(ci, test_type="bootstrap" if test == "bootstrap" else "t-test")
    value = np.array([_evaluate(rt, m.predict_rdm(), data_rt, rt_method, missing)
                      for m in models_rt])
    lower, upper = rdm_noise_ceiling(V, name, subjects=groups)
    return RDMModelComparison(
        models=tuple(names), method=name, bootstrap=bootstrap, test=test, value=value,
        mean=np.asarray(result.get_means()), sem=np.asarray(result.get_sem()),
        ci_low=np.asarray(ci_low), ci_high=np.asarray(ci_high),
        noise_ceiling=(lower, upper), p_zero=np.asarray(p_zero),
        p_noise_ceiling=np.asarray(p_noise),
        p_pairwise=pd.DataFrame(p_pair, index=names, columns=names),
        evaluations=evaluations, n_bootstrap=n_bootstrap,
        n_subjects=n_rdm, n_stimuli=n, ci=ci, result=result,
    )
