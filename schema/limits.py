"""The errors of the bulk limits, shared by every door that enforces them, and the cap on
weapon-rule text.

A grid and a list of matchups are refused by their size before any work is done: by REST and
the GraphQL resolvers once the request is parsed, and by `service.graphql.limits` before
GraphQL even coerces the arguments. Whichever refuses, the client reads the same error.
"""

from __future__ import annotations

from engine.errors import InputError


def grid_too_large(cells: int, limit: int) -> InputError:
    """attackers × defenders × situations above the grid cell limit."""
    message = f"attackers × defenders × situations is {cells}, at most {limit} cells"
    return InputError("LIMIT_EXCEEDED", "attackers", message, limit)


def too_many_matchups(count: int, limit: int) -> InputError:
    """More GraphQL `matchups` inputs than the limit."""
    return InputError("LIMIT_EXCEEDED", "inputs", f"at most {limit} matchups", limit)


def team_matchup_too_large(cells: int, limit: int) -> InputError:
    """A team matchup's ranged and melee cells above the grid cell limit."""
    message = f"these teams make {cells} cells (profiles × defenders × situations, and fights), "
    return InputError("LIMIT_EXCEEDED", "attackers", message + f"at most {limit}", limit)


def versus_too_large(cells: int, limit: int) -> InputError:
    """GraphQL `versus` cells of one query level above the grid cell limit."""
    message = f"the versus fields of one level ask {cells} cells, at most {limit}"
    return InputError("LIMIT_EXCEEDED", "operativeIds", message, limit)


MAX_RULES_TEXT = 2000
"""Characters of weapon-rule text one member may hold (`weaponRules` of a role object, the
`text` of `/v1/weapon-rules` and GraphQL `weaponRules`). The longest rules a real datacard
prints are far shorter: 91 characters of WR in the BSData Kill Team catalogs (376 for a
2021-edition weapon's Abilities prose), 103 in the bundled catalog."""


def rules_text(text: str, field: str) -> str:
    """`text` if it is within the cap, else LIMIT_EXCEEDED naming `field`: checked before the
    parser sees it, so a request's parsing costs at most the cap per member."""
    if len(text) > MAX_RULES_TEXT:
        message = f"{len(text)} characters of weapon rules, at most {MAX_RULES_TEXT}"
        raise InputError("LIMIT_EXCEEDED", field, message, MAX_RULES_TEXT)
    return text
