"""Random valid kt2013 requests (hypothesis), shared by the brute-force and canonical tests."""

from __future__ import annotations

from hypothesis import strategies as st

maybe_roll = st.none() | st.integers(2, 6)
# Special rules are drawn on a quarter of the time, so requests with just one or two of them
# (where their interactions show) are common.
rarely = st.sampled_from([False, False, False, True])


def near(strength: int | None) -> st.SearchStrategy[int]:
    """A Toughness within the wound chart's interesting range of the Strength."""
    centre = 4 if strength is None else strength
    return st.integers(-4, 4).map(lambda d: min(10, max(1, centre + d)))


@st.composite
def requests(draw: st.DrawFn, vehicle: bool, attacks: list, most_wounds: int) -> dict:
    """A valid request; `attacks` lists the DiceExprs to pick from, `most_wounds` caps wounds
    and hull points (the enumerator wants small ones)."""
    mode = draw(st.sampled_from(["shooting", "fight"]))
    shooting = mode == "shooting"
    attacker = {
        "ballisticSkill": draw(st.integers(1, 10)),
        "weaponSkill": draw(st.integers(1, 10)),
        "snapShots": shooting and draw(rarely),
        "preferredEnemy": draw(rarely),
        "monsterHunter": draw(rarely),
        "tankHunter": draw(rarely),
        "tankHunterRerollGlancing": draw(rarely),
        "sniper": draw(rarely),
    }
    weapon = {
        "attacks": draw(st.sampled_from(attacks)),
        "ap": draw(st.none() | st.integers(1, 6)),
        "rending": draw(rarely),
        "sniper": shooting and draw(rarely),
        "fleshbane": draw(rarely),
        "poisoned": draw(maybe_roll),
        "shred": draw(rarely),
        "masterCrafted": draw(rarely),
        "ignoresCover": draw(rarely),
        "haywire": draw(rarely),
    }
    x_allowed = weapon["sniper"] or (vehicle and weapon["haywire"])
    weapon["strength"] = draw((st.none() | st.integers(1, 10)) if x_allowed else st.integers(1, 10))
    cover = {
        "coverSave": draw(maybe_roll),
        "stealth": draw(rarely),
        "shrouded": draw(rarely),
        "invulnerableSave": draw(maybe_roll),
    }
    if vehicle:
        target = {
            "vehicle": True,
            "armourValue": draw(st.integers(9, 14)),
            "hullPoints": draw(st.integers(1, min(9, most_wounds))),
            "meleeHitOn": draw(st.just("auto") | st.integers(2, 6)),
            **cover,
        }
    else:
        target = {
            "toughness": draw(st.integers(1, 10) | near(weapon["strength"])),
            "weaponSkill": draw(st.integers(1, 10)),
            "wounds": draw(st.integers(1, most_wounds)),
            "save": draw(maybe_roll),
            "feelNoPain": draw(maybe_roll),
            "eternalWarrior": draw(rarely),
            "monstrousCreature": draw(rarely),
            **cover,
        }
    return {
        "ruleset": "kt2013",
        "mode": mode,
        "attacker": attacker,
        "weapon": weapon,
        "target": target,
    }
