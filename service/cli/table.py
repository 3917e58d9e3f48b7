"""Answers and errors as a person reads them on a terminal (`killmath shoot` / `fight`).

The JSON answer is the contract; this is a view of it for a player at a prompt: the
expected damage and kill chance first, then the distribution as bars, the exact fraction
beside the float where the request asked for exact numbers. Nothing here computes: every
figure is read from the answer, so the table and `--json` never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

WIDTH = 40
"""Columns of the longest bar (the most likely value)."""
EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(share: float, width: int = WIDTH, *, unicode: bool = True) -> str:
    """A bar `share` (0..1) of `width` columns; in eighths of a column where the terminal
    takes Unicode, so a 0.4 % chance still shows, else in `#`."""
    if not unicode:
        return "#" * round(share * width)
    eighths = round(share * width * 8)
    return "█" * (eighths // 8) + EIGHTHS[eighths % 8].strip()


def percent(probability: float) -> str:
    return f"{probability * 100:6.2f} %"


def number(value: float) -> str:
    return f"{value:.4f}"


def _figure(answer: Mapping[str, Any], name: str, render: Callable[[float], str]) -> str:
    """A float member, with its exact fraction (`<name>Exact`) when the answer has one."""
    text = render(answer[name]).strip()
    exact = answer.get(f"{name}Exact")
    return f"{text}  (= {exact})" if exact is not None else text


def distribution(title: str, entries: Iterable[Mapping[str, Any]], *, unicode: bool) -> list[str]:
    """A `[{value, probability}]` distribution: one line a value, bars scaled to the most
    likely value so the shape reads at a glance."""
    entries = list(entries)
    top = max((entry["probability"] for entry in entries), default=0.0) or 1.0
    lines = [f"{title:>11}  probability"]
    for entry in entries:
        share = entry["probability"] / top
        lines.append(
            f"{entry['value']:>11}  {percent(entry['probability'])}  {bar(share, unicode=unicode)}"
        )
    return lines


def shoot(answer: Mapping[str, Any], *, unicode: bool = True) -> str:
    lines = [
        f"expected damage   {_figure(answer, 'expectedDamage', number)}",
        f"kill chance       {_figure(answer, 'killProbability', percent)}",
    ]
    by_round = answer.get("killProbabilityByRound", [])
    if len(by_round) > 1:
        rounds = ", ".join(f"{i}: {percent(p).strip()}" for i, p in enumerate(by_round, 1))
        lines.append(f"killed by round   {rounds}")
    lines += ["", *distribution("damage", answer["damageDistribution"], unicode=unicode)]
    return "\n".join(lines)


def fight(answer: Mapping[str, Any], *, unicode: bool = True) -> str:
    sections = []
    for side, label in (("fighterA", "fighter A"), ("fighterB", "fighter B")):
        fighter = answer[side]
        sections.append(
            "\n".join(
                [
                    label,
                    f"  expected damage dealt  {_figure(fighter, 'expectedDamageDealt', number)}",
                    f"  incapacitated chance   "
                    f"{_figure(fighter, 'incapacitatedProbability', percent)}",
                    "",
                    *distribution(
                        "wounds left", fighter["remainingWoundsDistribution"], unicode=unicode
                    ),
                ]
            )
        )
    return "\n\n".join(sections)


def error(body: Mapping[str, Any]) -> str:
    """An error body (`schema.errors.error_body`) as one line per problem."""
    lines = []
    for problem in body.get("errors", [body["error"]]):
        where = f" at {problem['field']}" if problem.get("field") else ""
        lines.append(f"error{where}: {problem['message']} ({problem['code']})")
    return "\n".join(lines)


VIEWS = {"shoot": shoot, "fight": fight}
