"""Shared docstring fragments, written once and filled in with :func:`fill_doc`.

Each entry is written as it reads in a function's docstring (its first line at the
docstring's indentation of 4 spaces, the lines after it indented relative to that);
:func:`fill_doc` re-indents an entry to wherever its placeholder sits (a method's docstring,
a class's, a docstring Python 3.13 dedented at compile time), as nilearn's ``fill_doc`` does.
"""

from __future__ import annotations

import re

DOCDICT = {
    "activations": """activations : xarray.DataArray
        Activations with dims ``("stimulus", "unit")`` and unit coords ``layer``,
        ``channel``, ``row``, ``col`` (see :func:`toponeuro.check_activations`).""",
    "random_state": """random_state : int, numpy.random.Generator or None
        Seed for every random choice; the same seed gives the same result.""",
    "device": """device : str
        Torch device, ``"cpu"`` (default) or ``"cuda"`` where available.""",
    "n_permutations": """n_permutations : int
        Draws of the null. 0 gives the statistic alone (its p-value NaN, no claim); draws
        whose smallest p (``1 / (n + 1)``, twice that two-sided) cannot reach ``alpha`` --
        9 draws at 0.05, or 19 two-sided -- read "too few draws to test", never a negative
        finding (:func:`toponeuro.analysis.can_reject`).""",
    "alpha": """alpha : float
        Significance level of every claim, in (0, 1) (default 0.05): a p-value at or
        below it rejects the null.""",
    "progress": """progress : bool
        Show a tqdm progress bar (default ``True``).""",
    "verbose_job": """verbose : int
        What the job prints, as scikit-learn's ``verbose``: 0 nothing; 1 the summary at the
        end; 2 (the default) also the progress bars. ``True`` is 2, ``False`` 0; 0.4's
        ``progress=False`` (with a FutureWarning) is 1.""",
    "figure": """Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (a new one, or the figure of ``ax``).""",
    "ax_panel": """ax : matplotlib Axes, optional
        Draw into this axes; by default into a new figure.""",
    "colour_scale": """cmap : str
        Colour map; diverging ``"RdBu_r"`` by default, centred at ``center``.
    center : float or None
        Value at the middle of the colour map; ``None`` for a sequential map.
    vmin, vmax : float, optional
        Colour limits shared by all panels (default: from all drawn values, symmetric
        around ``center``).""",
    "two_samples": """a : numpy.ndarray
        ``(n_a, n_units)``: responses to the target condition.
    b : numpy.ndarray
        ``(n_b, n_units)``: responses to the other condition.""",
    "t_values": """Returns
    -------
    numpy.ndarray
        ``(n_units,)`` t values; undefined (NaN, or ±inf) where both variances are 0.""",
    "sheet_blur": """sheet : torch.Tensor
        ``(h, w, ...)``: a layer laid on its sheet (:func:`sheet_tensor`).
    factor_h, factor_w : float
        Down-sampling factors (≥ 1) along the height and width (TopoLoss's φ).
    interpolation : str
        A ``torch.nn.functional.interpolate`` mode of :data:`INTERPOLATIONS`, for the
        down- and up-sampling.""",
    "dimensionality_data": """data : Activations, BrainResponses or array (n_stimuli, n_features)
        Use ``acts.topo.select(layer)`` for one layer.""",
    "bias_corrected": """bias_corrected : bool
        Unbiased estimates of the trace moments (default), or those of the sample covariance.""",
    "export_card": """card : ModelCard
        The model's card (:func:`toponeuro.models.model_card`): its architecture, modality and
        topographic layers.""",
    "test_tail": """alternative : {"greater", "less", "two-sided"}
        The tail of the test (default ``"greater"``).""",
    "null_draws": """n_permutations : int
        Null draws (0: not tested).
    null_mean : float
        Mean of the null draws (NaN without them).
    null_std : float
        Standard deviation of the null draws (NaN without them).""",
    "fit_xy": """X : array-like or xarray.DataArray
        ``(n_samples, n_features)`` features (labelled inputs are paired by stimulus id).
    y : array-like or xarray.DataArray
        ``(n_samples,)`` or ``(n_samples, n_targets)`` targets.""",
    "accessor_layer": """layer : str
        Layer name.""",
    "table_sheet": """sheet : str
        The sheet (a layer, a hemisphere).""",
    "table_map_name": """name : str
        The map's name.""",
    "cache_dir": """cache_dir : str, Path or None
        Where downloads are cached: this argument, else ``$TOPONEURO_DATA``, else the
        platform cache folder (``~/.cache/toponeuro`` on Linux).""",
    "image_folder": """path : path-like
        Folder in fLoc's layout, one sub-folder per category: ``<category>/<category>-<N>.<ext>``
        (``floc/adult/adult-1.jpg`` ...; :func:`toponeuro.stimuli.make_image_folder` writes
        one).""",
    "folder_numbers": """numbers : (first, last), optional
        Keep only images numbered ``first <= N <= last`` (fLoc images 1-96 for training,
        97-120 held out).""",
    "folder_categories": """categories : list of str, optional
        Sub-folders to use, in this order (default: all, sorted): the order of the
        categories (and class indices) in the result.""",
    "trust_checkpoint": """trust_checkpoint : bool
        Also read files that pickle arbitrary Python objects (``torch.load`` with
        ``weights_only=False``), which runs their code: only for files you trust. By default
        such a file raises :class:`~toponeuro.exceptions.UntrustedCheckpointError`.""",
    "trust_pickle": """trust_pickle : bool
        Also read a Python pickle (rsatoolbox's ``.pkl``), which runs any code the file
        names: only for files you trust. By default such a file raises
        :class:`~toponeuro.exceptions.UntrustedFileError` before it is opened.""",
    "map_location": """map_location : str
        Where a checkpoint's tensors are loaded (``"cpu"`` by default).""",
    "vol_to_surf": """vol_to_surf : mapping, optional
        Parameters of :func:`nilearn.surface.vol_to_surf` for NIfTI maps (``radius``,
        ``interpolation``, ``kind``, ``n_samples``, ``depth``, ``mask_img``); the rest keep
        :data:`toponeuro.atlases.VOL_TO_SURF_DEFAULTS`. They are recorded in
        ``CortexMaps.source``. Voxels outside the volume's data (NaN) become vertices
        without data.""",
    "stimuli_source": """source : str
        Where they come from, in words.""",
    "pinned_csv_download": """DownloadError
        The pinned csv can be neither found nor downloaded (the message says how to pass a
        local copy, or how to leave an optional comparison out).""",
    "smooth_map_example": """>>> import numpy as np
    >>> from scipy.ndimage import gaussian_filter
    >>> from toponeuro.analysis import smoothness
    >>> m = gaussian_filter(np.random.default_rng(0).standard_normal((16, 16)), 2)""",
}


#: the indentation DOCDICT's entries are written for (a function's docstring)
_WRITTEN_AT = 4
#: a line holding a placeholder alone: ``    %(name)s``
_ALONE = re.compile(r"^(?P<indent>[ \t]*)%\((?P<key>\w+)\)s[ \t]*$", re.MULTILINE)


def _indented(entry: str, indent: str) -> str:
    """``entry`` with its lines after the first moved from :data:`_WRITTEN_AT` to ``indent``."""
    first, *rest = entry.split("\n")
    shift = " " * _WRITTEN_AT
    return "\n".join(
        [indent + first]
        + [indent + (line[_WRITTEN_AT:] if line.startswith(shift) else line.lstrip())
           if line.strip() else "" for line in rest]
    )


def fill_doc(obj):
    r"""Fill ``%(name)s`` placeholders of ``obj.__doc__`` from :data:`DOCDICT`.

    A placeholder alone on its line takes the line's indentation: the entry's lines keep
    their indentation relative to its first line, so a shared entry reads right in a
    function's docstring (4 spaces), a method's (8) or a dedented one (0). A placeholder
    inside a line is replaced by the entry as written.

    Examples
    --------
    >>> def f():
    ...     '''Doc.
    ...
    ...     Parameters
    ...     ----------
    ...     %(alpha)s
    ...     '''
    >>> fill_doc(f).__doc__.splitlines()[5]
    '        Significance level of every claim, in (0, 1) (default 0.05): a p-value at or'
    >>> f.__doc__ = "\n".join(["Parameters", "----------", "%(alpha)s"])  # Python 3.13
    >>> fill_doc(f).__doc__.splitlines()[3]
    '    Significance level of every claim, in (0, 1) (default 0.05): a p-value at or'
    """
    doc = obj.__doc__
    if not doc:
        return obj

    def alone(m: re.Match) -> str:
        key = m.group("key")
        if key not in DOCDICT:
            return m.group(0)  # left for the % below, which names the missing key
        return _indented(DOCDICT[key], m.group("indent")).replace("%", "%%")

    obj.__doc__ = _ALONE.sub(alone, doc) % dict(DOCDICT)
    return obj
