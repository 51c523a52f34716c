"""scikit-learn's common estimator checks on RidgeEncoder and PLSEncoder.

Every check of ``sklearn.utils.estimator_checks`` runs (``parametrize_with_checks``); the ones
listed in :data:`EXPECTED_FAILURES` are deliberate differences, each with its reason, and
are run too: they must fail (strict xfail), so a list entry that starts to pass is noticed.
Most differences are the wording scikit-learn's checks expect of an error message: toponeuro's
messages follow its own rule (what was expected, what arrived, the fix).
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from toponeuro.analysis import PLSEncoder, RidgeEncoder  # noqa: E402

_SHARED = {
    "check_estimators_unfitted":
        "predict before fit raises toponeuro.exceptions.NotFittedError (a ValueError and an "
        "AttributeError, as sklearn's is) without depending on scikit-learn, so not "
        "sklearn.exceptions.NotFittedError itself",
    "check_fit1d":
        "a 1-D X is read as one feature (one value per stimulus), by design of as_matrix",
    "check_fit2d_predict1d":
        "a 1-D X at predict is likewise one feature; the feature-count error names the counts",
    "check_estimators_empty_data_messages":
        "empty data raises a typed error whose message names the required size in toponeuro's "
        "words, not scikit-learn's '0 feature(s) (shape=...)' pattern",
    "check_fit2d_1sample":
        "one sample raises a typed error naming the cross-validation or n_components limit, "
        "not scikit-learn's 'n_samples = 1' pattern",
    "check_requires_y_none":
        "y=None raises a typed error, but not with scikit-learn's 'requires y to be passed' words",
    "check_estimator_sparse_tag":
        "sparse input is not supported (the solvers are dense); it raises, with another message "
        "than the 'sparse' one the check looks for",
    "check_estimator_sparse_array": "as check_estimator_sparse_tag",
    "check_estimator_sparse_matrix": "as check_estimator_sparse_tag",
    "check_regressor_data_not_an_array":
        "duck arrays are read through their __array_function__ (dask arrays are kept lazy), "
        "which this check's mock array forbids",
}

EXPECTED_FAILURES = {
    "RidgeEncoder": {
        **_SHARED,
        "check_dtype_object":
            "object-dtype y raises a typed error, not scikit-learn's 'Unknown label type' words",
    },
    "PLSEncoder": {
        **_SHARED,
        "check_non_transformer_estimators_n_iter":
            "NIPALS iterations per component are not recorded as n_iter_ (Brain-Score's "
            "PLSRegression parity is what is tested)",
    },
}


@parametrize_with_checks(
    [RidgeEncoder(alphas=[0.1, 1.0, 10.0], cv=3), PLSEncoder(n_components=1)],
    expected_failed_checks=lambda est: EXPECTED_FAILURES[type(est).__name__],
)
def test_sklearn_common_checks(estimator, check):
    check(estimator)


def test_the_nan_and_complex_checks_now_pass_for_real():
    """Two checks that failed before 0.3.0 were silent wrong answers: NaN features at predict
    gave NaN predictions, complex inputs lost their imaginary part in a cast."""
    import numpy as np

    from toponeuro.exceptions import InvalidDataError

    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((30, 4)), rng.standard_normal((30, 2))
    for est in (RidgeEncoder(alphas=[0.1, 1.0], cv=3), PLSEncoder(n_components=2)):
        fitted = est.fit(X, Y)
        bad = X.copy()
        bad[0, 0] = np.nan
        with pytest.raises(InvalidDataError, match="NaN"):
            fitted.predict(bad)
        with pytest.raises(InvalidDataError, match="complex"):
            type(est)(**est.get_params()).fit(X + 1j, Y)
        with pytest.raises(InvalidDataError, match="expecting 4 features"):
            fitted.predict(X[:, :3])
