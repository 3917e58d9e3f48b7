"""The tables a cold shot reads instead of computing (built at import) against what they
replace: the usual rolls (`dice.roll`) against `roll_counts` and `precision.counted`,
Ceaseless's splits against `_rerolled`, the steps A4–A11 as state tables against the steps run
on arrays, the pools' allocation cells against `allocation`'s, and Feel No Pain's float chances
against `precision.binomials`."""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields, replace
from typing import get_args

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kt2024 import attack, damage, defence, dice, precision
from engine.kt2024.allocation import HIT_CELL, SAVE_CELL
from engine.kt2024.fighter import Fighter
from engine.kt2024.scenario import AttackDice, Attacker, Defender, Reroll


def test_tabulated_rolls_are_roll_counts_with_their_weights() -> None:
    # dice 0..8; success 2..4 with Lethal 5+ or 6+; success 5 or 6 with any critical at most 6
    assert len([k for k in dice._ROLLS if k[3:] == ("NONE", False)]) == 9 * (3 * 2 + 5 + 5)
    assert (8, 3, 5, "NONE", False) in dice._ROLLS and (8, 3, 4, "NONE", False) not in dice._ROLLS
    for (n, success, critical, reroll, cursed), rolled in dice._ROLLS.items():
        computed = dice.roll_counts.__wrapped__(n, success, critical, reroll, cursed)
        for column, other in zip(rolled[:5], computed[:5], strict=True):
            assert column.tolist() == other.tolist()
        assert rolled.den == computed.den and computed.chances is None
        # kept as it is, as hits and as saves: built once with the table, the roll's own
        # columns, each side with its allocation cells
        assert (rolled.as_hits(), rolled.as_saves()) == rolled.kept_as and computed.kept_as is None
        for kept, cells in zip(rolled.kept_as, (HIT_CELL, SAVE_CELL), strict=True):
            shared = zip(kept[:6], (*rolled[:2], *rolled[3:7]), strict=True)
            assert all(column is own for column, own in shared)
            assert kept.cells.tolist() == cells[rolled.crits, rolled.normals].tolist()
        plain = dice.roll_counts.__wrapped__(n, success, critical, reroll, cursed).as_hits()
        assert plain.cells is None and plain.crits is computed.crits  # the pool finds them
        floats, exact = rolled.chances
        expected = precision.counted(computed.ways, computed.den, False)
        assert floats.num.tobytes() == expected.num.tobytes() and floats.den == 1
        expected = precision.counted(computed.ways.astype(object), computed.den, True)
        assert exact.num.tolist() == expected.num.tolist() and exact.den == expected.den


def test_a_roll_outside_the_table_is_computed() -> None:
    for key in [(9, 3, 6, "NONE", False), (7, 3, 6, "BALANCED", False), (4, 3, 6, "NONE", True)]:
        assert key not in dice._ROLLS
        rolled = dice.roll(*key)
        assert rolled.chances is None
        assert rolled.ways.tolist() == dice.roll_counts.__wrapped__(*key).ways.tolist()
    # a critical threshold below the success one is clamped, and shares the clamped roll
    assert dice.roll(4, 5, 3, "NONE", False) is dice.roll(4, 5, 5, "NONE", False)


def test_ceaseless_splits_are_read_for_every_pool_size() -> None:
    for reroll in sorted(dice.CEASELESS_MODES):
        for faces in range(dice.FACES):
            for n in (0, 1, 4, dice.CEASELESS_TABULATED, dice.CEASELESS_TABULATED + 1, 20):
                expected = [dice._rerolled(reroll, faces, f, n) for f in range(n + 1)]
                assert dice._by_eligible(reroll, faces, n) == expected


def test_ceaseless_split_of_two_fails_over_two_faces() -> None:
    # two fails over faces {1, 2}: 11 and 22 re-roll both (6**0 each), 12 and 21 one (6 each)
    assert dice._by_eligible("CEASELESS", 2, 2)[2] == {2: 2, 1: 2 * 6}


def test_counted_int64_counts_as_the_python_ints() -> None:
    ways = np.array([36, 72, 0, 108], dtype=np.int64)
    reduced = precision.counted(ways, 1296, True)
    assert reduced.num.dtype == object and reduced.num.tolist() == [1, 2, 0, 3]
    assert reduced.den == 36 and type(reduced.num[0]) is int
    coprime = precision.counted(np.array([1, 5], dtype=np.int64), 6, True)
    assert coprime.num.tolist() == [1, 5] and coprime.den == 6


RULES = st.fixed_dictionaries(
    {
        "attacks": st.integers(0, attack.STATE_DICE),
        "hit": st.integers(2, 6),
        "lethal": st.integers(2, 6),
        "accurate": st.integers(0, 2),
        "auto_crits": st.integers(0, 2),
        "reroll": st.sampled_from(get_args(Reroll)),
        "fails_to_norms": st.integers(0, attack.TABULATED_AMOUNTS),
        "norms_to_crits": st.integers(0, attack.TABULATED_AMOUNTS),
        **{
            rule: st.booleans()
            for rule in ("punishing", "rending", "severe", "close_assault", "purity_seal")
        },
        "elite_moderate": st.booleans(),
        "elite_extreme": st.booleans(),
    }
)


@settings(max_examples=400, deadline=None)
@given(RULES, st.booleans(), st.booleans())
def test_step_tables_retain_as_the_steps(rules: dict, ob: bool, cursed: bool) -> None:
    """The tabulated steps against the same steps run on arrays (`retain` without codes)."""
    d = AttackDice(**rules)
    n = attack.auto_retained(d)[2]
    rolled = dice.roll(n, d.hit, d.lethal, d.reroll, cursed)
    outcomes = dice.outcomes_key(n, d.hit, d.lethal, cursed)
    assert outcomes in attack._ROLL_STATES
    args = (d, attack.applying(d, ob), rolled.crits, rolled.normals, rolled.fails, ob, 0)
    (*by_tables, cells), (*on_arrays, none) = attack.retain(*args, outcomes), attack.retain(*args)
    for column, other in zip(by_tables, on_arrays, strict=True):
        assert np.asarray(column).tolist() == np.asarray(other).tolist()
    # the tables also give the retained dice's cells (a plain attack reads none of them); the
    # arrays leave them to the pool
    assert (cells is None) == (not (args[1] or ob)) and none is None
    if cells is not None:
        assert cells.tolist() == HIT_CELL[by_tables[0], by_tables[1]].tolist()


def test_severe_then_rending_by_tables() -> None:
    """Three dice, no crit and two normals: Severe promotes one, and blocks Rending."""
    d = AttackDice(attacks=3, severe=True, rending=True)
    state = attack._STATE_INDEX[attack.state_codes(0, 2, 0, 1, 0)]
    for table in attack.tabulated_steps(d, attack.applying(d, False)):
        state = table[state]
    assert (attack._STATES.c[state], attack._STATES.nr[state] + attack._STATES.nl[state]) == (1, 1)
    assert bool(attack._STATES.severe[state])
    crits, normals = attack._RETAINED[True]  # obscured: no crit, one success discarded
    assert (crits[state], normals[state]) == (0, 1)


def test_the_steps_in_the_order_of_the_spec() -> None:
    """A4–A11 once, in order; Obscured stops Punishing and Rending only (their "¬ob")."""
    assert [step.rule for step in attack.STEPS] == [
        "punishing", "purity_seal", "close_assault", "fails_to_norms",
        "severe", "norms_to_crits", "mystic_scry", "rending", "elite",
    ]  # fmt: skip
    every = AttackDice(
        **{rule: True for rule in ("punishing", "purity_seal", "close_assault", "severe")},
        **{rule: True for rule in ("mystic_scry", "rending", "elite_moderate")},
        fails_to_norms=2,
        norms_to_crits=4,
    )
    assert [(step.rule, x) for step, x in attack.applying(every, True)] == [
        ("purity_seal", True), ("close_assault", True), ("fails_to_norms", 2),
        ("severe", True), ("norms_to_crits", 4), ("mystic_scry", True), ("elite", "moderate"),
    ]  # fmt: skip
    assert attack.applying(AttackDice(elite_moderate=True, elite_extreme=True), False)[0][1] == (
        "moderate"
    )
    assert attack.applying(AttackDice(elite_extreme=True), True) == [(attack.STEPS[-1], "extreme")]
    assert attack.applying(AttackDice(), False) == attack.applying(AttackDice(rending=True), True)


def tabulated(d: AttackDice, ob: bool) -> list[np.ndarray] | None:
    return attack.tabulated_steps(d, attack.applying(d, ob))


def test_untabulated_attacks_keep_the_array_steps() -> None:
    assert tabulated(AttackDice(attacks=9, rending=True), False) is None
    assert tabulated(AttackDice(mystic_scry=True), False) is None
    assert tabulated(AttackDice(fails_to_norms=4), False) is None
    assert tabulated(AttackDice(), False) == []
    assert tabulated(AttackDice(punishing=True, rending=True), True) == []
    # obscured alone is read from the state tables too: A12 on every state
    d, rolled = AttackDice(attacks=4), dice.roll(4, 3, 6, "NONE", False)
    outcomes = dice.outcomes_key(4, 3, 6, False)
    args = (d, [], rolled.crits, rolled.normals, rolled.fails, True, 0)
    *by_tables, cells = attack.retain(*args, outcomes)
    *on_arrays, none = attack.retain(*args)
    assert [x.tolist() for x in by_tables] == [x.tolist() for x in on_arrays]
    assert cells.tolist() == HIT_CELL[by_tables[0], by_tables[1]].tolist() and none is None


def test_pools_keep_their_allocation_cells() -> None:
    hits = damage.attack_pool(attack.attack_dice(AttackDice(rending=True)), False, 0, False)
    c, n = hits.crits, hits.normals
    assert hits.cells.tolist() == HIT_CELL[c, n].tolist()
    assert hits.added is None  # no Devastating: the hits add no instance
    saves = damage.defence_pool(Defender(cover_saves=1), 3, False, False, True)
    cs, ns = saves.crits, saves.normals
    assert saves.cells.tolist() == SAVE_CELL[cs, ns].tolist()
    assert saves.added is None  # no Curse of Rot: no cursed die adds an instance
    split = hits.where(c >= 1)
    assert split.cells.tolist() == HIT_CELL[c[c >= 1], n[c >= 1]].tolist()
    assert split.crits.tolist() == c[c >= 1].tolist() and split.added is None
    devastating = damage.attack_pool(attack.attack_dice(AttackDice()), False, 2, False)
    assert devastating.added is devastating.crits  # R1: one instance a crit
    cursed = damage.defence_pool(Defender(), 3, False, True, False)
    rolled = dice.roll(3, 3, 6, "NONE", True)  # R7: one instance a cursed die
    assert cursed.added is not None and cursed.added.tolist() == rolled.cursed.tolist()


def test_reduced_dice_are_hashed_once_as_their_values() -> None:
    shooter = Attacker(attacks=5, rending=True, piercing=1, curse_of_rot=True)
    reduced = attack.attack_dice(shooter)
    same = attack.attack_dice(replace(shooter, piercing=2, obscured=True))
    assert reduced is not same and reduced == same and reduced.curse_of_rot is False
    assert hash(reduced) == hash(same) == AttackDice.__hash__(reduced)
    assert reduced != attack.attack_dice(replace(shooter, rending=False))
    for other in (pickle.loads(pickle.dumps(reduced)), copy.copy(reduced)):
        assert other._kept_hash is None  # the kept hash stays out of pickles and copies
        assert other == reduced and hash(other) == hash(reduced)
    changed = replace(reduced, hit=4)
    assert hash(changed) == AttackDice.__hash__(changed) != hash(reduced)


@pytest.mark.parametrize("threshold", [4, 5, 6])
def test_feel_no_pain_floats_are_the_binomials_of_every_size(threshold: int) -> None:
    chance = damage.feel_no_pain_chance(threshold)
    for top in range(damage.FEEL_NO_PAIN_TABULATED + 3):
        computed = precision.binomials.__wrapped__(chance, top, False)
        damage.thinning.cache_clear()
        read = damage.thinning(threshold, 4, top, False).fnp
        assert read.den == computed.den == 1
        assert read.num.shape == (top + 1, top + 1)
        # the same doubles, bit for bit: a table's corner is the smaller table
        assert read.num.tobytes() == np.ascontiguousarray(computed.num).tobytes()
    exact = damage.thinning(threshold, 4, 3, True).fnp  # exact ones are computed
    expected = precision.binomials.__wrapped__(chance, 3, True)
    assert (
        exact.den == expected.den == chance.denominator**3
        and exact.num.tolist() == expected.num.tolist()
    )


def test_reduced_dice_drop_the_fields_beyond_the_dice() -> None:
    """`attack_dice` copies an attacker's or a fighter's attributes without the fields its
    class adds (`attack.beyond_dice`): exactly the fields of AttackDice, and no kept hash."""
    for cls in (AttackDice, Attacker, Fighter):
        added = [f.name for f in fields(cls) if f.name not in AttackDice.__dataclass_fields__]
        assert list(attack.beyond_dice(cls)) == added
        d = cls(attacks=5, rending=True, curse_of_rot=True)
        hash(d)
        reduced = attack.attack_dice(d)
        assert type(reduced) is AttackDice and reduced._kept_hash is None
        assert set(reduced.__dict__) == {*AttackDice.__dataclass_fields__, "_kept_hash"}
        assert reduced == replace(AttackDice(attacks=5, rending=True), curse_of_rot=False)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 9), st.integers(2, 6), st.integers(4, 6), st.integers(1, 4), st.booleans(),
    st.sampled_from(["NONE", "BALANCED", "CEASELESS"]),
)  # fmt: skip
def test_defenders_in_cover_read_their_normals_and_cells(
    dice_count: int, save: int, crit_save: int, cover: int, cursed: bool, reroll: Reroll
) -> None:
    """D3 from the table built at import (`defence._COVERED`) against its definition: the
    rolled normal saves with the cover saves LOCKED among them, and their save cells."""
    d = Defender(defence_dice=dice_count, save=save, crit_save=crit_save, cover_saves=cover,
                 reroll=reroll)  # fmt: skip
    kept = defence.saves(d, dice_count, False, cursed)
    locked = min(cover, dice_count)
    success, critical = defence.save_thresholds(d)
    rolled = dice.roll(dice_count - locked, success, critical, reroll, cursed)
    assert kept.crits.tolist() == rolled.crits.tolist()
    assert kept.normals.tolist() == (rolled.normals + locked).tolist()
    assert kept.ways is rolled.ways and kept.den == rolled.den
    key = (dice.outcomes_key(dice_count - locked, success, critical, cursed), locked)
    assert (kept.cells is not None) == (key in defence._COVERED)
    if kept.cells is not None:
        assert kept.cells.tolist() == SAVE_CELL[kept.crits, kept.normals].tolist()
    pool = damage.defence_pool(d, dice_count, False, cursed, False)
    assert pool.cells.tolist() == SAVE_CELL[pool.crits, pool.normals].tolist()
