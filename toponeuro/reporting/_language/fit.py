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

Both on the headline layer (:data:`FIT_LAYER_RULE`) and on every hemisphere the cortex
map covers (:data:`FIT_HEMISPHERE_RULE`), each comparison keyed ``"<key>|<hemisphere>"``.
The headline row is chosen by the one rule of both jobs,
:data:`toponeuro.reporting.HEADLINE_RULE` (:func:`headline_fit`), fixed before any result was
seen and printed in the report.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from ..._util import dims as D
from ..._util.constraints import MAPPING, DataArrayWith, HasAttributes
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import ALPHA, N_PERMUTATIONS, SEED, InstanceOf, Text, validate_params
from ...analysis import RulerSettings

__all__ = ["FIT_LAYER_RULE", "FIT_HEMISPHERE_RULE", "FIT_ORDER", "LanguageFit",
           "language_fits", "headline_fit", "answer_both", "short_layer"]

#: a statistic's claim against one null (:class:`~toponeuro.analysis.TopographyClaim`, or
#: any object with its fields)
_CLAIM = HasAttributes(("outcome", "statistic", "p_value", "n_permutations"),
                       "a TopographyClaim")


@validate_params(dict(name=Text()))
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

#: the cortex hemispheres the comparisons read
FIT_HEMISPHERE_RULE = ("every hemisphere the cortex map covers, each comparison on its own "
                       "(TopoLM's group verb - noun contrast covers the left only; the "
                       "language parcels both)")

#: the language comparisons, least to most preferred when the headline rule
#: (:data:`~toponeuro.reporting.HEADLINE_RULE`) meets a tie: TopoLM's verb - noun fit first
FIT_ORDER = ("language", "verb-noun")

_TITLES = {"verb-noun": "verb - noun, model sheet vs the cortex's verb - noun map",
           "language": "S - N, model sheet vs the cortex's language map"}


@validate_fields({"key": Text(), "layer": Text(), "hemisphere": Text(), "cortex_name": Text(),
                 "cortex_source": Text(), "mesh": Text(empty=True)})
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
        """The comparison in words, with its hemisphere."""
        return f"{_TITLES.get(self.key, self.key)} ({self.hemisphere} hemisphere)"


def _hemispheres(maps: dict, name: str) -> list:
    return [h for h in ("left", "right") if h in maps and name in maps[h].maps]


def _cortex_topomap(cm, name: str, hemi: str):
    """The cortex's map on its own template mesh, as the one ruler measures it
    (:func:`toponeuro.analysis.mesh_topomap`: folded-surface positions in mm, its triangles,
    its sphere; the fs_LR medial wall no data)."""
    from ...analysis import mesh_topomap

    return mesh_topomap(np.asarray(cm.maps[name], dtype=float),
                        getattr(cm, "mesh", None) or "fsaverage5", hemi,
                        name=f"{name} ({hemi})")


@validate_params(dict(layer=Text(), sn_map=DataArrayWith((D.UNIT,)),
                      n_permutations=N_PERMUTATIONS, alpha=ALPHA, random_state=SEED,
                      settings=[InstanceOf(RulerSettings, "a RulerSettings",
                                           example=RulerSettings), None]))
@fill_doc
def language_fits(layer: str, *, sn_map, cortex, verb_noun=None, verb_noun_cortex=None,
                  n_permutations: int = 1000, alpha: float = 0.05, random_state=0,
                  settings=None, sn_boot=None, verb_noun_boot=None) -> dict:
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
    sn_boot, verb_noun_boot : list, optional
        The model's S - N / verb - noun t maps recomputed from resampled items
        (:func:`~toponeuro.reporting.contrast_boot`): each model value gets its 95%% interval over stimuli.

    Returns
    -------
    dict
        ``"verb-noun|<hemisphere>"`` and/or ``"language|<hemisphere>"`` ->
        :class:`LanguageFit`, those the inputs allow, one per hemisphere the cortex map
        covers.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> from toponeuro.reporting import language_cortex, language_units
    >>> acts = make_activations({"h": 64}, 40, categories=["S", "W", "J", "N"] * 10,
    ...                         random_state=0)
    >>> units = language_units(acts, smooth_fwhm=None)
    >>> fits = language_fits("h", sn_map=units.tmap, n_permutations=0,
    ...                      cortex=language_cortex(["left"], similarity_permutations=0))
    >>> fit = fits["language|left"]
    >>> sorted(fits), fit.hemisphere, "smoothness" in fit.comparison.left_out
    (['language|left'], 'left', True)
    """
    from ..._io.null_cache import use_null_cache

    with use_null_cache():  # the cortex side: once per map, mesh, settings and seed
        return _fits(layer, sn_map, cortex, verb_noun, verb_noun_cortex, sn_boot,
                     verb_noun_boot, dict(n_permutations=n_permutations, alpha=alpha,
                                          random_state=random_state, settings=settings))


def _fits(layer, sn_map, cortex, verb_noun, verb_noun_cortex, sn_boot, verb_noun_boot,
          kw) -> dict:
    """:func:`language_fits`' comparisons (inside the null cache)."""
    from ...analysis import as_topomap, compare_topography
    from .stages import LANGUAGE_MAP
    from .verbs import VERB_NOUN_CORTEX

    out = {}
    if verb_noun is not None and verb_noun_cortex is not None:
        maps, source = verb_noun_cortex
        model = as_topomap(verb_noun.tmap, layer=layer, name=f"verb-noun [{layer}]")
        boot = _boot(verb_noun_boot, layer)
        done = None
        for hemi in _hemispheres(maps, VERB_NOUN_CORTEX):
            comp = compare_topography(
                model, _cortex_topomap(maps[hemi], VERB_NOUN_CORTEX, hemi), model_boot=boot,
                model_results=done, **kw)
            done = _model_side(comp, kw)
            out[f"verb-noun|{hemi}"] = LanguageFit(
                "verb-noun", layer, hemi, VERB_NOUN_CORTEX, source, comp,
                np.asarray(maps[hemi].maps[VERB_NOUN_CORTEX], float), maps[hemi].mesh)
    lang_maps = cortex.maps if cortex.atlas is not None else cortex.user_maps
    source = ("the language parcels (Wolna et al., 2025; S > N, n = 706), fsaverage5"
              if cortex.atlas is not None else "your map 'language' (from cortex.maps)")
    model = as_topomap(sn_map, layer=layer, name=f"S-N [{layer}]")
    boot = _boot(sn_boot, layer)
    done = None
    for hemi in _hemispheres(lang_maps or {}, LANGUAGE_MAP):
        comp = compare_topography(model, _cortex_topomap(lang_maps[hemi], LANGUAGE_MAP, hemi),
                                  model_boot=boot, model_results=done, **kw)
        done = _model_side(comp, kw)
        out[f"language|{hemi}"] = LanguageFit(
            "language", layer, hemi, LANGUAGE_MAP, source, comp,
            np.asarray(lang_maps[hemi].maps[LANGUAGE_MAP], float),
            getattr(lang_maps[hemi], "mesh", "fsaverage5"))
    return out


def _model_side(comp, kw):
    """The model's side of ``comp``, for the next hemisphere's comparison of the same model
    map (``compare_topography(model_results=)``: computed once, the same numbers), or None
    when the seed is not an integer (then each comparison draws its own)."""
    if not isinstance(kw["random_state"], numbers.Integral):
        return None
    return [row.model for row in comp.rows]


def _boot(maps, layer):
    """The bootstrap maps (over stimuli) on ``layer``'s sheet, or None."""
    from ...analysis import as_topomap

    if not maps:
        return None
    return [as_topomap(m, layer=layer) for m in maps]


@validate_params(dict(fits=MAPPING, alpha=ALPHA))
@fill_doc
def headline_fit(fits: dict, alpha: float = 0.05):
    """The headline row of the comparisons by the one rule of both jobs
    (:data:`toponeuro.reporting.HEADLINE_RULE`): ``(LanguageFit, HeadlineChoice)``, or None
    when no row is eligible (the headline is "not testable").

    Parameters
    ----------
    fits : dict
        ``"<key>|<hemisphere>" -> LanguageFit``, as :func:`language_fits` returns.
    %(alpha)s

    Returns
    -------
    tuple or None
        The comparison holding the chosen row and the choice
        (:class:`~toponeuro.reporting._kit.headline.HeadlineChoice`: its ``row``,
        ``evidence``, ``n_eligible``); None when no row can reach alpha.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> def row(v, p, n=999):
    ...     side = NS(n_permutations=n, null="positions", p_value=p, alternative="greater")
    ...     return NS(descriptor="clustering", verdict=v, model=side, cortex=side)
    >>> def fit(key, hemi, *rows):
    ...     return LanguageFit(key, "l", hemi, "x", "s", NS(rows=list(rows)))
    >>> fits = {"verb-noun|left": fit("verb-noun", "left", row("alike", 0.01)),
    ...         "language|right": fit("language", "right", row("unlike", 0.001))}
    >>> f, pick = headline_fit(fits)
    >>> f.key, f.hemisphere, pick.evidence
    ('language', 'right', 0.001)
    >>> headline_fit({"language|left": fit("language", "left", row("alike", 0.5, 3))}) is None
    True
    """
    from .._kit.headline import choose_headline

    by_key = {(f.key, f.hemisphere): f for f in fits.values()}
    pick = choose_headline({k: f.comparison for k, f in by_key.items()}, alpha=alpha,
                           layers=list(FIT_ORDER))
    if pick is None:
        return None
    return by_key[pick.layer, pick.hemisphere], pick


@validate_params(dict(organised=_CLAIM, selective=_CLAIM, what=Text()))
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
