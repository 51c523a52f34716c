"""Dimension and coordinate names, defined once.

Every DataArray toponeuro produces or accepts uses these names; code refers to the
constants, never to string literals, so a rename happens in one place.
"""

# dimensions
STIMULUS = "stimulus"
UNIT = "unit"
VOXEL = "voxel"
ROW = "row"
COL = "col"

# unit coordinates (Activations); unpooled conv units also carry Y, X (below): their
# position inside the feature map
LAYER = "layer"
CHANNEL = "channel"

# stimulus coordinates
STIMULUS_ID = "stimulus_id"
CATEGORY = "category"
REPETITION = "repetition"

# voxel coordinates (BrainResponses)
SUBJECT = "subject"
ROI = "roi"
# a spatial position, one name for one meaning: of a voxel (mm) in BrainResponses, of an
# unpooled conv unit inside its feature map (0-based y = row, x = column) in Activations
X = "x"
Y = "y"
Z = "z"
# free 2-D positions of units on a model's tissue (TDANN-style), one pair per unit: in mm or
# in sheet units, as the map's attr ATTR_POSITION_UNITS says (see analysis.as_topomap)
POS_X = "pos_x"
POS_Y = "pos_y"
HEMI = "hemi"
VERTEX = "vertex"

ACTIVATION_DIMS = (STIMULUS, UNIT)
RESPONSE_DIMS = (STIMULUS, VOXEL)
UNIT_COORDS = (LAYER, CHANNEL, ROW, COL)
STIMULUS_COORDS = (STIMULUS_ID,)

# attrs
ATTR_MODEL = "model"
ATTR_WEIGHTS_SHA256 = "weights_sha256"
ATTR_VERSION = "toponeuro_version"
#: units of free positions (POS_X, POS_Y) or of mesh positions: "mm" or "sheet"
ATTR_POSITION_UNITS = "position_units"
#: millimetres per position unit of a sheet (its physical scale, when known)
ATTR_MM_PER_UNIT = "mm_per_unit"

# analysis results
DOMAIN = "domain"
DISTANCE = "distance"
SAMPLE = "sample"

# RDMs: a square RDM has dims (STIMULUS, STIMULUS_B); a condensed one has dim PAIR
STIMULUS_B = "stimulus_b"
PAIR = "pair"
PERMUTATION = "permutation"
