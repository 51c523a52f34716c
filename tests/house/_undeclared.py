"""Public functions that declare no parameter yet, each with why (only shrinks).

Read by ``test_bad_values.py``: a public function that declares nothing must be listed
here; an entry whose function declares now (or is gone) must be removed. ``to declare``
names the scalar parameters still checked by hand (or not at all).
"""

UNDECLARED: dict[str, str] = {
    'toponeuro.reporting._language.verbs.contrast_boot':
        'reporting: n_boot comes from RulerSettings, checked when it was made',
    'toponeuro.reporting._vision.ruler.cortex_region_mask':
        'reporting: region comes from RulerSettings.cortex_region, checked when it was made',
    'toponeuro.reporting._vision.ruler.model_selectivity_boot':
        'reporting: n_boot comes from RulerSettings, checked when it was made',
    'toponeuro.reporting._kit.stages.map_layers':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._kit.stages.read_cortex_inputs':
        'reporting: takes the CortexInput settings object, checked when it was made (toponeuro.settings)',
    'toponeuro.settings.cortex_maps_kind':
        'settings: reads any cortex maps value and names its kind (atlas / files / loaded); the settings objects check their fields in __post_init__',
    'toponeuro.settings.settings_record':
        'settings: takes settings objects (each checked in its __post_init__)',
    'toponeuro.sheet._positions.read_unit_positions':
        'to declare: n_units, layer, param',
    'toponeuro.sheet._positions.set_unit_positions':
        'to declare: units',
    'toponeuro.analysis._dimensionality.dimensionality':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis._dimensionality.effective_dimensionality':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis._efficiency.pool_matrix':
        'to declare: n_units, size',
    'toponeuro.analysis.rsa._rsa_convert.from_rsatoolbox_dataset':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.rsa._rsa_convert.to_rsatoolbox_dataset':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._compare.arrangement_similarity':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._descriptors.is_binary':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._null_registry.each_but_first':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._null_registry.register_null':
        'to declare: name, reference, geometries, min_maps, warning, question, overwrite',
    'toponeuro.analysis.topography._null_registry.unregister_null':
        'to declare: name',
    'toponeuro.analysis.topography._pvalues.null_calibration':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._selectivity.dprime':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._selectivity.fdr_bh':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._selectivity.student_t':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.analysis.topography._selectivity.tdann_t':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.atlases._atlas.atlas_data_path':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.atlases._atlas.hemi_name':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.atlases._spec.parse_cortex_maps':
        'to declare: spec',
    'toponeuro.atlases._surface.mesh_edge_graph':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.atlases._user.load_cortex_maps':
        'to declare: maps, hemispheres, surface, neighbours, domains, mesh',
    'toponeuro.atlases._user.require_mesh':
        'to declare: maps, mesh, purpose',
    'toponeuro.brain._nsd.nsd_noise_ceiling':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brain._nsd.nsd_trial_images':
        'to declare: sessions',
    'toponeuro.brain._nsd.read_nsd_expdesign':
        'to declare: path',
    'toponeuro.brain._reliability.voxel_noise_ceiling':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brain._responses.average_repetitions':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brain._responses.invalid_voxels':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brain._surface.read_surface_data':
        'to declare: path, hemi',
    'toponeuro.brainscore._convert.read_brainscore_benchmark':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brainscore._export.plugin_layers':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brainscore._export.propose_region_layer_map':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.brainscore._score.brainscore_python':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.exceptions.close_matches':
        'exceptions.py cannot import _params (which imports exceptions)',
    'toponeuro.exceptions.first_few':
        'exceptions.py cannot import _params (which imports exceptions)',
    'toponeuro.features._stimuli.as_stimuli':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.features._store.cache_key':
        'to declare: weights_sha256, content_hash, preprocessing, version',
    'toponeuro.models._architectures.architecture_config':
        'to declare: name, size',
    'toponeuro.models._catalog.weights_status':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.models._registry.build_architecture':
        'name is checked against the builders by hand (UnknownNameError with close matches)',
    'toponeuro.models._registry.model_card':
        "name is checked against the registry by hand (type and close matches, UnknownNameError), in the registry's words",
    'toponeuro.models._registry.register_builder':
        'to declare: name',
    'toponeuro.models._small.small_resnet_topo_layers':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.models._standalone.add_blurpool':
        'models/_standalone.py is inlined into Brain-Score plugins, which run without toponeuro: it cannot import _params',
    'toponeuro.models._surgery.restoring':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.models._surgery.sheet_units':
        'to declare: name',
    'toponeuro.models._surgery.unit_hooks':
        'to declare: edits',
    'toponeuro.models._tokenizers.load_tokenizer':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.models._weights.non_finite_tensors':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.models._weights.package_file':
        'to declare: spec',
    'toponeuro.models._weights.register_checkpoint_reader':
        'to declare: name',
    'toponeuro.reporting._kit.headline.choose_headline':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.job.run_language_map':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.fit.answer_both':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.fit.headline_fit':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.fit.language_fits':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.fit.short_layer':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.results.format_language_summary':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.results.language_verdict':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.stages.check_language_model':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.stages.language_cortex':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.stages.language_layers':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.stages.language_model_topography':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.stages.language_units':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.stages.load_language_stimuli':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.verbs.bare_netcdf':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.verbs.language_verb_noun':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.verbs.load_verb_noun_stimuli':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.verbs.verb_noun_cortex':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.verbs.verb_noun_inputs':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._language.verbs.verb_noun_maps':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.job.run_map':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.results.comparison_view':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.ruler.ruler_comparisons':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.ruler.ruler_cortex_maps':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.ruler.ruler_summary':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.ruler.ruler_table':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._kit.schema.summary_schema':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._kit.stages.check_sheet_layers':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.stages.compare_model_cortex':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.stages.cortex_topography':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.stages.load_map_stimuli':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.stages.model_topography':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.stages.random_init_similarities':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.stages.training_images':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.reporting._vision.terminal.format_summary':
        'reporting: its parameters are being gathered into frozen settings objects (issue 44, settings work); declared with them, not twice',
    'toponeuro.sheet.sheet_positions':
        "n_units is checked by sheet_shape's rule (SheetError), shared with every sheet helper",
    'toponeuro.sheet.sheet_shape':
        "n_units is checked by hand with a SheetError (the sheet's own error: 1 to 1e12 units, an int), which every caller of the sheet relies on",
    'toponeuro.stimuli._image.files_by_name':
        'to declare: root, suffix, fix',
    'toponeuro.stimuli._image.image_range':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.stimuli._image.is_hidden':
        'to declare: path, root',
    'toponeuro.stimuli._image.list_image_files':
        'to declare: root, extensions',
    'toponeuro.stimuli._nsd.load_nsd_stimuli':
        'to declare: hdf5_path, indices, key',
    'toponeuro.stimuli._numbers.floc_numbers':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.stimuli._table.load_stimulus_table':
        'to declare: table, images, file_column, category_column, id_column, labels, extra_files, sep, name',
    'toponeuro.stimuli._table.read_run_list':
        'to declare: path',
    'toponeuro.topoloss._layers.layer_weight':
        'to declare: name',
    'toponeuro.topoloss._layers.sheet_tensor':
        'to declare: name, target',
    'toponeuro.topoloss._schedule.constant':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.topoloss._schedule.cosine_decay':
        "its values are checked by TauSchedule (RecipeError, in a recipe's words), which recipes build directly too; a declaration would check them twice",
    'toponeuro.topoloss._schedule.linear_warmup':
        'its values are checked by TauSchedule (RecipeError), as for cosine_decay',
    'toponeuro.training._checkpoint.validate_checkpoint':
        'to declare: training',
    'toponeuro.training._evaluate.nearest_centroid_accuracy':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.training._language.language_corpus':
        'to declare: data_path',
    'toponeuro.training._language.validate_language_recipe':
        'to declare: source',
    'toponeuro.training._recipes.build_from_recipe':
        'to declare: data_path',
    'toponeuro.training._recipes.list_recipes':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.training._recipes.load_recipe':
        'to declare: name_or_path',
    'toponeuro.training._recipes.run_language_recipe':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.training._recipes.run_recipe':
        'its settings are checked by the recipe schema first (RecipeError naming the recipe key); train, which it calls, declares the training settings',
    'toponeuro.training._schema.validate_recipe':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.training._train.run_identity':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
    'toponeuro.training._trajectory.trajectory':
        'data only: arrays, maps, paths, models or callables; the vocabulary has no constraint for them yet (their readers check them)',
}
