"""The JSON Schemas of the two jobs' ``summary.json`` (``schemas/*.schema.json``)."""

from __future__ import annotations

import json
from importlib import resources

from ..._util.params import Options, validate_params
from ...exceptions import UnknownNameError

__all__ = ["SUMMARY_SCHEMAS", "summary_schema"]

#: job -> its schema file in ``toponeuro/reporting/schemas``
SUMMARY_SCHEMAS = {"map": "map_summary.schema.json", "language": "language_summary.schema.json"}


@validate_params(dict(job=Options(SUMMARY_SCHEMAS, error=UnknownNameError)))
def summary_schema(job: str = "map") -> dict:
    """The JSON Schema (draft 2020-12) of a job's ``summary.json``.

    ``"map"``: :func:`toponeuro.run_map` (``toponeuro map``); ``"language"``:
    :func:`toponeuro.run_language_map` (``toponeuro map --language``). Every number the
    report prints is a JSON number there (counts integers, fractions in [0, 1]); ``null``
    only where the report prints "–", "undefined" or "not tested". Validate with any JSON
    Schema validator, e.g. ``jsonschema.validate(summary, summary_schema("map"))``.

    Parameters
    ----------
    job : {"map", "language"}
        The job whose summary the schema describes (default ``"map"``).

    Returns
    -------
    dict
        The schema, a fresh copy (JSON-ready).

    Raises
    ------
    UnknownNameError
        An unknown ``job``.

    Examples
    --------
    >>> schema = summary_schema("map")
    >>> schema["properties"]["per_layer"]["additionalProperties"]["properties"]["n_patches"]
    {'type': 'object', 'additionalProperties': {'type': 'integer', 'minimum': 0}}
    >>> summary_schema("language")["properties"]["job"]
    {'const': 'toponeuro map --language'}
    """
    text = (resources.files("toponeuro.reporting") / "schemas" / SUMMARY_SCHEMAS[job]).read_text("utf-8")
    return json.loads(text)
