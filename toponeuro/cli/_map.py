"""``toponeuro map``: the fLoc job and the language job (``--language``)."""

from __future__ import annotations

import argparse
import warnings

from ._checks import (
    _input_path,
    _json_arg,
    _out_folder,
    cli_message,
)
from ._common import (
    _add_checkpoint_args,
    _add_no_progress,
    _library_default,
    _model_args,
    _parser,
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
    _add_stimuli_arg(p, language=True)
    p.add_argument("--layers", nargs="+", help="layers to map (default: every TopoLoss layer "
                   "of the model)")
    p.add_argument("--out", help="output folder (default: toponeuro-language-map)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier toponeuro output in --out")
    _add_job_settings(p, language=True)
    return p


def _stimuli_field(cls_name: str, name: str):
    from .. import settings as S

    return getattr(S, cls_name).__dataclass_fields__[name]


def _add_stimuli_arg(p, *, language: bool) -> None:
    """``--stimuli``: the job's items (:class:`~toponeuro.settings.FlocStimuli` /
    :class:`~toponeuro.settings.LanguageStimuli` ``source``; help and defaults as declared
    there). The map parser's serves both jobs."""
    floc, lang = _stimuli_field("FlocStimuli", "source"), _stimuli_field(
        "LanguageStimuli", "source")
    if language:
        action = p.add_argument("--stimuli", help=lang.metadata["help"])
        _library_default(action, lambda: (lang.default, ""))
        return
    action = p.add_argument("--stimuli", default=None, help=(
        f"{floc.metadata['help']}; with --language: {lang.metadata['help']}"))
    _library_default(action, lambda: (f"{floc.default}; with --language {lang.default}", ""))


def _add_verb_noun_args(p, *, language: bool) -> None:
    """``--verb-noun``: TopoLM's verb - noun fit (language job;
    :class:`~toponeuro.settings.LanguageStimuli` ``verb_noun``, help as declared there)."""
    f = _stimuli_field("LanguageStimuli", "verb_noun")
    pre = "with --language: " if not language else ""
    action = p.add_argument("--verb-noun", default=None, metavar=f.metadata["metavar"],
                            help=pre + f.metadata["help"])
    _library_default(action, lambda: (f.default, ""))


def _add_job_settings(p, *, language: bool) -> None:
    """The settings objects' flags (:mod:`toponeuro.settings`), built from their declarations.

    The map parser carries both jobs' flags (``--language`` picks the job; a flag of the other
    job is refused by name); ``map --language --help`` shows the language job's only.
    """
    from .. import settings as S
    from ._settings import add_settings_args

    add_settings_args(p, S.NullSettings)
    # the language job's sheet threshold is the Benjamini-Hochberg t: --threshold is the map's
    add_settings_args(p, S.PatchRule, skip=("threshold",) if language else ())
    add_settings_args(p, S.CortexInput, language=language)
    add_settings_args(p, S.RulerRun)
    if language:
        add_settings_args(p, S.LanguageUnits)
        _add_verb_noun_args(p, language=True)
    add_settings_args(p, S.Extraction)
    _add_no_progress(p)


def _language_default(name: str):
    import inspect

    from ..reporting import run_language_map

    return inspect.signature(run_language_map).parameters[name].default


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
    _add_stimuli_arg(p, language=False)
    p.add_argument("--images", type=_images_arg, default=None,
                   help=_stimuli_field("FlocStimuli", "numbers").metadata["help"])
    p.add_argument("--layers", nargs="+",
                   help="layers to map (default: the model's last three TopoLoss layers)")
    p.add_argument("--out", default=None,
                   help="output folder (default: toponeuro-map; with --language "
                   "toponeuro-language-map); written aside and moved into place when "
                   "complete, so an interrupted run leaves an earlier output as it was")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier toponeuro output in --out (a folder toponeuro did "
                   "not write is never replaced)")
    from .. import settings as S
    from ._settings import add_settings_args

    _add_job_settings(p, language=False)
    add_settings_args(p, S.LanguageUnits, prefix="with --language: ")
    _add_verb_noun_args(p, language=False)
    p.add_argument("--no-random-init", dest="random_init_baseline", action="store_false",
                   help="skip the random-initialisation baseline. By default the same "
                   "architecture with untrained (re-drawn) weights is mapped too, a second "
                   "extraction and its nulls, and its map similarities stand beside the "
                   "trained ones: the selectivity contrast builds in an anti-correlation "
                   "between domains' maps, and the baseline shows how much of a similarity "
                   "that alone gives. Without it that is lost, and the report says the "
                   "baseline was not computed")
    add_settings_args(p, S.ModelSource, skip=("name", "checkpoint", "trust_checkpoint"))


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


def _job_settings(args, *, language: bool) -> dict:
    """The settings objects of the flags given (each checks its values; a message names the
    field, which :func:`~._checks.cli_message` writes as its flag)."""
    from .. import settings as S
    from ..reporting import DEFAULT_LANGUAGE_MODEL, DEFAULT_MAP_MODEL
    from ._settings import settings_from_args

    if args.checkpoint is not None:
        _input_path(args.checkpoint, "--checkpoint", "a checkpoint file")
    positions = getattr(args, "model.unit_positions", None)
    out = {
        "model": settings_from_args(
            args, S.ModelSource,
            name=args.model or (DEFAULT_LANGUAGE_MODEL if language else DEFAULT_MAP_MODEL),
            checkpoint=args.checkpoint, trust_checkpoint=args.trust_checkpoint,
            unit_positions=_unit_positions(positions)),
        "null": settings_from_args(args, S.NullSettings),
        "patches": settings_from_args(args, S.PatchRule),
        "cortex": settings_from_args(args, S.CortexInput, vol_to_surf=_json_arg(
            getattr(args, "cortex.vol_to_surf"), "--vol-to-surf", example='{"radius": 2}')),
        "ruler": settings_from_args(args, S.RulerRun),
        "extraction": settings_from_args(args, S.Extraction),
    }
    if language:
        out["units"] = settings_from_args(args, S.LanguageUnits)
    return out


def _other_job_flags(args, *, language: bool) -> list[str]:
    """The flags given that belong to the other job."""
    from .. import settings as S
    from ._settings import given_settings

    if language:
        pairs = [("--images", args.images), ("--threshold", getattr(args, "patches.threshold")),
                 ("--no-random-init", not args.random_init_baseline or None),
                 ("--unit-positions", getattr(args, "model.unit_positions")),
                 ("--position-units", getattr(args, "model.position_units"))]
    else:
        pairs = [(S.LanguageUnits.__dataclass_fields__[k].metadata["flag"], v)
                 for k, v in given_settings(args, S.LanguageUnits).items()]
        pairs.append(("--verb-noun", args.verb_noun))
    return [f for f, v in pairs if v is not None]


def _run_language_map(args) -> int:
    from .. import settings as S
    from ..exceptions import InvalidDataError
    from ..reporting import run_language_map

    given = _other_job_flags(args, language=True)
    if given:
        raise InvalidDataError(
            f"{' and '.join(given)} belong{'s' if len(given) == 1 else ''} to the fLoc map; "
            "with --language the items are the localizer's, the patch threshold is the "
            "Benjamini-Hochberg t, the units' positions are the sheet's and there is no "
            "random-initialisation baseline. Drop "
            f"{' and '.join(given)} (see `toponeuro map --language --help`).")
    out = _out_folder(args.out or "toponeuro-language-map")
    settings = _job_settings(args, language=True)
    stimuli = args.stimuli or S.LanguageStimuli.source
    if stimuli != "langloc":
        _input_path(stimuli, "--stimuli", "'langloc' or a localizer csv")
    verb_noun = args.verb_noun or S.LanguageStimuli.verb_noun
    if verb_noun.lower() == S.LanguageStimuli.__dataclass_fields__["verb_noun"].metadata[
            "cli_none"]:
        verb_noun = None
    elif verb_noun != "topolm":
        _input_path(verb_noun, "--verb-noun", "'topolm', 'none' or a csv of verb and noun items")
    run_language_map(stimuli=S.LanguageStimuli(stimuli, verb_noun=verb_noun),
                     layers=args.layers, out_dir=out, overwrite=args.overwrite,
                     verbose=1 if args.no_progress else 2, **settings)
    return 0


def _run_map(args) -> int:
    from .. import settings as S
    from ..exceptions import TrainingImagesWarning
    from ..reporting import run_map

    if args.language:
        return _run_language_map(args)
    lang_only = _other_job_flags(args, language=False)
    if lang_only:
        from ..exceptions import InvalidDataError

        raise InvalidDataError(
            f"{' and '.join(lang_only)} belong{'s' if len(lang_only) == 1 else ''} to the "
            "language job (toponeuro map --language); drop it, or add --language.")
    args.stimuli = args.stimuli or S.FlocStimuli.source
    out = _out_folder(args.out or "toponeuro-map")
    settings = _job_settings(args, language=False)
    if args.stimuli != "floc":
        _input_path(args.stimuli, "--stimuli", "'floc' or a folder of fLoc images")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrainingImagesWarning)
        run_map(stimuli=S.FlocStimuli(args.stimuli, numbers=args.images), layers=args.layers,
                out_dir=out, overwrite=args.overwrite,
                random_init_baseline=args.random_init_baseline,
                verbose=1 if args.no_progress else 2, **settings)
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
