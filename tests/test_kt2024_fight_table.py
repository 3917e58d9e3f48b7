"""`table.py`'s rules over arrays against `strike.py`'s rules one state at a time.

The fight's decisions and its real resolution run on the table's numbered moments; the scalar
rules (which F3's Duelist parries and the wounds grid's chance steps use) are the reference.
Every moment of random fights (the table holds those some sequence reaches) is checked: each
useful action's next moment and projected damage, its outcomes with Relic and Feel No Pain
dice rolled, and every fact the §9.5 decisions read.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

from hypothesis import assume, given
from kt2024_fights import engine_fight, fights, slow

from engine.kt2024.decisions import last_block_parry, wise_parry
from engine.kt2024.fight_state import CRIT, NORMAL, Pair, Status, oriented, unoriented
from engine.kt2024.fighter import Fighter
from engine.kt2024.sequence import Sequence
from engine.kt2024.strike import ACTIONS, CRIT_STRIKE, NORMAL_STRIKE, can_parry, moves
from engine.kt2024.table import FLAGS, MELEE, Table


def every_pair(table: Table) -> list[Pair]:
    """Both fighters' statuses over every hand and every value of the flags they keep."""
    sides = []
    for x in (0, 1):
        values = [range(FLAGS[k]) if FLAGS[k] > 2 else (False, True) for k in table.kept[x]]
        sides.append(
            [
                Status(c, n, 0, **dict(zip(table.kept[x], flags, strict=True)))
                for (c, n) in table.hands[x]
                for flags in product(*values)
            ]
        )
    return list(product(*sides))


@slow(60)
@given(fights(max_attacks=4))
def test_table_rules_match_the_scalar_rules(body: dict) -> None:
    sequence = Sequence(engine_fight(body))
    table, fighters = sequence.table, sequence.fighters
    assume(any(len(hands) > 1 for hands in table.hands))  # someone rolls a success
    checked, seen = 0, set()
    for pair, active in product(every_pair(table), (0, 1)):
        try:
            n = table.number(active, pair)
        except KeyError:  # no sequence reaches it: the table holds reachable moments only
            continue
        seen.add(n)
        if table.over[n]:
            assert not (pair[0].successes or pair[1].successes)
            continue
        x = table.mover[n]
        assert pair[x].successes and (x == active or not pair[active].successes)
        xs, ys = oriented(pair, x)
        fy = fighters[1 - x]
        for code, (verb, kind) in enumerate(ACTIONS):
            legal = xs.has(kind) if verb == "STRIKE" else can_parry(fy, xs, ys, kind)
            if not legal:
                assert table.next[code][n] == -1
                continue
            ((_, after, dmg),) = moves(fighters, x, pair, (verb, kind), False)
            assert table.next[code][n] == table.number(1 - x, after)
            assert table.damage[code][n] == dmg
            rolled = Counter(
                (Fraction(a, 6**d), table.number(1 - x, after), dmg)
                for (a, d), after, dmg in moves(fighters, x, pair, (verb, kind), True)
            )
            assert (
                Counter(
                    (Fraction(a, 6**d), nxt, dmg) for (a, d), nxt, dmg in table.branches(n, code)
                )
                == rolled
            )
            checked += 1
        hit = 0 if xs.crits else 1
        assert table.hit[n] == hit
        useful = can_parry(fy, xs, ys, CRIT) or can_parry(fy, xs, ys, NORMAL)
        assert table.always[n] == (not ys.successes or not useful)
        fx = fighters[x]
        stun = (fx.stun2021 or fx.shock) and not xs.crit_struck and xs.crits and not ys.crits
        assert table.stun[n] == bool(stun)
        wise = wise_parry(fy, xs, ys)
        if ys.successes:  # wiseParry is only asked for when Y has something to parry
            assert table.wise[n] == (-1 if wise is None else ACTIONS.index(wise))
        block = last_block_parry(fx, fy, xs, ys)
        assert table.block[n] == (-1 if block is None else ACTIONS.index(block[0]))
        if block is not None:
            _, xs2, ys2 = block
            reach = 0
            while xs2.successes:
                strike = CRIT_STRIKE if xs2.crits else NORMAL_STRIKE
                ((_, after, dmg),) = moves(fighters, x, unoriented(xs2, ys2, x), strike, False)
                xs2, ys2 = oriented(after, x)
                reach += dmg
            assert table.reach[n] == reach
    assert checked
    assert seen == set(range(table.size))  # every moment the table holds was checked


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
