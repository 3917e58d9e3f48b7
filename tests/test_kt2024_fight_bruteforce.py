"""The fight engine against the die-by-die oracle, plus properties every fight must have."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kt2024_fight_oracle import FIGHTER_DEFAULTS, Oracle
from kt2024_fights import HEURISTICS, engine_fight, fights, slow

from engine.errors import InputError, TooLarge
from engine.kt2024 import budgets, flat, precision, table
from engine.kt2024.fight import evaluate, final_wounds
from engine.kt2024.fight_canonical import canonical_fight, fight_key
from engine.kt2024.fighter import Fighter, FightOptions
from engine.kt2024.scenario import camel
from engine.kt2024.sequence import Sequence
from schema import registry


def joint(body: dict, exact: bool = True) -> dict:
    return final_wounds(engine_fight(body, exact), exact)


def oracle(body: dict) -> dict:
    """The die-by-die oracle's joint distribution of final wounds, cells of probability 0
    left out (as `joint` leaves them)."""
    options = body["options"]
    fighters = body["fighterA"], body["fighterB"]
    finals = Oracle(*fighters, options["firstToAct"], options["rounds"]).finals()
    return {w: p for w, p in finals.items() if p}


def through_residues(body: dict) -> dict:
    """`joint` with every float gap deemed too close to call, so that each OPTIMAL
    comparison goes through the numerators' residues."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flat, "TOLERANCE", flat.TOLERANCE * 1e12)
        return joint(body)


# ---- the oracle --------------------------------------------------------------------------


@slow(150)
@given(fights())
def test_matches_die_by_die_oracle(body: dict) -> None:
    assert joint(body) == oracle(body)


@slow(150)
@given(fights(max_attacks=4, max_wounds=10, max_rounds=1, strategies=HEURISTICS))
def test_heuristics_match_die_by_die_oracle(body: dict) -> None:
    """Longer alternations, where last blocks (D4) and projections (D5) decide more often."""
    assert joint(body) == oracle(body)


@slow(60)
@given(fights(max_attacks=2, max_wounds=6, strategies=("OPTIMAL",)))
def test_optimal_vs_optimal_matches_oracle(body: dict) -> None:
    assert joint(body) == oracle(body)


def test_oracle_reproduces_a_worked_example() -> None:
    """F25 of the spec, worked by hand in §13: guards the oracle itself."""
    a = {"attacks": 1, "hit": 2, "normalDamage": 3, "criticalDamage": 3, "wounds": 3,
         "strategy": "OPTIMAL"}  # fmt: skip
    b = {"attacks": 2, "hit": 4, "normalDamage": 3, "criticalDamage": 3, "wounds": 6,
         "strategy": "STRIKE"}  # fmt: skip
    finals = Oracle(a, b).finals()
    assert sum(p for w, p in finals.items() if w[0] == 0) == Fraction(4, 9)


# ---- properties --------------------------------------------------------------------------


@slow(40)
@given(fights(max_attacks=5, max_wounds=14, max_rounds=3, strategies=HEURISTICS))
def test_sums_to_one_and_float_mode_agrees(body: dict) -> None:
    exact = joint(body)
    assert sum(exact.values()) == 1
    floats = joint(body, exact=False)
    assert floats.keys() == exact.keys()
    for w, p in exact.items():
        assert abs(Fraction(floats[w]) - p) <= Fraction(1, 10**12)
    assert all(type(wounds) is int for cell in floats for wounds in cell)  # JSON-ready


def swapped(body: dict) -> dict:
    first = {"A": "B", "B": "A"}[body["options"]["firstToAct"]]
    return {"fighterA": body["fighterB"], "fighterB": body["fighterA"],
            "options": {**body["options"], "firstToAct": first}}  # fmt: skip


@slow(30)
@given(fights(max_attacks=4, max_wounds=10))
def test_swapping_fighters_swaps_results(body: dict) -> None:
    assert joint(swapped(body)) == {(b, a): p for (a, b), p in joint(body).items()}


def utility(finals: dict) -> Fraction:
    """U of §9.8 for fighter A."""
    return sum(p for (a, b), p in finals.items() if b == 0) - sum(
        p for (a, b), p in finals.items() if a == 0
    )


@slow(25)
@given(fights(max_attacks=4, max_wounds=10, strategies=HEURISTICS), st.booleans())
def test_optimal_never_below_a_heuristic(body: dict, opponent_optimal: bool) -> None:
    if opponent_optimal:
        body = {**body, "fighterB": {**body["fighterB"], "strategy": "OPTIMAL"}}
    best = utility(joint({**body, "fighterA": {**body["fighterA"], "strategy": "OPTIMAL"}}))
    for strategy in HEURISTICS:
        assert best >= utility(
            joint({**body, "fighterA": {**body["fighterA"], "strategy": strategy}})
        )


def test_optimal_policy_does_not_depend_on_precision() -> None:
    body = {"fighterA": {"attacks": 4, "wounds": 10, "strategy": "OPTIMAL"},
            "fighterB": {"attacks": 4, "wounds": 6, "normalDamage": 4, "feelNoPain": 4},
            "options": {"firstToAct": "B", "rounds": 2}}  # fmt: skip
    exact, floats = joint(body), joint(body, exact=False)
    assert floats.keys() == exact.keys()
    assert all(abs(floats[w] - float(p)) <= 1e-12 for w, p in exact.items())


# ---- canonical form ----------------------------------------------------------------------


@slow(40)
@given(fights(max_attacks=4, max_wounds=10))
def test_canonical_form_never_changes_results(body: dict) -> None:
    fight = engine_fight(body)
    canonical = canonical_fight(fight)
    assert canonical_fight(canonical) == canonical
    assert fight_key(canonical) == fight_key(fight)
    assert evaluate(canonical) == evaluate(fight)


def key_of(body: dict) -> str:
    handler, scenario = registry.resolve(body, "fight")
    return handler.cache_key(scenario)


@pytest.mark.parametrize(
    ("one", "other"),
    [  # CF1: capped counts and a lethal below the hit roll
        ({"attacks": 2, "accurate": 5}, {"attacks": 2, "accurate": 2}),
        ({"attacks": 3, "autoCrits": 4, "accurate": 1}, {"attacks": 3, "autoCrits": 3}),
        ({"hit": 4, "lethal": 2}, {"hit": 4, "lethal": 4}),
        ({"attacks": 2, "accurate": 2, "hit": 5, "reroll": "RELENTLESS", "rending": True},
         {"attacks": 2, "accurate": 2}),
        ({"attacks": 2, "failsToNorms": 8}, {"attacks": 2, "failsToNorms": 2}),
    ],
)  # fmt: skip
def test_equivalent_fighters_share_a_key(one: dict, other: dict) -> None:
    assert key_of({"fighterA": one}) == key_of({"fighterA": other})
    assert registry.run({"fighterA": one}, "fight") == registry.run({"fighterA": other}, "fight")


def test_opponent_dependent_rules_collapse() -> None:
    low_crits = {"criticalDamage": 3}
    assert key_of({"fighterA": {"durable": True}, "fighterB": low_crits}) == key_of(
        {"fighterB": low_crits}
    )  # CF2
    no_dice = {"attacks": 0}
    assert key_of({"fighterA": {"curseOfRot": True}, "fighterB": no_dice}) == key_of(
        {"fighterB": no_dice}
    )  # CF3
    assert key_of({"fighterA": {"durable": True}}) != key_of({})  # 4 crit damage: it matters


def test_key_format_and_options() -> None:
    key = key_of({})
    assert key.startswith("kt2024-v2:fight:{")
    assert " " not in key
    assert '"options":{"exact":false,"firstToAct":"A","rounds":1}' in key
    assert key_of({"options": {"exact": True}}) != key


# ---- validation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code", "field", "limit"),
    [
        ({"fighterA": {"attacks": 9}}, "LIMIT_EXCEEDED", "fighterA.attacks", 8),
        ({"fighterB": {"accurate": 9}}, "LIMIT_EXCEEDED", "fighterB.accurate", 8),
        ({"fighterA": {"normsToCrits": 9}}, "LIMIT_EXCEEDED", "fighterA.normsToCrits", 8),
        ({"fighterA": {"wounds": 31}}, "LIMIT_EXCEEDED", "fighterA.wounds", 30),
        ({"fighterA": {"criticalDamage": 21}}, "LIMIT_EXCEEDED", "fighterA.criticalDamage", 20),
        ({"options": {"rounds": 6}}, "LIMIT_EXCEEDED", "options.rounds", 5),
        ({"fighterA": {"wounds": 0}}, "INVALID_INPUT", "fighterA.wounds", None),
        ({"options": {"rounds": 0}}, "INVALID_INPUT", "options.rounds", None),
        ({"fighterA": {"attacks": -1}}, "INVALID_INPUT", "fighterA.attacks", None),
        ({"fighterA": {"hit": 7}}, "INVALID_INPUT", "fighterA.hit", None),
        ({"fighterB": {"feelNoPain": 3}}, "INVALID_INPUT", "fighterB.feelNoPain", None),
        ({"fighterA": {"strategy": "RUN"}}, "INVALID_INPUT", "fighterA.strategy", None),
        ({"options": {"firstToAct": "C"}}, "INVALID_INPUT", "options.firstToAct", None),
        ({"fighterA": {"attacks": 2.0}}, "INVALID_INPUT", "fighterA.attacks", None),
        ({"fighterA": {"shock": 1}}, "INVALID_INPUT", "fighterA.shock", None),
        ({"fighterA": {"piercing": 1}}, "INVALID_INPUT", "fighterA.piercing", None),
        ({"fighterA": {"devastating": 1}}, "INVALID_INPUT", "fighterA.devastating", None),
        ({"attacker": {}}, "INVALID_INPUT", "attacker", None),
        ({"fighterB": {"eliteModerate": True, "eliteExtreme": True}}, "INVALID_INPUT",
         "fighterB.eliteExtreme", None),
    ],
)  # fmt: skip
def test_validation_errors(body: dict, code: str, field: str, limit: int | None) -> None:
    with pytest.raises(InputError) as caught:
        registry.resolve(body, "fight")
    assert (caught.value.code, caught.value.field, caught.value.limit) == (code, field, limit)


def test_values_capped_by_another_field_are_valid() -> None:
    fight = registry.resolve({"fighterA": {"attacks": 1, "accurate": 8}}, "fight")[1]
    assert fight.fighter_a.accurate == 8


def test_every_api_field_reaches_the_engine() -> None:
    """The oracle's field list, the API model and the engine dataclass name the same fields."""
    engine_fields = {camel(name) for name in Fighter.__dataclass_fields__}
    assert engine_fields == set(FIGHTER_DEFAULTS)
    assert engine_fight({"fighterA": {}, "options": {}}).fighter_a == replace(
        Fighter(), strategy="MAX_DAMAGE"
    )
    assert FightOptions().first_to_act == "A"


def refused(body: dict) -> InputError:
    """The error a fight refused past one of its budgets raises."""
    with pytest.raises(InputError) as caught:
        registry.run(body, "fight")
    return caught.value


def test_optimal_refuses_fights_beyond_its_memory_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """OPTIMAL at the §12 maxima would need gigabytes: past its budget it is a clean error
    naming the OPTIMAL fighter's strategy."""
    monkeypatch.setattr(flat, "MEMORY_BUDGET", 2**14)  # a few nodes of 12 × 12 wounds
    body = {"fighterB": {"strategy": "OPTIMAL"}, "options": {"rounds": 2}}
    caught = refused(body)
    assert caught.as_json() == {
        "code": "LIMIT_EXCEEDED",
        "field": "fighterB.strategy",
        "message": f"OPTIMAL would need more than {2**14} bytes for these attacks, wounds and "
        "rounds; use fewer of them or a heuristic strategy",
        "limit": 2**14,
    }


@pytest.mark.parametrize("rounds", [1, 2])
def test_fights_beyond_their_budget_are_refused(
    monkeypatch: pytest.MonkeyPatch, rounds: int
) -> None:
    """Past the grid's budget, even with one prime a pass, a heuristic fight is refused,
    whatever its sequences."""
    monkeypatch.setattr(flat, "MEMORY_BUDGET", 2**14)
    body = {"fighterA": {"feelNoPain": 5}, "options": {"rounds": rounds}}
    caught = refused(body)
    assert caught.as_json() == {
        "code": "LIMIT_EXCEEDED",
        "field": "options.rounds",
        "message": f"the exact resolution of this fight needs more than {2**14} bytes; "
        "use fewer rounds, attacks or wounds",
        "limit": 2**14,
    }


def prime_by_prime(body: dict) -> tuple[dict, int]:
    """`joint` (exact) with the grid's budget cut to what one prime a pass of `kernels.push`
    needs, and how many primes a pass that leaves."""
    scenario = engine_fight(body, True)
    grid = flat.Flat(scenario, Sequence(scenario))
    solving = len(grid.primes(True)[0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flat, "MEMORY_BUDGET", grid.footprint(1, solving))
        return flat.resolve(grid, True), grid.lanes(True)


def test_exact_masses_too_large_for_one_pass_go_prime_by_prime() -> None:
    """A fight whose masses modulo every prime at once would not fit the budget pushes them
    a prime at a time (the residues modulo each prime are independent): the same answer."""
    body = {
        "fighterA": {"feelNoPain": 5, "saintlyRelics": "ONE_D6"},
        "fighterB": {"attacks": 5},
        "options": {"rounds": 2},
    }
    scenario = engine_fight(body, True)
    primes = flat.Flat(scenario, Sequence(scenario)).primes(True)[1]
    finals, lanes = prime_by_prime(body)
    assert lanes == 1 < len(primes)
    assert finals == joint(body)


@slow(40)
@given(fights(max_attacks=5, max_wounds=12, max_rounds=3))
def test_prime_by_prime_matches_one_pass(body: dict) -> None:
    """The wounds grid with its exact masses pushed one prime at a time gives the one-pass
    answer exactly."""
    assert prime_by_prime(body)[0] == joint(body)


def test_rows_wider_than_the_grid_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    """`kernels.reach` keeps a row of B's wounds in one int64: with rows narrower than B's
    wounds a fight is refused naming B's wounds."""
    body = {"fighterA": {"feelNoPain": 5}, "fighterB": {"wounds": 10}, "options": {}}
    monkeypatch.setattr(flat, "ROW_BITS", 10)
    for rounds in (1, 2):
        caught = refused({**body, "options": {"rounds": rounds}})
        assert caught.as_json() == {
            "code": "LIMIT_EXCEEDED",
            "field": "fighterB.wounds",
            "message": "the wounds grid holds at most 9 wounds a fighter",
            "limit": 9,
        }


def test_tables_beyond_their_budget_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many attacks with rules that keep flags make many tactical moments: past the budget a
    fight is refused while its table is being discovered, never left to exhaust the process."""
    monkeypatch.setattr(table, "TABLE_BUDGET", 10_000)
    side = {"attacks": 8, "saintlyRelics": "TWO_D6", "durable": True, "hammerhand2021": True}
    caught = refused({"fighterA": side, "fighterB": side, "options": {}})
    assert caught.as_json() == {
        "code": "LIMIT_EXCEEDED",
        "field": "fighterA.attacks",
        "message": "these attacks and rules make more than 10000 tactical moments (× outcomes); "
        "use fewer attacks or fewer of the rules that keep flags",
        "limit": 10_000,
    }


def test_the_engine_names_its_own_quantities(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine refuses in its own terms (what it would run out of, charged to which
    fighter); `schema.kt2024.fight` names the request field."""
    monkeypatch.setattr(flat, "MEMORY_BUDGET", 2**14)
    scenario = engine_fight({"fighterB": {"strategy": "OPTIMAL"}, "options": {"rounds": 2}})
    with pytest.raises(TooLarge) as caught:
        evaluate(scenario)
    assert (caught.value.quantity, caught.value.limit, caught.value.fighter) == (
        budgets.OPTIMAL_BYTES,
        2**14,
        1,
    )
    assert not isinstance(caught.value, InputError)


def test_answers_do_not_depend_on_what_memory_held_before() -> None:
    """The compiled loops leave their value and plan arrays unzeroed (each cell is written
    before it is read): the same fight, asked again after freed memory of every size was
    filled with garbage, gives bit-identical answers in both precisions."""
    side = {"attacks": 4, "feelNoPain": 5, "saintlyRelics": "ONE_D6", "strategy": "OPTIMAL"}
    body = {
        "fighterA": side,
        "fighterB": {"attacks": 5, "wounds": 9, "strategy": "MAX_DAMAGE", "duelist": True},
        "options": {"rounds": 2},
    }
    first = {exact: joint(body, exact) for exact in (True, False)}
    for size in (2**10, 2**14, 2**18, 2**22):
        garbage = [np.full(size, np.nan), np.full(size, -1, dtype=np.int64)]
        del garbage
    again = {exact: joint(body, exact) for exact in (True, False)}
    assert again == first


def test_residue_moduli_are_primes() -> None:
    """Exact mode carries masses as a / 6**d modulo primes (6 must be invertible), and
    OPTIMAL its numerators modulo 2**64 and primes (Garner needs moduli coprime in pairs, and
    their product bounds the numerators' difference): the table holds distinct odd primes."""
    assert len(set(precision.PRIMES)) == len(precision.PRIMES)
    for p in precision.PRIMES:
        assert p < 2**31 and p % 2 and all(p % k for k in range(3, int(p**0.5) + 1, 2))


@pytest.mark.parametrize(("feel_no_pain", "wounds", "attacks"), [(4, 7, 2), (5, 6, 3)])
def test_optimal_exact_comparisons_over_each_nodes_power_of_six(
    feel_no_pain: int, wounds: int, attacks: int
) -> None:
    """Feel No Pain rolls dice within a sequence, so values sit over a different power of 6
    at each node: with every comparison forced through the exact path, a candidate's
    numerator must be over its own node's power (nodes once got another node's exponent,
    which gave these fights wrong signs)."""
    side = {**FIGHTER_DEFAULTS, "attacks": attacks, "hit": 3, "normalDamage": 2}
    side |= {"criticalDamage": 3, "wounds": wounds, "strategy": "OPTIMAL"}
    body = {
        "fighterA": side,
        "fighterB": {**side, "feelNoPain": feel_no_pain},
        "options": {"firstToAct": "A", "rounds": 1},
    }
    assert through_residues(body) == oracle(body)


@slow(20)
@given(fights(max_attacks=2, max_wounds=6, strategies=("OPTIMAL", "OPTIMAL", "MAX_DAMAGE")))
def test_optimal_exact_comparisons_match_oracle(body: dict) -> None:
    """With every float gap deemed too close to call, each OPTIMAL comparison goes through
    the residues (ties) or the exact values at those cells (the rest): same answers."""
    assert through_residues(body) == oracle(body)
