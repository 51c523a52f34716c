"""TopoLoss: specs, the sheet blur, and τ schedules."""

from ._layers import layer_weight, sheet_tensor
from ._loss import LayerSpec, TopoLoss, blur_matrices, blur_sheet, sheet_loss
from ._schedule import SCHEDULES, TauSchedule, constant, cosine_decay, linear_warmup

__all__ = [
    "LayerSpec",
    "TopoLoss",
    "TauSchedule",
    "SCHEDULES",
    "constant",
    "linear_warmup",
    "cosine_decay",
    "blur_sheet",
    "blur_matrices",
    "sheet_loss",
    "sheet_tensor",
    "layer_weight",
]
