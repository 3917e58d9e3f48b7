"""Shooting scenarios of kt2024.md §2.1 as immutable values.

Attribute names are the API's camelCase names in snake_case (`camel` maps them back), so the
canonical JSON of §11 is produced mechanically from these dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from operator import attrgetter
from typing import Any, Literal, TypeVar

Reroll = Literal[
    "NONE",
    "BALANCED",
    "DOUBLE_BALANCED",
    "CEASELESS",
    "RELENTLESS",
    "CRIT_FISH",
    "REROLL_ONES",
    "ONES_AND_BALANCED",
    "CEASELESS_AND_BALANCED",
]
JustAScratch = Literal["NONE", "CRITS", "NORMALS"]
SaintlyRelics = Literal["NONE", "ONE_D6", "TWO_D6"]


MOST_ATTACKS = 20
"""§12: the most attack dice a shot rolls, so the most hits (crits and normals together). The
request layer refuses more, and the engine's tables built at import are sized to it."""
MOST_DEFENCE_DICE = 9
"""§12: the most defence dice, so the most saves."""


@cache
def camel(name: str) -> str:
    """'critical_damage' -> 'criticalDamage' (API member names)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


C = TypeVar("C", bound=type)


def hashed_once(cls: C) -> C:
    """A frozen dataclass whose hash is computed on first use and kept on the instance.

    Every memo of a shot is keyed on these values: a dataclass's own `__hash__` hashes a
    tuple of every field on every lookup (24 for an attacker), and a warm shot looks its
    attacker and defender up about five times. The hash is the dataclass's own (the same
    fields: those that take part in equality), so equal values still hash alike; equality is
    untouched. The kept hash stays out of pickles (`__getstate__`): string hashes differ
    between processes.
    """
    values = attrgetter(*(f.name for f in fields(cls) if _hashed(f)))

    def __hash__(self: Any) -> int:
        h = self._kept_hash
        if h is None:
            h = hash(values(self))
            object.__setattr__(self, "_kept_hash", h)
        return h

    def __getstate__(self: Any) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_kept_hash"}

    cls._kept_hash = None  # the class's default, until an instance keeps its own
    cls.__hash__ = __hash__
    cls.__getstate__ = __getstate__
    return cls


def _hashed(f: Any) -> bool:
    """Whether a dataclass field takes part in the generated `__hash__`."""
    return f.compare if f.hash is None else f.hash


@hashed_once
@dataclass(frozen=True)
class AttackDice:
    """The fields of §5 that decide which attack dice are retained, shared by shoot and fight.

    Damage values are here because Mystic Scry (A9a) scores its options by raw damage.
    """

    attacks: int = 4
    hit: int = 3
    normal_damage: int = 3
    critical_damage: int = 4
    lethal: int = 6
    accurate: int = 0
    auto_crits: int = 0
    reroll: Reroll = "NONE"
    fails_to_norms: int = 0
    norms_to_crits: int = 0
    punishing: bool = False
    rending: bool = False
    severe: bool = False
    close_assault: bool = False
    elite_moderate: bool = False
    elite_extreme: bool = False
    purity_seal: bool = False
    mystic_scry: bool = False
    curse_of_rot: bool = False

    @property
    def elite(self) -> str:
        """A11: which Elite the attack has ("" for none); moderate if both are given."""
        return "moderate" if self.elite_moderate else "extreme" if self.elite_extreme else ""


@hashed_once
@dataclass(frozen=True)
class Attacker(AttackDice):
    devastating: int = 0
    piercing: int = 0
    piercing_crits: int = 0
    saturate: bool = False
    obscured: bool = False


@hashed_once
@dataclass(frozen=True)
class Defender:
    """The target. `wounds` only decides kill probabilities, so it takes no part in equality
    or hashing: defenders that differ only in wounds share every memoised damage result."""

    defence_dice: int = 3
    save: int = 3
    wounds: int = field(default=12, compare=False)
    crit_save: int = 6
    cover_saves: int = 0
    cover_crit_saves: int = 0
    reroll: Reroll = "NONE"
    fails_to_norms: int = 0
    norms_to_crits: int = 0
    indomitus: bool = False
    feel_no_pain: int | None = None
    just_a_scratch: JustAScratch = "NONE"
    saintly_relics: SaintlyRelics = "NONE"
    durable: bool = False
    invulnerable_save: int | None = None


@dataclass(frozen=True)
class ShootOptions:
    rounds: int = 1
    exact: bool = False


@dataclass(frozen=True)
class Shoot:
    attacker: Attacker = field(default_factory=Attacker)
    defender: Defender = field(default_factory=Defender)
    options: ShootOptions = field(default_factory=ShootOptions)
