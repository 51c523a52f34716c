"""``toponeuro prepare``: draw a job's cortex side once, into the null cache."""

from __future__ import annotations

from ._checks import _input_path, _json_arg
from ._common import _library_default, _parser


def _add_prepare(sub):
    from .. import settings as S
    from ._map import _add_verb_noun_args, _stimuli_field
    from ._settings import add_settings_args

    p = _parser(
        sub,
        "prepare",
        help="draw the cortex side of `toponeuro map` once (after installing), so that its "
        "first run reads it",
        description="Compute what `toponeuro map` draws on the cortex -- the spin tests of "
        "the cortex maps (the shipped visfAtlas on fsaverage5 unless --cortex-maps), the "
        "spin draws of their arrangement, every cortex descriptor of the one ruler with its "
        "null -- with the job's own stages and settings, and keep it in the null cache "
        "($TOPONEURO_NULL_CACHE, else nulls/ in the cache root). The cortex side does not "
        "depend on the model: a later `toponeuro map` with the same cortex, ruler and "
        "--random-state settings reads it instead of drawing it, whatever the model mapped "
        "on the fLoc images. --language: the same for `toponeuro map --language` (its "
        "localizer, verb - noun items and their cortex maps). Entries already there are "
        "verified and kept. The vision job's needs no fLoc images; no output folder is "
        "written.",
    )
    p.add_argument("--language", action="store_true",
                   help="prepare the language job (`toponeuro map --language`) instead of "
                   "the vision job")
    lang = _stimuli_field("LanguageStimuli", "source")
    action = p.add_argument("--stimuli", default=None,
                            help="with --language: " + lang.metadata["help"])
    _library_default(action, lambda: (lang.default, ""))
    _add_verb_noun_args(p, language=False)
    add_settings_args(p, S.CortexInput)
    add_settings_args(p, S.NullSettings)
    add_settings_args(p, S.RulerRun)


def _run_prepare(args) -> int:
    from .. import settings as S
    from ..exceptions import InvalidDataError
    from ..reporting import prepare
    from ._settings import settings_from_args

    stimuli = None
    if args.language:
        source = args.stimuli or "langloc"
        if source != "langloc":
            _input_path(source, "--stimuli", "'langloc' or a localizer csv")
        verb_noun = args.verb_noun or "topolm"
        if verb_noun.lower() == "none":
            verb_noun = None
        elif verb_noun != "topolm":
            _input_path(verb_noun, "--verb-noun",
                        "'topolm', 'none' or a csv of verb and noun items")
        stimuli = S.LanguageStimuli(source, verb_noun=verb_noun)
    elif args.stimuli is not None or args.verb_noun is not None:
        raise InvalidDataError(
            "--stimuli and --verb-noun belong to the language job's prepare (--language): "
            "the vision job's cortex side needs no images. Add --language or drop them.")
    prepare("language" if args.language else "map", stimuli=stimuli,
            cortex=settings_from_args(args, S.CortexInput, vol_to_surf=_json_arg(
                getattr(args, "cortex.vol_to_surf"), "--vol-to-surf", example='{"radius": 2}')),
            null=settings_from_args(args, S.NullSettings),
            ruler=settings_from_args(args, S.RulerRun), verbose=1)
    return 0
