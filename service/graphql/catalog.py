"""GraphQL queries of the catalog: kill teams, operatives (filtered, cursor-paginated), one
operative or weapon profile by id, weapon-rule parsing and file imports.

`CatalogQuery` is merged into the service's `Query` (service.graphql.schema QUERY_CLASSES). Profiles
expose `fields`, the engine attacker (ranged) or fighter (melee) fields, and operatives
`defender`, so a client can paste them into a `shoot` or `fight` input — or name the ids in a
matchup and let `schema.references` expand them to the very same input.

(No `from __future__ import annotations`: strawberry resolves these annotations itself.)
"""

from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from engine.errors import InputError
from schema.answers import catalog as answers
from schema.catalog import catalog
from schema.catalog import model as catalog_model
from schema.catalog.query import DEFAULT_PAGE, OperativeFilter, find
from schema.importers import import_text
from schema.limits import rules_text
from schema.weapon_rules import format_rules, parse_rules
from service import costs
from service.graphql.outputs import engine_fields, output_type
from service.graphql.versus import DESCRIPTION, VersusCell, operative_versus, profile_versus

Kt2024Fields = engine_fields()
Imported = output_type(answers.ImportResult)
MalformedRule = output_type(answers.MalformedRule)


def _error(error: InputError) -> GraphQLError:
    return GraphQLError(error.message, extensions=error.as_json())


def _imported(content: str, format: str | None) -> dict[str, Any]:
    """An import's answer, or the GraphQL error of a document that cannot be imported."""
    try:
        return import_text(content, format).as_json()
    except InputError as exc:
        raise _error(exc) from None


@strawberry.type
class WeaponProfile:
    id: str
    operative_id: str
    name: str
    weapon: str
    profile: str
    type: str
    attacks: int
    hit: int
    normal_damage: int
    critical_damage: int
    weapon_rules: str = strawberry.field(description="canonical weapon-rules text")
    fields: Kt2024Fields = strawberry.field(
        description="engine attacker (ranged) or fighter fields"
    )
    no_numeric_effect: list[str]
    unknown: list[str] = strawberry.field(
        description="weapon rules not understood (a kill team's own): a matchup naming this "
        "profile is refused, or computed without them under unknownRules: IGNORE"
    )
    versus: list[VersusCell] = strawberry.field(resolver=profile_versus, description=DESCRIPTION)

    @classmethod
    def of(cls, p: catalog_model.WeaponProfile) -> "WeaponProfile":
        return cls(
            id=p.id,
            operative_id=p.operative_id,
            name=p.name,
            weapon=p.weapon,
            profile=p.profile,
            type=p.type,
            attacks=p.attacks,
            hit=p.hit,
            normal_damage=p.normal_damage,
            critical_damage=p.critical_damage,
            weapon_rules=format_rules(p.rules.fields, p.rules.no_numeric_effect),
            fields=p.attacker_fields(),
            no_numeric_effect=list(p.rules.no_numeric_effect),
            unknown=list(p.rules.unknown),
        )


@strawberry.type
class Weapon:
    name: str
    type: str
    profiles: list[WeaponProfile]


@strawberry.type
class DefensiveRule:
    name: str
    effect: Kt2024Fields = strawberry.field(description="the defender or fighter members set")


@strawberry.type
class Operative:
    id: str
    kill_team_id: str
    name: str
    keywords: list[str]
    apl: int
    move: int
    save: int
    wounds: int
    defensive_rules: list[DefensiveRule]
    weapons: list[Weapon]
    defender: Kt2024Fields = strawberry.field(
        description="engine defender fields as a shooting target"
    )
    versus: list[VersusCell] = strawberry.field(resolver=operative_versus, description=DESCRIPTION)

    @classmethod
    def of(cls, op: catalog_model.Operative) -> "Operative":
        return cls(
            id=op.id,
            kill_team_id=op.kill_team_id,
            name=op.name,
            keywords=list(op.keywords),
            apl=op.apl,
            move=op.move,
            save=op.save,
            wounds=op.wounds,
            defensive_rules=[
                DefensiveRule(name=r.name, effect=r.effect) for r in op.defensive_rules
            ],
            weapons=[
                Weapon(name=w.name, type=w.type, profiles=[WeaponProfile.of(p) for p in w.profiles])
                for w in op.weapons
            ],
            defender=op.defender_fields(),
        )


@strawberry.type
class KillTeam:
    id: str
    name: str
    faction: str
    source: str
    operatives: list[Operative]


@strawberry.type
class OperativeEdge:
    cursor: str
    node: Operative


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class OperativeConnection:
    edges: list[OperativeEdge]
    page_info: PageInfo
    total_count: int


@strawberry.input
class OperativeFilterInput:
    kill_team_id: str | None = None
    keyword: str | None = None
    name_contains: str | None = None


@strawberry.type
class WeaponRules:
    fields: Kt2024Fields
    no_numeric_effect: list[str]
    unknown: list[str]
    malformed: list[MalformedRule]


@strawberry.type
class CatalogSource:
    path: str
    format: str
    name: str
    profiles_found: int
    imported_clean: int
    with_team_rules: int
    problems: int


@strawberry.type
class CatalogProblem:
    source: str
    kind: str = strawberry.field(
        description="UNREADABLE_STATLINE, UNKNOWN_RULE, UNKNOWN_WEAPON_TYPE, UNRESOLVED_LINK, "
        "UNREACHED or EMPTY"
    )
    where: str
    message: str


@strawberry.type
class CatalogCounts:
    kill_teams: int
    operatives: int
    weapon_profiles: int
    problems: int


@strawberry.type
class CatalogReport:
    ruleset: str
    version: str = strawberry.field(description="changes whenever the content does")
    digest: str = strawberry.field(description="SHA-256 of the catalog's content")
    sources: list[CatalogSource]
    counts: CatalogCounts
    problems: list[CatalogProblem]


def _report() -> CatalogReport:
    data = catalog().report()
    return CatalogReport(
        ruleset=data["ruleset"],
        version=data["catalogVersion"],
        digest=data["digest"],
        sources=[
            CatalogSource(
                path=s["path"],
                format=s["format"],
                name=s["name"],
                profiles_found=s.get("profilesFound", 0),
                imported_clean=s.get("importedClean", 0),
                with_team_rules=s.get("withTeamRules", 0),
                problems=s.get("problems", 0),
            )
            for s in data["sources"]
        ],
        counts=CatalogCounts(
            kill_teams=data["counts"]["killTeams"],
            operatives=data["counts"]["operatives"],
            weapon_profiles=data["counts"]["weaponProfiles"],
            problems=data["counts"]["problems"],
        ),
        problems=[CatalogProblem(**p) for p in data["problems"]],
    )


@strawberry.type
class CatalogQuery:
    @strawberry.field(description="the catalog served: version, sources, counts, problems")
    def catalog(self) -> CatalogReport:
        return _report()

    @strawberry.field(description="version of the bundled operative catalog")
    def catalog_version(self) -> str:
        return catalog().version

    @strawberry.field
    def kill_teams(self) -> list[KillTeam]:
        return [
            KillTeam(
                id=t.id,
                name=t.name,
                faction=t.faction,
                source=t.source,
                operatives=[Operative.of(op) for op in t.operatives],
            )
            for t in catalog().kill_teams
        ]

    @strawberry.field(description="operatives matching the filter, a page at a time")
    def operatives(
        self,
        filter: OperativeFilterInput | None = None,
        first: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> OperativeConnection:
        where = OperativeFilter(
            filter.kill_team_id, filter.keyword, filter.name_contains
        ) if filter else OperativeFilter()  # fmt: skip
        try:
            page = find(catalog(), where, first, after)
        except InputError as exc:
            raise _error(exc) from None
        return OperativeConnection(
            edges=[
                OperativeEdge(cursor=c, node=Operative.of(op))
                for op, c in zip(page.operatives, page.cursors, strict=True)
            ],
            page_info=PageInfo(has_next_page=page.has_next_page, end_cursor=page.end_cursor),
            total_count=page.total_count,
        )

    @strawberry.field
    def operative(self, id: str) -> Operative | None:
        found = catalog().operatives.get(id)
        return Operative.of(found) if found else None

    @strawberry.field
    def weapon_profile(self, id: str) -> WeaponProfile | None:
        found = catalog().profiles.get(id)
        return WeaponProfile.of(found) if found else None

    @strawberry.field(description="weapon-rules text as engine fields, with what was not used")
    def weapon_rules(self, info: Info, text: str) -> WeaponRules:
        # charged by its bytes when served (a plain resolver returning the awaitable, so a
        # schema executed without the service, synchronously, still parses in place)
        try:
            checked = rules_text(text, "text")
        except InputError as exc:
            raise _error(exc) from None
        service = info.context.get("service") if isinstance(info.context, dict) else None
        if service is None:
            return _rules(checked)

        async def priced() -> WeaponRules:
            await service.pay_bytes(len(text.encode()), "text", costs.RULE_BYTE_MS)
            return _rules(checked)

        return priced()  # type: ignore[return-value]

    @strawberry.field(description="import a ktdash JSON or BattleScribe .cat file's content")
    def import_profiles(self, info: Info, content: str, format: str | None = None) -> Imported:
        # an import can take a second of CPU: in the engine pool, never on the event loop
        # (a plain resolver returning the awaitable, so that a schema executed without the
        # service, synchronously, still imports in place), charged by its bytes first
        service = info.context.get("service") if isinstance(info.context, dict) else None
        if service is None:
            return _imported(content, format)

        async def priced() -> Imported:
            await service.pay_bytes(len(content.encode()), "content", costs.IMPORT_BYTE_MS)
            return await service.computer.in_pool(_imported, content, format)

        return priced()  # type: ignore[return-value]


def _rules(text: str) -> WeaponRules:
    """Rule text (within the cap already) as `weaponRules` answers it."""
    parsed = parse_rules(text)
    return WeaponRules(
        fields=parsed.fields,
        no_numeric_effect=list(parsed.no_numeric_effect),
        unknown=list(parsed.unknown),
        malformed=[m.as_json() for m in parsed.malformed],
    )
