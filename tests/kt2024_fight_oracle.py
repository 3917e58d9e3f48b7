"""An independent brute-force oracle for the kt2024 fight (§9), written from the spec alone.

It shares no code with the engine: fighters are API dicts, statuses are plain dicts copied at
every step, and every relic and Feel No Pain die is enumerated face by face with `Fraction`.
Attack dice come from the shooting oracle's die-by-die `roll` and `retain` (first rolls and
re-rolls enumerated face by face). Heuristic decisions re-run their projections by simulation;
OPTIMAL is a plain expectiminimax over the whole battle tree. Slow by design: small fights only.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import cache
from itertools import product

from kt2024_oracle import retain, roll

FACES = range(1, 7)
SIXTH = Fraction(1, 6)

FIGHTER_DEFAULTS = {
    "attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4, "lethal": 6, "accurate": 0,
    "autoCrits": 0, "reroll": "NONE", "failsToNorms": 0, "normsToCrits": 0, "rending": False,
    "severe": False, "punishing": False, "closeAssault": False, "eliteModerate": False,
    "eliteExtreme": False, "puritySeal": False, "mysticScry": False, "curseOfRot": False,
    "wounds": 12, "strategy": "MAX_DAMAGE", "brutal": False, "shock": False, "stun2021": False,
    "stormShield2021": False, "hammerhand2021": False, "dueller2021": False, "duelist": False,
    "murderousEntrance2021": False, "justAScratch": "NONE", "durable": False,
    "halfDamageFirstStrike": False, "feelNoPain": None, "saintlyRelics": "NONE",
}  # fmt: skip
CANDIDATES = (("S", "C"), ("S", "N"), ("P", "C"), ("P", "N"))


def full(fighter: dict) -> dict:
    return {**FIGHTER_DEFAULTS, **fighter}


class Oracle:
    """One fight: `finals()` is the exact distribution of (A's, B's) final wounds."""

    def __init__(self, a: dict, b: dict, first: str = "A", rounds: int = 1) -> None:
        self.f = (full(a), full(b))
        self.first = 0 if first == "A" else 1
        self.rounds = rounds
        self.seq_memo: dict = {}
        self.dec_memo: dict = {}

    # ---- F1 and F2 -------------------------------------------------------------------
    def attack_roll(self, x: int) -> dict:
        """(crits, normals, cursed) retained by fighter x, every die face enumerated."""
        me, other = self.f[x], self.f[1 - x]
        rolled = me["attacks"] - min(me["autoCrits"], me["attacks"])
        rolled -= min(me["accurate"], me["attacks"] - min(me["autoCrits"], me["attacks"]))
        out: dict = defaultdict(Fraction)
        dice = {**me, "devastating": 0}
        faces = roll(rolled, me["hit"], me["lethal"], me["reroll"], other["curseOfRot"])
        for (c, n, f, k), p in faces.items():
            out[(*retain(dice, c, n, f, False), k)] += p
        return out

    def curse(self, x: int, k: int) -> dict:
        """Damage of k curse instances of 1, each with its own Feel No Pain die."""
        fnp = self.f[x]["feelNoPain"]
        if fnp is None:
            return {k: Fraction(1)}
        out: dict = defaultdict(Fraction)
        for faces in product(FACES, repeat=k):
            out[sum(1 for face in faces if face < fnp)] += SIXTH**k
        return out

    def finals(self) -> dict:
        return self.battle(self.f[0]["wounds"], self.f[1]["wounds"], 0, 0, self.rounds)

    @cache  # noqa: B019 - one oracle per fight, discarded after use
    def battle(self, wa: int, wb: int, ra: int, rb: int, left: int) -> dict:
        out: dict = defaultdict(Fraction)
        for (ca, na, ka), pa in self.attack_roll(0).items():
            for (cb, nb, kb), pb in self.attack_roll(1).items():
                for da, qa in self.curse(0, ka).items():
                    for db, qb in self.curse(1, kb).items():
                        p = pa * pb * qa * qb
                        a = status(ca, na, max(0, wa - da), ra)
                        b = status(cb, nb, max(0, wb - db), rb)
                        if a["w"] == 0 or b["w"] == 0:
                            out[(a["w"], b["w"])] += p
                            continue
                        for key, q in self.sequence((a, b), "duel", self.first, left).items():
                            out[key] += p * q
        return dict(out)

    # ---- F3 and F4 with chance ----------------------------------------------------------
    def sequence(self, s: tuple, phase: str, active: int, left: int) -> dict:
        memo = (freeze(s), phase, active, left)
        if memo in self.seq_memo:
            return self.seq_memo[memo]
        a, b = s
        if phase == "fight" and over(s):
            if a["w"] and b["w"] and left > 1:
                result = self.battle(a["w"], b["w"], a["relics"], b["relics"], left - 1)
            else:
                result = {(a["w"], b["w"]): Fraction(1)}
            self.seq_memo[memo] = result
            return result
        if phase == "duel":
            x = active
            nxt = ("duel", 1 - x) if x == self.first else ("fight", self.first)
            options = [None]
            me, them = s[x], s[1 - x]
            if self.f[x]["duelist"] and me["c"] + me["n"] and them["c"] + them["n"]:
                useful = [c for c in CANDIDATES[2:] if self.legal(s, x, c)]
                if useful:
                    options = useful
            if self.f[x]["strategy"] == "OPTIMAL" and options != [None]:
                results = [self.after(s, x, o, *nxt, left) for o in options]
                result = results[self.best(x, results)]
            else:
                choice = self.wise_parry(s, x) if options != [None] else None
                result = self.after(s, x, choice, *nxt, left)
        else:
            x = active if s[active]["c"] + s[active]["n"] else 1 - active
            if self.f[x]["strategy"] == "OPTIMAL":
                options = [c for c in CANDIDATES if self.legal(s, x, c)]
                results = [self.after(s, x, o, "fight", 1 - x, left) for o in options]
                result = results[self.best(x, results)]
            else:
                choice = self.decide(s, x, self.f[x]["strategy"])
                result = self.after(s, x, choice, "fight", 1 - x, left)
        self.seq_memo[memo] = result
        return result

    def after(self, s, x, action, phase, active, left) -> dict:
        out: dict = defaultdict(Fraction)
        for p, s2 in self.apply(s, x, action, chance=True):
            for key, q in self.sequence(s2, phase, active, left).items():
                out[key] += p * q
        return dict(out)

    def best(self, x: int, results: list[dict]) -> int:
        """Index of the result with the best (U, D) for fighter x; first one on ties."""

        def score(dist: dict) -> tuple[Fraction, Fraction]:
            me, them = x, 1 - x
            u = sum(p for w, p in dist.items() if w[them] == 0)
            u -= sum(p for w, p in dist.items() if w[me] == 0)
            d = sum(p * (w[me] - w[them]) for w, p in dist.items())
            return (u, d)

        scores = [score(r) for r in results]
        return scores.index(max(scores))

    def legal(self, s, x, action) -> bool:
        me, them = s[x], s[1 - x]
        verb, kind = action
        if verb == "S":
            return me[kind.lower()] > 0
        if kind == "C":
            return me["c"] > 0 and them["c"] + them["n"] > 0
        return me["n"] > 0 and them["n"] > 0 and not self.f[1 - x]["brutal"]

    # ---- actions ------------------------------------------------------------------------
    def apply(self, s, x, action, chance: bool) -> list:
        if action is None:
            return [(Fraction(1), s)]
        verb, kind = action
        if verb == "P":
            return [(Fraction(1), self.parry(s, x, kind))]
        first_crit = kind == "C" and not s[x]["critStruck"]
        outs = self.hit(s, x, kind, chance)
        if not (first_crit and self.f[x]["murderousEntrance2021"]):
            return outs
        result = []
        for p, s2 in outs:
            me = s2[x]
            if s2[1 - x]["w"] > 0 and me["c"] + me["n"] > 0:
                again = "C" if me["c"] else "N"
                result += [(p * q, s3) for q, s3 in self.hit(s2, x, again, chance)]
            else:
                result.append((p, s2))
        return result

    def parry(self, s, x, kind) -> tuple:
        s = thaw(s)
        me, them = s[x], s[1 - x]
        per = 2 if self.f[x]["stormShield2021"] else 1
        if kind == "N":
            me["n"] -= 1
            them["n"] = max(0, them["n"] - per)
        else:
            me["c"] -= 1
            for _ in range(per):
                if them["c"]:
                    them["c"] -= 1
                elif them["n"]:
                    them["n"] -= 1
            if self.f[x]["dueller2021"] and them["n"]:
                them["n"] -= 1
        return s

    def hit(self, s, x, kind, chance: bool) -> list:
        """S1–S10 of one strike by fighter x."""
        s = thaw(s)
        me, them = s[x], s[1 - x]
        fx, fy = self.f[x], self.f[1 - x]
        me[kind.lower()] -= 1
        dmg = fx["criticalDamage"] if kind == "C" else fx["normalDamage"]
        if kind == "C" and fy["durable"] and not them["durable"]:
            them["durable"] = True
            if fx["criticalDamage"] >= 4:
                dmg -= 1
        if fx["hammerhand2021"] and not me["struck"]:
            dmg += 1
        if fy["justAScratch"] != "NONE" and not them["jas"] and dmg > 0:
            if fy["justAScratch"] == "NORMALS":
                trigger = kind == "N"
            else:
                big = "C" if fx["criticalDamage"] >= fx["normalDamage"] else "N"
                trigger = kind == big or me[big.lower()] == 0
            if trigger:
                dmg, them["jas"] = 0, True
        if fy["halfDamageFirstStrike"] and not them["half"] and dmg > 0:
            them["half"] = True
            dmg = max((dmg + 1) // 2, min(dmg, 2))
        if kind == "C" and not me["critStruck"]:
            if fx["stun2021"] and them["n"]:
                them["n"] -= 1
            if fx["shock"]:
                if them["n"]:
                    them["n"] -= 1
                elif them["c"]:
                    them["c"] -= 1
        me["struck"] = True
        me["critStruck"] = me["critStruck"] or kind == "C"
        branches = [(Fraction(1), s, dmg)]
        if chance and self.relic_ok(s, x, kind, dmg):
            n = 1 if fy["saintlyRelics"] == "ONE_D6" else 2
            branches = []
            for faces in product(FACES, repeat=n):
                if 6 in faces:
                    s2 = thaw(s)
                    s2[1 - x]["relicSeq"] = True
                    s2[1 - x]["relics"] += 1
                    branches.append((SIXTH**n, s2, 0))
                else:
                    branches.append((SIXTH**n, s, dmg))
        out = []
        for p, s2, d in branches:
            fnp = fy["feelNoPain"]
            rolls = (
                [(SIXTH, d - (face >= fnp)) for face in FACES]
                if chance and fnp and d > 0
                else [(1, d)]
            )
            for q, final in rolls:
                s3 = thaw(s2)
                s3[1 - x]["w"] = max(0, s3[1 - x]["w"] - final)
                out.append((p * q, s3))
        return out

    def relic_ok(self, s, x, kind, dmg) -> bool:
        fx, fy, them, me = self.f[x], self.f[1 - x], s[1 - x], s[x]
        if fy["saintlyRelics"] == "NONE" or dmg <= 0 or them["relicSeq"] or them["relics"] >= 2:
            return False
        other = "N" if kind == "C" else "C"
        prof = {"C": fx["criticalDamage"], "N": fx["normalDamage"]}
        return not (me[other.lower()] > 0 and prof[other] > prof[kind])

    # ---- heuristic decisions (§9.5) on simulated projections (§9.6) ---------------------
    def wise_parry(self, s, x):
        me, them = s[x], s[1 - x]
        if them["c"] and me["c"]:
            return ("P", "C")
        if me["n"] and them["n"] and not self.f[1 - x]["brutal"]:
            return ("P", "N")
        return ("P", "C") if me["c"] else None

    def project(self, s, x, action) -> tuple:
        return self.apply(s, x, action, chance=False)[0][1]

    def rest(self, s, active, strategies) -> tuple:
        while not over(s):
            x = active if s[active]["c"] + s[active]["n"] else 1 - active
            s = self.project(s, x, self.decide(s, x, strategies[x]))
            active = 1 - x
        return s

    def decide(self, s, x, strategy):
        key = (freeze(s), x, strategy)
        if key not in self.dec_memo:
            self.dec_memo[key] = self.decide_now(s, x, strategy)
        return self.dec_memo[key]

    def last_block(self, s, x):
        """D4's candidate (the first useful parry, normal then crit, leaving Y nothing) and the
        statuses after X then strikes with all it has left, Y unable to act."""
        for block in (("P", "N"), ("P", "C")):
            if not self.legal(s, x, block):
                continue
            s2 = self.parry(s, x, block[1])
            if s2[1 - x]["c"] + s2[1 - x]["n"]:
                continue
            while s2[x]["c"] + s2[x]["n"] and s2[1 - x]["w"]:
                s2 = self.project(s2, x, ("S", "C") if s2[x]["c"] else ("S", "N"))
            return block, s2
        return None

    def decide_now(self, s, x, strategy):
        me, them = s[x], s[1 - x]
        hit = ("S", "C") if me["c"] else ("S", "N")
        if them["c"] + them["n"] == 0:
            return hit
        if not (self.legal(s, x, ("P", "C")) or self.legal(s, x, ("P", "N"))):
            return hit
        if self.project(s, x, hit)[1 - x]["w"] == 0:
            return hit
        fx = self.f[x]
        if (fx["stun2021"] or fx["shock"]) and not me["critStruck"] and me["c"] and not them["c"]:
            return ("S", "C")
        block = self.last_block(s, x)
        if block is not None and block[1][1 - x]["w"] == 0:
            return block[0]
        if strategy == "STRIKE":
            return hit
        wise = self.wise_parry(s, x)
        if wise is None:
            return hit
        if strategy == "PARRY":
            return wise
        plan = [strategy, "STRIKE"] if x == 0 else ["STRIKE", strategy]
        a = self.rest(self.project(s, x, hit), 1 - x, plan)
        b = self.rest(self.project(s, x, wise), 1 - x, plan)
        if strategy == "MIN_DAMAGE_TO_SELF":
            return hit if a[x]["w"] >= b[x]["w"] else wise
        return hit if a[1 - x]["w"] <= b[1 - x]["w"] else wise


def status(c: int, n: int, w: int, relics: int) -> dict:
    return {
        "c": c, "n": n, "w": w, "struck": False, "critStruck": False, "jas": False,
        "durable": False, "half": False, "relicSeq": False, "relics": relics,
    }  # fmt: skip


def over(s) -> bool:
    a, b = s
    return a["w"] == 0 or b["w"] == 0 or a["c"] + a["n"] + b["c"] + b["n"] == 0


def thaw(s) -> tuple:
    return (dict(s[0]), dict(s[1]))


def freeze(s) -> tuple:
    return tuple(tuple(sorted(x.items())) for x in s)
