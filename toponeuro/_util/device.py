"""``check_device``: a torch device name, checked against the hardware before any work."""

from __future__ import annotations

from ..exceptions import DeviceError

__all__ = ["check_device"]


def check_device(device="cpu"):
    """``torch.device(device)``, or a :class:`DeviceError` naming the fix.

    Checks that the name parses and that a CUDA or MPS device is present (and, for
    ``"cuda:N"``, that GPU ``N`` exists), so that a missing GPU is reported before a model is
    built or data is read, not by torch halfway through.

    Examples
    --------
    >>> check_device("cpu")
    device(type='cpu')
    >>> check_device("gpu")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.DeviceError: device='gpu' is not a torch device name; use 'cpu', 'cuda', 'cuda:N' or 'mps'.
    """
    import torch

    if isinstance(device, torch.device):
        dev = device
    else:
        try:
            dev = torch.device(str(device))
        except (RuntimeError, ValueError, TypeError):
            raise DeviceError(
                f"device={device!r} is not a torch device name; use 'cpu', 'cuda', 'cuda:N' or "
                "'mps'."
            ) from None
    if dev.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise DeviceError(
                f"device={str(device)!r} asks for a CUDA GPU, but torch sees none on this "
                "machine (no GPU, no driver, or a CPU-only torch build); use device='cpu'."
            )
        if dev.index is not None and dev.index >= count:
            raise DeviceError(
                f"device={str(device)!r} asks for GPU {dev.index}, but this machine has "
                f"{count} (cuda:0 to cuda:{count - 1})."
            )
    elif dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise DeviceError(
                f"device={str(device)!r} asks for Apple's MPS, which is not available here; use "
                "device='cpu'."
            )
    return dev
