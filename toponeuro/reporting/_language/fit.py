"""The language job's model-vs-cortex comparisons on one ruler, and its headline rule.

Two comparisons, each by :func:`toponeuro.analysis.compare_topography` (every descriptor
computed by one function on the model's sheet and on the cortex's mesh, same parameters,
each against its null on its own geometry, one verdict rule):

- **verb - noun** (TopoLM's fMRI fit, Rathi et al., 2025): the model's verb - noun t map
  (:func:`~._language_verbs.language_verb_noun`) against the cortex's verb - noun map (a
  lab's, or TopoLM's group contrast on fs_LR 32k);
- **S - N**: the model's S - N t map against the cortex's language map (the language parcels
  of Wolna et al., 2025, a binary map: the descriptors a binary map does not define are left
  out and named; or a lab's own ``language`` map, all descriptors).

Both on the headline layer (:data:`FIT_LAYER_RULE`) and the left hemisphere
(:data:`FIT_HEMISPHERE_RULE`). :data:`LANGUAGE_HEADLINE_RULE` picks which comparison the report's
one-sentence headline carries; it is fixed here, before any result was seen, and printed in
the report.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._util.docs import fill_doc

__all__ = ["FIT_LAYER_RULE", "FIT_HEMISPHERE_RULE", "LANGUAGE_HEADLINE_RULE", "LanguageFit",
           "language_fits", "headline_fit", "fit_evidence", "answer_both", "short_layer"]


def short_layer(name: str) -> str:
    """A layer's name without the parts every layer of a TopoLM-style model shares.

    Parameters
    ----------
    name : str
        The layer's full name.

    Returns
    -------
    str
        The name without ``"encoder."`` and ``".intermediate.dense"``.

    Examples
    --------
    >>> short_layer("encoder.layer.5.intermediate.dense")
    'layer.5'
    """
    return str(name).removeprefix("encoder.").replace(".intermediate.dense", "")

#: the model layer every comparison reads (the layer of the headline)
FIT_LAYER_RULE = "the deepest mapped layer (the last of the layers, in model order)"

#: the cortex hemisphere every comparison reads
FIT_HEMISPHERE_RULE = ("the left hemisphere (the language-dominant one, and the only one of "
                       "TopoLM's group contrast); the right when a map has no left")

#: how the headline's comparison is chosen, fixed before looking at the results
LANGUAGE_HEADLINE_RULE = (
    "the one with the most evidence: the most descriptors the verdict rule could test on "
    "both sides (alike or unlike, not 'not testable'); a tie goes to "
    "TopoLM's verb - noun fit, then to S - N against the cortex's language map. A comparison "
    "none of whose descriptors is testable (e.g. too few draws to reach alpha) is never "
    "the headline."
)

#: the order of the comparisons, which breaks ties of :data:`LANGUAGE_HEADLINE_RULE`
FIT_ORDER = ("verb-noun", "language")

_TITLES = {"verb-noun": "verb - noun, model sheet vs the cortex's verb - noun map",
           "language": "S - N, model sheet vs the cortex's language map"}


class LanguageFit(NamedTuple):
    """One model-vs-cortex comparison of the language job (:func:`language_fits`).

    Parameters
    ----------
    key : str
        ``"verb-noun"`` or ``"language"`` (S - N).
    layer : str
        The model layer compared.
    hemisphere : str
        The cortex hemisphere compared.
    cortex_name : str
        The cortex map's name.
    cortex_source : str
        Where the cortex map comes from, in words.
    comparison : TopographyComparison
        Every descriptor on both sides (:func:`~toponeuro.analysis.compare_topography`).
    cortex_values : numpy.ndarray, optional
        The cortex map's values on its hemisphere (what the report draws).
    mesh : str
        The cortex map's mesh.

    Examples
    --------
    >>> LanguageFit("language", "l", "left", "parcels", "s", None).key
    'language'
    """

    #: ``"verb-noun"`` or ``"language"`` (S - N)
    key: str
    layer: str
    hemisphere: str
    #: the cortex map's name and where it comes from
    cortex_name: str
    cortex_source: str
    #: :class:`~toponeuro.analysis.TopographyComparison`
    comparison: object
    #: the cortex map's values on its hemisphere and its mesh (what the report draws)
    cortex_values: object = None
    mesh: str = ""

    @property
    def title(self) -> str:
        return _TITLES.get(self.key, self.key)


def _hemisphere(maps: dict, name: str) -> str | None:
    for h in ("left", "right"):
        if h in maps and name in maps[h].maps:
            return h
    return None


def _cortex_topomap(cm, name: str, hemi: str):
    """The cortex's map on its own template mesh, as the one ruler measures it
    (:func:`toponeuro.analysis.mesh_topomap`: folded-surface positions in mm, its triangles,
    its sphere; the fs_LR medial wall no data)."""
    from ...analysis import mesh_topomap

    return mesh_topomap(np.asarray(cm.maps[name], dtype=float),
                        getattr(cm, "mesh", None) or "fsaverage5", hemi,
                        name=f"{name} ({hemi})")


@fill_doc
def language_fits(layer: str, *, sn_map, cortex, verb_noun=None, verb_noun_cortex=None,
                  n_permutations: int = 1000, alpha: float = 0.05, random_state=0,
                  settings=None) -> dict:
    """Every comparison the job can make: ``key -> LanguageFit``.

    Parameters
    ----------
    layer : str
        The model layer compared (:data:`FIT_LAYER_RULE`).
    sn_map : xarray.DataArray
        The model's S - N t map, dims ``("unit",)`` (all layers).
    cortex : LanguageCortex
        The cortex's language maps (:func:`~._language_stages.language_cortex`): the parcels,
        or your ``language`` map.
    verb_noun : VerbNoun, optional
        The model's verb - noun maps (:func:`~._language_verbs.language_verb_noun`).
    verb_noun_cortex : tuple, optional
        ``(hemisphere -> CortexMaps, source)`` of :func:`~._language_verbs.verb_noun_cortex`.
    %(n_permutations)s
        Here: of every descriptor's null, on both sides.
    %(alpha)s
    %(random_state)s
    settings : RulerSettings, optional
        The descriptors' parameters (default the ruler's).

    Returns
    -------
    dict
        ``"verb-noun"`` and/or ``"language"`` -> :class:`LanguageFit`, those the inputs
        allow.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> from toponeuro.reporting import language_cortex, language_units
    >>> acts = make_activations({"h": 64}, 40, categories=["S", "W", "J", "N"] * 10,
    ...                         random_state=0)
    >>> units = language_units(acts, smooth_fwhm=None)
    >>> fits = language_fits("h", sn_map=units.tmap, n_permutations=0,
    ...                      cortex=language_cortex(["left"], similarity_permutations=0))
    >>> fit = fits["language"]
    >>> sorted(fits), fit.hemisphere, "smoothness" in fit.comparison.left_out
    (['language'], 'left', True)
    """
    from ...analysis import as_topomap, compare_topography
    from .stages import LANGUAGE_MAP
    from .verbs import VERB_NOUN_CORTEX

    kw = dict(n_permutations=n_permutations, alpha=alpha, random_state=random_state,
              settings=settings)
    out = {}
    if verb_noun is not None and verb_noun_cortex is not None:
        maps, source = verb_noun_cortex
        hemi = _hemisphere(maps, VERB_NOUN_CORTEX)
        if hemi is not None:
            model = as_topomap(verb_noun.tmap, layer=layer, name=f"verb-noun [{layer}]")
            comp = compare_topography(
                model, _cortex_topomap(maps[hemi], VERB_NOUN_CORTEX, hemi), **kw)
            out["verb-noun"] = LanguageFit(
                "verb-noun", layer, hemi, VERB_NOUN_CORTEX, source, comp,
                np.asarray(maps[hemi].maps[VERB_NOUN_CORTEX], float), maps[hemi].mesh)
    lang_maps = cortex.maps if cortex.atlas is not None else cortex.user_maps
    hemi = _hemisphere(lang_maps, LANGUAGE_MAP)
    if hemi is not None:
        source = ("the language parcels (Wolna et al., 2025; S > N, n = 706), fsaverage5"
                  if cortex.atlas is not None else "your map 'language' (cortex_maps)")
        model = as_topomap(sn_map, layer=layer, name=f"S-N [{layer}]")
        comp = compare_topography(model, _cortex_topomap(lang_maps[hemi], LANGUAGE_MAP, hemi),
                                  **kw)
        out["language"] = LanguageFit(
            "language", layer, hemi, LANGUAGE_MAP, source, comp,
            np.asarray(lang_maps[hemi].maps[LANGUAGE_MAP], float),
            getattr(lang_maps[hemi], "mesh", "fsaverage5"))
    return out


def fit_evidence(fit: LanguageFit) -> int:
    """The evidence of a comparison under :data:`LANGUAGE_HEADLINE_RULE`: its descriptors the verdict
    rule could test (alike or unlike).

    Parameters
    ----------
    fit : LanguageFit
        One comparison.

    Returns
    -------
    int
        The number of its rows whose verdict is ``"alike"`` or ``"unlike"``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> comp = NS(rows=[NS(verdict="alike"), NS(verdict="not testable"), NS(verdict="unlike")])
    >>> fit_evidence(LanguageFit("language", "l", "left", "x", "s", comp))
    2
    """
    return sum(r.verdict in ("alike", "unlike") for r in fit.comparison.rows)


def headline_fit(fits: dict) -> LanguageFit | None:
    """The comparison :data:`LANGUAGE_HEADLINE_RULE` picks (None: no comparison has a testable row).

    Parameters
    ----------
    fits : dict
        ``key -> LanguageFit``, as :func:`language_fits` returns.

    Returns
    -------
    LanguageFit or None
        The comparison with the most testable rows (ties by :data:`FIT_ORDER`).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> def fit(key, *verdicts):
    ...     return LanguageFit(key, "l", "left", "x", "s",
    ...                        NS(rows=[NS(verdict=v) for v in verdicts]))
    >>> headline_fit({"language": fit("language", "alike", "unlike"),
    ...               "verb-noun": fit("verb-noun", "alike", "not testable")}).key
    'language'
    >>> headline_fit({"language": fit("language", "alike"),
    ...               "verb-noun": fit("verb-noun", "unlike")}).key  # a tie: verb - noun
    'verb-noun'
    >>> headline_fit({"language": fit("language", "not testable")}) is None
    True
    """
    ranked = sorted((k for k in fits if fit_evidence(fits[k]) > 0),
                    key=lambda k: (-fit_evidence(fits[k]),
                                   FIT_ORDER.index(k) if k in FIT_ORDER else len(FIT_ORDER)))
    return fits[ranked[0]] if ranked else None


def answer_both(organised, selective, what: str = "the S - N map") -> str:
    """The two questions in one clause: organised on the sheet (positions null), and more
    than random contrasts of its items would be (label null).

    Parameters
    ----------
    organised : TopographyClaim
        One statistic's claim against the positions null.
    selective : TopographyClaim
        The same statistic's claim against the label null.
    what : str
        The map's name, the clause's subject (default ``"the S - N map"``).

    Returns
    -------
    str
        The clause, with the statistic, both p-values and the draws.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> o = NS(outcome="beyond chance", statistic=0.14, p_value=0.001, n_permutations=999,
    ...        null_mean=0.0)
    >>> s = NS(outcome="not beyond chance", statistic=0.14, p_value=0.41, n_permutations=999,
    ...        null_mean=0.12)
    >>> answer_both(o, s)
    "the S - N map is organised on the sheet, but not more than random contrasts of its items would be (Moran's I 0.14; positions null p ≤ 0.001, label null p = 0.41, 999 draws each)"
    """
    org = {"beyond chance": "is organised on the sheet",
           "not beyond chance": "is not shown to be organised on the sheet",
           "too few draws": "cannot be tested for organisation on the sheet with these draws",
           "not tested": "has no positions null"}[organised.outcome]
    yes = organised.outcome == "beyond chance"
    sel = {"beyond chance": ("and more than random contrasts of its items would be" if yes
                             else "yet is more clustered than random contrasts of its items"),
           "not beyond chance": ("but not more than random contrasts of its items would be"
                                 if yes else "nor more clustered than random contrasts of its "
                                             "items"),
           "too few draws": "and has too few label-null draws to compare with random contrasts",
           "not tested": "and has no label null"}[selective.outcome]
    n = organised.n_permutations
    return (f"{what} {org}, {sel} (Moran's I {organised.statistic:.2f}; positions null "
            f"{_short_p(organised)}, label null {_short_p(selective)}, {n:,} draws each)")


def _short_p(c) -> str:
    """``"p ≤ 0.001"`` / ``"p = 0.41"``: the p-value without its draws (said once after)."""
    if not np.isfinite(c.p_value):
        return "p n/a"
    floor = 1.0 / (c.n_permutations + 1) if c.n_permutations else np.nan
    if np.isfinite(floor) and c.p_value <= floor + 1e-12:
        return f"p ≤ {floor:.2g}"
    return f"p = {c.p_value:.2g}"
