"""`table.py`'s rules over arrays against the die-by-die oracle's rules one state at a time.

The fight's decisions and its real resolution run on the table's numbered moments, the one
home of §9.3, §9.4 and the facts §9.5 asks; `kt2024_fight_oracle` (written from the spec
alone) is the reference. Every moment of random fights is checked: each useful action's next
moment and projected damage, its outcomes with every Relic and Feel No Pain die rolled, and
every fact the §9.5 decisions read.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
from hypothesis import assume, given
from kt2024_fight_oracle import CANDIDATES, Oracle, status
from kt2024_fights import engine_fight, fights, slow

from engine.kt2024.fighter import Fighter
from engine.kt2024.sequence import Sequence
from engine.kt2024.table import FLAGS, MELEE, NONE, Side, Table

WOUNDS = 1000
"""Every state is checked at wounds no strike can take away, so damage is a difference."""

ORACLE_FLAG = {
    "struck": "struck",
    "crit_struck": "critStruck",
    "jas_used": "jas",
    "durable_used": "durable",
    "half_used": "half",
    "relic_used_this_sequence": "relicSeq",
    "relics_used": "relics",
}
"""The oracle's name of each flag the table keeps."""


def states(table: Table) -> list[tuple[int, tuple[dict, dict]]]:
    """Every moment of the table as (whose turn, the oracle's statuses of A and B)."""
    active, sides = table._sides(table.keys)
    found = []
    for n in range(table.size):
        pair = []
        for x in (0, 1):
            s = status(int(sides[x].crits[n]), int(sides[x].normals[n]), WOUNDS, 0)
            for k in table.kept[x]:
                s[ORACLE_FLAG[k]] = (
                    int(sides[x].flags[k][n]) if FLAGS[k].values > 2 else bool(sides[x].flags[k][n])
                )
            pair.append(s)
        found.append((int(active[n]), (pair[0], pair[1])))
    return found


def number(table: Table, active: int, pair: tuple[dict, dict]) -> int:
    """The table's number of the oracle's state (its flags the table does not keep dropped)."""
    sides = [
        Side(
            np.array([s["c"]]),
            np.array([s["n"]]),
            {k: np.array([s[ORACLE_FLAG[k]]]) for k in table.kept[x]},
        )
        for x, s in enumerate(pair)
    ]
    key = table._encode(np.array([active]), sides)
    n = int(np.searchsorted(table.keys, key)[0])
    assert table.keys[n] == key[0], "the oracle reaches a moment the table does not"
    return n


def outcomes(table: Table, x: int, before: tuple, after: list) -> dict:
    """(next moment, damage dealt) → probability, from the oracle's outcomes."""
    found: dict = defaultdict(Fraction)
    for p, pair in after:
        found[(number(table, 1 - x, pair), before[1 - x]["w"] - pair[1 - x]["w"])] += p
    return dict(found)


@slow(60)
@given(fights(max_attacks=4))
def test_table_rules_match_the_oracle(body: dict) -> None:
    sequence = Sequence(engine_fight(body))
    table = sequence.table
    assume(any(len(hands) > 1 for hands in table.hands))  # someone rolls a success
    oracle = Oracle(body.get("fighterA", {}), body.get("fighterB", {}))
    fighters = oracle.f
    checked = 0
    moves, column = table.moves, {k: v.tolist() for k, v in table.columns.items()}
    for n, (active, pair) in enumerate(states(table)):
        if column["over"][n]:
            assert not any(s["c"] + s["n"] for s in pair)
            continue
        x = column["mover"][n]
        xs, ys = pair[x], pair[1 - x]
        assert xs["c"] + xs["n"] and (x == active or not pair[active]["c"] + pair[active]["n"])
        for code, action in enumerate(CANDIDATES):
            if not oracle.legal(pair, x, action):
                assert table.next[code][n] == NONE
                continue
            ((nxt, dmg),) = outcomes(table, x, pair, oracle.apply(pair, x, action, chance=False))
            assert (table.next[code][n], int(moves.damage[n, code, 0])) == (nxt, dmg)
            rolled: dict = defaultdict(Fraction)
            for slot in np.flatnonzero(moves.odds_a[n, code]).tolist():
                a, d = int(moves.odds_a[n, code, slot]), int(moves.odds_d[n, code, slot])
                key = (int(moves.next[n, code, slot]), int(moves.damage[n, code, slot]))
                rolled[key] += Fraction(a, 6**d)
            assert rolled == outcomes(table, x, pair, oracle.apply(pair, x, action, chance=True))
            checked += 1
        assert column["hit"][n] == (0 if xs["c"] else 1)
        useful = oracle.legal(pair, x, ("P", "C")) or oracle.legal(pair, x, ("P", "N"))
        assert column["always"][n] == (not ys["c"] + ys["n"] or not useful)
        fx = fighters[x]
        stun = (fx["stun2021"] or fx["shock"]) and not xs["critStruck"] and xs["c"] and not ys["c"]
        assert column["stun"][n] == bool(stun)
        wise = oracle.wise_parry(pair, x)
        if ys["c"] + ys["n"]:  # wiseParry is only asked for when Y has something to parry
            assert table.wise[n] == (NONE if wise is None else CANDIDATES.index(wise))
        block = oracle.last_block(pair, x)
        assert column["block"][n] == (NONE if block is None else CANDIDATES.index(block[0]))
        if block is not None:
            assert column["reach"][n] == WOUNDS - block[1][1 - x]["w"]
    assert checked


def test_the_table_reads_only_its_melee_fields() -> None:
    """Fights share a table when their fighters agree on `table.MELEE` (`table_for`), so the
    table must read no other field of a fighter."""
    read: set[str] = set()

    class Spy:
        def __init__(self, fighter: Fighter) -> None:
            self._fighter = fighter

        def __getattr__(self, name: str) -> object:
            read.add(name)
            return getattr(self._fighter, name)

    values = {
        "normal_damage": 3,
        "critical_damage": 5,
        "just_a_scratch": "CRITS",
        "feel_no_pain": 5,
        "saintly_relics": "ONE_D6",
    }
    everything = Fighter(**{name: values.get(name, True) for name in MELEE})
    Table((Spy(everything), Spy(everything)), ((2, 2, 3), (2, 2, 3)))  # type: ignore[arg-type]
    assert read and read <= set(MELEE)
