"""One contrast design tested with two statistics (the vision job: smoothness, then units in
patches) draws its label-null maps once (issue 46), with the same numbers as drawing twice."""

from __future__ import annotations

import numpy as np

import toponeuro
from toponeuro.analysis import contrast_design, contrast_topography
from toponeuro.stimuli import FLOC_CATEGORIES


def _design():
    ten = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    acts = toponeuro.make_activations({"v1": 256}, 40, random_state=3, categories=ten * 4)
    return contrast_design(acts, "faces", "rest", layer="v1")


def _both(design):
    kw = dict(n_permutations=49, random_state=0)
    return (contrast_topography(design, statistic="smoothness", **kw),
            contrast_topography(design, statistic="patch_units", threshold=1.0, min_units=3,
                                **kw))


def test_second_statistic_reads_the_first_ones_label_draws(monkeypatch):
    design = _design()
    calls = []
    point_maps = type(design).point_maps

    def counted(self, target):
        calls.append(len(target))
        return point_maps(self, target)

    monkeypatch.setattr(type(design), "point_maps", counted)
    smooth, units = _both(design)
    drawn = sum(n for n in calls if n > 1)  # the observed map is a batch of one
    assert drawn == 49  # the label null's 49 maps, once for both statistics
    # the same numbers as two fresh designs, each drawing its own
    a = contrast_topography(_design(), statistic="smoothness", n_permutations=49,
                            random_state=0)
    b = contrast_topography(_design(), statistic="patch_units", threshold=1.0, min_units=3,
                            n_permutations=49, random_state=0)
    np.testing.assert_array_equal(smooth.labels.null, a.labels.null)
    np.testing.assert_array_equal(units.labels.null, b.labels.null)
    assert units.labels.p_value == b.labels.p_value
