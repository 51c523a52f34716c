"""``extract``: run stimuli through a model and read chosen layers as sheet-organised units."""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from .._util import dims as D
from .._util.docs import fill_doc
from .._util.params import Boolean, Callable, Interval, Options, validate_params
from .._version import __version__
from ..exceptions import (
    InputTypeError,
    InvalidDataError,
    UnknownNameError,
    UnsupportedLayerError,
    close_matches,
    first_few,
)
from ..sheet import make_activations, set_unit_positions, sheet_positions
from ._stimuli import as_stimuli
from ._store import ActivationStore, cache_key

__all__ = ["extract", "POOLINGS", "TOKEN_POOLINGS"]

#: spatial pooling of conv feature maps (``None`` keeps every (channel, y, x) unit)
POOLINGS = ("mean", "max", "center", None)
#: pooling over tokens of transformer layers
TOKEN_POOLINGS = ("mean", "first", "last")


# --- model -----------------------------------------------------------------------------
def _resolve_model(model):
    from torch import nn

    from ..models import ModelCard, create_model, model_card

    if isinstance(model, str):
        card = model_card(model)
        module = create_model(model, pretrained=card.has_weights)
    elif (
        isinstance(model, (tuple, list))
        and len(model) == 2
        and isinstance(model[0], nn.Module)
        and (model[1] is None or isinstance(model[1], ModelCard))
    ):
        module, card = model
    elif isinstance(model, nn.Module):
        module, card = model, getattr(model, "model_card", None)
    else:
        raise InputTypeError(
            f"model must be a registered name, an nn.Module or a (module, ModelCard) pair; got "
            f"{type(model).__name__}."
        )
    name = card.name if card is not None else type(module).__name__
    return module, card, name


def _state_digest(module) -> str:
    """sha256 over every tensor of the state dict (names, shapes, dtypes, values)."""
    import torch

    h = hashlib.sha256()
    for k, v in module.state_dict().items():
        t = v.detach().cpu().contiguous()
        h.update(f"{k}:{tuple(t.shape)}:{t.dtype}".encode())
        if t.numel():
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _resolve_layers(module, card, layers) -> list[str]:
    if isinstance(layers, str) and layers == "topo":
        if card is None or not card.topo_layers:
            raise UnknownNameError(
                "layers='topo' needs a model card listing TopoLoss layers; this model has none. "
                "Pass module names instead (see [n for n, _ in model.named_modules()])."
            )
        layers = list(card.topo_layers)
    elif isinstance(layers, str):
        layers = [layers]
    layers = list(dict.fromkeys(layers))
    if not layers:
        raise UnknownNameError("No layers given; pass module names or layers='topo'.")
    modules = dict(module.named_modules())
    for name in layers:
        if name not in modules or name == "":
            options = [n for n in modules if n]
            hint = close_matches(name, options)
            raise UnknownNameError(
                f"No layer {name!r} in {type(module).__name__}; {hint}"
                f"{'' if hint.endswith('?') else '.'} "
                f"Available layers ({len(options)}): {first_few(options, most=40)}"
            )
    return layers


# --- input preparation -------------------------------------------------------------------
def _callable_key(fn) -> str:
    try:
        src = inspect.getsource(fn)
        return (
            f"{getattr(fn, '__qualname__', type(fn).__name__)}:"
            + hashlib.sha256(src.encode()).hexdigest()
        )
    except (OSError, TypeError):
        return repr(fn)


def _weights_transforms(preprocess):
    """``weights.transforms()`` of a torchvision weights enum member, else ``None``."""
    if callable(getattr(preprocess, "transforms", None)) and hasattr(preprocess, "url"):
        return preprocess.transforms()
    return None


class _ImageInputs:
    def __init__(self, card, preprocess):
        self.preprocess = preprocess
        self.transform = None
        weights_tf = _weights_transforms(preprocess)
        if weights_tf is not None:  # a torchvision weights enum: its own inference transform
            self.preprocess = None  # like a card's transform: PIL images only, tensors as given
            self.transform = weights_tf
            self.key = f"image:torchvision:{type(preprocess).__name__}.{preprocess.name}:" + (
                " ".join(repr(weights_tf).split())
            )
        elif preprocess is not None:
            self.key = "image:custom:" + _callable_key(preprocess)
        elif card is not None and card.input_size:
            self.size = int(card.input_size)
            self.resize = int(round(self.size / card.crop_pct))
            self.mean, self.std = card.mean, card.std
            self.transform = self._card_transform  # torchvision is imported on first image
            self.key = (
                f"image:resize={self.resize}:crop={self.size}:mean={card.mean}:std={card.std}"
            )
        else:
            self.key = "image:tensors-as-given"

    def _card_transform(self, image):
        from .._util.optional import import_torchvision

        import_torchvision("extract's image preprocessing")
        from torchvision import transforms as T

        steps = [T.Resize(self.resize, antialias=True), T.CenterCrop(self.size), T.ToTensor()]
        if self.mean is not None:
            steps.append(T.Normalize(self.mean, self.std))
        self.transform = T.Compose(steps)
        return self.transform(image)

    def __call__(self, items):
        import torch
        from PIL import Image

        from ..stimuli import read_image

        out = []
        for x in items:
            if self.preprocess is not None:
                x = self.preprocess(x)
            elif isinstance(x, Image.Image):
                if self.transform is None:
                    raise InvalidDataError(
                        "This model has no card with an input size and normalisation; pass "
                        "preprocess=<a torchvision weights enum, e.g. ResNet18_Weights.DEFAULT, "
                        "whose transforms() are used> or preprocess=callable(PIL image) -> "
                        "tensor (C, H, W), or give tensors."
                    )
                x = self.transform(read_image(x))
            x = torch.as_tensor(x)
            if x.ndim != 3:
                raise InvalidDataError(
                    f"Each image must become a (C, H, W) tensor; got shape {tuple(x.shape)}."
                )
            out.append(x.float())
        return torch.stack(out), None


class _TextInputs:
    def __init__(self, module, card, preprocess):
        if preprocess is not None:
            tok = preprocess
        elif card is not None and card.tokenizer:
            from ..models import load_tokenizer

            tok = load_tokenizer(card)
        else:
            raise InvalidDataError(
                "Texts need a tokenizer: this model has no card naming one; pass "
                "preprocess=<a transformers tokenizer>."
            )
        if getattr(tok, "pad_token", "x") is None:
            tok.pad_token = tok.eos_token
        if hasattr(tok, "padding_side"):
            tok.padding_side = "right"
        self.tok = tok
        cfg = getattr(module, "config", None)
        limits = [
            getattr(cfg, "block_size", None),
            getattr(cfg, "max_position_embeddings", None),
            getattr(tok, "model_max_length", None),
        ]
        limits = [int(v) for v in limits if isinstance(v, int) and 0 < v < 10**6]
        self.max_length = min(limits) if limits else None
        self.key = (
            f"text:{type(tok).__name__}:{getattr(tok, 'name_or_path', '')}:"
            f"vocab={len(tok) if hasattr(tok, '__len__') else '?'}:max_length={self.max_length}"
        )

    def __call__(self, items):
        enc = self.tok(
            [str(t) for t in items],
            padding=True,
            truncation=self.max_length is not None,
            max_length=self.max_length,
            return_tensors="pt",
        )
        return enc, enc["attention_mask"].bool()


def _forward(module, inputs, device):
    from ..models import GPT

    if isinstance(inputs, dict) or hasattr(inputs, "keys"):
        if isinstance(module, GPT):
            return module(inputs["input_ids"].to(device))
        kwargs = {k: inputs[k].to(device) for k in ("input_ids", "attention_mask") if k in inputs}
        return module(**kwargs)
    return module(inputs.to(device))


def _to_device(batch, device):
    if hasattr(batch, "to"):  # a tensor, or a transformers BatchEncoding
        return batch.to(device)
    if hasattr(batch, "keys"):  # a tokenizer's encoding: every tensor in it
        return type(batch)({k: v.to(device) if hasattr(v, "to") else v for k, v in batch.items()})
    return batch.to(device)


# --- pooling -----------------------------------------------------------------------------
def _pool(out, name, *, pooling, token_pooling, mask, has_class_token):
    """(batch, n_units) numpy array and the layer's per-unit coords."""
    import torch

    if hasattr(out, "last_hidden_state"):
        out = out.last_hidden_state
    elif hasattr(out, "logits"):
        out = out.logits
    if not isinstance(out, torch.Tensor):
        raise UnsupportedLayerError(
            f"Layer {name!r} returns a {type(out).__name__}, not a tensor; pick a module whose "
            "output is a tensor (e.g. a conv, linear or block)."
        )
    out = out.detach().float()
    if out.ndim == 4:  # (B, C, H, W) conv feature maps
        b, c, h, w = out.shape
        if pooling == "mean":
            arr = out.mean(dim=(2, 3))
        elif pooling == "max":
            arr = out.amax(dim=(2, 3))
        elif pooling == "center":
            arr = out[:, :, h // 2, w // 2]
        else:
            arr = out.reshape(b, c * h * w)
            ch = np.repeat(np.arange(c), h * w)
            rows, cols = sheet_positions(c)
            info = {
                D.CHANNEL: ch,
                D.ROW: rows[ch],
                D.COL: cols[ch],
                D.Y: np.tile(np.repeat(np.arange(h), w), c),
                D.X: np.tile(np.arange(w), h * c),
            }
            return arr.cpu().numpy(), info
        return arr.cpu().numpy(), None
    if out.ndim == 3:  # (B, T, D) tokens
        if mask is None:  # vision transformer: pool patch tokens, class token is "first"
            start = 1 if has_class_token and out.shape[1] > 1 else 0
            if token_pooling == "mean":
                arr = out[:, start:].mean(dim=1)
            elif token_pooling == "first":
                arr = out[:, 0]
            else:
                arr = out[:, -1]
        else:
            m = mask.to(out.device)
            if token_pooling == "mean":
                mf = m.unsqueeze(-1).float()
                arr = (out * mf).sum(1) / mf.sum(1).clamp_min(1.0)
            elif token_pooling == "first":
                arr = out[:, 0]
            else:
                last = m.long().sum(1).clamp_min(1) - 1
                arr = out[torch.arange(out.shape[0], device=out.device), last]
        return arr.cpu().numpy(), None
    if out.ndim == 2:
        return out.cpu().numpy(), None
    raise UnsupportedLayerError(
        f"Layer {name!r} outputs shape {tuple(out.shape)}; expected (batch, units), (batch, "
        "tokens, units) or (batch, channels, height, width)."
    )


def _load_batch(source, indices):
    """The stimuli ``indices`` of ``source`` (a separate function so tests can interrupt it)."""
    return [source.get(int(i)) for i in indices]


def _unit_info(layers, sizes, infos) -> dict[str, np.ndarray]:
    parts = {D.LAYER: [], D.CHANNEL: [], D.ROW: [], D.COL: [], D.Y: [], D.X: []}
    any_xy = any(i is not None for i in infos)
    for name, n, info in zip(layers, sizes, infos):
        rows, cols = sheet_positions(n)
        info = info or {D.CHANNEL: np.arange(n), D.ROW: rows, D.COL: cols}
        parts[D.LAYER].append(np.full(n, name, dtype=object))
        for c in (D.CHANNEL, D.ROW, D.COL, D.Y, D.X):
            parts[c].append(np.asarray(info.get(c, np.full(n, -1))))
    out = {k: np.concatenate(v) for k, v in parts.items()}
    if not any_xy:
        del out[D.Y], out[D.X]
    return out


@fill_doc
@validate_params({
    "pooling": Options(POOLINGS),
    "token_pooling": Options(TOKEN_POOLINGS),
    "batch_size": Interval(Integral, 1, None, closed="left"),
    "resume": Boolean(),
    "overwrite": Boolean(),
    "progress": Boolean(),

    "forward_fn": [Callable(fix="forward_fn(model, batch) returns the model's output."), None],
}, prefer_skip_nested_validation=False)  # preprocess and forward_fn are the caller's
def extract(
    model,
    stimuli,
    layers,
    *,
    pooling="mean",
    token_pooling="mean",
    batch_size=64,
    device="cpu",
    store=None,
    resume=True,
    overwrite=False,
    progress=True,
    preprocess=None,
    forward_fn=None,
    unit_positions=None,
    position_units=None,
):
    """Activations of ``layers`` of ``model`` for ``stimuli``, laid out on cortical sheets.

    Parameters
    ----------
    model : str, torch.nn.Module or (module, ModelCard)
        A registered name (built with its released weights when it has some, see
        :func:`toponeuro.models.create_model`), a module (its ``model_card`` attribute is used
        when present), or a module with its card.
    stimuli : StimulusSet or iterable
        A ``toponeuro.stimuli`` StimulusSet, or image paths / PIL images / tensors ``(C, H,
        W)`` (taken as already preprocessed) / texts. Plain iterables get ids
        ``"stim-0000"``, ...
    layers : str or list of str
        Module names, or ``"topo"`` for the card's TopoLoss layers.
    pooling : {"mean", "max", "center", None}
        Spatial pooling of conv feature maps (one unit per channel). ``None`` keeps every
        ``(channel, y, x)`` unit: ``row``/``col`` are the channel's sheet position and the
        extra coords ``y``, ``x`` the position in the feature map.
    token_pooling : {"mean", "first", "last"}
        Pooling over tokens of transformer layers: for texts over real (non-padding) tokens;
        for ViTs ``"mean"`` averages the patch tokens and ``"first"`` is the class token.
    batch_size : int
        Stimuli per forward pass (the extraction batch): it sets the memory and the speed,
        not the activations. The jobs' default too
        (:class:`toponeuro.settings.Extraction`, which reads it here).
    %(device)s
    store : path-like, optional
        Stream rows to a netCDF file (a folder: one file per cache key; or a ``.nc`` path),
        chunked by stimuli, with memory bounded by one batch. The cache key covers the weights
        (sha256 of the state dict), stimulus ids and content hash, layers, pooling,
        preprocessing and toponeuro version. One process writes a store at a time (a second
        gets :class:`~toponeuro.exceptions.StoreLockedError` naming the first), and every row
        carries a CRC-32 checked on resume and on reading
        (:class:`~toponeuro.exceptions.StoreCorruptError` names changed rows). A file at a
        ``.nc`` path that is not an activation store toponeuro wrote is refused
        (:class:`~toponeuro.exceptions.OutputExistsError`), never deleted.
    resume : bool
        Reuse finished rows of a store with the same key (after a crash or kill nothing is
        recomputed twice, lost or duplicated). ``False`` starts that store over.
    overwrite : bool
        Replace a store made with other settings at an explicit ``.nc`` ``store`` path
        (without it such a store is refused: its rows may have taken hours).
    %(progress)s
    preprocess : callable or torchvision weights enum, optional
        Images: ``PIL image -> tensor (C, H, W)`` instead of the card's resize, crop and
        normalisation, or a torchvision weights enum member (e.g.
        ``ResNet18_Weights.DEFAULT``), whose own inference transform ``weights.transforms()``
        is then used: the sensible default for a torchvision model, which carries no card.
        Texts: a tokenizer instead of the card's.
    forward_fn : callable, optional
        ``forward_fn(model, batch)`` runs the model on one batch, for models whose forward
        pass needs more than ``model(batch)`` (extra arguments, a method other than
        ``forward``, several inputs). ``batch`` is what the preprocessing made, already on
        ``device``: a float tensor ``(B, C, H, W)`` for images, the tokenizer's encoding
        (``input_ids``, ``attention_mask`` ...) for texts. The return value is ignored: the
        layers are read by forward hooks, so ``forward_fn`` must run the chosen layers. Its
        source code is part of the cache key. Default: ``model(batch)`` (texts:
        ``model(input_ids=..., attention_mask=...)``).
    unit_positions : mapping, optional
        Free positions of the units of some layers (TDANN-style): ``{layer: (n_units, 2)
        array of (x, y), or a path to a .npy file of one or a .csv/.tsv with columns unit,
        x, y}`` (:func:`toponeuro.read_unit_positions`; ``n_units`` counted after
        ``pooling``). They become the unit coords ``pos_x``, ``pos_y`` (attr
        ``position_units``), and every topography analysis measures distances between
        them. Default: the model card's ``unit_positions``, if any.
    position_units : {"mm", "sheet"}, optional
        Unit of ``unit_positions`` (default the card's ``position_units``, else ``"mm"``).

    Returns
    -------
    xarray.DataArray
        Activations ``("stimulus", "unit")`` with unit coords ``layer``, ``channel``, ``row``,
        ``col`` (and ``y``, ``x`` when unpooled, and the free positions ``pos_x``,
        ``pos_y`` when there are some) and attrs ``model``, ``weights_sha256`` (of
        the checkpoint file when one was loaded, else of the state dict), ``weights_check``
        (what that file was verified against, from :func:`toponeuro.models.create_model`, or
        "NOT verified"), ``pooling``, ``toponeuro_version``.

    Raises
    ------
    UnknownNameError
        Unknown model or layer names (the message lists close matches / available layers).
    InvalidDataError
        No stimuli, or stimuli the model cannot read.
    OutputExistsError
        ``store`` holds a file toponeuro did not write, or a store of other settings and
        ``overwrite`` is False.

    Examples
    --------
    >>> import torch
    >>> from toponeuro.models import SmallResNet
    >>> net = SmallResNet(widths=(8, 16, 16, 32))
    >>> images = [torch.rand(3, 32, 32) for _ in range(3)]
    >>> acts = extract(net, images, ["layer1.0.conv1", "fc"], progress=False)
    >>> acts.sizes["unit"], acts.topo.layers, acts.topo.sheet_shape("layer1.0.conv1")
    (18, ['layer1.0.conv1', 'fc'], (2, 4))
    """
    from .._util.device import check_device


    device = check_device(device)
    job = _prepare(model, stimuli, layers, pooling=pooling, token_pooling=token_pooling,
                   preprocess=preprocess, forward_fn=forward_fn)
    st = (
        ActivationStore(store, job.key, job.ids, job.categories, job.attrs, resume=resume,
                        batch_size=batch_size, overwrite=overwrite)
        if store
        else None
    )
    try:
        data, unit_info = _compute_rows(job, st, batch_size=batch_size, device=device,
                                        pooling=pooling, token_pooling=token_pooling,
                                        forward_fn=forward_fn, progress=progress)
    finally:
        if st is not None:
            st.close()
    per_layer, coords = _split_by_layer(data, unit_info, job.layer_names)
    acts = make_activations(
        per_layer,
        stimulus_ids=job.ids,
        categories=job.categories,
        attrs=job.attrs,
        unit_coords=coords,
    )
    return _with_positions(acts, job.card, unit_positions, position_units)


def _with_positions(acts, card, unit_positions, position_units):
    """``acts`` with the free unit positions given, else the card's (if any)."""
    if unit_positions is None and card is not None and card.unit_positions:
        unit_positions = dict(card.unit_positions)
        position_units = position_units or card.position_units
    if not unit_positions:
        return acts
    return set_unit_positions(acts, unit_positions, units=position_units or "mm")


# --- the stages of extract ----------------------------------------------------------------

@dataclass
class _Job:
    """What one extraction reads and how: the stimuli, the module and its layers, the input
    preparation, and the cache key and attrs of the result."""

    src: object
    module: object
    name: str
    layer_names: list
    inputs: object
    ids: np.ndarray
    categories: object
    key: str
    attrs: dict
    card: object = None


def _prepare(model, stimuli, layers, *, pooling, token_pooling, preprocess, forward_fn) -> _Job:
    """Resolve the stimuli, the model, its layers and the input preparation; the cache key
    and the attrs of the activations."""
    src = as_stimuli(stimuli)
    module, card, name = _resolve_model(model)
    layer_names = _resolve_layers(module, card, layers)
    modality = card.modality if card is not None else None
    if src.kind == "text" and modality == "vision":
        raise InvalidDataError(f"{name!r} is a vision model; got texts as stimuli.")
    if src.kind == "image" and modality == "language":
        raise InvalidDataError(f"{name!r} is a language model; got images as stimuli.")
    inputs = (
        _TextInputs(module, card, preprocess)
        if src.kind == "text"
        else _ImageInputs(card, preprocess)
    )
    module.eval()
    digest = _state_digest(module)
    file_sha = getattr(module, "weights_sha256", None)
    ids = np.asarray(src.ids).astype(str)
    key = cache_key(
        weights_sha256=digest,
        stimulus_ids=ids,
        content_hash=src.content_hash(),
        layers=layer_names,
        pooling=pooling,
        token_pooling=token_pooling,
        preprocessing=inputs.key
        + ("" if forward_fn is None else ":forward=" + _callable_key(forward_fn)),
    )
    attrs = {
        D.ATTR_MODEL: name,
        D.ATTR_WEIGHTS_SHA256: file_sha or digest,
        "weights_source": "checkpoint file" if file_sha else "state dict",
        "weights_check": getattr(module, "weights_check", None)
        or "not checked: a module without a toponeuro weights file",
        D.ATTR_VERSION: __version__,
        "pooling": "none" if pooling is None else pooling,
        "token_pooling": token_pooling,
        "preprocessing": inputs.key,
        "cache_key": key,
    }
    if forward_fn is not None:
        attrs["forward_fn"] = getattr(forward_fn, "__qualname__", type(forward_fn).__name__)
    return _Job(src, module, name, layer_names, inputs, ids, getattr(src, "categories", None),
                key, attrs, card)


def _compute_rows(job: _Job, st, *, batch_size, device, pooling, token_pooling, forward_fn,
                  progress):
    """Run the batches that are not done yet; ``(rows, unit_info)`` of every stimulus (from
    the store ``st`` when there is one, verified by checksum)."""
    import torch
    from tqdm.auto import tqdm

    module, layer_names, n = job.module, job.layer_names, len(job.ids)
    module.to(device)
    done = st.done() if st is not None else np.zeros(n, dtype=bool)
    has_cls = hasattr(module, "class_token")
    captured, calls = {}, {}

    def _hook(layer):
        def hook(_mod, _inp, out):
            captured[layer] = out[0] if isinstance(out, (tuple, list)) else out
            calls[layer] = calls.get(layer, 0) + 1

        return hook

    mods = dict(module.named_modules())
    handles = [mods[layer].register_forward_hook(_hook(layer)) for layer in layer_names]
    rows_mem, unit_info = [], None
    bar = tqdm(total=n, initial=int(done.sum()), unit="stim", disable=not progress,
               desc=job.name)
    try:
        with torch.inference_mode():
            for start in range(0, n, batch_size):
                stop = min(start + batch_size, n)
                if done[start:stop].all():
                    continue
                batch, mask = job.inputs(_load_batch(job.src, range(start, stop)))
                captured.clear()
                calls.clear()
                if forward_fn is None:
                    _forward(module, batch, device)
                else:
                    forward_fn(module, _to_device(batch, device))
                _check_called_once(calls)
                arrays, infos = _pool_layers(captured, layer_names, pooling=pooling,
                                             token_pooling=token_pooling, mask=mask,
                                             has_class_token=has_cls)
                captured.clear()
                data = np.concatenate(arrays, axis=1) if len(arrays) > 1 else arrays[0]
                if unit_info is None:
                    unit_info = _unit_info(layer_names, [a.shape[1] for a in arrays], infos)
                if st is not None:
                    st.write(start, data, unit_info)
                else:
                    rows_mem.append(data.astype(np.float32, copy=False))
                bar.update(stop - start)
    finally:
        bar.close()
        for h in handles:
            h.remove()
    if st is not None:
        return st.read()
    return np.concatenate(rows_mem, axis=0), unit_info


def _check_called_once(calls) -> None:
    """A module the forward pass runs several times (one ReLU reused in a residual block)
    has several outputs: which one is the layer is not for extract to guess."""
    again = {layer: n for layer, n in calls.items() if n > 1}
    if again:
        layer, n = next(iter(again.items()))
        raise UnsupportedLayerError(
            f"Layer {layer!r} runs {n} times in one forward pass (a module reused, e.g. one "
            "ReLU after both convs of a residual block), so its output is ambiguous; pick a "
            "module that runs once, e.g. the conv or norm before it or the block that holds "
            "it (see `toponeuro layers MODEL`)."
        )


def _pool_layers(captured, layer_names, **pooling):
    """Pooled ``(batch, units)`` arrays and unit coords of every layer the hooks caught."""
    arrays, infos = [], []
    for layer in layer_names:
        if layer not in captured:
            raise UnsupportedLayerError(
                f"Layer {layer!r} did not run in the forward pass; pick a module that the "
                "model calls."
            )
        arr, info = _pool(captured[layer], layer, **pooling)
        arrays.append(arr)
        infos.append(info)
    return arrays, infos


def _split_by_layer(data, unit_info, layer_names):
    """Rows and unit coords per layer, from the concatenated rows."""
    per_layer, coords = {}, {}
    lay = np.asarray(unit_info[D.LAYER]).astype(str)
    for layer in layer_names:
        sel = np.flatnonzero(lay == layer)
        per_layer[layer] = data[:, sel]
        coords[layer] = {c: v[sel] for c, v in unit_info.items() if c != D.LAYER}
    return per_layer, coords
