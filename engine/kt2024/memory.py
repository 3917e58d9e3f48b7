"""Peak memory of a kt2024 scenario, from its own quantities: what the service's admission
(`service.admission`) holds against the process's memory budget while it computes.

Fitted by measurement (benchmarks/bench_memory_peaks.py: each scenario alone in a fresh,
warmed process, its peak RSS above the process's before it): a fight's peak is its compiled
loops' arrays (`flat.Flat.footprint`, exact in its terms: the arrays are allocated whole and
written through) times `FIGHT_SCALE`, plus `FIGHT_BASE` for its table, graph and answer; a
shot's is `SHOT_BASE` plus `SHOT_PER_OUTCOME` per (dice, rounds) outcome of its damage
convolution, its largest table (the heaviest shots measured stay under 2 MB: shots are
held for their count, fights for their size).
"""

from __future__ import annotations

from .scenario import Shoot

FIGHT_BASE = 16 * 2**20
FIGHT_SCALE = 1.05
SHOT_BASE = 2 * 2**20
SHOT_PER_OUTCOME = 8


def fight_bytes(footprint: int) -> int:
    """A fight's peak bytes, from its loops' arrays (`Flat.footprint`)."""
    return FIGHT_BASE + int(footprint * FIGHT_SCALE)


def arrays_within(capacity: int) -> int:
    """The most bytes of loop arrays (`Flat.footprint`) whose fight fits `capacity`."""
    return max(0, int((capacity - FIGHT_BASE) / FIGHT_SCALE))


def shoot_bytes(shoot: Shoot) -> int:
    """A shot's peak bytes: its largest table is the damage distribution over the rounds,
    attack dice × the most damage a die deals × rounds outcomes."""
    a = shoot.attacker
    most = max(a.normal_damage, a.critical_damage) + a.devastating
    outcomes = (a.attacks * most * shoot.options.rounds + 1) ** 2
    return SHOT_BASE + SHOT_PER_OUTCOME * outcomes
