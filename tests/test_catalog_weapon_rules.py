"""Weapon-rule strings ⇄ engine fields: every alias of issue 5, round trips, and reports."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from schema.weapon_rules import (
    NUMERIC,
    for_fighting,
    for_shooting,
    format_rules,
    parse_rules,
    split_rules,
)

# (text, fields) for every spelling issue 5 lists, plus the tolerated variants
ALIASES = [
    ("Lethal 5+", {"lethal": 5}),
    ("Lethal 5", {"lethal": 5}),
    ("lethal5+", {"lethal": 5}),
    ("Piercing 1", {"piercing": 1}),
    ("Prc1", {"piercing": 1}),
    ("P1", {"piercing": 1}),
    ("Piercing Crits 1", {"piercingCrits": 1}),
    ("PrcCrit1", {"piercingCrits": 1}),
    ("Piercing Crit 2", {"piercingCrits": 2}),
    ("Devastating 2", {"devastating": 2}),
    ("Dev2", {"devastating": 2}),
    ("Dev 2", {"devastating": 2}),
    ("Accurate 1", {"accurate": 1}),
    ("Acc1", {"accurate": 1}),
    ("Balanced", {"reroll": "BALANCED"}),
    ("Bal", {"reroll": "BALANCED"}),
    ("Ceaseless", {"reroll": "CEASELESS"}),
    ("Cea", {"reroll": "CEASELESS"}),
    ("Relentless", {"reroll": "RELENTLESS"}),
    ("Rel", {"reroll": "RELENTLESS"}),
    ("Rending", {"rending": True}),
    ("Rend", {"rending": True}),
    ("Severe", {"severe": True}),
    ("Sev", {"severe": True}),
    ("Punishing", {"punishing": True}),
    ("Pun", {"punishing": True}),
    ("Saturate", {"saturate": True}),
    ("Sat", {"saturate": True}),
    ("Brutal", {"brutal": True}),
    ("Brut", {"brutal": True}),
    ("Shock", {"shock": True}),
]

NO_EFFECT = [
    ('Range 8"', 'Range 8"'),
    ("Range 8", 'Range 8"'),
    ('Rng 6"', 'Range 6"'),
    ("Heavy (Dash only)", "Heavy (Dash only)"),
    ("heavy (reposition only)", "Heavy (Reposition only)"),
    ("Heavy", "Heavy"),
    ("Hot", "Hot"),
    ("Silent", "Silent"),
    ("Limited 1", "Limited 1"),
    ("Lim1", "Limited 1"),
    ('Blast 2"', 'Blast 2"'),
    ('Torrent 1"', 'Torrent 1"'),
    ("Seek", "Seek"),
    ("Seek Light", "Seek Light"),
    ("Stun", "Stun"),
    ("Concealed Position", "Concealed Position"),
]


def _messy(text: str) -> list[str]:
    """The same rule in other case and spacing, as people type it."""
    return [text.upper(), text.lower(), f"  {text}  ", text.replace(" ", "  ")]


@pytest.mark.parametrize(("text", "fields"), ALIASES)
def test_every_alias_gives_its_field(text: str, fields: dict) -> None:
    for variant in [text, *_messy(text)]:
        parsed = parse_rules(variant)
        assert parsed.fields == fields, variant
        assert parsed.unknown == () and parsed.no_numeric_effect == ()


@pytest.mark.parametrize(("text", "canonical"), NO_EFFECT)
def test_rules_without_numeric_effect_are_recognised(text: str, canonical: str) -> None:
    for variant in [text, *_messy(text)]:
        parsed = parse_rules(variant)
        assert parsed.fields == {}
        assert parsed.no_numeric_effect == (canonical,), variant
        assert parsed.unknown == ()


def test_issue_example_statline_rules() -> None:
    """The WR cell of issue 5, with its stray closing quote."""
    parsed = parse_rules('"Range 8", Hot, Lethal 5+, Piercing 1"')
    assert parsed.fields == {"lethal": 5, "piercing": 1}
    assert parsed.no_numeric_effect == ('Range 8"', "Hot")
    assert parsed.unknown == () and parsed.understood


def test_separators_and_unicode_quotes() -> None:
    parsed = parse_rules("Range 8″; Lethal 5+ · Rending\nSev | Heavy (Dash only, Reposition)")
    assert parsed.fields == {"lethal": 5, "rending": True, "severe": True}
    assert parsed.no_numeric_effect[0] == 'Range 8"'
    # the comma inside the parentheses does not split the rule
    assert split_rules("Heavy (Dash only, x), Hot") == ["Heavy (Dash only, x)", "Hot"]


def test_devastating_with_a_distance() -> None:
    """KT2024 `1" Devastating 2`: the target takes Devastating 2; the distance only reaches
    other operatives, so the full rule is kept as written under noNumericEffect."""
    parsed = parse_rules('1" Devastating 2, Piercing 1')
    assert parsed.fields == {"devastating": 2, "piercing": 1}
    assert parsed.no_numeric_effect == ('1" Devastating 2',)
    text = format_rules(parsed.fields, parsed.no_numeric_effect)
    assert text == '1" Devastating 2, Piercing 1'
    assert parse_rules(text) == parsed
    assert parse_rules('2"Dev3').fields == {"devastating": 3}
    bad = parse_rules('1" Devastating x, 1" Devastating 11')
    assert bad.unknown == ('1" Devastating x', '1" Devastating 11') and bad.fields == {}
    assert [m.rule for m in bad.malformed] == ["Devastating", "Devastating"]


def test_reroll_combinations() -> None:
    assert parse_rules("Balanced, Ceaseless").fields == {"reroll": "CEASELESS_AND_BALANCED"}
    assert parse_rules("Cea, Bal").fields == {"reroll": "CEASELESS_AND_BALANCED"}
    assert parse_rules("Balanced, Relentless").fields == {"reroll": "RELENTLESS"}
    assert parse_rules("Ceaseless, Relentless, Balanced").fields == {"reroll": "RELENTLESS"}
    assert parse_rules("Balanced, Balanced").fields == {"reroll": "BALANCED"}
    assert format_rules({"reroll": "CEASELESS_AND_BALANCED"}) == "Balanced, Ceaseless"


def test_aliases_do_not_swallow_longer_names() -> None:
    """`P` is Piercing only before a number; `Pun`, `Rel`, `Dev` never read as prefixes."""
    assert parse_rules("Punishing").fields == {"punishing": True}
    assert parse_rules("Relic").unknown == ("Relic",)
    assert parse_rules("Devour").unknown == ("Devour",)
    assert parse_rules("Poison").unknown == ("Poison",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Lethal 7+", "between 2 and 6"),
        ("Lethal 1+", "between 2 and 6"),
        ("Piercing x", "expected a number"),
        ("Piercing", "a number is required"),
        ("Devastating 11", "between 0 and 10"),
        ("Accurate 21", "between 0 and 20"),
        ("Piercing Crits 10", "between 0 and 9"),
        ("Hot 2", "takes no value"),
        ("Rending 1", "takes no value"),
        ("Range x", "expected a number"),
        ("Heavy (", "expected"),
    ],
)
def test_malformed_rules_are_reported_never_dropped(text: str, message: str) -> None:
    parsed = parse_rules(f"Hot, {text}, Sev")
    assert parsed.unknown == (text,)
    assert len(parsed.malformed) == 1
    assert parsed.malformed[0].text == text and message in parsed.malformed[0].message
    assert parsed.fields.get("severe") is True and not parsed.understood
    assert parsed.as_json()["unknown"] == [text]


def test_contradicting_values_are_reported() -> None:
    parsed = parse_rules("Piercing 1, Prc2, Piercing 1")
    assert parsed.fields == {"piercing": 1}
    assert parsed.unknown == ("Prc2",)
    assert "Piercing 1" in parsed.malformed[0].message


def test_unknown_rules_are_reported_as_written() -> None:
    parsed = parse_rules("Lethal 5+, Poison, Toxic (2), ")
    assert parsed.fields == {"lethal": 5}
    assert parsed.unknown == ("Poison", "Toxic (2)")
    assert parsed.malformed == ()
    assert parsed.as_json() == {
        "fields": {"lethal": 5},
        "noNumericEffect": [],
        "unknown": ["Poison", "Toxic (2)"],
        "malformed": [],
    }


def test_empty_text_and_datacard_dash() -> None:
    """Datacards print '-' for a weapon without rules."""
    for text in ("", " , ;", "-", "–"):
        parsed = parse_rules(text)
        assert parsed.as_json() == {
            "fields": {},
            "noNumericEffect": [],
            "unknown": [],
            "malformed": [],
        }
    assert format_rules({}) == ""


_NUMERIC_VALUES = {name: st.integers(spec.low, spec.high) for name, spec in NUMERIC.items()}
_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        **_NUMERIC_VALUES,
        "reroll": st.sampled_from(
            ["BALANCED", "CEASELESS", "RELENTLESS", "CEASELESS_AND_BALANCED"]
        ),
        "brutal": st.just(True),
        "punishing": st.just(True),
        "rending": st.just(True),
        "saturate": st.just(True),
        "severe": st.just(True),
        "shock": st.just(True),
    },
)


@settings(max_examples=300, deadline=None)
@given(_FIELDS, st.lists(st.sampled_from([c for _, c in NO_EFFECT]), unique=True, max_size=4))
def test_fields_round_trip_through_text(fields: dict, no_effect: list[str]) -> None:
    text = format_rules(fields, no_effect)
    parsed = parse_rules(text)
    assert parsed.fields == fields
    assert set(parsed.no_numeric_effect) == set(no_effect)
    assert parsed.unknown == ()
    # canonical text is a fixed point
    assert format_rules(parsed.fields, parsed.no_numeric_effect) == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALIASES + [(t, {}) for t, _ in NO_EFFECT]), max_size=6))
def test_alias_text_round_trips_to_the_same_fields(items: list) -> None:
    """Any mix of aliases → fields → canonical text → the same fields."""
    text = ", ".join(t for t, _ in items)
    parsed = parse_rules(text)
    again = parse_rules(format_rules(parsed.fields, parsed.no_numeric_effect))
    assert again.fields == parsed.fields
    assert set(again.no_numeric_effect) == set(parsed.no_numeric_effect)
    canonical = format_rules(parsed.fields, parsed.no_numeric_effect)
    assert format_rules(again.fields, again.no_numeric_effect) == canonical


def test_range_comes_first_in_canonical_text() -> None:
    assert format_rules({"piercing": 1, "lethal": 5}, ['Range 8"', "Hot"]) == (
        'Range 8", Hot, Lethal 5+, Piercing 1'
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"lethal": 7}, "fields.lethal"),
        ({"lethal": True}, "fields.lethal"),
        ({"reroll": "CRIT_FISH"}, "fields.reroll"),
        ({"rending": 1}, "fields.rending"),
        ({"attacks": 4}, "fields.attacks"),
    ],
)
def test_format_rejects_what_has_no_rule_text(fields: dict, field: str) -> None:
    with pytest.raises(InputError) as err:
        format_rules(fields)
    assert err.value.field == field and err.value.code == "INVALID_INPUT"


def test_mode_specific_fields() -> None:
    fields = parse_rules("Brutal, Shock, Piercing 1, Devastating 2, Saturate, Lethal 5+").fields
    assert for_shooting(fields) == {
        "devastating": 2,
        "lethal": 5,
        "piercing": 1,
        "saturate": True,
    }
    assert for_fighting(fields) == {"brutal": True, "lethal": 5, "shock": True}


# Issue 16: the spellings of the community files (ktdash, killteamjson, BattleScribe).
COMMUNITY = [
    ('Tor 2"', {}, ['Torrent 2"']),
    ('Tor1"', {}, ['Torrent 1"']),
    ('*Torrent 0"', {}, ['Torrent 0"']),
    ('Torrent 0"*', {}, ['Torrent 0"']),
    ("*Concealed Position", {}, ["Concealed Position"]),
    ("Concealed Position*", {}, ["Concealed Position"]),
    ("Lethal 5+†", {"lethal": 5}, []),
    ("†Piercing 1", {"piercing": 1}, []),
    ("Severe'", {"severe": True}, []),
    ("'Severe", {"severe": True}, []),
    ("PSYCHIC", {}, ["PSYCHIC"]),
    ("Psychic", {}, ["PSYCHIC"]),
    ("**PSYCHIC**", {}, ["PSYCHIC"]),
]


@pytest.mark.parametrize(("text", "fields", "no_effect"), COMMUNITY)
def test_community_spellings_and_marks(text: str, fields: dict, no_effect: list) -> None:
    """A team-rule mark beside a known rule is not part of its name, nor a value."""
    parsed = parse_rules(f'Range 8", {text}')
    assert parsed.fields == fields
    assert list(parsed.no_numeric_effect) == ['Range 8"', *no_effect]
    assert parsed.understood and parsed.malformed == ()


def test_team_rules_stay_unknown_listed_by_name() -> None:
    parsed = parse_rules("*Poison, Blaze*, *Soulstrike, Lethal 5+, Wreathed, Blaze *")
    assert parsed.fields == {"lethal": 5}
    assert parsed.unknown == ("*Poison", "Blaze*", "*Soulstrike", "Wreathed", "Blaze *")
    # marked ones are a kill team's own rules; an unmarked unknown could be anything
    assert parsed.team_rules == ("*Poison", "Blaze*", "*Soulstrike", "Blaze *")
    assert parsed.malformed == ()


@pytest.mark.parametrize(
    ("text", "rule", "message"),
    [
        ('Rang 8"', "Range", "did you mean Range?"),
        ("PcrCrit1", "Piercing Crits", "did you mean Piercing Crits?"),
        ("Lethal 5+ Piercing 1", "", "'Lethal 5+' and 'Piercing 1'"),
        ("Brutal Severe", "", "'Brutal' and 'Severe'"),
    ],
)
def test_typos_are_reported_never_guessed(text: str, rule: str, message: str) -> None:
    parsed = parse_rules(f"Hot, {text}")
    assert parsed.fields == {} and parsed.no_numeric_effect == ("Hot",)
    assert parsed.unknown == (text,) and parsed.team_rules == ()
    (bad,) = parsed.malformed
    assert bad.text == text and bad.rule == rule and message in bad.message


def test_a_marked_known_rule_with_a_bad_value_names_the_value() -> None:
    """Not "takes no value, got '*'": the mark is not the value."""
    parsed = parse_rules("*Lethal 7+, Concealed Position*")
    assert parsed.unknown == ("*Lethal 7+",)
    assert parsed.malformed[0].message == "must be between 2 and 6"
    assert parsed.no_numeric_effect == ("Concealed Position",)
