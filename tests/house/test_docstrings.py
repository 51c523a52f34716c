"""numpydoc validation of every public object (scikit-learn's ``test_docstrings.py``).

Every name in the ``__all__`` of the package and of each sub-package, and every public
method and property of a public class, is validated with
:func:`numpydoc.validate.validate`; the checks in :data:`IGNORED` are skipped, each for the
reason given beside it. :data:`TO_FIX` lists the objects whose docstrings still fail, with
the checks they fail: an object may not fail any other check, and an entry that no longer
fails must be removed (the list only shrinks).
"""

from __future__ import annotations

import importlib
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

import toponeuro  # noqa: E402

PACKAGES = ["toponeuro", "toponeuro.sheet", "toponeuro.exceptions", "toponeuro.tutorial",
            "toponeuro.reporting", *(f"toponeuro.{p}" for p in toponeuro._SUBPACKAGES)]

#: numpydoc checks not applied, and why
IGNORED = {
    "SA01",  # "See Also" is optional: cross-references are written in the text
    "ES01",  # an extended summary is optional: a one-line summary can say it all
    "SS05",  # flags any summary whose first word ends in "s": our noun-phrase summaries
             # ("Names of the tensors ...", "The network a checkpoint holds") are house style
    "SS06",  # a summary is one sentence, which may wrap at the 100-column line length
}

#: checks not applied to exception and warning classes: they are raised, not called; their
#: docstring says when (the messages are tested in tests/test_bad_input*.py)
IGNORED_FOR_EXCEPTIONS = {"EX01", "PR01"}

#: checks not applied to methods and properties: a class's Examples section (validated with
#: the class) shows its methods in use, as scikit-learn's estimators do
IGNORED_FOR_METHODS = {"EX01"}

#: qualified name -> the checks it still fails (only shrinks; see the module docstring): the
#: public methods whose docstrings predate their validation (issue 44). A new object's
#: docstring is fixed, not listed here.
TO_FIX: dict[str, set[str]] = {
    'toponeuro.analysis.encoding._encoding.RidgeEncoder.fit': {'PR01', 'RT01'},
    'toponeuro.analysis.encoding._pls.PLSEncoder.fit': {'PR01', 'RT01'},
    'toponeuro.analysis.rsa._rsa_inference.RDMModelComparison.table': {'RT01'},
    'toponeuro.analysis.topography._descriptors.DescriptorResult.to_dict': {'RT01'},
    'toponeuro.analysis.topography._geometry.TopoMap.distances_from': {'RT01', 'GL02', 'PR01'},
    'toponeuro.analysis.topography._geometry.TopoMap.grid': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._geometry.TopoMap.neighbours': {'RT01'},
    'toponeuro.analysis.topography._geometry.TopoMap.on_sphere': {'RT01'},
    'toponeuro.analysis.topography._geometry.TopoMap.point_areas': {'RT01'},
    'toponeuro.analysis.topography._label_null.ContrastDesign.map': {'RT01'},
    'toponeuro.analysis.topography._label_null.ContrastDesign.point_maps': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._label_null.ContrastDesign.random_targets': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._label_null.ContrastDesign.surrogates': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._label_null.ContrastDesign.to_topomap': {'RT01', 'GL02', 'PR01'},
    'toponeuro.analysis.topography._label_null.ContrastDesign.unit_maps': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._label_null.ContrastTopography.to_dict': {'RT01'},
    'toponeuro.analysis.topography._null.NullResult.from_null': {'PR01'},
    'toponeuro.analysis.topography._null.NullResult.n_effective': {'GL02'},
    'toponeuro.analysis.topography._null.NullResult.n_moves': {'GL02'},
    'toponeuro.analysis.topography._null.NullResult.to_dict': {'RT01'},
    'toponeuro.analysis.topography._patches.Patches.label_grid': {'RT01'},
    'toponeuro.analysis.topography._ruler.TopographyComparison.counts': {'RT01'},
    'toponeuro.analysis.topography._ruler.TopographyComparison.to_dict': {'RT01'},
    'toponeuro.analysis.topography._ruler.TopographyComparison.to_frame': {'RT01'},
    'toponeuro.analysis.topography._tables.TopographyTable.centroids': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._tables.TopographyTable.names': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._tables.TopographyTable.row': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._tables.TopographyTable.similarity_of': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._tables.TopographyTable.smoothness_null': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._verdict.OverlapVerdict.p_text': {'GL02'},
    'toponeuro.analysis.topography._verdict.OverlapVerdict.sentence': {'PR01', 'RT01'},
    'toponeuro.analysis.topography._verdict.OverlapVerdict.to_dict': {'RT01'},
    'toponeuro.analysis.topography._verdict.TopographyClaim.to_dict': {'RT01'},
    'toponeuro.atlases._atlas.Atlas.domains': {'GL08'},
    'toponeuro.atlases._atlas.Atlas.is_surface': {'GL08'},
    'toponeuro.atlases._atlas.Atlas.mask': {'PR01', 'RT01'},
    'toponeuro.atlases._atlas.Atlas.roi_of': {'PR01', 'RT01'},
    'toponeuro.atlases._atlas.Atlas.rois': {'GL08'},
    'toponeuro.atlases._atlas.Atlas.select': {'PR01', 'RT01'},
    'toponeuro.atlases._atlas.Atlas.to_nifti': {'RT01'},
    'toponeuro.atlases._maps.CortexMaps.geodesic_geometry': {'GL02'},
    'toponeuro.atlases._maps.CortexMaps.geometry': {'GL02'},
    'toponeuro.atlases._maps.CortexMaps.spin_geometry': {'GL02'},
    'toponeuro.features._store.ActivationStore.done': {'RT01'},
    'toponeuro.features._store.ActivationStore.read': {'RT01'},
    'toponeuro.features._store.ActivationStore.verify': {'PR01'},
    'toponeuro.features._store.ActivationStore.write': {'PR01'},
    'toponeuro.models._nanogpt.GPT.forward': {'GL08'},
    'toponeuro.models._standalone.BlurPoolConv2d.forward': {'GL08'},
    'toponeuro.models._standalone.SmallResNet.forward': {'GL08'},
    'toponeuro.sheet.TopoAccessor.distances': {'PR01', 'RT01'},
    'toponeuro.sheet.TopoAccessor.free_positions': {'PR01', 'RT01'},
    'toponeuro.sheet.TopoAccessor.map': {'RT01'},
    'toponeuro.sheet.TopoAccessor.position_units': {'GL02'},
    'toponeuro.sheet.TopoAccessor.positions': {'RT01', 'GL02', 'PR01'},
    'toponeuro.sheet.TopoAccessor.select': {'RT01', 'GL02', 'PR01'},
    'toponeuro.sheet.TopoAccessor.sheet_shape': {'PR01', 'RT01'},
    'toponeuro.sheet.TopoAccessor.with_positions': {'RT01', 'GL02', 'PR01'},
    'toponeuro.stimuli._set.StimulusSet.align': {'PR01', 'RT01'},
    'toponeuro.stimuli._set.StimulusSet.content_hash': {'SS02', 'RT01'},
    'toponeuro.stimuli._set.StimulusSet.coords': {'RT01'},
    'toponeuro.stimuli._set.StimulusSet.domains': {'SS02'},
    'toponeuro.stimuli._set.StimulusSet.from_items': {'PR04', 'PR07'},
    'toponeuro.stimuli._set.StimulusSet.get': {'PR01', 'RT01'},
    'toponeuro.stimuli._set.StimulusSet.select': {'PR01', 'RT01'},
    'toponeuro.stimuli._set.StimulusSet.split': {'RT03'},
    'toponeuro.topoloss._loss.TopoLoss.for_layers': {'PR01'},
    'toponeuro.topoloss._loss.TopoLoss.from_dict': {'GL08'},
    'toponeuro.topoloss._loss.TopoLoss.layerwise': {'RT01', 'GL02', 'PR01'},
    'toponeuro.topoloss._loss.TopoLoss.load': {'GL02', 'PR01'},
    'toponeuro.topoloss._loss.TopoLoss.save': {'PR01'},
    'toponeuro.topoloss._loss.TopoLoss.to_dict': {'GL08'},
    'toponeuro.topoloss._loss.TopoLoss.validate': {'PR01'},
    'toponeuro.topoloss._schedule.TauSchedule.from_dict': {'GL08'},
    'toponeuro.topoloss._schedule.TauSchedule.to_dict': {'GL08'},
    'toponeuro.training._instances.InstanceImages.augment_batch': {'PR01', 'RT01'},
    'toponeuro.training._instances.InstanceImages.views': {'PR01', 'RT01'},
    'toponeuro.training._language.LanguageTrainResult.summary': {'RT01'},
}


def public_objects() -> dict[str, str]:
    """qualified name of the definition -> one public import path, for every callable in an
    ``__all__`` (a name re-exported by several packages is validated once)."""
    found = {}
    for pkg in PACKAGES:
        module = importlib.import_module(pkg)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            qual = f"{obj.__module__}.{getattr(obj, '__qualname__', name)}"
            found.setdefault(qual, f"{pkg}.{name}")
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                for method, path in public_methods(obj).items():
                    found.setdefault(f"{qual}.{method}", f"{pkg}.{name}.{path}")
    return found


def public_methods(cls) -> dict[str, str]:
    """name -> name, for the public methods and properties ``cls`` defines itself in toponeuro
    (inherited ones are validated with the class that defines them)."""
    out = {}
    for name, attr in vars(cls).items():
        if name.startswith("_"):
            continue
        func = attr.__func__ if isinstance(attr, staticmethod | classmethod) else attr
        func = func.fget if isinstance(func, property) else func
        if inspect.isfunction(func) and func.__module__.startswith("toponeuro"):
            out[name] = name
    return out


def _is_method(path: str) -> bool:
    owner = path.rpartition(".")[0]
    module, _, name = owner.rpartition(".")
    if not module:  # toponeuro.<name>: a package's own name
        return False
    try:
        return inspect.isclass(getattr(importlib.import_module(module), name))
    except (ImportError, AttributeError):
        return False


def failures(path: str, obj) -> set[str]:
    """The numpydoc checks ``path`` fails, less the ignored ones."""
    ignored = IGNORED | (
        IGNORED_FOR_EXCEPTIONS if inspect.isclass(obj) and issubclass(obj, BaseException)
        else set()
    ) | (IGNORED_FOR_METHODS if _is_method(path) else set())
    return {code for code, _ in numpydoc_validate.validate(path)["errors"]} - ignored


OBJECTS = public_objects()


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    if _is_method(path):
        owner, _, name = path.rpartition(".")
        module, _, cls = owner.rpartition(".")
        return inspect.getattr_static(getattr(importlib.import_module(module), cls), name)
    return getattr(importlib.import_module(module), name)


def test_every_package_is_covered():
    assert len(OBJECTS) > 400  # every sub-package's __all__, re-exports once, and methods
    assert "toponeuro.stimuli._set.StimulusSet.select" in OBJECTS  # a method
    assert "toponeuro.analysis.topography._geometry.TopoMap.n" in OBJECTS  # a property


@pytest.mark.parametrize("qual", sorted(OBJECTS))
def test_docstring(qual):
    path = OBJECTS[qual]
    obj = _resolve(path)
    got = failures(path, obj)
    allowed = TO_FIX.get(qual, set())
    new = got - allowed
    if new:
        messages = [f"{c}: {m}" for c, m in numpydoc_validate.validate(path)["errors"]
                    if c in new]
        pytest.fail(f"{path} ({qual}) fails numpydoc checks:\n" + "\n".join(messages))
    assert not allowed - got, f"{qual} no longer fails {sorted(allowed - got)}: remove them from TO_FIX"


def _planted(x, y):
    """do things"""
    return x + y


def test_the_validation_finds_a_planted_bad_docstring():
    # no Parameters, no Returns, no capital letter, no period, no Examples
    assert {"PR01", "RT01", "SS02", "SS03", "EX01"} <= failures(f"{__name__}._planted", _planted)
    assert "SA01" not in failures(f"{__name__}._planted", _planted)  # ignored
