"""Die-by-die cross-checks of kt2018 against a literal reading of the spec.

The reference below reads the raw JSON request (its own defaults), rolls every die face of
every D6 — D3 as a halved D6, re-rolls as a second die, each Injury die separately — and
only merges equal situations after a die has been rolled. It keeps every counter the spec
names (wounds lost, unsaved wounds, whether an Injury roll was made) instead of deriving
them, resolves attacks one at a time and discards the rest of a weapon after an Injury roll.
Random small requests must give exactly the engine's answers (kt2018.md §3–§8).
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from fractions import Fraction
from typing import Any, NamedTuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schema import registry

SIXTH = Fraction(1, 6)
FACES = range(1, 7)


def merge(pairs: Any) -> dict[Any, Fraction]:
    out: defaultdict[Any, Fraction] = defaultdict(Fraction)
    for key, p in pairs:
        out[key] += p
    return dict(out)


def roll_expr(expr: int | str) -> dict[int, Fraction]:
    """Every D6 face of every die of a dice expression; a D3 reads a D6 halved, rounded up."""
    if isinstance(expr, int) or expr.strip().isdigit():
        return {int(expr): Fraction(1)}
    k, sides, m = re.fullmatch(r"(\d*)[dD]([36])(?:\+(\d+))?", expr.strip()).groups()
    totals: dict[int, Fraction] = {int(m or 0): Fraction(1)}
    for _ in range(int(k or 1)):
        totals = merge(
            (t + (face if sides == "6" else (face + 1) // 2), p * SIXTH)
            for t, p in totals.items()
            for face in FACES
        )
    return totals


def d6_test(passes: Any, reroll: str) -> Fraction:
    """P(pass) of one die with the §3 re-roll rule, face by face."""
    total = Fraction(0)
    for face in FACES:
        if (reroll == "ones" and face == 1) or (reroll == "failed" and not passes(face)):
            total += sum((SIXTH * SIXTH for again in FACES if passes(again)), Fraction(0))
        elif passes(face):
            total += SIXTH
    return total


class Model(NamedTuple):
    """Everything the spec tracks about the wounded model, kept literally."""

    wounds: int
    flesh: int
    out: bool
    lost: int
    injured: bool
    unsaved: int


def injury(model: Model, dice: int, cover: int, max_flesh: int) -> dict[Model, Fraction]:
    """§4 with every face of every Injury die."""
    out: defaultdict[Model, Fraction] = defaultdict(Fraction)
    for faces in itertools.product(FACES, repeat=dice):
        q = max(faces) + model.flesh - cover
        p = SIXTH**dice
        if q >= 4 or model.flesh == max_flesh:
            out[model._replace(out=True, injured=True)] += p
        else:
            out[model._replace(wounds=1, flesh=model.flesh + 1, injured=True)] += p
    return out


def wound_needed(s: int, t: int) -> int:
    if s >= 2 * t:
        return 2
    if s > t:
        return 3
    if s == t:
        return 4
    return 6 if 2 * s <= t else 5


def brute_combat(req: dict[str, Any]) -> tuple[dict[Model, Fraction], Fraction]:
    """§3 literally: weapons in order, attacks one at a time; final models and E[unsaved]."""
    shooting = req["mode"] == "shooting"
    att, sit, tgt = req["attacker"], req.get("situation", {}), req["target"]
    skill = att["ballisticSkill"] if shooting else att["weaponSkill"]
    max_flesh = tgt.get("maxFleshWounds", 3)
    obscured = tgt.get("obscured", False)
    cover = int(shooting and obscured and tgt.get("withinOneInchOfIntervening", False))
    models = {Model(tgt["wounds"], tgt.get("fleshWounds", 0), False, 0, False, 0): Fraction(1)}
    for weapon in req["weapons"]:
        kind = weapon.get("type", "melee")
        long_range, advanced = sit.get("longRange", False), att.get("advanced", False)
        m = att.get("hitModifier", 0) - att.get("fleshWounds", 0)
        m -= att.get("killTeamBroken", False)
        if shooting:
            m -= (long_range and kind != "grenade") + obscured
            m -= kind == "assault" and advanced
            m -= kind == "heavy" and (att.get("moved", False) or advanced)
        else:
            m -= sit.get("interveningTerrain", False)
        if sit.get("overwatch", False):
            p_hit = d6_test(lambda h: h == 6, att.get("rerollHits", "none"))
        else:
            p_hit = d6_test(
                lambda h, m=m: h != 1 and (h == 6 or h + m >= skill), att.get("rerollHits", "none")
            )
        need_w = wound_needed(weapon["strength"], tgt["toughness"])
        p_wound = d6_test(lambda w, r=need_w: w >= r, att.get("rerollWounds", "none"))
        needs = [7]
        if tgt["save"] is not None:
            needs.append(tgt["save"] - weapon.get("ap", 0))
        if tgt.get("invulnerableSave") is not None:
            needs.append(tgt["invulnerableSave"])
        need_s = min(needs)
        p_saved = sum((SIXTH for s in FACES if s != 1 and s >= need_s and need_s <= 6), Fraction(0))
        damage = roll_expr(weapon.get("damage", 1))

        doubled = shooting and kind == "rapidFire" and not long_range
        # (model, attacks left, injury roll made by this weapon)
        state = merge(
            ((model, n * (2 if doubled else 1), False), p * q)
            for model, p in models.items()
            for n, q in roll_expr(weapon["attacks"]).items()
        )
        while any(left and not model.out and not stop for (model, left, stop) in state):
            nxt: defaultdict[tuple[Model, int, bool], Fraction] = defaultdict(Fraction)
            for (model, left, stop), p in state.items():
                if not left or model.out or stop:
                    nxt[(model, 0, stop)] += p
                    continue
                through = p * p_hit * p_wound * (1 - p_saved)
                nxt[(model, left - 1, False)] += p - through
                for d, q in damage.items():
                    lost = min(d, model.wounds)
                    hurt = model._replace(
                        wounds=model.wounds - lost,
                        lost=model.lost + lost,
                        unsaved=model.unsaved + 1,
                    )
                    if hurt.wounds > 0:
                        nxt[(hurt, left - 1, False)] += through * q
                        continue
                    for after, r in injury(hurt, d, cover, max_flesh).items():
                        nxt[(after, left - 1, True)] += through * q * r
            state = dict(nxt)
        models = merge((model, p) for (model, _, _), p in state.items())
    unsaved = sum((model.unsaved * p for model, p in models.items()), Fraction(0))
    return models, unsaved


def mortal(
    models: dict[Model, Fraction], amount: int | str, cover: int, max_flesh: int
) -> dict[Model, Fraction]:
    """§7: one mortal wound at a time; at 0 wounds one Injury die and the rest are discarded."""
    out: defaultdict[Model, Fraction] = defaultdict(Fraction)
    for model, p in models.items():
        for count, q in roll_expr(amount).items():
            # (model, Injury roll made: the remaining mortal wounds are discarded)
            current = {(model, False): p * q}
            for _ in range(count):
                step: defaultdict[tuple[Model, bool], Fraction] = defaultdict(Fraction)
                for (mdl, done), r in current.items():
                    if done or mdl.out:
                        step[(mdl, done)] += r
                        continue
                    hit = mdl._replace(wounds=mdl.wounds - 1, lost=mdl.lost + 1)
                    if hit.wounds:
                        step[(hit, False)] += r
                        continue
                    for after, s in injury(hit, 1, cover, max_flesh).items():
                        step[(after, True)] += r * s
                current = step
            for (mdl, _), r in current.items():
                out[mdl] += r
    return dict(out)


def fresh(body: dict[str, Any]) -> Model:
    return Model(body["wounds"], body.get("fleshWounds", 0), False, 0, False, 0)


def brute_psybolt(req: dict[str, Any]) -> tuple[dict[Model, Fraction], dict[str, Fraction]]:
    psyker, tgt = req["psyker"], req["target"]
    shielded = tgt.get("obscured", False) and tgt.get("withinOneInchOfIntervening", False)
    final: defaultdict[Model, Fraction] = defaultdict(Fraction)
    extra = defaultdict(Fraction)
    for a, b in itertools.product(FACES, repeat=2):
        p = SIXTH * SIXTH
        alive = Fraction(1)
        if a == b and a in (1, 6):
            extra["pPerils"] += p
            after = mortal({fresh(psyker): Fraction(1)}, "D3", 0, psyker.get("maxFleshWounds", 3))
            dead = sum((r for mdl, r in after.items() if mdl.out), Fraction(0))
            flesh = sum(
                (r for mdl, r in after.items() if not mdl.out and mdl.flesh > fresh(psyker).flesh),
                Fraction(0),
            )
            extra["pPsykerOutOfAction"] += p * dead
            extra["pPsykerFleshWound"] += p * flesh
            alive = 1 - dead
        target = {fresh(tgt): Fraction(1)}
        if a + b < 5:
            final[fresh(tgt)] += p
            continue
        extra["pManifested"] += p * alive
        final[fresh(tgt)] += p * (1 - alive)
        for u1, u2 in itertools.product(FACES, repeat=2) if req.get("denyTheWitch") else [(0, 0)]:
            q = p * alive * (SIXTH * SIXTH if req.get("denyTheWitch") else 1)
            if u1 + u2 > a + b:
                extra["pDenied"] += q
                final[fresh(tgt)] += q
                continue
            extra["pResolved"] += q
            hits = 1 if a + b <= 10 else "D3"
            for mdl, r in mortal(target, hits, int(shielded), tgt.get("maxFleshWounds", 3)).items():
                final[mdl] += q * r
    return dict(final), dict(extra)


def outputs(models: dict[Model, Fraction], start: int) -> dict[str, Any]:
    """§5 keys from the literal counters, in the test-data layout (value -> Fraction)."""
    lost = merge((m.lost, p) for m, p in models.items())
    remaining = merge(("outOfAction" if m.out else m.wounds, p) for m, p in models.items())
    flesh = merge(("outOfAction" if m.out else m.flesh, p) for m, p in models.items())
    return {
        "woundsLost": lost,
        "woundsRemaining": remaining,
        "fleshWoundsAfter": flesh,
        "pOutOfAction": sum((p for m, p in models.items() if m.out), Fraction(0)),
        "pFleshWound": sum(
            (p for m, p in models.items() if not m.out and m.flesh > start), Fraction(0)
        ),
        "pInjuryRoll": sum((p for m, p in models.items() if m.injured), Fraction(0)),
        "expectedWoundsLost": sum((v * p for v, p in lost.items()), Fraction(0)),
    }


def engine(req: dict[str, Any]) -> dict[str, Any]:
    """The service's answer, read back into the test-data layout."""
    out = registry.run({**req, "options": {"exact": True}})
    read: dict[str, Any] = {}
    for key, value in out.items():
        if isinstance(value, list):
            read[key] = {e["value"]: Fraction(e["exact"]) for e in value}
            assert [e["probability"] for e in value] == [float(Fraction(e["exact"])) for e in value]
        elif not key.endswith("Exact"):
            read[key] = Fraction(out[key + "Exact"])
            assert value == float(read[key])
    return read


# --- random small requests ------------------------------------------------------------------

small_dice = st.sampled_from([1, 2, 3, "D3", "2", "d3"])
weapon_fields = {
    "attacks": small_dice,
    "strength": st.integers(1, 9),
    "ap": st.integers(-4, 0),
    "damage": st.sampled_from([1, 2, "D3", "D3+1"]),
}


@st.composite
def combats(draw: st.DrawFn) -> dict[str, Any]:
    shooting = draw(st.booleans())
    overwatch = shooting and draw(st.booleans())
    if shooting:
        kinds = draw(
            st.sampled_from(
                [
                    ["assault"],
                    ["heavy"],
                    ["rapidFire"],
                    ["grenade"],
                    ["pistol", "pistol"],
                    ["heavy", "rapidFire"],
                    ["assault", "assault"],
                ]
            )
        )
    else:
        kinds = ["melee"] * draw(st.integers(1, 3))
    advanced = shooting and all(k == "assault" for k in kinds) and draw(st.booleans())
    attacker = {
        "ballisticSkill" if shooting else "weaponSkill": draw(st.integers(2, 6)),
        "fleshWounds": draw(st.integers(0, 2)),
        "killTeamBroken": draw(st.booleans()),
        "moved": draw(st.booleans()),
        "advanced": advanced,
        "hitModifier": draw(st.integers(-3, 3)),
        "rerollHits": draw(st.sampled_from(["none", "ones", "failed"])),
        "rerollWounds": draw(st.sampled_from(["none", "ones", "failed"])),
    }
    situation = (
        {"longRange": draw(st.booleans()), "overwatch": overwatch}
        if shooting
        else {"interveningTerrain": draw(st.booleans())}
    )
    weapons = [{"type": kind, **{k: draw(v) for k, v in weapon_fields.items()}} for kind in kinds]
    max_flesh = draw(st.integers(1, 3))
    target = {
        "toughness": draw(st.integers(1, 8)),
        "save": draw(st.sampled_from([None, 2, 3, 4, 5, 6])),
        "invulnerableSave": draw(st.sampled_from([None, 3, 4, 5, 6])),
        "wounds": draw(st.integers(1, 4)),
        "fleshWounds": draw(st.integers(0, max_flesh)),
        "maxFleshWounds": max_flesh,
        "obscured": draw(st.booleans()),
        "withinOneInchOfIntervening": draw(st.booleans()),
    }
    mode = "shooting" if shooting else "fight"
    return {
        "ruleset": "kt2018",
        "mode": mode,
        "attacker": attacker,
        "situation": situation,
        "weapons": weapons,
        "target": target,
    }


def wounded(draw: st.DrawFn) -> dict[str, Any]:
    max_flesh = draw(st.integers(1, 4))
    return {
        "wounds": draw(st.integers(1, 4)),
        "fleshWounds": draw(st.integers(0, max_flesh)),
        "maxFleshWounds": max_flesh,
        "obscured": draw(st.booleans()),
        "withinOneInchOfIntervening": draw(st.booleans()),
    }


@given(combats())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_shooting_and_fight_match_die_by_die(req: dict[str, Any]) -> None:
    models, unsaved = brute_combat(req)
    expected = outputs(models, req["target"]["fleshWounds"])
    expected["expectedUnsavedWounds"] = unsaved
    assert engine(req) == expected


@given(
    st.data(),
    st.sampled_from([1, 2, 3, 5, "D3", "D6", "2D3", "D3+1", "2d6"]),
    st.sampled_from(["shooting", "psychic", "fight", "other"]),
)
@settings(max_examples=60, deadline=None)
def test_mortal_wounds_match_one_at_a_time(data: st.DataObject, amount: Any, source: str) -> None:
    target = data.draw(st.composite(wounded)())
    req = {
        "ruleset": "kt2018",
        "mode": "mortalWounds",
        "amount": amount,
        "source": source,
        "target": target,
    }
    shielded = target["obscured"] and target["withinOneInchOfIntervening"]
    cover = int(shielded and source in ("shooting", "psychic"))
    models = mortal({fresh(target): Fraction(1)}, amount, cover, target["maxFleshWounds"])
    assert engine(req) == outputs(models, target["fleshWounds"])


@given(st.data(), st.booleans())
@settings(max_examples=50, deadline=None)
def test_psybolt_matches_every_roll(data: st.DataObject, deny: bool) -> None:
    target = data.draw(st.composite(wounded)())
    psyker = data.draw(st.composite(wounded)())
    del psyker["obscured"], psyker["withinOneInchOfIntervening"]
    req = {
        "ruleset": "kt2018",
        "mode": "psybolt",
        "psyker": psyker,
        "denyTheWitch": deny,
        "target": target,
    }
    models, extra = brute_psybolt(req)
    expected = outputs(models, target["fleshWounds"])
    expected.update(
        {
            key: extra.get(key, Fraction(0))
            for key in (
                "pPerils",
                "pPsykerOutOfAction",
                "pPsykerFleshWound",
                "pManifested",
                "pDenied",
                "pResolved",
            )
        }
    )
    assert engine(req) == expected


@given(st.integers(1, 10), st.integers(0, 20), st.integers(0, 20), st.integers(-3, 3))
def test_nerve_test_every_face(leadership: int, down: int, near: int, modifier: int) -> None:
    shaken = Fraction(
        sum(1 for r in FACES if r != 1 and r + down - near + modifier > leadership), 6
    )
    got = engine(
        {
            "ruleset": "kt2018",
            "mode": "nerveTest",
            "leadership": leadership,
            "otherFriendlyShakenOrOutOfAction": down,
            "otherFriendlyWithinTwoInches": near,
            "modifier": modifier,
        }
    )
    assert got == {"pShaken": shaken, "pPass": 1 - shaken}


@given(st.integers(1, 30), st.data(), st.integers(1, 10))
def test_break_check_every_face(models: int, data: st.DataObject, leadership: int) -> None:
    down = data.draw(st.integers(0, models))
    if down == models:
        broken = Fraction(1)
    elif 2 * down > models:
        broken = Fraction(sum(1 for a in FACES for b in FACES if a + b > leadership), 36)
    else:
        broken = Fraction(0)
    got = engine(
        {
            "ruleset": "kt2018",
            "mode": "breakCheck",
            "models": models,
            "modelsDown": down,
            "highestLeadership": leadership,
        }
    )
    assert got == {"pBroken": broken}
