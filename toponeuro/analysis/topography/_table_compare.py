"""One sheet of a model beside one of the cortex, from their topography tables
(:func:`compare_tables`; split from ``_tables.py`` by meaning: the tables, then their
comparison)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._util.docs import fill_doc
from ..._util.params import N_PERMUTATIONS, SEED, Boolean, Options, validate_params
from ..._util.typing import RandomState
from ...exceptions import UnknownNameError, close_matches
from ._compare import _CENTROIDS, arrangement_similarity
from ._tables import _TOP, ARRANGEMENT_TOP, TopographyTable, arrangement_comparison

__all__ = ["compare_tables"]


@fill_doc
@validate_params({
    "centroid": Options(_CENTROIDS, error=UnknownNameError),
    "top": _TOP,
    "n_permutations": [N_PERMUTATIONS, None],
    "cortex_permutations": [N_PERMUTATIONS, None],
    "random_state": SEED,
    "arrangement": Boolean(),
})
def compare_tables(
    model: TopographyTable,
    model_sheet: str,
    cortex: TopographyTable,
    cortex_sheet: str,
    *,
    centroid: str = "largest",
    top: float = ARRANGEMENT_TOP,
    n_permutations: int | None = None,
    cortex_permutations: int | None = None,
    random_state: RandomState = None,
    arrangement: bool = True,
) -> pd.DataFrame:
    """One sheet of a model beside one of the cortex, from their already computed tables.

    The one model-vs-cortex table (``toponeuro map`` and the tutorials build it so):
    index ``(metric, item)``, columns ``model``, ``cortex`` (``smoothness``,
    ``smoothness_p``, ``n_patches``, ``n_significant_patches``, ``mean_patch_fraction``,
    ``total_patch_fraction`` per name -- fractions of the significant patches when a null
    was drawn; ``map_similarity``, ``map_similarity_p`` per pair) and ``model_vs_cortex``:

    - ``domain_arrangement`` rows (items ``spearman``, ``p_value``, ``p_shift``, ``p_spin``,
      ``n_domains``): :func:`arrangement_comparison`, the arrangement of every shared
      domain's centre from its whole map, with its shift and spin nulls -- defined whenever
      three domains are mapped on both sides. This is the model-vs-cortex number the main
      job reports.
    - ``arrangement_spearman``, ``arrangement_procrustes``, ``arrangement_n_regions``
      (item ``centroids``): :func:`arrangement_similarity` of the centroids of each name's
      largest (significant) patch (:meth:`TopographyTable.centroids`); NaN when fewer
      than three names have a patch on both sides.

    ``.attrs`` holds the patch centroids and regions used, and ``"arrangement"``, the full
    :func:`arrangement_comparison` result.

    Parameters
    ----------
    model : TopographyTable
        The model's table, from :func:`topography_table`.
    model_sheet : str
        The model layer compared.
    cortex : TopographyTable
        The cortex's table, from :func:`topography_table`.
    cortex_sheet : str
        The hemisphere compared.
    centroid : {"largest", "all"}
        A region's patch centroid: its largest patch's, or that of all its patch points.
    top : float
        Fraction of each map's points that make its centre (:func:`arrangement_comparison`).
    %(n_permutations)s
        Here: the shift null of :func:`arrangement_comparison` (default ``None``: the model
        table's ``n_permutations``).
    cortex_permutations : int, optional
        Draws of the spin null of :func:`arrangement_comparison` (default the cortex
        table's ``similarity_permutations``).
    %(random_state)s
    arrangement : bool
        Compute the ``domain_arrangement`` rows (False: NaN, e.g. for a single map per side,
        where an arrangement has no meaning).

    Returns
    -------
    pandas.DataFrame
        Index ``(metric, item)``, columns ``model``, ``cortex`` and ``model_vs_cortex``
        (described above).

    Examples
    --------
    >>> from toponeuro.analysis import topography_table
    >>> rr, cc = np.mgrid[:20, :30]
    >>> blob = lambda r, c: 5 * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / 8.0)
    >>> sheet = {"faces": blob(4, 5), "bodies": blob(15, 8), "places": blob(10, 25)}
    >>> t = topography_table({"s": sheet}, threshold=3.0, min_units=3, smooth_sigma=0,
    ...                      n_permutations=0, random_state=0)
    >>> out = compare_tables(t, "s", t, "s")
    >>> float(out.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"]) < 1e-9
    True
    """
    metrics = ("smoothness", "smoothness_p", "n_patches", "n_significant_patches",
               "mean_patch_fraction", "total_patch_fraction")
    sides = []
    for res, sheet in ((model, model_sheet), (cortex, cortex_sheet)):
        if sheet not in res.sheets:
            raise UnknownNameError(f"No sheet {sheet!r}; {close_matches(sheet, res.sheets)}")
        t = res.table[res.table["sheet"] == sheet].set_index("name")
        rows = {(m, n): float(t.loc[n, m]) for n in t.index for m in metrics}
        s = res.similarity[res.similarity["sheet"] == sheet]
        for pair, v, pv in zip(s["pair"], s["value"], s["p_value"]):
            rows[("map_similarity", pair)] = float(v)
            rows[("map_similarity_p", pair)] = float(pv)
        sides.append(rows)
    keys = list(dict.fromkeys([*sides[0], *sides[1]]))
    m_cent = model.centroids(model_sheet, centroid)
    c_cent = cortex.centroids(cortex_sheet, centroid)
    common = [n for n in m_cent if n in c_cent]
    arr = arrangement_similarity({n: m_cent[n] for n in common}, {n: c_cent[n] for n in common})
    dom = (arrangement_comparison(model, model_sheet, cortex, cortex_sheet, top=top,
                                  n_permutations=n_permutations,
                                  cortex_permutations=cortex_permutations,
                                  random_state=random_state) if arrangement else
           {k: np.nan for k in ("spearman", "p_value", "p_shift", "p_spin", "n_domains")})
    dom_items = ("spearman", "p_value", "p_shift", "p_spin", "n_domains")
    arr_keys = [("domain_arrangement", k) for k in dom_items] + [
        ("arrangement_spearman", "centroids"), ("arrangement_procrustes", "centroids"),
        ("arrangement_n_regions", "centroids")]
    n_arr = len(arr_keys)
    table = pd.DataFrame(
        {
            "model": [sides[0].get(k, np.nan) for k in keys] + [np.nan] * n_arr,
            "cortex": [sides[1].get(k, np.nan) for k in keys] + [np.nan] * n_arr,
            "model_vs_cortex": [np.nan] * len(keys)
            + [float(dom[k]) for k in dom_items]
            + [arr["spearman"], arr["procrustes"], arr["n_regions"]],
        },
        index=pd.MultiIndex.from_tuples(keys + arr_keys, names=["metric", "item"]),
    )
    table.attrs = {
        "model_centroids": {k: v.tolist() for k, v in m_cent.items()},
        "cortex_centroids": {k: v.tolist() for k, v in c_cent.items()},
        "arrangement_regions": list(arr.get("regions", [])),
        "arrangement": dom,
    }
    return table
