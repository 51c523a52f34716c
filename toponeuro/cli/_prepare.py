"""``toponeuro prepare``: draw the cortex side of ``toponeuro map`` once, into the null cache."""

from __future__ import annotations

from ._checks import _json_arg
from ._common import _parser


def _add_prepare(sub):
    from .. import settings as S
    from ._settings import add_settings_args

    p = _parser(
        sub,
        "prepare",
        help="draw the cortex side of `toponeuro map` once (after installing), so its first "
        "run reads it",
        description="Compute what `toponeuro map` draws on the cortex -- the spin tests of "
        "the cortex maps (the shipped visfAtlas on fsaverage5 unless --cortex-maps), the "
        "spin draws of their arrangement, every cortex descriptor of the one ruler with its "
        "null -- with the job's own stages and settings, and keep it in the null cache "
        "($TOPONEURO_NULL_CACHE, else nulls/ in the cache root). The cortex side does not "
        "depend on the model: a later `toponeuro map` with the same cortex settings and "
        "--random-state reads it instead of drawing it, whatever the model mapped on the fLoc "
        "images. Entries already there are verified and kept. No fLoc images are needed and "
        "no output folder is written.",
    )
    add_settings_args(p, S.CortexInput)
    add_settings_args(p, S.NullSettings, skip=("n_permutations",))
    add_settings_args(p, S.RulerRun)


def _run_prepare(args) -> int:
    from .. import settings as S
    from ..reporting import prepare
    from ._settings import settings_from_args

    prepare(cortex=settings_from_args(args, S.CortexInput, vol_to_surf=_json_arg(
                getattr(args, "cortex.vol_to_surf"), "--vol-to-surf", example='{"radius": 2}')),
            null=settings_from_args(args, S.NullSettings),
            ruler=settings_from_args(args, S.RulerRun), verbose=1)
    return 0
