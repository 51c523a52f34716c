"""The main job's fixed choices, named once."""

#: the shipped demo TopoNet ``toponeuro map`` uses by default (the one place that names it)
DEFAULT_MAP_MODEL = "toponet_demo.v2_tau_50"
#: the shipped topographic language model ``toponeuro map --language`` uses by default: the
#: strongest-tau demo (seed 0) of bench/ship_topo_lm.py (docs/demo_language.rst)
DEFAULT_LANGUAGE_MODEL = "toponet_lm_demo.tau_1"
#: the five fLoc domain contrasts (each domain against the other four)
MAP_DOMAINS = ("faces", "bodies", "places", "characters", "objects")
#: domains the visfAtlas has ROIs for (it has no object-selective ROI)
CORTEX_DOMAINS = ("faces", "bodies", "places", "characters")
#: held-out fLoc images of the demo TopoNets (they were trained on images 1-96)
DEFAULT_NUMBERS = tuple(range(97, 121))
FLOC_NONSCRAMBLED = (
    "adult", "child", "body", "limb", "corridor", "house", "word", "number", "car", "instrument",
)
#: the domain pairs whose map similarity the main job reports (sheet and cortex alike)
MAP_PAIRS = ("faces-bodies", "faces-places")
