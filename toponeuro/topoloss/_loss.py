"""TopoLoss: pull each unit's weight vector toward a blurred copy of its cortical sheet."""

from __future__ import annotations

import functools
import json
import os
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from numbers import Real

import torch
import torch.nn.functional as F
from torch import nn

from .._io.output import check_output_file, read_json, write_text
from .._io.reading import read_file
from .._util.docs import fill_doc
from .._util.frozen import validate_fields
from .._util.params import InstanceOf, Interval, Options, Text, validate_params
from .._util.stack import user_stacklevel
from ..exceptions import (
    RecipeError,
    SheetError,
    ToponeuroWarning,
    UnknownNameError,
    UnsupportedLayerError,
)
from ._layers import TARGETS, sheet_tensor
from ._schedule import TauSchedule

__all__ = ["LayerSpec", "TopoLoss", "blur_sheet", "blur_matrices", "sheet_loss"]

_FORMAT = "toponeuro.topoloss/1"


def _is_spec_file(path) -> bool:
    """The file is a TopoLoss spec written by :meth:`TopoLoss.save` (its ``format``)."""
    data = read_json(path)
    return isinstance(data, dict) and data.get("format") == _FORMAT


#: ``torch.nn.functional.interpolate`` modes that resample a 2-D sheet
INTERPOLATIONS = ("bilinear", "bicubic", "nearest", "nearest-exact", "area")
_TOPONETS = "2.0 is the TopoNets' value."


class _SpecName(Text):
    """A spec's layer: a non-empty string (blank ones too: a name is looked up as given),
    refused with a recipe's error."""

    error = type_error = RecipeError

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, str) and value != ""

    def bad_values(self) -> list:
        return [3, None, ""]


@dataclass(frozen=True)
@validate_fields({
    "name": _SpecName(error=RecipeError, fix=(
        "Name a module or parameter, such as 'layer2.0.conv1' or 'rnn.weight_hh_l0'.")),
    "factor_h": Interval(Real, 1, None, closed="left", fix=_TOPONETS).raising(SheetError),
    "factor_w": Interval(Real, 1, None, closed="left", fix=_TOPONETS).raising(SheetError),
    "tau": [Interval(Real, 0, None, closed="left", fix=(
        "None logs the layer's loss without optimising it; a negative tau would reward rough "
        "maps: use tau=0 or None to switch TopoLoss off.")).raising(RecipeError), None],
    "interpolation": Options(INTERPOLATIONS).raising(UnknownNameError),
    "target": Options(TARGETS).raising(UnsupportedLayerError),
})
class LayerSpec:
    """Where and how strongly TopoLoss acts on one layer.

    Parameters
    ----------
    name : str
        Dotted module name (``"layer2.0.conv1"``) or parameter path (``"rnn.weight_hh_l0"``).
    factor_h, factor_w : float
        Down-sampling factors φh, φw of the blur (the sheet is shrunk by 1/φ, then grown back).
    tau : float or None
        Strength τ. ``None`` logs the layer's loss without optimising it.
    interpolation : str
        ``torch.nn.functional.interpolate`` mode, ``"bilinear"`` in every released TopoNet.
    target : {"weight", "bias", "input"}
        ``weight``: sheet over output units, each unit's vector its (flattened) weights;
        ``input``: sheet over input features; ``bias``: the bias map itself.

    Notes
    -----
    The fields are declared (``__toponeuro_params__``) and stored in their canonical type
    (``factor_h=2`` as ``2.0``). A bad value raises the error of what it breaks, naming the
    field, for a value of the wrong kind too: ``name`` and ``tau`` a
    :class:`~toponeuro.exceptions.RecipeError` (``tau=-5 is not a finite number >= 0 or
    None``), a factor a :class:`~toponeuro.exceptions.SheetError`, ``target`` an
    :class:`~toponeuro.exceptions.UnsupportedLayerError`, ``interpolation`` an
    :class:`~toponeuro.exceptions.UnknownNameError`. ``factor_h = factor_w = 1`` warns: the
    loss is then 0 whatever the weights.

    Examples
    --------
    >>> spec = LayerSpec("layer4.0.conv2", factor_h=3.0, factor_w=3.0, tau=50.0)
    >>> spec.target, spec.interpolation
    ('weight', 'bilinear')
    """

    name: str
    factor_h: float
    factor_w: float
    tau: float | None = 1.0
    interpolation: str = "bilinear"
    target: str = "weight"

    def __post_init__(self):
        # not a check (the declared ones ran before): a blur that changes nothing is allowed
        if self.factor_h == 1 and self.factor_w == 1:
            warnings.warn(
                f"LayerSpec {self.name!r}: factor_h = factor_w = 1 leaves the sheet unblurred, "
                "so every unit equals its blurred copy and the loss is 0 whatever the weights: "
                "tau has no effect. Blur by more than 1 along at least one side (2.0 is the "
                "TopoNets' value).", ToponeuroWarning, stacklevel=user_stacklevel())


#: the declared blur of a sheet: factors >= 1 and an interpolation mode
_BLUR = {
    "factor_h": Interval(Real, 1, None, closed="left", fix=_TOPONETS),
    "factor_w": Interval(Real, 1, None, closed="left", fix=_TOPONETS),
    "interpolation": Options(INTERPOLATIONS, error=UnknownNameError),
}


@functools.lru_cache(maxsize=256)
def _blur_matrices_f64(h: int, w: int, factor_h: float, factor_w: float, mode: str):
    """Exact row and column operators of down-then-up interpolation, found by pushing the
    identity through ``F.interpolate`` (interpolation is separable and its weights sum to 1)."""
    def down_up(x):
        small = F.interpolate(x, scale_factor=(1.0 / factor_h, 1.0 / factor_w), mode=mode)
        return F.interpolate(small, size=(h, w), mode=mode)

    eye_h = torch.eye(h, dtype=torch.float64).reshape(h, 1, h, 1).expand(h, 1, h, w)
    eye_w = torch.eye(w, dtype=torch.float64).reshape(w, 1, 1, w).expand(w, 1, h, w)
    with torch.no_grad():
        m_h = down_up(eye_h.contiguous())[:, 0, :, 0].T.contiguous()
        m_w = down_up(eye_w.contiguous())[:, 0, 0, :].T.contiguous()
    return m_h, m_w


@validate_params({"factor_h": _BLUR["factor_h"], "factor_w": _BLUR["factor_w"],
                  "mode": _BLUR["interpolation"]})
@fill_doc
def blur_matrices(h, w, factor_h, factor_w, mode="bilinear", dtype=torch.float32, device="cpu"):
    """``(M_h, M_w)`` with ``blur(X) = M_h @ X @ M_w.T`` for an ``h x w`` sheet.

    Parameters
    ----------
    h, w : int
        Height and width of the sheet.
    factor_h, factor_w : float
        Down-sampling factors (≥ 1) along the height and width.
    mode : str
        A ``torch.nn.functional.interpolate`` mode of :data:`INTERPOLATIONS`.
    dtype : torch.dtype
        Data type of the matrices.
    %(device)s

    Returns
    -------
    M_h : torch.Tensor
        ``(h, h)``: the blur along the height.
    M_w : torch.Tensor
        ``(w, w)``: the blur along the width.

    Examples
    --------
    >>> m_h, m_w = blur_matrices(8, 6, 2.0, 2.0)
    >>> tuple(m_h.shape), tuple(m_w.shape), bool(torch.allclose(m_h.sum(1), torch.ones(8)))
    ((8, 8), (6, 6), True)
    """
    _check_factors(h, w, factor_h, factor_w)
    m_h, m_w = _blur_matrices_f64(int(h), int(w), float(factor_h), float(factor_w), mode)
    return m_h.to(device=device, dtype=dtype), m_w.to(device=device, dtype=dtype)


@functools.lru_cache(maxsize=512)
def _blur_pair(h, w, factor_h, factor_w, mode, dtype, device):
    """``blur_matrices`` converted to ``dtype``/``device`` once (internal: never handed out)."""
    m_h, m_w = _blur_matrices_f64(int(h), int(w), float(factor_h), float(factor_w), mode)
    return m_h.to(device=device, dtype=dtype), m_w.to(device=device, dtype=dtype)


def _check_factors(h, w, factor_h, factor_w):
    if factor_h > h or factor_w > w:
        raise SheetError(
            f"Blur factors ({factor_h}, {factor_w}) exceed the sheet ({h} x {w}); choose "
            "factors no larger than the sheet's height and width."
        )


def _sheet_blur_pair(sheet, factor_h, factor_w, interpolation):
    """``(h, w, M_h, M_w)`` for ``sheet`` ``(h, w, ...)``: factors checked, matrices cached."""
    h, w = sheet.shape[:2]
    _check_factors(h, w, factor_h, factor_w)
    m_h, m_w = _blur_pair(h, w, float(factor_h), float(factor_w), interpolation, sheet.dtype,
                          sheet.device)
    return h, w, m_h, m_w


def _apply(m_h, m_w, x):
    """``M_h`` along the sheet's rows and ``M_w`` along its columns of ``x`` ``(h, w, e)``."""
    h, w, e = x.shape
    y = (m_h @ x.reshape(h, w * e)).reshape(h, w, e)
    return torch.matmul(m_w, y)


@validate_params(_BLUR)
@fill_doc
def blur_sheet(
    sheet: torch.Tensor, factor_h: float, factor_w: float, interpolation: str = "bilinear"
) -> torch.Tensor:
    """Down-sample a sheet ``(h, w, ...)`` by ``(1/φh, 1/φw)`` and up-sample it back.

    Identical to ``F.interpolate(scale_factor=(1/φh, 1/φw))`` followed by
    ``F.interpolate(size=(h, w))`` on the channels-first layout, but computed as two small
    matrix products (about 3x faster on CPU for ResNet-18's layers).

    Parameters
    ----------
    %(sheet_blur)s

    Returns
    -------
    torch.Tensor
        The blurred sheet, the shape of ``sheet``.

    Examples
    --------
    >>> flat = torch.ones(8, 8, 3)  # a constant sheet is left unchanged by the blur
    >>> bool(torch.allclose(blur_sheet(flat, 2.0, 2.0), flat))
    True
    """
    h, w, m_h, m_w = _sheet_blur_pair(sheet, factor_h, factor_w, interpolation)
    rest = sheet.shape[2:]
    return _apply(m_h, m_w, sheet.reshape(h, w, -1)).reshape(h, w, *rest)


def _mean_cosine(x: torch.Tensor, y: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """Mean row-wise cosine similarity of ``(n, e)`` matrices.

    Same value as ``F.cosine_similarity(x, y, dim=-1).mean()`` (norms clamped at ``eps``
    each), but it divides per row instead of normalising whole matrices, which makes the
    forward and backward passes several times cheaper on large layers.
    """
    dot = (x * y).sum(-1)
    nx = torch.linalg.vector_norm(x, dim=-1).clamp_min(eps)
    ny = torch.linalg.vector_norm(y, dim=-1).clamp_min(eps)
    return (dot / (nx * ny)).mean()


class _SheetLoss(torch.autograd.Function):
    """``1 - mean_i cos(x_i, (M_h X M_w')_i)`` with a hand-written backward.

    The autograd graph of the same expression keeps about three weight-sized tensors alive
    until the training step's backward (the blurred copy, the product ``x * y``, the
    intermediate of the first blur product) and walks a dozen nodes per layer. Here the
    forward keeps only the blurred sheet and two norms per unit, and the backward is
    ``g_x + B'(g_y)``: two element-wise terms and the adjoint blur (``M_h'``, ``M_w'``),
    all in the sheet's dtype.
    """

    @staticmethod
    def forward(ctx, x, m_h, m_w, eps):
        h, w, e = x.shape
        y = _apply(m_h, m_w, x)
        X, Y = x.reshape(h * w, e), y.reshape(h * w, e)
        dot = torch.linalg.vecdot(X, Y)
        rx = torch.linalg.vector_norm(X, dim=-1)
        ry = torch.linalg.vector_norm(Y, dim=-1)
        nx, ny = rx.clamp_min(eps), ry.clamp_min(eps)
        cos = dot / (nx * ny)
        ctx.save_for_backward(x, y, m_h, m_w, nx, ny, cos, rx > eps, ry > eps)
        return 1 - cos.mean()

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, y, m_h, m_w, nx, ny, cos, live_x, live_y = ctx.saved_tensors
        h, w, e = x.shape
        X, Y = x.reshape(h * w, e), y.reshape(h * w, e)
        c = -grad / (h * w)
        inv = (c / (nx * ny))[:, None]
        # d cos_i / d x_i = y_i / (|x||y|) - cos_i x_i / |x|^2 (no norm term where |x| < eps)
        gx = (Y * inv).addcmul_(X, (c * cos * live_x / (nx * nx))[:, None], value=-1)
        gy = (X * inv).addcmul_(Y, (c * cos * live_y / (ny * ny))[:, None], value=-1)
        gx = gx.reshape(h, w, e).add_(_apply(m_h.T, m_w.T, gy.reshape(h, w, e)))
        return gx, None, None, None


@validate_params(_BLUR)
@fill_doc
def sheet_loss(
    sheet: torch.Tensor, factor_h: float, factor_w: float, interpolation: str = "bilinear"
) -> torch.Tensor:
    """``1 - mean cosine(unit vector, blurred vector)`` for a sheet ``(h, w, e)`` or ``(h, w)``.

    A 2-D sheet (the bias map) is compared as one flattened vector, as the official package
    does.

    Parameters
    ----------
    %(sheet_blur)s

    Returns
    -------
    torch.Tensor
        A scalar in [0, 2]: 0 for a sheet its blur leaves unchanged.

    Examples
    --------
    >>> smooth = torch.ones(8, 8, 4)
    >>> rough = torch.randn(8, 8, 4, generator=torch.Generator().manual_seed(0))
    >>> float(sheet_loss(smooth, 2.0, 2.0)) < 1e-6 < float(sheet_loss(rough, 2.0, 2.0))
    True
    """
    if sheet.ndim == 2:
        blurred = blur_sheet(sheet, factor_h, factor_w, interpolation)
        return 1 - _mean_cosine(sheet.reshape(1, -1), blurred.reshape(1, -1))
    h, w, m_h, m_w = _sheet_blur_pair(sheet, factor_h, factor_w, interpolation)
    return _SheetLoss.apply(sheet.reshape(h, w, -1), m_h, m_w, 1e-8)


class TopoLoss:
    """TopoLoss over several layers.

    ``loss(model)`` returns the mean over optimised specs of τ·L_layer (the official
    ``reduce_mean=True`` behaviour), ready to add to the task loss.

    Parameters
    ----------
    specs : iterable of LayerSpec
        One spec per layer: its name, τ, target and down-sampling factors.
    schedule : TauSchedule, optional
        Multiplies every τ by ``schedule(step)`` when a ``step`` is passed to the call.

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 3))
    >>> loss = TopoLoss.for_layers(net, ["0"], factor_h=2, factor_w=2, tau=10.0)
    >>> value = loss(net)
    >>> value.backward()
    >>> bool(value > 0)
    True
    """

    @validate_params(dict(schedule=[InstanceOf(TauSchedule), None]))
    def __init__(self, specs: Iterable[LayerSpec], schedule: TauSchedule | None = None):
        if isinstance(specs, (LayerSpec, str, dict)):
            raise RecipeError(
                f"TopoLoss needs an iterable of LayerSpec; got one {type(specs).__name__}. "
                "Wrap it in a list: TopoLoss([LayerSpec(...)])."
            )
        self.specs = list(specs)
        bad = [s for s in self.specs if not isinstance(s, LayerSpec)]
        if bad:
            raise RecipeError(
                f"TopoLoss specs must be LayerSpec objects; got {type(bad[0]).__name__} "
                f"{bad[0]!r}. Build them with LayerSpec(name, factor_h, factor_w, tau=...) "
                "(or LayerSpec(**d) from a dict)."
            )
        if schedule is not None and not isinstance(schedule, TauSchedule):
            raise RecipeError(
                f"schedule must be a TauSchedule (e.g. linear_warmup(200)) or None; got "
                f"{schedule!r}."
            )
        self.schedule = schedule
        names = [(s.name, s.target) for s in self.specs]
        if len(set(names)) != len(names):
            raise RecipeError(f"Duplicate (layer, target) pairs in TopoLoss specs: {names}.")

    @classmethod
    def for_layers(
        cls,
        model: nn.Module,
        names: Iterable[str],
        factor_h: float,
        factor_w: float,
        *,
        tau: float | None = 1.0,
        target: str = "weight",
        interpolation: str = "bilinear",
        schedule: TauSchedule | None = None,
    ) -> TopoLoss:
        """The same spec on several layers, checked against ``model`` right away.

        Parameters
        ----------
        model : torch.nn.Module
            The network the layers belong to.
        names : iterable of str
            Module or parameter names of the layers.
        factor_h, factor_w : float
            Down-sampling factors of the sheet blur (>= 1).
        tau : float or None
            Weight of each layer's term (None: reported, not trained on).
        target : {"weight", "input", "bias"}
            What is laid on the sheet.
        interpolation : str
            The blur's interpolation mode.
        schedule : TauSchedule, optional
            How τ changes over training.

        Returns
        -------
        TopoLoss
            One :class:`LayerSpec` per layer.
        """
        specs = [LayerSpec(n, factor_h, factor_w, tau, interpolation, target) for n in names]
        out = cls(specs, schedule)
        out.validate(model)
        return out

    def validate(self, model: nn.Module) -> None:
        """Resolve every layer and check its sheet fits the blur factors.

        Parameters
        ----------
        model : torch.nn.Module
            The network the specs name layers of.
        """
        for s in self.specs:
            sheet = sheet_tensor(model, s.name, s.target)
            h, w = sheet.shape[:2]
            if s.factor_h > h or s.factor_w > w:
                raise SheetError(
                    f"Layer {s.name!r} has a {h} x {w} sheet, smaller than its blur factors "
                    f"({s.factor_h}, {s.factor_w}); lower the factors or drop the layer."
                )

    def layerwise(self, model: nn.Module, scaled: bool = False, step: int | None = None) -> dict:
        """``{layer: loss}``; with ``scaled=True`` each is multiplied by its (scheduled) τ and
        specs with ``tau=None`` are left out.

        Parameters
        ----------
        model : torch.nn.Module
            The network.
        scaled : bool
            Multiply each term by its τ (and the schedule's factor at ``step``).
        step : int, optional
            Training step, for the schedule.

        Returns
        -------
        dict
            Layer name (``name:target`` for another target) -> loss tensor.
        """
        mult = self.schedule(step) if (self.schedule is not None and step is not None) else 1.0
        out = {}
        for s in self.specs:
            if scaled and s.tau is None:
                continue
            sheet = sheet_tensor(model, s.name, s.target)
            val = sheet_loss(sheet, s.factor_h, s.factor_w, s.interpolation)
            key = s.name if s.target == "weight" else f"{s.name}:{s.target}"
            out[key] = val * (s.tau * mult) if scaled else val
        return out

    def __call__(self, model: nn.Module, step: int | None = None) -> torch.Tensor:
        parts = list(self.layerwise(model, scaled=True, step=step).values())
        if not parts:
            return torch.zeros(())
        return torch.stack(parts).mean()

    def to_dict(self) -> dict:
        """The specs and schedule as a JSON-ready dict (:meth:`from_dict` reads it back).

        Returns
        -------
        dict
            ``{"format", "specs", "schedule"}``.
        """
        return {
            "format": _FORMAT,
            "specs": [asdict(s) for s in self.specs],
            "schedule": None if self.schedule is None else self.schedule.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> TopoLoss:
        """A TopoLoss from the dict :meth:`to_dict` wrote.

        Parameters
        ----------
        d : dict
            ``{"format", "specs", "schedule"}``.

        Returns
        -------
        TopoLoss
            The specs and schedule.
        """
        if d.get("format") != _FORMAT:
            raise RecipeError(f"Not a toponeuro TopoLoss spec (format {d.get('format')!r}).")
        try:
            specs = [LayerSpec(**s) for s in d["specs"]]
        except (KeyError, TypeError) as err:
            known = list(LayerSpec.__dataclass_fields__)
            raise RecipeError(
                f"Malformed TopoLoss spec: {err}. Each spec takes the keys {known}."
            ) from err
        sched = d.get("schedule")
        return cls(specs, TauSchedule.from_dict(sched) if sched else None)

    def save(self, path: str | os.PathLike) -> None:
        """Write the specs and schedule as JSON, through the one writer.

        Written atomically (a temporary file renamed into place). An existing file is
        replaced only when it is a TopoLoss spec (one :meth:`save` wrote); any other file is
        refused (:class:`~toponeuro.exceptions.OutputExistsError`), and so is a symbolic link
        to one, or to nowhere: the link's target is never written.

        Parameters
        ----------
        path : str or Path
            The JSON file to write.
        """
        out = check_output_file(path, param="path", suffixes=(".json",), overwrite=True,
                                is_ours=_is_spec_file, what="TopoLoss spec (JSON)",
                                follow_links=False)
        write_text(out, json.dumps(self.to_dict(), indent=2))

    @classmethod
    def load(cls, path: str | os.PathLike) -> TopoLoss:
        """Read a JSON file written by :meth:`save` (an empty, cut or non-JSON file raises
        :class:`~toponeuro.exceptions.UnreadableFileError`).

        Parameters
        ----------
        path : str or Path
            The JSON file.

        Returns
        -------
        TopoLoss
            The specs and schedule it holds.
        """
        def read(p):
            with open(p, encoding="utf-8") as f:
                return json.load(f)

        return cls.from_dict(read_file(path, read, kind="TopoLoss spec (JSON)", what="TopoLoss "
                                       "spec", fix="write it again with TopoLoss.save(path)"))

    def __repr__(self) -> str:
        return f"TopoLoss({self.specs!r}, schedule={self.schedule!r})"
