"""``toponeuro brainscore export`` / ``score``."""

from __future__ import annotations

import argparse
import re
import sys

from .. import exceptions as E
from .._io.output import check_output_file, read_json, write_text
from ._checks import (
    _input_path,
    _json_arg,
    _out_file,
    _out_folder,
)
from ._common import _model_args, _model_of, _parser


def _add_brainscore(sub):
    p = _parser(
        sub,
        "brainscore",
        help="export a TopoNet as a Brain-Score plugin; score it locally with Brain-Score",
        description="Brain-Score integration. `export` writes a self-contained plugin folder "
        "(and --zip, the archive the Brain-Score website takes); `score` runs brainscore-vision "
        "itself (in its own environment, offline) on your stimuli and brain responses.",
    )
    bs = p.add_subparsers(dest="brainscore_command", metavar="ACTION")
    e = _parser(bs, "export", help="write models/<identifier>/ for brainscore-vision/-language",
                description="Write a Brain-Score plugin folder for a registered model (or a "
                "card given as JSON).")
    _model_args(e, required=False, positional=True,
                need="MODEL, --model or --card is required")
    e.add_argument("--card", help="JSON file of ModelCard fields (required instead of a model "
                   "name when the model is not registered)")
    e.add_argument("--out", required=True, help="output folder (models/<identifier>/ inside)")
    e.add_argument("--region-layer-map",
                   help="JSON object or file: region -> layer (default: chosen from the card)")
    e.add_argument("--zip", action="store_true", help="also write <identifier>.zip to submit")
    e.add_argument("--weights-url",
                   help="URL the plugin downloads the weights from (default: the card's)")
    e.add_argument("--sha256", help="sha256 of the weights, 64 hex digits (default: the card's)")
    e.add_argument("--identifier", help="Brain-Score registry name (default: toponet_<name>)")
    e.add_argument("--overwrite", action="store_true", help="replace an existing plugin folder")
    s = _parser(bs, "score", help="score an exported plugin with brainscore-vision locally",
                description="Score an exported plugin with brainscore-vision's own metrics on "
                "your stimuli and responses (or a benchmark folder), next to toponeuro's "
                "scores of the same data.")
    s.add_argument("--plugin", required=True, help="plugin folder written by `export`")
    s.add_argument("--metrics", nargs="+", default=["pls", "ridge", "rdm"], type=_metric_arg,
                   choices=["pls", "ridge", "rdm"], metavar="METRIC",
                   help="metrics to run: pls ridge rdm")
    # 0.3's spelling, refused with its replacement named (not listed in --help)
    s.add_argument("--images", nargs="?", action=_Renamed, help=argparse.SUPPRESS)
    for flag, text in [
        ("--benchmark", "folder written by write_brainscore_benchmark (default: build one from "
         "--responses and --stimuli)"),
        ("--responses", "BrainResponses netCDF file (stimulus x voxel); required without "
         "--benchmark"),
        ("--stimuli", "image folder (recursive); ids are file names without suffix, categories "
         "their sub-folders; required without --benchmark"),
        ("--python", "python of the Brain-Score environment (default: "
         "$TOPONEURO_BRAINSCORE_PYTHON)"),
        ("--regions", "one region for all voxels (e.g. IT) or a JSON object roi -> region "
         "(default: each voxel's roi coord, by toponeuro's ROI table)"),
        ("--work-dir", "keep the files and result.json here (default: a temporary folder)"),
        ("--json", "also write the score table as JSON to this file (default: print it only)"),
    ]:
        s.add_argument(flag, help=text)
    s.add_argument("--overwrite", action="store_true",
                   help="replace an existing --json file written by toponeuro; files "
                   "toponeuro did not write are never replaced")
    s.add_argument("--no-toponeuro", action="store_true",
                   help="skip toponeuro's own scores (the 'toponeuro' column) on the same data")


def _metric_arg(text):
    if "," in text:
        spaced = " ".join(t for t in text.split(",") if t)
        raise argparse.ArgumentTypeError(
            f"{text!r}: metrics are separated by spaces, not commas; write --metrics {spaced}"
        )
    return text


class _Renamed(argparse.Action):
    """``brainscore score --images DIR``: renamed ``--stimuli DIR`` in 0.3; a usage error."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} was renamed --stimuli; write --stimuli {values or 'DIR'}")


#: the columns of the score table (:func:`~toponeuro.brainscore.score_with_brainscore`)
_SCORE_KEYS = {"region", "metric", "layer", "raw", "ceiling", "score"}


def _is_score_table(path) -> bool:
    """The file is a score table written by ``brainscore score --json`` (a JSON list of
    records with the table's columns)."""
    rows = read_json(path)
    return (isinstance(rows, list) and bool(rows)
            and all(isinstance(r, dict) and _SCORE_KEYS <= r.keys() for r in rows))


def _sha256_arg(text):
    if text is None:
        return None
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text.strip()):
        from ..exceptions import InvalidDataError

        raise InvalidDataError(
            f"--sha256 {text!r} is not a sha256 digest: expected 64 hex digits, got "
            f"{len(text.strip())} characters. Compute it with `sha256sum FILE`."
        )
    return text.strip().lower()


def _run_brainscore(args) -> int:
    from types import SimpleNamespace

    from ..brainscore import export_plugin, score_with_brainscore

    if args.brainscore_command == "export":
        model = _model_of(args, "brainscore export")
        if bool(model) == bool(args.card):
            print("toponeuro brainscore export: give a MODEL name or --card FILE", file=sys.stderr)
            return 2
        out = _out_folder(args.out)
        sha = _sha256_arg(args.sha256)
        rlm = _json_arg(args.region_layer_map, "--region-layer-map")
        if args.card:
            fields = _json_arg(args.card, "--card", allow_inline=False,
                               example='{"name": "my_net.tau_5", "arch": "resnet18", ...}')
            absent = [k for k in ("name", "arch") if k not in fields]
            if absent:
                from ..exceptions import InvalidDataError

                raise InvalidDataError(
                    f"--card {args.card} lacks the ModelCard fields {absent}; it needs at least "
                    "name and arch (and where the weights are: hub_repo and filename, or "
                    "--weights-url)."
                )
            model = SimpleNamespace(**fields)
        plugin = export_plugin(
            model, out, region_layer_map=rlm, make_zip=args.zip, weights_url=args.weights_url,
            identifier=args.identifier, sha256=sha, overwrite=args.overwrite,
        )
        print(f"wrote {plugin.path} ({plugin.modality} plugin {plugin.identifier!r}); "
              f"regions -> layers: {plugin.region_layer_map}")
        if plugin.zip_path:
            print(f"submission archive: {plugin.zip_path}")
        return 0
    if args.brainscore_command == "score":
        import numpy as np
        import xarray as xr

        from ..stimuli import load_image_folder

        stimuli = responses = None
        _input_path(args.plugin, "--plugin", "a plugin folder written by `export`")
        if args.benchmark is None:
            if not (args.responses and args.stimuli):
                print("toponeuro brainscore score: give --benchmark DIR, or --responses FILE "
                      "and --stimuli DIR", file=sys.stderr)
                return 2
            resp = _input_path(args.responses, "--responses", "a BrainResponses netCDF file")
            folder = _input_path(args.stimuli, "--stimuli", "an image folder")
            try:
                responses = xr.load_dataarray(resp)
            except (ValueError, OSError) as err:  # not netCDF, or several variables
                raise E.InvalidDataError(
                    f"--responses {resp} is not a BrainResponses netCDF file holding one "
                    f"(stimulus x voxel) variable ({str(err).splitlines()[0][:200]}); save the "
                    "responses DataArray with responses.to_netcdf(path) and pass that file."
                ) from err
            found = load_image_folder(folder, "folder", ids="stem")
            keep = np.isin(found.ids, responses["stimulus_id"].values.astype(str))
            stimuli = found[keep]
            print(f"{len(stimuli)} of {len(found)} images in {folder} have responses")
        else:
            _input_path(args.benchmark, "--benchmark", "a benchmark folder")
        json_out = None
        if args.json:  # the one writer's rule, as extract --out: never a file it did not write
            _out_file(args.json, "--json")
            json_out = check_output_file(
                args.json, param="json", suffixes=(".json",), overwrite=args.overwrite,
                inputs=[args.plugin, args.benchmark, args.responses, args.stimuli],
                is_ours=_is_score_table, what="JSON score table")
        regions = args.regions
        if regions and regions.strip().startswith("{"):
            regions = _json_arg(regions, "--regions", example='{"FFA": "IT", "V1v": "V1"}')
        table = score_with_brainscore(
            args.plugin, stimuli, responses, benchmark=args.benchmark, python=args.python,
            metrics=tuple(dict.fromkeys(args.metrics)), regions=regions,
            work_dir=args.work_dir, compare=None if args.no_toponeuro else "toponeuro",
        )
        print(table.to_string(index=False))
        if json_out is not None:  # atomic, and never through a link at that name
            write_text(json_out, table.to_json(orient="records", indent=2))
        return 0
    print("toponeuro brainscore: give an action, export or score (see --help)", file=sys.stderr)
    return 2
