"""The cortex side's null draws, kept on disk: computed once per map set, mesh and seed.

The spin tests of a set of cortical maps (the visfAtlas domain maps of ``toponeuro map``, or a
lab's own maps) do not depend on the model: the same maps, on the same mesh, with the same
seed and null give the same draws on every run. :func:`cached` keeps what such a null gives
(its draws, a few kilobytes) in the cache root (:func:`toponeuro._io.fetch.data_dir`:
``$TOPONEURO_DATA`` or the platform cache), under ``nulls/<kind>-<key>.npz`` (or in
``$TOPONEURO_NULL_CACHE``), so a second run reads them instead of rotating spheres again.

What is kept, each under its own ``<kind>``:

* ``pair-similarity``, ``arrangement-spin``: the spin draws of the cortex step's maps;
* ``ruler-cortex``: every cortex-side descriptor of the one ruler, with its null
  (:func:`cached_with_rng`, in both jobs' ruler stages): keyed by the maps' content
  (:func:`mesh_digest`), the descriptor, its settings, the draws and the state of the
  generator before the step; the state after it is stored and restored on a read, so the
  draws that follow are those computing it would leave;
* ``geodesic-weights``: a mesh's Gaussian neighbourhood weights along its surface (the patch
  smoother of a cortex map: the shortest paths from every vertex), keyed by the mesh's
  positions and edges and the kernel's width.

* **content-addressed**: the key is the sha256 of everything the draws depend on -- each
  map's values, positions, mesh and distance (:func:`map_digest`; a lab's own maps are hashed
  the same way), the statistic and its parameters, the null, the number of draws, the seed,
  :data:`FORMAT`, the toponeuro version and the digest of the null code's source
  (:func:`code_digest`). Other maps, another seed or an edited null give another key, so a
  stale entry is never read.
* **verified on read**: each array's sha256, that of the meta (the JSON numbers kept beside
  the arrays) and the key are stored in the entry and checked;
  an entry that fails (truncated, edited, another file at its name) is recomputed and
  rewritten, with a :class:`~toponeuro.exceptions.ToponeuroWarning`, never trusted.
* **written through the one writer** (:func:`toponeuro._io.output.write_bytes`: a temporary
  file beside it, then a rename), so a reader sees a whole entry or none.
* **only where asked**: the disk is used inside :func:`use_null_cache` (the reporting
  stages' cortex steps enter it), for an int seed; elsewhere :func:`cached` just computes.
  A computation that warns is not stored (its warnings would be lost on a later read).
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import functools
import hashlib
import io
import json
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .._util.stack import user_stacklevel
from .._version import __version__
from ..exceptions import ChecksumError, ToponeuroWarning

__all__ = ["FORMAT", "arrangement_parts", "cache_counts", "cached", "cached_with_rng",
           "cached_result", "code_digest", "jsonable", "map_digest", "mesh_digest",
           "null_cache_dir", "rng_state", "seed_of", "use_null_cache"]

#: version of the entries' layout and of the computations they keep: bump it when a cached
#: null changes (every earlier entry is then another key, never read)
FORMAT = 2  # 2: the meta (a ruler descriptor's numbers, a null's statistic) checksummed too

#: the warnings registry of the warnings a computation raised and :func:`cached` passes on
_WARNED: dict = {}

#: ``(kind, "hit" | "miss")`` -> how often :func:`cached` read a verified entry or computed
#: one, in this process (:func:`cache_counts`)
_COUNTS: collections.Counter = collections.Counter()

_ENABLED: contextvars.ContextVar[bool] = contextvars.ContextVar("toponeuro_null_cache",
                                                               default=False)


@contextlib.contextmanager
def use_null_cache(enabled: bool = True):
    """Within the block, :func:`cached` keeps its results on disk (``enabled=False``: not).

    Examples
    --------
    >>> with use_null_cache():
    ...     _ENABLED.get()
    True
    >>> _ENABLED.get()
    False
    """
    token = _ENABLED.set(bool(enabled))
    try:
        yield
    finally:
        _ENABLED.reset(token)


def cache_counts() -> dict[str, dict[str, int]]:
    """``{kind: {"hit": n, "miss": n}}``: how often, in this process, :func:`cached` read a
    verified entry of each kind (a hit) or computed one inside :func:`use_null_cache` (a
    miss: absent, or failing verification); what ``toponeuro prepare`` and its tests count.

    Examples
    --------
    >>> import tempfile, os
    >>> before = os.environ.get("TOPONEURO_NULL_CACHE")
    >>> os.environ["TOPONEURO_NULL_CACHE"] = tempfile.mkdtemp()
    >>> draw = lambda: ({"null": np.arange(3.0)}, {})
    >>> with use_null_cache():
    ...     _ = cached("demo-counts", {"seed": 0}, draw), cached("demo-counts", {"seed": 0}, draw)
    >>> cache_counts()["demo-counts"]
    {'hit': 1, 'miss': 1}
    >>> _ = os.environ.pop("TOPONEURO_NULL_CACHE") if before is None else os.environ.update(
    ...     TOPONEURO_NULL_CACHE=before)
    """
    out: dict[str, dict[str, int]] = {}
    for (kind, what), n in sorted(_COUNTS.items()):
        out.setdefault(kind, {"hit": 0, "miss": 0})[what] = n
    return out


def null_cache_dir() -> Path:
    """The folder of the cached null draws: ``$TOPONEURO_NULL_CACHE`` when set (e.g. one
    folder a lab or a test session shares), else ``<cache root>/nulls``.

    Examples
    --------
    >>> import os
    >>> null_cache_dir().name if "TOPONEURO_NULL_CACHE" not in os.environ else "nulls"
    'nulls'
    """
    import os

    from .fetch import data_dir

    if os.environ.get("TOPONEURO_NULL_CACHE"):
        return Path(os.environ["TOPONEURO_NULL_CACHE"])
    return data_dir() / "nulls"


def _array_digest(h, a) -> None:
    a = np.ascontiguousarray(np.asarray(a))
    h.update(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())


def map_digest(tm, *, values: bool = True) -> str | None:
    """sha256 of what a null on ``tm`` depends on: values (``values=False``: not), positions,
    grid, mesh, distance and adjacency; None when the distance is a callable (not hashable
    by content, so not cached).

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
    >>> a = as_topomap(np.arange(16.0).reshape(4, 4))
    >>> b = as_topomap(np.arange(16.0).reshape(4, 4) + 1)
    >>> map_digest(a) == map_digest(b), map_digest(a, values=False) == map_digest(b, values=False)
    (False, True)
    """
    from scipy import sparse

    h = hashlib.sha256()
    if values:
        _array_digest(h, np.asarray(tm.values, dtype=float))
    _array_digest(h, np.asarray(tm.positions, dtype=float))
    h.update(repr((tm.grid_shape, tm.mesh, tm.kind)).encode())
    dist = tm.distance
    if callable(dist):
        return None
    if dist is None or isinstance(dist, str):
        h.update(repr(("distance", dist)).encode())
    else:
        _array_digest(h, np.asarray(dist, dtype=float))
    adj = tm.adjacency
    if adj is None or np.isscalar(adj):
        h.update(repr(("adjacency", adj)).encode())
    else:
        csr = sparse.csr_matrix(adj)
        for part in (csr.shape, csr.indptr, csr.indices, csr.data):
            _array_digest(h, np.asarray(part))
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of the source of the code that draws and scores the nulls (every module of
    :mod:`toponeuro.analysis.topography` and this one): an edit to any of them, even within
    one version, makes every key new, so no entry outlives the code that computed it.

    Examples
    --------
    >>> len(code_digest())
    64
    """
    here = Path(__file__).resolve().parents[1]  # the toponeuro package
    h = hashlib.sha256()
    for path in [Path(__file__).resolve(), *sorted((here / "analysis" / "topography").glob(
            "*.py"))]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _key(kind: str, parts: dict) -> str:
    payload = {"kind": kind, "parts": parts, "format": FORMAT, "toponeuro": __version__,
               "code": code_digest()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _sha(a: np.ndarray) -> str:
    h = hashlib.sha256()
    _array_digest(h, a)
    return h.hexdigest()


def _read(path: Path, key: str):
    """``(arrays, meta)`` of a verified entry; None when absent; raises ChecksumError when
    it fails verification."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            head = json.loads(str(z["__meta__"][()]))
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile,
            json.JSONDecodeError) as err:
        raise ChecksumError(f"unreadable ({type(err).__name__}: {err})") from err
    if head.get("key") != key or head.get("format") != FORMAT:
        raise ChecksumError("it holds another entry (key or format differs)")
    sums = head.get("sha256", {})
    if sorted(sums) != sorted(arrays):
        raise ChecksumError("its arrays are not those it lists")
    bad = [k for k, a in arrays.items() if _sha(a) != sums[k]]
    if bad:
        raise ChecksumError(f"the checksum of {bad} does not match")
    if head.get("meta_sha256") != _meta_sha(head.get("meta")):
        raise ChecksumError("the checksum of its meta does not match")
    return arrays, head["meta"]


def _meta_sha(meta) -> str:
    return hashlib.sha256(json.dumps(meta, sort_keys=True, allow_nan=True).encode()).hexdigest()


def _write(path: Path, key: str, arrays: dict, meta: dict) -> None:
    from .output import write_bytes

    head = {"key": key, "format": FORMAT, "toponeuro": __version__, "meta": meta,
            "sha256": {k: _sha(a) for k, a in arrays.items()}, "meta_sha256": _meta_sha(meta)}
    buf = io.BytesIO()
    np.savez(buf, __meta__=np.array(json.dumps(head)), **arrays)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, buf.getvalue())


def cached(kind: str, parts: dict | None,
           compute: Callable[[], tuple[dict, dict]]) -> tuple[dict, dict]:
    """``compute()`` -> ``(arrays, meta)``, kept on disk under the key of ``kind`` and
    ``parts`` inside :func:`use_null_cache`.

    ``parts`` (JSON-able: digests, parameters, the seed) must name everything the result
    depends on; None computes without the cache (e.g. a seed that is a Generator). ``meta``
    must be JSON-able (else the result is returned, not stored).

    Examples
    --------
    >>> import tempfile, os
    >>> before = os.environ.get("TOPONEURO_DATA")
    >>> os.environ["TOPONEURO_DATA"] = tempfile.mkdtemp()
    >>> calls = []
    >>> def draw():
    ...     calls.append(1)
    ...     return {"null": np.arange(3.0)}, {"method": "demo"}
    >>> with use_null_cache():
    ...     first = cached("demo", {"seed": 0}, draw)
    ...     again = cached("demo", {"seed": 0}, draw)
    >>> again[0]["null"].tolist(), again[1], len(calls)
    ([0.0, 1.0, 2.0], {'method': 'demo'}, 1)
    >>> _ = os.environ.pop("TOPONEURO_DATA") if before is None else os.environ.update(
    ...     TOPONEURO_DATA=before)
    """
    if parts is None or not _ENABLED.get():
        return compute()
    key = _key(kind, parts)
    try:
        path = null_cache_dir() / f"{kind}-{key[:40]}.npz"
    except OSError:  # no writable cache root: compute every time
        return compute()
    try:
        hit = _read(path, key)
    except ChecksumError as err:
        warnings.warn(ToponeuroWarning(
            f"The cached null draws {path} failed verification ({err}); they are computed "
            "again and the entry rewritten. Nothing to do unless this repeats (then check "
            "the disk, or delete the nulls/ folder of the cache)."), stacklevel=user_stacklevel())
        hit = None
    if hit is not None:
        _COUNTS[kind, "hit"] += 1
        return hit
    _COUNTS[kind, "miss"] += 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        arrays, meta = compute()
    for w in caught:  # re-raised as they came, through the caller's filters (and, like a
        # warning raised in place, shown once per place under the "default" action)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                               registry=_WARNED, source=w.source)
    if caught:
        return arrays, meta
    try:
        json.dumps(meta, allow_nan=True)
        arrays = {k: np.asarray(v) for k, v in arrays.items()}
        if any(a.dtype == object for a in arrays.values()):
            return arrays, meta
        _write(path, key, arrays, meta)
    except (TypeError, ValueError, OSError):  # not storable, or a read-only cache: computed
        pass
    return arrays, meta


def seed_of(random_state) -> int | None:
    """The seed as an int when it is one (the only seeds a cache key can name), else None.

    Examples
    --------
    >>> seed_of(3), seed_of(None), seed_of(np.random.default_rng(0))
    (3, None, None)
    """
    import numbers

    if isinstance(random_state, bool | np.bool_) or not isinstance(random_state,
                                                                   numbers.Integral):
        return None
    return int(random_state)


def cached_result(kind: str, maps, params: dict, random_state, compute: Callable, result):
    """A :class:`~toponeuro.analysis.NullResult` (the class ``result``) of ``maps`` from
    :func:`cached`: keyed by each map's :func:`map_digest`, ``params`` and the seed (only an
    int seed is cached).

    Examples
    --------
    >>> from toponeuro.analysis import NullResult, as_topomap, map_similarity
    >>> a = as_topomap(np.arange(16.0).reshape(4, 4))
    >>> run = lambda: map_similarity(a, a, "pearson", n_permutations=9, random_state=0)
    >>> cached_result("demo", [a, a], {}, 0, run, NullResult).p_value == run().p_value
    True
    """
    seed = seed_of(random_state)
    digests = [map_digest(tm) for tm in maps]
    parts = None if seed is None or None in digests else {
        "maps": digests, "params": params, "seed": seed}

    def as_arrays():
        r = compute()
        return {"null": r.null}, {
            "statistic": r.statistic, "p_value": r.p_value, "z": r.z,
            "null_method": r.null_method, "attrs": r.attrs, "alternative": r.alternative}

    arrays, meta = cached(kind, parts, as_arrays)
    return result(statistic=float(meta["statistic"]), null=np.asarray(arrays["null"]),
                      p_value=float(meta["p_value"]), z=float(meta["z"]),
                      null_method=meta["null_method"], attrs=dict(meta["attrs"]),
                      alternative=meta["alternative"])


def arrangement_parts(spun, centre_map, top: float, n_draws: int, random_state) -> dict | None:
    """The key parts of an arrangement's spin draws: the spun maps, the geometry their
    centres and distances are measured on (``centre_map``'s positions and distance), the
    centre fraction, the draws and the seed (None: not cacheable).

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
    >>> a = as_topomap(np.arange(16.0).reshape(4, 4))
    >>> sorted(arrangement_parts([a, a], a, 0.1, 9, 0)), arrangement_parts([a], a, 0.1, 9, None)
    (['centres', 'maps', 'n_draws', 'null', 'seed', 'top'], None)
    """
    seed = seed_of(random_state)
    digests = [map_digest(tm) for tm in spun]
    centres = map_digest(centre_map, values=False)
    if seed is None or centres is None or None in digests:
        return None
    return {"maps": digests, "centres": centres, "top": float(top), "n_draws": int(n_draws),
            "null": "shift", "seed": seed}


def mesh_digest(tm) -> str | None:
    """:func:`map_digest` of ``tm`` with what else a descriptor on a mesh reads: its faces,
    sphere, units and scale (its values included); None where :func:`map_digest` is.

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
    >>> pos = np.random.default_rng(0).standard_normal((20, 3))
    >>> a = as_topomap(np.zeros(20), positions=pos, units="mm")
    >>> mesh_digest(a) == mesh_digest(as_topomap(np.zeros(20), positions=pos))
    False
    """
    base = map_digest(tm)
    if base is None:
        return None
    h = hashlib.sha256(base.encode())
    for part in (tm.faces, tm.sphere):
        if part is None:
            h.update(b"none")
        else:
            _array_digest(h, np.asarray(part))
    h.update(repr((tm.units, tm.mm_per_unit, tm.prune)).encode())
    return h.hexdigest()


def jsonable(obj):
    """``obj`` with numpy scalars as Python numbers, arrays and tuples as lists and keys as
    str: what JSON keeps (floats exactly, NaN included).

    Examples
    --------
    >>> jsonable({"a": np.float64(0.5), "b": (np.arange(2), None)})
    {'a': 0.5, 'b': [[0, 1], None]}
    """
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def rng_state(rng) -> dict | None:
    """The state of a :class:`numpy.random.Generator` (JSON-able), None for anything else.

    Examples
    --------
    >>> rng_state(np.random.default_rng(0))["bit_generator"], rng_state(0)
    ('PCG64', None)
    """
    if not isinstance(rng, np.random.Generator):
        return None
    return jsonable(rng.bit_generator.state)


def cached_with_rng(kind: str, parts: dict | None, rng, compute: Callable[[], dict]) -> dict:
    """``compute()`` -> a JSON-able dict that draws from the generator ``rng``, kept on disk
    (:func:`cached`) under ``parts`` and the generator's state before it; the state after
    it is stored too and, on a read, set on ``rng`` -- so the generator leaves the step
    exactly as computing it would have, and every later draw is the same.

    The result is what JSON keeps (:func:`jsonable`) whether computed or read, so a first
    and a second run return the same types. ``parts`` None (or ``rng`` not a Generator):
    computed, not kept.

    Examples
    --------
    >>> import tempfile, os
    >>> before = os.environ.get("TOPONEURO_NULL_CACHE")
    >>> os.environ["TOPONEURO_NULL_CACHE"] = tempfile.mkdtemp()
    >>> draw = lambda rng: {"x": float(rng.random())}
    >>> a, b = np.random.default_rng(0), np.random.default_rng(0)
    >>> with use_null_cache():
    ...     first = cached_with_rng("demo-rng", {}, a, lambda: draw(a))
    ...     again = cached_with_rng("demo-rng", {}, b, lambda: 1 / 0)  # read, not computed
    >>> first == again, a.random() == b.random()
    (True, True)
    >>> _ = os.environ.pop("TOPONEURO_NULL_CACHE") if before is None else os.environ.update(
    ...     TOPONEURO_NULL_CACHE=before)
    """
    state = rng_state(rng)
    if parts is None or state is None or not _ENABLED.get():
        return jsonable(compute())

    def run():
        value = jsonable(compute())
        return {}, {"value": value, "rng_after": rng_state(rng)}

    _, meta = cached(kind, dict(parts, rng=state), run)
    meta = json.loads(json.dumps(meta, allow_nan=True))  # computed or read: the same types
    rng.bit_generator.state = meta["rng_after"]
    return meta["value"]
