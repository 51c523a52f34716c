"""Public functions that declare no parameter, each with why (only shrinks).

Read by ``test_bad_values.py``: a public function that declares nothing (and takes a
parameter) must be listed here; an entry whose function declares now (or is gone) must be
removed."""

UNDECLARED: dict[str, str] = {
    'toponeuro.settings.cortex_maps_kind':
        'reads any cortex_maps value to name its kind (atlas / files / loaded): it refuses nothing, so nothing to declare',
    'toponeuro.settings.settings_record':
        'takes **settings (settings objects, each checked in its __post_init__): no named parameter to declare',
    'toponeuro.atlases._atlas.atlas_data_path':
        'takes *parts (the path inside the package data): no named parameter to declare; a missing file is a MissingFileError',
    'toponeuro.exceptions.close_matches':
        'exceptions.py is imported by _util/params.py (the vocabulary raises its errors), so importing the vocabulary here would close an import circle (tests/house/test_imports.py counts imports inside functions too); only n could be declared at all: name and options take any value by design (str() of each, for a message)',
    'toponeuro.exceptions.first_few':
        'exceptions.py is imported by _util/params.py (the vocabulary raises its errors), so importing the vocabulary here would close an import circle (tests/house/test_imports.py counts imports inside functions too); only most could be declared at all: items take any value by design (str() of each, for a message)',
    'toponeuro.features._stimuli.as_stimuli':
        'stimuli is anything StimulusSet.from_items reads (a StimulusSet, paths, arrays, PIL images, texts); from_items checks each kind',
    'toponeuro.models._standalone.add_blurpool':
        'models/_standalone.py is inlined into Brain-Score plugins, which run without toponeuro: it cannot import _params',
    'toponeuro.reporting._language.verbs.bare_netcdf':
        'reads any cortex_maps value and passes it on unchanged unless it is one .nc path: it refuses nothing, so nothing to declare',
    'toponeuro.sheet.sheet_positions':
        "n_units is checked by sheet_shape's rule (SheetError), shared with every sheet helper",
    'toponeuro.sheet.sheet_shape':
        "n_units is checked by hand with a SheetError (the sheet's own error: 1 to 1e12 units, an int), which every caller of the sheet relies on",
    'toponeuro.stimuli._numbers.floc_numbers':
        "numbers is None, 'all', a range text ('97-120'), an int or a list: the parser's messages name each form (InvalidDataError)",
}

#: public classes whose constructor no bad-value test covers (neither a declared __init__,
#: nor a dataclass with __post_init__ checks, nor an estimator declaring
#: _parameter_constraints), each with why (only shrinks)
UNCOVERED_CLASSES: dict[str, str] = {
    'toponeuro.analysis.rsa._rsa_compare.BootstrapResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.rsa._rsa_inference.RDMModelComparison':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._descriptors.DescriptorResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._topomap.TopoMap':
        'built by as_topomap (declared), which checks values and positions; the dataclass holds what it checked',
    'toponeuro.analysis.topography._label_null.ContrastTopography':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._null.NullResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._patches.Patches':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._ruler.ComparisonRow':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._ruler.TopographyComparison':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._tables.TopographyTable':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._transfer.TransferResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._verdict.OverlapVerdict':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.analysis.topography._verdict.TopographyClaim':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.atlases._atlas.Atlas':
        'built by the atlas loaders (load_atlas, fetch_*), which check the files they read',
    'toponeuro.brainscore._export.ExportedPlugin':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.models._standalone.BlurPoolConv2d':
        'models/_standalone.py is inlined into Brain-Score plugins, which run without toponeuro: it cannot import _params',
    'toponeuro.models._standalone.SmallResNet':
        'models/_standalone.py is inlined into Brain-Score plugins, which run without toponeuro: it cannot import _params',
    'toponeuro.reporting._kit.stages.CortexInputs':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._language.fit.LanguageFit':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._language.job.LanguageMapResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.reporting._language.stages.LanguageCortex':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._language.stages.LanguageTopography':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._language.stages.LanguageUnits':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._language.verbs.VerbNoun':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._vision.job.MapResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.reporting._vision.stages.CortexTopography':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.reporting._vision.stages.ModelTopography':
        "result record (a NamedTuple of a job's stage): built by the stage that returns it",
    'toponeuro.sheet.TopoAccessor':
        'an xarray accessor: xarray builds it from the DataArray itself (da.topo); users never call it',
    'toponeuro.stimuli._datasets.Dataset':
        'a row of the shipped dataset table (stimuli/sources.tsv), built when the table is read',
    'toponeuro.training._language.LanguageTrainResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
    'toponeuro.training._train.TrainResult':
        'result record: toponeuro builds it from what it computed and returns it; its fields are read, not given',
}

#: ``qualified.Class.field`` -> why its __post_init__ lets some bad values of its annotation
#: through (only shrinks)
UNCOVERED_FIELDS: dict[str, str] = {}
