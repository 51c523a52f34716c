"""Public functions and classes that declare no parameter, each with why (only shrinks).

Read by ``test_bad_values.py``: a public function that declares nothing (and takes a named
parameter: ``*args`` and ``**kwargs`` have no name to declare) must be listed here with a
kind of reason the test checks; an entry whose function declares now (or is gone) must be
removed."""

#: the kinds of reason an entry may give, each checked by ``test_bad_values.py``
REASONS: dict[str, str] = {
    "imported by the vocabulary":
        "its module is imported by toponeuro._util.params (the vocabulary raises its errors), "
        "so declaring it would close an import circle (checked on the import graph)",
    "standalone":
        "its module imports nothing from toponeuro (it is inlined into Brain-Score plugins, "
        "which run without toponeuro), so it cannot import the vocabulary (checked on the "
        "import graph)",
    "refuses nothing":
        "it takes any value and passes it on (checked: junk values are returned, not refused)",
    "checked by hand":
        "it refuses bad values itself with a typed error naming the parameter (checked with "
        "junk values)",
    "pending":
        "declarable, in a module another change is rewriting; why names the module and the "
        "declaration to add (checked: why names the module's file)",
    "built by xarray":
        "an xarray accessor: xarray builds it from the DataArray (da.topo); users never call "
        "it (checked: it is registered)",
}

#: ``qualified name -> (kind of reason, why)``; the kind is a key of :data:`REASONS`
UNDECLARED: dict[str, tuple[str, str]] = {
    'toponeuro.exceptions.close_matches': (
        "imported by the vocabulary",
        "only n could be declared at all: name and options take any value by design (str() "
        "of each, for a message)"),
    'toponeuro.exceptions.first_few': (
        "imported by the vocabulary",
        "only most could be declared at all: items take any value by design (str() of each, "
        "for a message)"),
    'toponeuro.models._standalone.add_blurpool': (
        "standalone", "models/_standalone.py is copied into each exported plugin"),
    'toponeuro.reporting._language.verbs.bare_netcdf': (
        "refuses nothing",
        "reads any cortex_maps value and returns it unchanged unless it is one .nc path"),
}

#: public classes whose constructor no bad-value test covers (neither a declared __init__,
#: nor declared fields, nor a dataclass with __post_init__ checks, nor an estimator
#: declaring _parameter_constraints), each with its kind of reason and why (only shrinks)
UNCOVERED_CLASSES: dict[str, tuple[str, str]] = {
    'toponeuro.models._standalone.BlurPoolConv2d': (
        "standalone", "models/_standalone.py is copied into each exported plugin"),
    'toponeuro.models._standalone.SmallResNet': (
        "standalone", "models/_standalone.py is copied into each exported plugin"),
    'toponeuro.sheet.TopoAccessor': ("built by xarray", "da.topo"),
}

#: ``qualified.Class.field`` -> why its __post_init__ lets some bad values of its annotation
#: through (only shrinks)
UNCOVERED_FIELDS: dict[str, str] = {}

#: public dataclasses that still check their fields by hand in ``__post_init__`` rather than
#: declare them (:func:`toponeuro._util.frozen.validate_fields`), each with why (only
#: shrinks: declare the fields, keep by hand only what no field constraint can say)
CHECKED_BY_HAND: dict[str, str] = {}
