"""The vision job's headline rule (reporting/_headline_rule.py) on planted comparison rows:
a test that cannot reach alpha is never the headline, and the most evidence wins."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from toponeuro.reporting._kit.headline import HEADLINE_RULE, choose_headline, headline_eligible


def side(p, n=999, null="positions", alternative="greater"):
    return NS(p_value=p, n_permutations=n, null=null, alternative=alternative)


def row(descriptor, verdict, pm, pc, nm=999, nc=999, **kw):
    return NS(descriptor=descriptor, domain="faces", verdict=verdict,
              model=side(pm, nm, **kw), cortex=side(pc, nc, **kw))


def comps(**rows_by_key):
    return {tuple(k.split("__")): NS(rows=v) for k, v in rows_by_key.items()}


def test_three_centre_distances_are_never_the_headline_even_with_the_smallest_p():
    """The 0.4 headline: a Spearman over 3 distances (rho in {+-0.5, +-1}, p never below
    1/6 exactly, here with 6 'draws') -- planted with a p smaller than every other row."""
    three = row("arrangement", "alike", 0.0, 0.0, nm=5, nc=5, alternative="two-sided")
    other = row("clustering", "alike", 0.04, 0.03)
    pick = choose_headline(comps(l4__left=[three, other]))
    assert pick.row is other and pick.n_eligible == 1 and pick.n_rows == 2


def test_the_most_evidence_wins_and_ties_follow_the_fixed_order():
    weak = row("smoothness", "alike", 0.001, 0.04)   # weaker side p = 0.04
    strong = row("patch_count", "unlike", 0.002, 0.003)  # weaker side p = 0.003
    pick = choose_headline(comps(l3__left=[weak], l4__right=[strong]))
    assert (pick.layer, pick.hemisphere, pick.row) == ("l4", "right", strong)
    assert pick.evidence == pytest.approx(0.003)
    # the same evidence: more draws, then descriptor order, then the deeper layer
    a, b = row("clustering", "alike", 0.001, 0.001), row("smoothness", "alike", 0.001, 0.001)
    assert choose_headline(comps(l4__left=[a, b])).row is b
    c = row("clustering", "alike", 0.001, 0.001, nm=9999, nc=9999)
    assert choose_headline(comps(l4__left=[a, c])).row is c
    deep = row("clustering", "alike", 0.001, 0.001)
    pick = choose_headline(comps(l3__left=[a], l4__left=[deep]), layers=["l3", "l4"])
    assert pick.row is deep


def test_rows_without_a_verdict_or_a_null_on_one_side_are_not_eligible():
    untestable = row("clustering", "not testable", 0.001, 0.001)
    no_null = NS(descriptor="patch_size", verdict="alike", model=side(0.001),
                 cortex=side(float("nan"), 0, null="none"))
    assert not headline_eligible(untestable, 0.05)
    assert not headline_eligible(no_null, 0.05)
    assert choose_headline(comps(l4__left=[untestable, no_null])) is None
    assert "never the headline" in HEADLINE_RULE


def test_a_hemisphere_tie_goes_to_the_left_whatever_order_the_comparisons_come_in():
    """One rule for both jobs: the last tie-break is left, then right -- not the order of
    the mapping (the language job builds its comparisons right first when only the right
    has a map of one kind)."""
    r_right, r_left = row("clustering", "alike", 0.001, 0.001), row("clustering", "alike",
                                                                     0.001, 0.001)
    pick = choose_headline(comps(l4__right=[r_right], l4__left=[r_left]))
    assert (pick.hemisphere, pick.row) == ("left", r_left)


def test_too_few_draws_make_the_headline_not_testable_in_the_rule_s_words():
    from toponeuro.reporting._kit.headline import NOT_TESTABLE

    few = row("clustering", "alike", 0.1, 0.1, nm=9, nc=9, alternative="two-sided")
    assert choose_headline(comps(l4__left=[few])) is None
    assert NOT_TESTABLE == "not testable" and f"'{NOT_TESTABLE}'" in HEADLINE_RULE
