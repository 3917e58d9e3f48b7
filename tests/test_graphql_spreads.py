"""Fragment spreads counted before validation (`service.graphql.limits.AliasCount`).

strawberry's alias and depth limiters walk a fragment again at every spread, so a small
document of fragments each spreading the next twice made them walk millions of fields. The
count now spreads each fragment once, refuses such a document before validation, and still
counts aliases exactly as strawberry's MaxAliasesLimiter did (checked here against it).
"""

from __future__ import annotations

import random

import pytest
import strawberry
from graphql import FragmentDefinitionNode, OperationDefinitionNode, parse
from strawberry.extensions.max_aliases import count_fields_with_alias

from service.graphql.limits import MAX_SPREAD_DEPTH, MAX_SPREAD_FIELDS, spread_counts
from service.graphql.schema import build_schema


@pytest.fixture(scope="module")
def schema() -> strawberry.Schema:
    return build_schema(max_depth=12, max_aliases=50, max_tokens=20_000)


def doubling(levels: int, leaf: str) -> str:
    """`levels` fragments each spreading the next twice: 2**levels copies of `leaf`."""
    chain = [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)]
    return "\n".join(["query { ...F0 }", *chain, f"fragment F{levels} on Query {{ {leaf} }}"])


def test_doubling_spreads_refused_before_validation(schema: strawberry.Schema) -> None:
    result = schema.execute_sync(doubling(40, "rulesets { name }"))
    assert result.data is None
    assert result.errors is not None
    assert f"more than {MAX_SPREAD_FIELDS} fields" in result.errors[0].message


def test_deep_spread_chain_refused_before_validation(schema: strawberry.Schema) -> None:
    levels = 500
    chain = [f"fragment F{i} on Query {{ ...F{i + 1} }}" for i in range(levels)]
    document = "\n".join(
        [
            "query { ...F0 }",
            *reversed(chain),
            f"fragment F{levels} on Query {{ rulesets {{ name }} }}",
        ]
    )
    result = schema.execute_sync(document)
    assert result.errors is not None
    assert [e.message for e in result.errors] == [
        f"fragments spread more than {MAX_SPREAD_DEPTH} deep"
    ]
    assert spread_counts(parse(document)) == (0, 2, levels + 1)  # the operation spreads F0


def test_spread_aliases_counted_as_strawberry_counts_them(schema: strawberry.Schema) -> None:
    result = schema.execute_sync(doubling(6, "a: rulesets { name }"))
    assert result.errors is not None
    assert [e.message for e in result.errors] == ["64 aliases found. Allowed: 50"]
    assert schema.execute_sync(doubling(5, "a: rulesets { name }")).errors is None


def test_cycles_and_unknown_fragments_count_nothing() -> None:
    document = parse("{ ...A ...Z } fragment A on Q { x: a ...B } fragment B on Q { y: b ...A }")
    assert spread_counts(document) == (2, 2, 2)


def _random_document(rnd: random.Random) -> str:
    count = rnd.randint(1, 6)
    fragments = []
    for i in range(count):
        later = f"...F{rnd.randint(i + 1, count - 1)}" if i + 1 < count else ""
        choices = ["x: a", "b", later, f"c {{ y: d ... on T {{ z: e {later} }} }}", "...Nope"]
        body = " ".join(rnd.choice(choices) for _ in range(rnd.randint(0, 5)))
        fragments.append(f"fragment F{i} on T {{ {body} q }}")
    operations = f"query A {{ ...F0 w: v ...F0 }} query B {{ u: v ...F{count - 1} }}"
    return "\n".join([operations, *fragments])


def test_alias_count_matches_strawberry() -> None:
    rnd = random.Random(2024)
    for _ in range(300):
        document = parse(_random_document(rnd))
        fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        expected = sum(
            count_fields_with_alias(d, fragments)
            for d in document.definitions
            if isinstance(d, OperationDefinitionNode)
        )
        assert spread_counts(document)[0] == expected
