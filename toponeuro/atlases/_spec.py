"""The text form of cortex maps (``faces=lh.gii:rh.gii,bodies=b.nii.gz``) and hemisphere
names in file names."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .._util.params import Text, validate_params
from ..exceptions import InvalidDataError

__all__ = ["parse_cortex_maps"]

_HEMI_PATTERNS = {"left": (r"(^|[._-])lh[._-]", r"hemi-l(eft)?[._-]", r"cortexleft",
                           r"\.l\.", r"_l\.(func|shape)\.gii$"),
                  "right": (r"(^|[._-])rh[._-]", r"hemi-r(ight)?[._-]", r"cortexright",
                            r"\.r\.", r"_r\.(func|shape)\.gii$")}
_QUOTES = "\"'"
_ESCAPABLE = ",:=\\\"'"


def hemi_from_name(path: Path) -> str | None:
    """The hemisphere a file name states (``lh.``, ``hemi-L``, HCP's ``.L.``), else None."""
    name = Path(path).name.lower()
    hits = [h for h, pats in _HEMI_PATTERNS.items() if any(re.search(p, name) for p in pats)]
    return hits[0] if len(hits) == 1 else None


def _split(text: str, sep: str, what: str) -> list[str]:
    """Split on ``sep`` outside quotes and not escaped by a backslash (pieces kept raw)."""
    parts, cur, quote, i = [], [], None, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPABLE:
            cur.append(text[i:i + 2])
            i += 2
            continue
        if quote:
            quote = None if ch == quote else quote
        elif ch in _QUOTES:
            quote = ch
        elif ch == sep:
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    if quote:
        raise InvalidDataError(
            f"cortex_maps {what} {text!r} opens a quote ({quote}) it does not close; write "
            "e.g. faces=\"/data/run:1/lh.faces.gii\"."
        )
    parts.append("".join(cur))
    return parts


def _unquote(piece: str) -> str:
    out, quote, i = [], None, 0
    while i < len(piece):
        ch = piece[i]
        if ch == "\\" and i + 1 < len(piece) and piece[i + 1] in _ESCAPABLE:
            out.append(piece[i + 1])
            i += 2
            continue
        if quote and ch == quote:
            quote = None
        elif not quote and ch in _QUOTES:
            quote = ch
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


@validate_params(dict(spec=Text(fix="Write it like 'faces=PATH,bodies=LH.gii:RH.gii'.")))
def parse_cortex_maps(spec: str) -> dict:
    """Read the text form ``faces=PATH,bodies=LH:RH`` into ``{domain: path or (lh, rh)}``.

    Each entry is ``domain=PATH`` -- an MNI NIfTI volume or a CIFTI ``.dscalar.nii`` (both
    hemispheres), or one surface file whose hemisphere its name or metadata says -- or
    ``domain=LH_PATH:RH_PATH``, the left and then the right hemisphere's surface file (GIFTI
    or MGH). A path that holds ``:`` or ``,`` is quoted (``faces="/data/a:b/lh.f.gii"``) or
    escaped with a backslash (``\\:``, ``\\,``); an unquoted path with ``:`` that exists as one
    file is read as that file.

    A path may end in ``#`` and the regions of a label file
    (``faces=lh.visf.label.gii#mFus-faces+pFus-faces``), kept in the path for
    :func:`load_cortex_maps`.

    Parameters
    ----------
    spec : str
        The text form (the CLI's ``--cortex-maps``).

    Returns
    -------
    dict
        Domain -> a path, or ``(left path, right path)``.

    Raises
    ------
    InvalidDataError
        Text of another form, an entry that is not ``DOMAIN=PATH``, more than two paths in
        an entry, or a domain named twice.

    Examples
    --------
    >>> parse_cortex_maps("faces=lh.faces.gii:rh.faces.gii,places=places_mni.nii.gz")
    {'faces': ('lh.faces.gii', 'rh.faces.gii'), 'places': 'places_mni.nii.gz'}
    >>> parse_cortex_maps('faces="run:1/lh.f.gii":rh.f.gii,bodies=a\\\\,b.nii.gz')
    {'faces': ('run:1/lh.f.gii', 'rh.f.gii'), 'bodies': 'a,b.nii.gz'}
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidDataError(
            f"cortex_maps must look like 'faces=PATH,bodies=LH.gii:RH.gii'; got {spec!r}."
        )
    out: dict = {}
    for item in (s.strip() for s in _split(spec, ",", "text") if s.strip()):
        name, eq, path = item.partition("=")
        name = _unquote(name)
        if not eq or not name or not path.strip():
            raise InvalidDataError(
                f"cortex_maps entry {item!r} is not DOMAIN=PATH; write e.g. "
                "'faces=faces_mni.nii.gz' or 'faces=lh.faces.gii:rh.faces.gii'."
            )
        whole = _unquote(path)
        parts = [_unquote(p) for p in _split(path, ":", "entry")]
        if len(parts) > 1 and os.path.isfile(os.path.expanduser(whole)):
            parts = [whole]  # one existing file whose name holds ':'
        if len(parts) > 2 or not all(parts):
            raise InvalidDataError(
                f"cortex_maps entry {item!r}: give one path, or two joined by ':' (left "
                "hemisphere first, then right). Quote a path that holds ':' or ',' "
                "(faces=\"/data/run:1/lh.faces.gii\") or escape them (\\: and \\,)."
            )
        if name in out:
            raise InvalidDataError(f"cortex_maps names domain {name!r} twice.")
        out[name] = parts[0] if len(parts) == 1 else tuple(parts)
    return out
