"""``toponeuro map``: the fLoc job and the language job (``--language``)."""

from __future__ import annotations

import argparse
import warnings

from ._checks import (
    _device,
    _input_path,
    _json_arg,
    _out_folder,
    _positive,
    cli_message,
)
from ._common import (
    _add_checkpoint_args,
    _add_forward_args,
    _forward,
    _library_default,
    _model_args,
    _parser,
    _run_map_default,
    _warn,
)


def _numbers(text: str):
    """``--images``: fLoc numbers read by the library's one reader (``all`` -> None)."""
    from ..exceptions import InvalidDataError
    from ..stimuli import floc_numbers

    try:
        return floc_numbers(text)
    except InvalidDataError as err:
        raise argparse.ArgumentTypeError(cli_message(str(err), {})) from None


def _images_arg(text: str):
    return "all" if text.strip() == "all" else _numbers(text)


class _MapParser(argparse.ArgumentParser):
    """The ``map`` parser: ``map --language --help`` shows the language job's options only."""

    def parse_known_args(self, args=None, namespace=None):
        if args is not None and "--language" in args and {"-h", "--help"} & set(args):
            _language_parser().print_help()
            self.exit(0)
        return super().parse_known_args(args, namespace)


def _language_parser() -> argparse.ArgumentParser:
    """The options ``map --language`` uses, with the language job's defaults (its help)."""
    from ._common import _HelpFormatter

    p = argparse.ArgumentParser(
        prog="toponeuro map --language", formatter_class=_HelpFormatter,
        description="Map a language model's language-selective units (S vs N on the "
        "Fedorenko et al. (2010) localizer, TopoLM's definitions) on its sheets, measure their "
        "topography against its nulls and set them beside the cortex's language parcels (or "
        "your own language maps); write report.html, PNG figures, results.nc and "
        "summary.json (toponeuro.run_language_map).")
    model = p.add_argument("--model", help="registered language model arch.tag (see "
                           "`toponeuro models`)")
    _library_default(model, lambda: (_language_default("model"),
                                     "toponeuro.reporting.DEFAULT_LANGUAGE_MODEL"))
    _add_checkpoint_args(p)
    p.add_argument("--stimuli", help="langloc (the pinned localizer csv, cached) or a local "
                   "csv with columns sentence, condition (default: langloc)")
    p.add_argument("--layers", nargs="+", help="layers to map (default: every TopoLoss layer "
                   "of the model)")
    p.add_argument("--out", help="output folder (default: toponeuro-language-map)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier toponeuro output in --out")
    _library_default(p.add_argument("--permutations", type=int,
                                    help="draws of every spatial null (0 skips them)"),
                     lambda: (_language_default("n_permutations"),
                              "toponeuro.run_language_map's n_permutations"))
    _library_default(p.add_argument("--alpha", type=float, help="significance level of "
                                    "every claim"),
                     lambda: (_language_default("alpha"), "toponeuro.run_language_map's alpha"))
    _add_cortex_args(p, language=True)
    _add_verb_noun_args(p, language=True)
    _add_forward_args(p, batch_size=64, per="items")
    p.add_argument("--seed", type=int, default=0, help="seed of the nulls")
    return p


def _add_verb_noun_args(p, *, language: bool) -> None:
    """``--verb-noun``, ``--fit-permutations``: TopoLM's verb - noun fit (language job)."""
    pre = "with --language: " if not language else ""
    p.add_argument("--verb-noun", default=None, metavar="topolm|CSV|none",
                   help=f"{pre}the verb and noun items of TopoLM's fMRI fit (Elli et al., "
                   "2019): topolm (the pinned elli_stimuli.csv, cached), a local copy, or none "
                   "to leave the verb - noun map and its comparison with the cortex out "
                   "(default: topolm); the cortex side is --cortex-maps verbs=..., else "
                   "TopoLM's group contrast")
    p.add_argument("--fit-permutations", type=int, default=None,
                   help=f"{pre}null draws of every descriptor of the model-vs-cortex "
                   "comparisons, on each side (default: --permutations)")


def _language_default(name: str):
    import inspect

    from ..reporting import run_language_map

    return inspect.signature(run_language_map).parameters[name].default


def _add_cortex_args(p, *, language: bool = False) -> None:
    """``--cortex-maps``, ``--vol-to-surf``, ``--cortex-threshold``: your own cortical maps."""
    if language:
        maps_help = ("your own language maps: language=lh.gii:rh.gii (GIFTI or MGH per "
                     "hemisphere on fsaverage5, fsaverage or fs_LR 32k, left first), "
                     "verbs=verbs.dscalar.nii (CIFTI-2, fs_LR), verbs=lh.verbs.func.gii (one "
                     "hemisphere), language=sn_mni.nii.gz (an MNI volume) or "
                     "verbs=group-level-contrast.nc (TopoLM's netCDF, read by "
                     "toponeuro.atlases.read_netcdf_map; a bare PATH.nc is taken as "
                     "verbs=PATH.nc); a map named language replaces the shipped parcels and is "
                     "compared with the model's S - N map, a map named verbs is compared with "
                     "the model's verb - noun map (default: TopoLM's group contrast), any other "
                     "name joins them; comma-separated (default: the language parcels of "
                     "Wolna et al., 2025)")
        thr_help = ("region threshold of --cortex-maps, in their units (default: 2, "
                    "TDANN's t threshold)")
    else:
        maps_help = ("your own cortical maps in place of the visfAtlas: "
                     "faces=lh.faces.gii:rh.faces.gii (GIFTI or MGH per hemisphere on "
                     "fsaverage5, fsaverage or fs_LR 32k, left first), faces=faces.dscalar.nii "
                     "(CIFTI-2, fs_LR), faces=lh.faces.mgh (one hemisphere) or "
                     "faces=faces_mni.nii.gz (an MNI volume, projected with nilearn's "
                     "vol_to_surf), comma-separated per domain; quote a path holding ':' or "
                     "',' (faces=\"a:b/lh.f.gii\") (default: the visfAtlas ROIs, each as its "
                     "geodesic proximity)")
        thr_help = "patch threshold of --cortex-maps, in their units (default: --threshold)"
    p.add_argument("--cortex-maps", metavar="NAME=PATH,...", help=maps_help)
    p.add_argument("--hemispheres", nargs="+", choices=("left", "right"), default=None,
                   help="cortical hemispheres compared (default: both; with --cortex-maps "
                   "those the maps cover); the report says which")
    p.add_argument("--vol-to-surf", metavar="JSON",
                   help='vol_to_surf parameters for NIfTI --cortex-maps, e.g. \'{"radius": 2}\' '
                   "(default: radius 3 mm, linear interpolation; recorded in summary.json)")
    p.add_argument("--cortex-threshold", type=float, help=thr_help)
    job = "run_language_map" if language else "run_map"
    _library_default(
        p.add_argument("--cortex-permutations", type=int,
                       help="draws of the spin test of every cortical statistic (map "
                       "similarity, the arrangement's cortex side); 0 skips it"),
        lambda: ((_language_default if language else _run_map_default)("cortex_permutations"),
                 f"toponeuro.{job}'s cortex_permutations"))


def _add_map(sub):
    p = _parser(
        sub,
        "map",
        help="map a model's category-selective topography and compare it with the cortex",
        description="Extract sheet activations for the fLoc localizer images, compute the five "
        "domain selectivity maps (faces, bodies, places, characters, objects), their "
        "smoothness, patches and similarities, compare them with the visfAtlas ROIs on "
        "fsaverage5, and write report.html, PNG figures, results.nc and summary.json. "
        "Offline, give a local fLoc copy with --stimuli DIR. With --language: the same for a "
        "language model, the Fedorenko et al. (2010) localizer and the language parcels "
        "(`toponeuro map --language --help` lists its options).",
    )
    p.__class__ = _MapParser  # map --language --help: the language job's options only
    p.add_argument("--language", action="store_true",
                   help="map a language model's language-selective units (S vs N, TopoLM's "
                   "definitions) against the cortex's language parcels "
                   "(toponeuro.run_language_map; default model "
                   "toponeuro.reporting.DEFAULT_LANGUAGE_MODEL, --stimuli a localizer csv)")
    model = _model_args(p, required=False)
    _library_default(model, lambda: (_default_map_model(),
                                     "the shipped demo TopoNet, toponeuro.reporting.DEFAULT_MAP_MODEL"))
    _add_checkpoint_args(p)
    p.add_argument("--stimuli", default=None,
                   help="floc ($TOPONEURO_DATA/floc; images it lacks are downloaded into it) or a "
                   "local fLoc folder with one sub-folder per category; with --language: "
                   "langloc ($TOPONEURO_DATA/langloc, the pinned csv) or a local csv with columns sentence, "
                   "condition (default: floc; with --language langloc)")
    p.add_argument("--images", type=_images_arg, default=None,
                   help="fLoc image numbers of each category, a range like 97-120 or all "
                   "(default: with --stimuli floc 97-120, the images held out from the demo "
                   "TopoNets' training; with --stimuli DIR every image in DIR, and the report says which "
                   "of them the model was trained on)")
    p.add_argument("--layers", nargs="+",
                   help="layers to map (default: the model's last three TopoLoss layers)")
    p.add_argument("--out", default=None,
                   help="output folder (default: toponeuro-map; with --language "
                   "toponeuro-language-map); written aside and moved into place when "
                   "complete, so an interrupted run leaves an earlier output as it was")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier toponeuro output in --out (a folder toponeuro did "
                   "not write is never replaced)")
    _library_default(
        p.add_argument("--threshold", type=float,
                       help="patch threshold on the selectivity t, after TDANN's smoothing"),
        lambda: (_run_map_default("threshold"),
                 "TDANN's threshold, toponeuro.analysis.TDANN_PATCHES['threshold']"))
    _library_default(
        p.add_argument("--permutations", type=int,
                       help="draws of the spatial null of every model statistic (smoothness, "
                       "patches, map similarity); 0 skips the nulls"),
        lambda: (_run_map_default("n_permutations"), "toponeuro.run_map's n_permutations"))
    _library_default(
        p.add_argument("--alpha", type=float,
                       help="significance level: only patches with p <= alpha are reported"),
        lambda: (_run_map_default("alpha"), "toponeuro.run_map's alpha"))
    _add_cortex_args(p)
    _add_verb_noun_args(p, language=False)
    p.add_argument("--no-random-init", dest="random_init_baseline", action="store_false",
                   help="skip the random-initialisation baseline. By default the same "
                   "architecture with untrained (re-drawn) weights is mapped too, a second "
                   "extraction and its nulls, and its map similarities stand beside the "
                   "trained ones: the selectivity contrast builds in an anti-correlation "
                   "between domains' maps, and the baseline shows how much of a similarity "
                   "that alone gives. Without it that is lost, and the report says the "
                   "baseline was not computed")
    p.add_argument("--unit-positions", nargs="+", metavar="LAYER=PATH", default=None,
                   help="free positions of the units of a layer (TDANN-style): a .npy array "
                   "(n_units, 2) or a .csv with columns unit, x, y, per layer (default: the "
                   "model card's, if any); every statistic of that layer then measures "
                   "distances between them")
    p.add_argument("--position-units", choices=("mm", "sheet"), default=None,
                   help="unit of --unit-positions (default: the card's, else mm)")
    _add_forward_args(p, batch_size=64, per="images")
    p.add_argument("--seed", type=int, default=0, help="seed of the spatial nulls")


def _unit_positions(items) -> dict | None:
    """``--unit-positions conv2=conv2.npy ...`` as ``{layer: path}`` (None when not given)."""
    from ..exceptions import InvalidDataError

    if not items:
        return None
    out = {}
    for item in items:
        layer, sep, path = item.partition("=")
        if not sep or not layer or not path:
            raise InvalidDataError(
                f"--unit-positions takes LAYER=PATH items (e.g. layer4.0.conv2=conv2.npy); "
                f"got {item!r}.")
        out[layer] = _input_path(path, "--unit-positions", "a .npy or .csv positions file")
    return out


def _default_map_model() -> str:
    from ..reporting import DEFAULT_MAP_MODEL

    return DEFAULT_MAP_MODEL


def _run_language_map(args) -> int:
    from ..exceptions import InvalidDataError
    from ..reporting import DEFAULT_LANGUAGE_MODEL, run_language_map

    given = [f for f, v in (("--images", args.images), ("--threshold", args.threshold),
                            ("--no-random-init", not args.random_init_baseline or None),
                            ("--unit-positions", args.unit_positions),
                            ("--position-units", args.position_units))
             if v is not None]
    if given:
        raise InvalidDataError(
            f"{' and '.join(given)} belong{'s' if len(given) == 1 else ''} to the fLoc map; "
            "with --language the items are the localizer's, the patch threshold is the "
            "Benjamini-Hochberg t and there is no random-initialisation baseline. Drop "
            f"{' and '.join(given)} (see `toponeuro map --language --help`).")
    out = _out_folder(args.out or "toponeuro-language-map")
    device = _device(args.device)
    _positive(args.batch_size, "--batch-size")
    if args.checkpoint is not None:
        _input_path(args.checkpoint, "--checkpoint", "a checkpoint file")
    stimuli = args.stimuli or "langloc"
    if stimuli != "langloc":
        _input_path(stimuli, "--stimuli", "'langloc' or a localizer csv")
    verb_noun = args.verb_noun or "topolm"
    if verb_noun.lower() == "none":
        verb_noun = None
    elif verb_noun != "topolm":
        _input_path(verb_noun, "--verb-noun", "'topolm', 'none' or a csv of verb and noun items")
    library_defaults = {"n_permutations": args.permutations, "alpha": args.alpha,
                        "cortex_threshold": args.cortex_threshold,
                        "cortex_permutations": args.cortex_permutations,
                        "fit_permutations": args.fit_permutations}
    run_language_map(
        args.model or DEFAULT_LANGUAGE_MODEL, checkpoint=args.checkpoint,
        trust_checkpoint=args.trust_checkpoint, stimuli=stimuli, layers=args.layers,
        out_dir=out, overwrite=args.overwrite, random_state=args.seed, **_forward(args, device),
        cortex_maps=args.cortex_maps, hemispheres=args.hemispheres,
        vol_to_surf=_json_arg(args.vol_to_surf, "--vol-to-surf", example='{"radius": 2}'),
        verb_noun=verb_noun, **{k: v for k, v in library_defaults.items() if v is not None})
    return 0


def _run_map(args) -> int:
    from ..exceptions import TrainingImagesWarning
    from ..reporting import DEFAULT_MAP_MODEL, run_map

    if args.language:
        return _run_language_map(args)
    lang_only = [f for f, v in (("--verb-noun", args.verb_noun),
                                ("--fit-permutations", args.fit_permutations)) if v is not None]
    if lang_only:
        from ..exceptions import InvalidDataError

        raise InvalidDataError(
            f"{' and '.join(lang_only)} belong{'s' if len(lang_only) == 1 else ''} to the "
            "language job (toponeuro map --language); drop it, or add --language.")
    args.stimuli = args.stimuli or "floc"
    out = _out_folder(args.out or "toponeuro-map")
    device = _device(args.device)
    _positive(args.batch_size, "--batch-size")
    library_defaults = {  # None: not given, run_map's own default applies
        "threshold": args.threshold, "n_permutations": args.permutations, "alpha": args.alpha,
        "cortex_permutations": args.cortex_permutations}
    if args.checkpoint is not None:
        _input_path(args.checkpoint, "--checkpoint", "a checkpoint file")
    if args.stimuli != "floc":
        _input_path(args.stimuli, "--stimuli", "'floc' or a folder of fLoc images")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrainingImagesWarning)
        run_map(
            args.model or DEFAULT_MAP_MODEL,
            checkpoint=args.checkpoint,
            trust_checkpoint=args.trust_checkpoint,
            stimuli=args.stimuli,
            numbers=args.images,
            layers=args.layers,
            out_dir=out,
            overwrite=args.overwrite,
            random_state=args.seed,
            cortex_maps=args.cortex_maps,
            hemispheres=args.hemispheres,
            **_forward(args, device),
            vol_to_surf=_json_arg(args.vol_to_surf, "--vol-to-surf",
                                  example='{"radius": 2}'),
            cortex_threshold=args.cortex_threshold,
            random_init_baseline=args.random_init_baseline,
            unit_positions=_unit_positions(args.unit_positions),
            position_units=args.position_units,
            **{k: v for k, v in library_defaults.items() if v is not None},
        )
    seen = set()
    for w in caught:  # said in flags, last, after the summary; each message once
        if (w.category, str(w.message)) in seen:
            continue
        seen.add((w.category, str(w.message)))
        if issubclass(w.category, TrainingImagesWarning):
            _warn(cli_message(str(w.message), {}))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return 0


# --- models, layers --------------------------------------------------------------------------
def _text_table(table, numeric=()) -> str:
    cols = [str(c) for c in table.columns]
    cells = [cols] + [["-" if _missing(v) else str(v) for v in row]
                      for row in table.itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cols))]
    return "\n".join(
        "  ".join(c.rjust(w) if name in numeric else c.ljust(w)
                  for c, w, name in zip(r, widths, cols)).rstrip()
        for r in cells
    )


def _missing(value) -> bool:
    import pandas as pd

    return value is None or (not isinstance(value, (tuple, list)) and bool(pd.isna(value)))
