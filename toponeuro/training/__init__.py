"""Train small TopoNets with cross-entropy + TopoLoss (``toponeuro train``)."""

from . import (
    _checkpoint,
    _data,
    _evaluate,
    _export,
    _instances,
    _language,
    _load,
    _recipes,
    _runs,
    _schema,
    _settings,
    _train,
    _trajectory,
)
from ._checkpoint import *
from ._data import *
from ._evaluate import *
from ._export import *
from ._instances import *
from ._language import *
from ._load import *
from ._recipes import *
from ._runs import *
from ._schema import *
from ._settings import *
from ._train import *
from ._trajectory import *

__all__ = [
    *_checkpoint.__all__,
    *_train.__all__,
    *_runs.__all__,
    *_load.__all__,
    *_trajectory.__all__,
    *_recipes.__all__,
    *_schema.__all__,
    *_settings.__all__,
    *_data.__all__,
    *_instances.__all__,
    *_language.__all__,
    *_evaluate.__all__,
    *_export.__all__,
]
