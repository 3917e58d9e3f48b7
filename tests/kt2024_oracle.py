"""An independent brute-force oracle for kt2024 shooting, written from the spec alone.

It enumerates every face of every attack, defence, re-roll, relic and Feel No Pain die with
`fractions.Fraction` and shares no code with the engine. It is slow by design: small pools only.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

SIXTH = Fraction(1, 6)
FACES = range(1, 7)


def classify(face: int, success: int, critical: int) -> str:
    critical = max(critical, success)
    if face >= critical:
        return "C"
    return "N" if face >= success else "F"


def reroll_choice(faces: list[int], kinds: list[str], cursed: list[bool], mode: str) -> list[int]:
    """Indexes of the dice the §4.3 policy re-rolls."""
    eligible_fails = [i for i, k in enumerate(kinds) if k == "F" and not cursed[i]]

    def ceaseless() -> list[int]:
        if not eligible_fails:
            return []
        by_face: dict[int, list[int]] = defaultdict(list)
        for i in eligible_fails:
            by_face[faces[i]].append(i)
        best = max(by_face, key=lambda f: (len(by_face[f]), -f))
        return by_face[best]

    def plus_one(first: list[int]) -> list[int]:
        rest = [i for i in eligible_fails if i not in first]
        return first + rest[:1]

    ones = [i for i, f in enumerate(faces) if f == 1 and not cursed[i]]
    return {
        "NONE": lambda: [],
        "BALANCED": lambda: eligible_fails[:1],
        "DOUBLE_BALANCED": lambda: eligible_fails[:2],
        "CEASELESS": ceaseless,
        "RELENTLESS": lambda: eligible_fails,
        "CRIT_FISH": lambda: [i for i, k in enumerate(kinds) if k != "C" and not cursed[i]],
        "REROLL_ONES": lambda: ones,
        "ONES_AND_BALANCED": lambda: plus_one(ones),
        "CEASELESS_AND_BALANCED": lambda: plus_one(ceaseless()),
    }[mode]()


def roll(dice: int, success: int, critical: int, mode: str, curse: bool) -> dict:
    """(crits, normals, fails, cursed) by enumerating first rolls and re-rolls die by die."""
    out: dict = defaultdict(Fraction)
    for faces in product(FACES, repeat=dice):
        cursed = [curse and f == 3 for f in faces]
        kinds = ["F" if cursed[i] else classify(f, success, critical) for i, f in enumerate(faces)]
        chosen = reroll_choice(list(faces), kinds, cursed, mode)
        for new in product(FACES, repeat=len(chosen)):
            final = list(kinds)
            for i, f in zip(chosen, new, strict=True):
                final[i] = classify(f, success, critical)
            key = (final.count("C"), final.count("N"), final.count("F"), sum(cursed))
            out[key] += SIXTH ** (dice + len(chosen))
    return out


def retain(a: dict, crits: int, normals: int, fails: int, ob: bool) -> tuple[int, int]:
    """§5 A1–A12, step by step."""
    ac = min(a["autoCrits"], a["attacks"])
    an = min(a["accurate"], a["attacks"] - ac)
    c, rolled_n, locked_n, f = crits + ac, normals, an, fails
    if a["punishing"] and not ob and c >= 1 and f >= 1:
        f, locked_n = f - 1, locked_n + 1
    if a["puritySeal"] and f >= 2:
        f, locked_n = f - 2, locked_n + 1
    if a["closeAssault"] and c + rolled_n + locked_n >= 2 and f >= 1:
        f, locked_n = f - 1, locked_n + 1
    m = min(a["failsToNorms"], f)
    f, locked_n = f - m, locked_n + m
    sev = False
    if a["severe"] and c == 0 and rolled_n + locked_n >= 1:
        if locked_n:
            locked_n -= 1
        else:
            rolled_n -= 1
        c, sev = c + 1, True
    m = min(a["normsToCrits"], rolled_n)
    rolled_n, c = rolled_n - m, c + m

    def tail(c: int, rn: int, ln: int, f: int) -> tuple[int, int]:
        if a["rending"] and not ob and not sev and c >= 1 and rn >= 1:
            rn, c = rn - 1, c + 1
        if a["eliteModerate"] or a["eliteExtreme"]:
            if f >= 1:
                f -= 1
                if a["eliteModerate"]:
                    ln += 1
                else:
                    c += 1
            elif ln >= 1:
                ln, c = ln - 1, c + 1
            elif rn >= 1:
                rn, c = rn - 1, c + 1
        n = rn + ln
        return (0, max(0, n + c - 1)) if ob else (c, n)

    if a["mysticScry"]:
        options = []
        if rolled_n >= 1:
            options.append(("X", (c + 1, rolled_n - 1, locked_n, f)))
        if f >= 1:
            options.append(("Y", (c, rolled_n, locked_n + 1, f - 1)))
        if len(options) == 2:

            def raw(state: tuple[int, int, int, int]) -> int:
                cc, nn = tail(*state)
                return cc * (a["criticalDamage"] + a["devastating"]) + nn * a["normalDamage"]

            pick = options[1] if raw(options[1][1]) > raw(options[0][1]) else options[0]
            c, rolled_n, locked_n, f = pick[1]
        elif options:
            c, rolled_n, locked_n, f = options[0][1]
    return tail(c, rolled_n, locked_n, f)


def defence(d: dict, a: dict, dice: int) -> dict:
    """§6 D3–D8 for `dice` collected dice: (crit saves, normal saves, cursed)."""
    cc = 0 if a["saturate"] else min(d["coverCritSaves"], dice)
    cn = 0 if a["saturate"] else min(d["coverSaves"], dice - cc)
    success = d["invulnerableSave"] if d["invulnerableSave"] is not None else d["save"]
    out: dict = defaultdict(Fraction)
    rolled = roll(
        dice - cc - cn, success, max(d["critSave"], success), d["reroll"], a["curseOfRot"]
    )
    for (cr, nr, f, k), p in rolled.items():
        cs, rn, ln = cr + cc, nr, cn
        if d["indomitus"] and f >= 2:
            f, ln = f - 2, ln + 1
        m = min(d["failsToNorms"], f)
        f, ln = f - m, ln + m
        m = min(d["normsToCrits"], rn)
        rn, cs = rn - m, cs + m
        out[(cs, rn + ln, k)] += p
    return out


def best_allocation(c: int, n: int, cs: int, ns: int, cd: int, nd: int, durable: bool):
    """§7.1 by trying every (a, b, d, e)."""
    best = None
    for a_, b, d_, e in product(range(cs + 1), range(cs + 1), range(ns + 1), range(ns + 1)):
        if a_ + b > cs or 2 * d_ + e > ns or a_ + d_ > c or b + e > n:
            continue
        cl, nl = c - a_ - d_, n - b - e
        cost = cl * cd + nl * nd - (1 if durable and cd >= 4 and cl >= 1 else 0)
        if best is None or (cost, cl, nl) < best:
            best = (cost, cl, nl)
    return best


def just_a_scratch(mode, c, n, cs, ns, cd, nd, durable):
    if mode == "NORMALS":
        return (c, n - 1) if n >= 1 else (c, n)
    if mode == "CRITS":
        if c >= 1 and n >= 1:
            k1 = best_allocation(c - 1, n, cs, ns, cd, nd, durable)[0]
            k2 = best_allocation(c, n - 1, cs, ns, cd, nd, durable)[0]
            if k1 < k2 or (k1 == k2 and cd >= nd):
                return c - 1, n
            return c, n - 1
        if c >= 1:
            return c - 1, n
        if n >= 1:
            return c, n - 1
    return c, n


def relic_tries(kind: str) -> list[tuple[bool, Fraction]]:
    """Every face of the relic dice of one try: (ignored?, probability)."""
    dice = 1 if kind == "ONE_D6" else 2
    return [(6 in faces, SIXTH**dice) for faces in product(FACES, repeat=dice)]


def resolve(a, d, c, hc, hn, k, relics_live) -> dict:
    """R4–R9 for one outcome: (damage, relic used) -> probability."""
    cd, nd = a["criticalDamage"], a["normalDamage"]
    hits = ["C"] * hc + ["N"] * hn
    hits = [h for h in hits if (cd if h == "C" else nd) > 0]
    hits.sort(key=lambda h: (-(cd if h == "C" else nd), h != "C"))
    branches: list[tuple[list[str], bool, Fraction]] = []
    if relics_live and d["saintlyRelics"] != "NONE":

        def walk(i: int, p: Fraction) -> None:
            if i == len(hits):
                branches.append((hits, False, p))
                return
            for ignored, q in relic_tries(d["saintlyRelics"]):
                if ignored:
                    branches.append((hits[:i] + hits[i + 1 :], True, p * q))
                else:
                    walk(i + 1, p * q)

        walk(0, Fraction(1))
    else:
        branches.append((hits, False, Fraction(1)))
    out: dict = defaultdict(Fraction)
    for kept, used, p in branches:
        amounts = [cd if h == "C" else nd for h in kept]
        if d["durable"] and cd >= 4 and "C" in kept:
            amounts[kept.index("C")] -= 1
        if a["devastating"] > 0:
            amounts += [a["devastating"]] * c
        amounts += [1] * k
        dist = {0: p}
        for amount in amounts:
            step: dict = defaultdict(Fraction)
            for total, q in dist.items():
                for face in FACES:
                    fnp = d["feelNoPain"] is not None and face >= d["feelNoPain"]
                    step[total + amount - (1 if fnp else 0)] += q * SIXTH
            dist = step
        for total, q in dist.items():
            out[(total, used)] += q
    return out


def one_round(a: dict, d: dict, relics_live: bool) -> dict:
    attack_rolled = a["attacks"] - min(a["autoCrits"], a["attacks"])
    attack_rolled -= min(a["accurate"], attack_rolled)
    out: dict = defaultdict(Fraction)
    att = roll(attack_rolled, a["hit"], a["lethal"], a["reroll"], False)
    for (cr, nr, fr, _), pa in att.items():
        c, n = retain(a, cr, nr, fr, a["obscured"])
        if d["invulnerableSave"] is not None:
            pierce = 0
        else:
            pierce = max(a["piercing"], a["piercingCrits"] if c >= 1 else 0)
        dice = max(0, d["defenceDice"] - pierce)
        for (cs, ns, k), pd in defence(d, a, dice).items():
            cd, nd = a["criticalDamage"], a["normalDamage"]
            cc, nn = just_a_scratch(d["justAScratch"], c, n, cs, ns, cd, nd, d["durable"])
            _, hc, hn = best_allocation(cc, nn, cs, ns, cd, nd, d["durable"])
            for key, p in resolve(a, d, c, hc, hn, k, relics_live).items():
                out[key] += pa * pd * p
    return out


def shoot(a: dict, d: dict, rounds: int) -> tuple[dict, list[Fraction]]:
    """(total damage distribution, kill probability after each round)."""
    live = one_round(a, d, True)
    spent = one_round(a, d, False)
    states: dict = {(0, 0): Fraction(1)}  # (total, relics used) -> p
    by_round = []
    for _ in range(rounds):
        nxt: dict = defaultdict(Fraction)
        for (total, used), p in states.items():
            table = live if used < 2 else spent
            for (dmg, ignored), q in table.items():
                nxt[(total + dmg, used + ignored)] += p * q
        states = nxt
        by_round.append(sum(p for (t, _), p in states.items() if t >= d["wounds"]))
    dist: dict = defaultdict(Fraction)
    for (total, _), p in states.items():
        dist[total] += p
    return {t: p for t, p in dist.items() if p}, by_round
