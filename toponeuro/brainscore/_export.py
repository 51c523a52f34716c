"""Write a TopoNet as a Brain-Score plugin folder (vision or language), optionally zipped."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import string
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from .. import exceptions as E
from .._io.fetch import sha256sum
from .._io.folder import MANIFEST, output_folder
from .._io.output import atomic_file
from .._util.constraints import MAPPING, HasAttributes
from .._util.docs import fill_doc
from .._util.frozen import validate_fields
from .._util.params import COUNT, Boolean, InstanceOf, Options, PathLike, Text, validate_params
from .._version import __version__
from ..exceptions import InputTypeError, InternalError, MissingDependencyError

if TYPE_CHECKING:
    from ..models import ModelCard


#: a model's card: a ModelCard, or any object with its fields
_CARD = HasAttributes(("name", "arch"), "a ModelCard (toponeuro.models.model_card)")

__all__ = [
    "BRAINSCORE_REGIONS",
    "LANGUAGE_REGIONS",
    "ExportedPlugin",
    "export_plugin",
    "known_plugin_names",
    "plugin_layers",
    "propose_region_layer_map",
]

#: The regions a brainscore-vision ``ModelCommitment`` commits layers to.
BRAINSCORE_REGIONS = ("V1", "V2", "V4", "IT")
#: The recording target a brainscore-language artificial subject commits a layer to.
LANGUAGE_REGIONS = ("language_system",)

_IDENTIFIER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}$")
_PLUGIN_ARCH = "toponet_arch.py"
_PLUGIN_NANOGPT = "toponet_nanogpt.py"
_IMAGENET_MEAN = (0.485, 0.456, 0.406)
_IMAGENET_STD = (0.229, 0.224, 0.225)


@dataclasses.dataclass(frozen=True)
@validate_fields({
    "identifier": Text(), "path": PathLike(), "zip_path": [PathLike(), None],
    "modality": Text(), "region_layer_map": MAPPING,
    "layers": InstanceOf(tuple, "a tuple of layer names", example=("layer4",)),
    "weights_url": Text(empty=True), "weights_sha256": Text(empty=True)})
class ExportedPlugin:
    """What :func:`export_plugin` wrote.

    Parameters
    ----------
    identifier : str
        The registry name (``load_model(identifier)`` in Brain-Score).
    path : pathlib.Path
        The plugin folder ``<out_dir>/models/<folder>``.
    zip_path : pathlib.Path or None
        The submission archive, when ``make_zip=True``.
    modality : {"vision", "language"}
        The plugin's Brain-Score registry (``brainscore_vision`` or ``brainscore_language``).
    region_layer_map : dict
        Region -> layer committed in the plugin.
    layers : tuple of str
        The layers the plugin lists (vision: ``ModelCommitment(layers=...)``).
    weights_url, weights_sha256 : str
        Where the plugin downloads its weights from, and their sha256 (checked on load).

    Examples
    --------
    >>> from pathlib import Path
    >>> p = ExportedPlugin("toponet_demo_v2_tau_50", Path("out/models/toponet_demo_v2_tau_50"),
    ...                    None, "vision", {"IT": "layer4.0"}, ("layer4.0",),
    ...                    "https://example.org/w.pt", "0" * 64)
    >>> p.path.name, p.region_layer_map["IT"]
    ('toponet_demo_v2_tau_50', 'layer4.0')
    """

    identifier: str
    path: Path
    zip_path: Path | None
    modality: str
    region_layer_map: dict
    layers: tuple
    weights_url: str
    weights_sha256: str

    @property
    def folder(self) -> str:
        """The plugin folder's name (``identifier`` made a valid Python module name)."""
        return self.path.name


# -- the model card ----------------------------------------------------------------------
def _resolve_card(model_name_or_card):
    if isinstance(model_name_or_card, str):
        try:
            from ..models import model_card
        except ImportError as err:  # the registry lands with the model-zoo issue
            raise MissingDependencyError(
                f"Exporting {model_name_or_card!r} by name needs toponeuro's model registry "
                "(toponeuro.models.model_card), which this install lacks; pass a ModelCard "
                "instead."
            ) from err
        return model_card(model_name_or_card)
    card = model_name_or_card
    missing = [f for f in ("name", "arch") if not hasattr(card, f)]
    if missing:
        raise InputTypeError(
            f"Expected a model name or a ModelCard; got {type(card).__name__} without "
            f"{missing}. Pass e.g. toponeuro.models.model_card('toponet_resnet18.tau_50')."
        )
    return card


def _get(card, field, default=None):
    value = getattr(card, field, default)
    return default if value is None else value


def _modality(card) -> str:
    modality = str(_get(card, "modality", "vision"))
    if modality not in ("vision", "language"):
        raise E.UnknownNameError(
            f"ModelCard {card.name!r} has modality {modality!r}; expected 'vision' or "
            f"'language' ({E.close_matches(modality, ('vision', 'language'))})."
        )
    return modality


def _image_size(card) -> int:
    size = _get(card, "input_size", 224)
    if isinstance(size, int):
        return size
    return int(tuple(size)[-1])


# -- names ---------------------------------------------------------------------------------
def _read_known(modality: str) -> tuple[set, set]:
    text = (resources.files(__package__) / f"known_plugins_{modality}.txt").read_text()
    ids, folders, current = set(), set(), None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line in ("[identifiers]", "[folders]"):
            current = ids if line == "[identifiers]" else folders
        elif current is not None:
            current.add(line)
    return ids, folders


@validate_params({"modality": Options(("vision", "language"), error=E.UnknownNameError)})
def known_plugin_names(modality: str = "vision") -> dict:
    """Model identifiers and plugin folders that Brain-Score already has.

    Read from the released brainscore-vision 2.4.2 / brainscore-language 2.3.0 wheels
    (shipped with toponeuro as a list) and, when ``brainscore_vision`` /
    ``brainscore_language`` is importable here, from its ``models`` folder as installed.

    Parameters
    ----------
    modality : {"vision", "language"}

    Returns
    -------
    dict
        ``{"identifiers": set, "folders": set}``: the registered names and plugin folders.

    Examples
    --------
    >>> names = known_plugin_names("vision")
    >>> "alexnet" in names["identifiers"], "alexnet" in names["folders"]
    (True, True)
    """
    ids, folders = _read_known(modality)
    try:
        lib = __import__(f"brainscore_{modality}")
    except Exception:  # noqa: BLE001 - not installed here (the usual case)
        lib = None
    if lib is not None:
        models = Path(lib.__file__).parent / "models"
        for d in models.iterdir() if models.is_dir() else ():
            if not d.is_dir() or d.name.startswith(("_", ".")):
                continue
            if (d / "toponeuro_export.json").is_file():
                continue  # one of ours, installed earlier
            folders.add(d.name)
            init = d / "__init__.py"
            if init.is_file():
                for m in re.finditer(r"model_registry\[['\"]([^'\"]+)['\"]\]", init.read_text()):
                    ids.add(m.group(1))
    return {"identifiers": ids, "folders": folders}


def _folder_name(identifier: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", identifier)


def _default_identifier(card) -> str:
    base = str(card.name).replace(".", "_")
    return base if base.lower().startswith("toponet") else f"toponet_{base}"


def _check_identifier(identifier: str, modality: str) -> str:
    if not _IDENTIFIER_RE.match(identifier):
        raise E.InvalidDataError(
            f"Plugin identifier {identifier!r} is not usable: expected 1-100 characters from "
            "letters, digits, '_', '.', '-', starting with a letter or digit. Pass "
            "identifier='my_toponet' (for example)."
        )
    known = known_plugin_names(modality)
    folder = _folder_name(identifier)
    if identifier in known["identifiers"] or folder in known["folders"]:
        what = "model identifier" if identifier in known["identifiers"] else "plugin folder"
        raise E.NameClashError(
            f"Identifier {identifier!r} clashes with an existing brainscore-{modality} "
            f"{what}; Brain-Score requires unique names. Pass another identifier, e.g. "
            f"identifier={identifier + '_toponet'!r}."
        )
    return identifier


# -- layers ----------------------------------------------------------------------------------
def _arch_module():
    from . import _plugin_arch

    return _plugin_arch


def _build_skeleton(card):
    """The architecture with random weights: enough to list and check layer names."""
    arch = _arch_module()
    if _modality(card) == "language":
        from . import _plugin_nanogpt

        return _plugin_nanogpt.NanoGPT(vocab_size=64, block_size=8, n_layer=_n_layer(card),
                                       n_head=1, n_embd=8)
    try:
        key = arch.normalize_arch(card.arch)
    except KeyError:
        raise E.UnknownNameError(
            f"No Brain-Score export for architecture {card.arch!r} of {card.name!r}; "
            f"supported: {sorted(arch.ARCHITECTURES)} "
            f"({E.close_matches(str(card.arch), arch.ARCHITECTURES)})."
        ) from None
    kwargs = {"num_classes": int(_get(card, "num_classes", 10 if key == "small_resnet" else 1000))}
    if key == "vit_b_32":
        kwargs["image_size"] = _image_size(card)
    return arch.ARCHITECTURES[key](**kwargs)


def _n_layer(card) -> int:
    layers = [str(x) for x in _get(card, "topo_layers", ())]
    found = [int(m.group(1)) for x in layers if (m := re.search(r"transformer\.h\.(\d+)", x))]
    return int(_get(card, "n_layer", 0)) or (max(found) + 1 if found else 12)


@validate_params(dict(card=_CARD))
@fill_doc
def plugin_layers(card) -> tuple[str, ...]:
    """The layers an exported plugin lists for ``ModelCommitment`` (vision) or may commit
    (language): block outputs, the card's topographic layers, and the readout.

    Parameters
    ----------
    %(export_card)s

    Returns
    -------
    tuple of str
        Module names, in the model's order.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> card = SimpleNamespace(name="small_resnet.demo", arch="small_resnet", num_classes=10)
    >>> plugin_layers(card)
    ('conv1', 'layer1.0', 'layer2.0', 'layer3.0', 'layer4.0', 'avgpool', 'fc')
    """
    model = _build_skeleton(card)
    names = [n for n, _ in model.named_modules() if n]
    order = {n: i for i, n in enumerate(names)}
    wanted: list[str] = []
    if _modality(card) == "language":
        wanted = [n for n in names if re.fullmatch(r"transformer\.h\.\d+", n)]
    elif "encoder.layers" in order:  # ViT
        wanted = ["conv_proj"] + [n for n in names if re.fullmatch(
            r"encoder\.layers\.encoder_layer_\d+", n)] + ["encoder.ln", "heads"]
    else:  # ResNets
        wanted = ["conv1"] + [n for n in names if re.fullmatch(r"layer\d\.\d+", n)]
        wanted += ["avgpool", "fc"]
    wanted += [str(x) for x in _get(card, "topo_layers", ()) if str(x) in order]
    return tuple(sorted(set(wanted), key=order.__getitem__))


def _readout_layer(layers) -> str:
    for name in ("avgpool", "encoder.ln"):
        if name in layers:
            return name
    return layers[-1]


@validate_params(dict(card=_CARD))
@fill_doc
def propose_region_layer_map(card) -> dict:
    """Propose a region -> layer commitment from a model card.

    Vision: V1, V2, V4 and IT take the output of the last block of stages 1, 2, 3 and 4 of
    a ResNet, or of transformer blocks 2, 4, 7 and 11 (of 12) of a ViT. Language: the
    language system takes the block holding the card's last topographic layer (else the
    last block). These are starting points; Brain-Score's own layer selection (which needs
    its public data) or your own analysis may pick better ones.

    Parameters
    ----------
    %(export_card)s

    Returns
    -------
    dict
        Brain-Score region (``V1``, ``V2``, ``V4``, ``IT``; ``language_system``) -> layer.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> card = SimpleNamespace(name="small_resnet.demo", arch="small_resnet", num_classes=10)
    >>> propose_region_layer_map(card)
    {'V1': 'layer1.0', 'V2': 'layer2.0', 'V4': 'layer3.0', 'IT': 'layer4.0'}
    """
    layers = plugin_layers(card)
    if _modality(card) == "language":
        blocks = [x for x in layers if re.fullmatch(r"transformer\.h\.\d+", x)]
        topo = [m.group(0) for x in _get(card, "topo_layers", ())
                if (m := re.match(r"transformer\.h\.\d+", str(x)))]
        return {"language_system": topo[-1] if topo else blocks[-1]}
    vit = [x for x in layers if re.fullmatch(r"encoder\.layers\.encoder_layer_\d+", x)]
    if vit:
        n = len(vit)
        picks = [round(f * (n - 1)) for f in (1 / 11, 3 / 11, 6 / 11, 10 / 11)]
        return dict(zip(BRAINSCORE_REGIONS, (vit[i] for i in picks)))
    stages = {}
    for x in layers:
        m = re.fullmatch(r"layer(\d)\.\d+", x)
        if m:
            stages[int(m.group(1))] = x  # keeps the last block of each stage
    return dict(zip(BRAINSCORE_REGIONS, (stages[i] for i in sorted(stages)[:4])))


def _check_region_layer_map(card, region_layer_map, modality) -> dict:
    regions = LANGUAGE_REGIONS if modality == "language" else BRAINSCORE_REGIONS
    proposed = propose_region_layer_map(card)
    if region_layer_map is None:
        return proposed
    if not isinstance(region_layer_map, Mapping):
        raise InputTypeError(
            f"region_layer_map must be a dict region -> layer; got "
            f"{type(region_layer_map).__name__}. Example: {proposed}"
        )
    all_layers = [n for n, _ in _build_skeleton(card).named_modules() if n]
    out = dict(proposed)
    for region, layer in region_layer_map.items():
        if region not in regions:
            raise E.UnknownNameError(
                f"Unknown region {region!r} in region_layer_map; Brain-Score "
                f"{modality} commits layers to {regions} "
                f"({E.close_matches(str(region), regions)})."
            )
        for one in [layer] if isinstance(layer, str) else list(layer):
            if one not in all_layers:
                raise E.UnknownNameError(
                    f"Layer {one!r} (region {region!r}) is not a module of {card.name!r} "
                    f"({card.arch}); {E.close_matches(str(one), all_layers)} "
                    f"Use a name from model.named_modules(), e.g. {proposed.get(region)!r}."
                )
        out[region] = layer if isinstance(layer, str) else list(layer)
    return out


# -- weights ---------------------------------------------------------------------------------
def _local_path(url: str) -> Path | None:
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        return Path(urllib.request.url2pathname(parsed.path))
    return None


def _weights(card, weights_url, sha256):
    url = weights_url or getattr(card, "url", None)
    if not url:
        shipped = ""
        if _get(card, "package_path"):  # the demo TopoNets: weights inside the package
            from ..models import package_file

            try:
                local = package_file(card.package_path)
            except E.ToponeuroError:
                local = card.package_path
            shipped = (f" Its weights ship inside toponeuro ({local}); Brain-Score downloads "
                       "a plugin's weights when it loads it, so host a copy of that file.")
        raise E.InvalidDataError(
            f"ModelCard {card.name!r} has no download URL.{shipped} Pass "
            "weights_url='https://...' (or a file:// URL for a local test)."
        )
    sha = sha256 or _get(card, "sha256")
    local = _local_path(url)
    if local is not None:
        if not local.is_file():
            raise E.MissingFileError(
                f"weights_url {url!r} points to {local}, which does not exist."
            )
        got = sha256sum(local)
        if sha and got != sha:
            raise E.ChecksumError(
                f"{local} has sha256 {got}, but {sha} was expected; export the file you "
                "meant, or pass its hash as sha256=."
            )
        sha = got
    if not sha:
        raise E.ChecksumError(
            f"No sha256 is known for {url}; the plugin verifies its download, so pass "
            "sha256='<64 hex digits>' (toponeuro._io.fetch.sha256sum(path) computes it)."
        )
    filename = _get(card, "filename") or Path(urllib.parse.urlparse(url).path).name or "weights.pt"
    return url, sha, Path(str(filename)).name


# -- writing ---------------------------------------------------------------------------------
def _template(name: str) -> string.Template:
    return string.Template((resources.files(__package__) / "templates" / name).read_text())


def _source(name: str) -> str:
    return (resources.files(__package__) / name).read_text()


#: the line of _plugin_arch.py that the exporter replaces by the standalone module's body
_INLINE_MARKER = (
    "from toponeuro.models._standalone import (  # inlined by the exporter\n"
    "    BlurPoolConv2d,\n"
    "    SmallResNet,\n"
    "    add_blurpool,\n"
    "    strip_wrapper_prefixes,\n"
    ")\n"
)


def _plugin_arch_source() -> str:
    """``_plugin_arch.py`` with :mod:`toponeuro.models._standalone` inlined: self-contained."""
    arch = _source("_plugin_arch.py")
    if _INLINE_MARKER not in arch:
        raise InternalError("toponeuro/brainscore/_plugin_arch.py lost its inline marker line")
    standalone = (resources.files("toponeuro.models") / "_standalone.py").read_text()
    body = [
        line
        for line in standalone.splitlines(keepends=True)
        if not line.startswith(("from __future__", "__all__"))
    ]
    block = "# --- inlined from toponeuro.models._standalone ---\n" + "".join(body).strip() + "\n"
    return arch.replace(_INLINE_MARKER, "\n" + block + "# --- end of inlined block ---\n")


def _bibtex(card) -> str:
    cite = str(_get(card, "citation", "")).strip()
    if cite.startswith("@"):
        return cite
    note = cite.replace("{", "(").replace("}", ")") or "TopoNet exported by toponeuro"
    key = re.sub(r"\W", "", str(card.name)) or "toponet"
    return f"@misc{{{key},\n  title = {{{card.name}}},\n  note = {{{note}}}\n}}"


def _yaml_scalar(value) -> str:
    return json.dumps(value)  # a JSON scalar is valid YAML


def _metadata_yaml(card, identifier, modality, url, sha) -> str:
    model = card.name
    lines = [
        "schema_version: '2.0'",
        f"domain: {modality}",
        "models:",
        f"  {_yaml_scalar(identifier)}:",
        "    model:",
        f"      display_name: {_yaml_scalar(identifier)}",
        f"      version: {_yaml_scalar(str(_get(card, 'tag', '')))}",
        "      architecture:",
        f"        family: {_yaml_scalar(str(card.arch))}",
        f"        description: {_yaml_scalar(str(_get(card, 'description', '')))}",
        "      recurrent: false",
    ]
    if modality == "vision":
        size = _image_size(card)
        lines += ["      input_resolution:", "        channels: 3",
                  f"        height: {size}", f"        width: {size}"]
    lines += [
        "    training:",
        f"      objective: {_yaml_scalar('task loss + TopoLoss (topographic TopoNet)')}",
        f"      topoloss_tau: {_yaml_scalar(_get(card, 'tau'))}",
        f"      topographic_layers: {_yaml_scalar([str(x) for x in _get(card, 'topo_layers', ())])}",
        "    io:",
        f"      modality: {'image' if modality == 'vision' else 'text'}",
        "    provenance:",
        f"      weights_provider: {_yaml_scalar(str(_get(card, 'hub_repo', 'toponeuro')))}",
        f"      checkpoint: {_yaml_scalar(url)}",
        f"      checkpoint_sha256: {_yaml_scalar(sha)}",
        f"      exported_by: {_yaml_scalar('toponeuro ' + __version__)}",
        f"      toponeuro_model: {_yaml_scalar(model)}",
        "    legal:",
        f"      license: {_yaml_scalar(str(_get(card, 'license', 'unknown')))}",
    ]
    return "\n".join(lines) + "\n"


def _card_dict(card) -> dict:
    fields = ("name", "arch", "tag", "hub_repo", "filename", "sha256", "checkpoint_format", "tau",
              "modality", "input_size", "mean", "std", "topo_layers", "num_classes", "license",
              "citation", "description")
    out = {}
    for f in fields:
        v = getattr(card, f, None)
        out[f] = list(v) if isinstance(v, tuple) else v
    return json.loads(json.dumps(out, default=str))


def _write_submission_zip(plugin_dir: Path, zip_path: Path) -> Path:
    """``<folder>/models/<folder>/...`` with explicit directory entries.

    The layout brain-score.org's upload form checks (``validate_zip`` in brain-score.web):
    one root folder, holding a ``models`` folder (a directory entry two levels deep), whose
    plugin folder holds ``__init__.py`` and ``test.py``. Brain-Score's Jenkins then takes
    the single root folder of the archive as the submission.
    """
    folder = plugin_dir.name
    root = f"{folder}/"
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
        base = f"{root}models/{folder}/"
        for d in (root, f"{root}models/", base):
            zf.mkdir(d)
        for f in sorted(plugin_dir.rglob("*")):
            if "__pycache__" in f.parts or f.name == MANIFEST:
                continue
            arc = base + f.relative_to(plugin_dir).as_posix()
            if f.is_dir():
                zf.mkdir(arc + "/")
            else:
                zf.write(f, arc)
    return zip_path


def _all_layers(card, mapping: Mapping) -> list[str]:
    """The plugin's layers: the card's, then any the region map commits to beyond them."""
    layers = list(plugin_layers(card))
    for layer in mapping.values():
        for one in [layer] if isinstance(layer, str) else layer:
            if one not in layers:
                layers.append(one)
    return layers


def _legacy_plugin(folder: Path) -> tuple[str, ...] | None:
    """The names a plugin folder exported before manifests (0.3) holds, when it is one."""
    if not (folder / "toponeuro_export.json").is_file():
        return None
    return ("__init__.py", "model.py", "test.py", "requirements.txt", "region_layer_map",
            "metadata.yaml", "toponeuro_export.json", _PLUGIN_ARCH, _PLUGIN_NANOGPT,
            "__pycache__")


def _plugin_folder(path: Path, overwrite: bool):
    """The plugin folder at ``path``, written aside and moved into place (the writer's
    :func:`~toponeuro._io.folder.output_folder`): an existing export is replaced only
    with ``overwrite`` and only when it holds nothing but toponeuro's files."""
    return output_folder(path, overwrite=overwrite, kind="brainscore-plugin", param="out_dir",
                         legacy=_legacy_plugin)


def _write_vision_files(path: Path, card, subs: dict, identifier: str, mapping, layers) -> None:
    """brainscore-vision's files: ``__init__``, ``model``, ``test``, requirements, region map."""
    arch = _arch_module().normalize_arch(card.arch)
    subs = dict(
        subs,
        arch_repr=repr(arch),
        arch_kwargs_repr=repr({"image_size": _image_size(card)} if arch == "vit_b_32" else {}),
        image_size_repr=repr(_image_size(card)),
        mean_repr=repr(tuple(float(x) for x in _get(card, "mean", _IMAGENET_MEAN))),
        std_repr=repr(tuple(float(x) for x in _get(card, "std", _IMAGENET_STD))),
        readout_repr=repr(_readout_layer(layers)),
    )
    for name in ("__init__", "model", "test"):
        (path / f"{name}.py").write_text(_template(f"vision_{name.strip('_')}.py.tmpl")
                                         .substitute(subs))
    (path / "requirements.txt").write_text("torch\ntorchvision\n")
    rlm = path / "region_layer_map"
    rlm.mkdir()
    (rlm / f"{identifier}.json").write_text(json.dumps(mapping, indent=2) + "\n")


def _write_language_files(path: Path, subs: dict, mapping, *, n_head, tokenizer) -> None:
    """brainscore-language's files: the NanoGPT module, ``__init__``, ``model``, ``test``."""
    subs = dict(
        subs, n_head_repr=repr(n_head), tokenizer_repr=repr(tokenizer),
        region_layer_map_repr=repr(mapping), language_layer=mapping["language_system"],
    )
    (path / _PLUGIN_NANOGPT).write_text(_source("_plugin_nanogpt.py"))
    for name in ("__init__", "model", "test"):
        (path / f"{name}.py").write_text(_template(f"language_{name.strip('_')}.py.tmpl")
                                         .substitute(subs))
    (path / "requirements.txt").write_text("torch\ntransformers\n")


@validate_params({"make_zip": Boolean(), "n_head": [COUNT, None], "tokenizer": Text(), "overwrite": Boolean()})
def export_plugin(
    model_name_or_card: str | ModelCard,
    out_dir: str | os.PathLike,
    region_layer_map: Mapping[str, str] | None = None,
    make_zip: bool = False,
    weights_url: str | None = None,
    identifier: str | None = None,
    *,
    sha256: str | None = None,
    n_head: int | None = None,
    tokenizer: str = "gpt2",
    overwrite: bool = False,
) -> ExportedPlugin:
    """Write a TopoNet as a Brain-Score model plugin, ``<out_dir>/models/<identifier>/``.

    Vision TopoNets become brainscore-vision 2.4.2 plugins: ``__init__.py`` registers
    ``model_registry['<identifier>']`` as a ``ModelCommitment``; ``model.py`` builds the
    network inside a ``PytorchWrapper`` with the card's image size and mean/std and lists
    the layers; ``region_layer_map/<identifier>.json`` commits V1, V2, V4 and IT to layers;
    plus ``requirements.txt``, ``test.py``, ``metadata.yaml`` and ``toponeuro_export.json``.
    Language TopoNets (NanoGPT) become brainscore-language artificial subjects whose
    language system is read out from one block. The plugin is self-contained: the
    architecture code (``toponet_arch.py``) is copied in, and the weights are downloaded
    from ``weights_url`` and checked against their sha256 at load time.

    Parameters
    ----------
    model_name_or_card : str or ModelCard
        A registered model name (``arch.tag``) or a ModelCard-like object with ``name``,
        ``arch``, ``modality``, ``input_size``, ``mean``, ``std``, ``topo_layers``, ``url``,
        ``sha256`` ...
    out_dir : path-like
        Folder to write ``models/<folder>/`` (and the zip) into.
    region_layer_map : dict, optional
        Region -> layer name (or list of names). Vision regions: ``V1``, ``V2``, ``V4``,
        ``IT``; language: ``language_system``. Regions left out take the proposal of
        :func:`propose_region_layer_map`.
    make_zip : bool
        Also write ``<out_dir>/<folder>.zip`` holding ``<folder>/models/<folder>/...``
        (with directory entries), the archive brain-score.org's submission form takes.
    weights_url : str, optional
        Where the plugin downloads the weights (default: the card's URL). ``file://`` URLs
        work for local tests; the file's sha256 is then computed here.
    identifier : str, optional
        Registry name in Brain-Score (default ``toponet_<arch>_<tag>``). Must not clash with
        an existing Brain-Score model.
    sha256 : str, optional
        The weights' sha256 when the card does not know it.
    n_head : int, optional
        Language only: attention heads (default ``n_embd // 64``).
    tokenizer : str
        Language only: the Hugging Face tokenizer the subject loads (GPT-2 BPE by default).
    overwrite : bool
        Replace an existing plugin folder of the same name in ``out_dir``.

    Returns
    -------
    ExportedPlugin
        The identifier, the folder and archive written, the committed layers.

    Raises
    ------
    toponeuro.exceptions.UnknownNameError
        A region or layer in ``region_layer_map`` does not exist (close matches listed).
    toponeuro.exceptions.NameClashError
        ``identifier`` is already a Brain-Score model or plugin folder.
    toponeuro.exceptions.ChecksumError
        No sha256 is known for the weights, or a local file does not match it.

    Examples
    --------
    >>> import tempfile, torch
    >>> from types import SimpleNamespace
    >>> from toponeuro.models import SmallResNet
    >>> tmp = tempfile.mkdtemp()
    >>> torch.save(SmallResNet(num_classes=10).state_dict(), f"{tmp}/w.pt")
    >>> card = SimpleNamespace(name="small_resnet.demo", arch="small_resnet", tag="demo",
    ...                        modality="vision", input_size=(3, 64, 64), num_classes=10,
    ...                        mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25), topo_layers=(),
    ...                        url=None, sha256=None, filename="w.pt")
    >>> plugin = export_plugin(card, tmp, weights_url=f"file://{tmp}/w.pt")
    >>> plugin.identifier, plugin.region_layer_map["IT"]
    ('toponet_small_resnet_demo', 'layer4.0')
    >>> sorted(p.name for p in plugin.path.iterdir())  # doctest: +NORMALIZE_WHITESPACE
    ['.toponeuro-output.json', '__init__.py', 'metadata.yaml', 'model.py', 'region_layer_map', 'requirements.txt',
     'test.py', 'toponet_arch.py', 'toponeuro_export.json']
    """
    card = _resolve_card(model_name_or_card)
    modality = _modality(card)
    identifier = _check_identifier(identifier or _default_identifier(card), modality)
    folder = _folder_name(identifier)
    mapping = _check_region_layer_map(card, region_layer_map, modality)
    layers = _all_layers(card, mapping)
    url, sha, filename = _weights(card, weights_url, sha256)

    out_dir = Path(out_dir)
    final = out_dir / "models" / folder
    with _plugin_folder(final, overwrite) as written:
        _write_plugin_files(written.path, card, identifier, folder, modality, mapping, layers,
                            url, sha, filename, n_head=n_head, tokenizer=tokenizer)
    path = final
    zip_path = None
    if make_zip:
        zip_path = out_dir / f"{folder}.zip"
        with atomic_file(zip_path) as tmp:
            _write_submission_zip(path, tmp)
    return ExportedPlugin(
        identifier=identifier, path=path, zip_path=zip_path, modality=modality,
        region_layer_map=mapping, layers=tuple(layers), weights_url=url, weights_sha256=sha,
    )


def _write_plugin_files(path: Path, card, identifier, folder, modality, mapping, layers, url,
                        sha, filename, *, n_head, tokenizer) -> None:
    subs = dict(
        model_name=card.name, version=__version__, identifier=identifier, dirname=folder,
        identifier_repr=repr(identifier), url_repr=repr(url), sha256_repr=repr(sha),
        filename_repr=repr(filename), layers_repr=repr(layers), bibtex_repr=repr(_bibtex(card)),
    )
    (path / _PLUGIN_ARCH).write_text(_plugin_arch_source())
    if modality == "vision":
        _write_vision_files(path, card, subs, identifier, mapping, layers)
    else:
        _write_language_files(path, subs, mapping, n_head=n_head, tokenizer=tokenizer)
    (path / "metadata.yaml").write_text(_metadata_yaml(card, identifier, modality, url, sha))
    provenance = {
        "identifier": identifier, "folder": folder, "modality": modality,
        "region_layer_map": mapping, "layers": layers, "weights_url": url,
        "weights_sha256": sha, "toponeuro_version": __version__, "model_card": _card_dict(card),
    }
    (path / "toponeuro_export.json").write_text(json.dumps(provenance, indent=2) + "\n")
