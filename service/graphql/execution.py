"""Lists of answers completed as projections of their JSON dicts, not field by field.

graphql-core completes a list of objects item by item and field by field: a resolver call,
a resolve-info object, a path and a completion per selected value. A 10,000-cell
`matchupGrid` selects some 460,000 values, and completing them took seconds where REST
renders the same cells in a tenth of a second. Yet the answers are already JSON dicts read by
member name (`service.graphql.outputs.member`): completing such a list is a projection of each
dict onto the selection, so `Projecting` does exactly that for a list whose whole selection
can be projected, and leaves every other list to graphql-core.

A selection can be projected when each of its fields, at every depth, is a member read by the
schema's default resolver (`member`: no resolver of its own, no arguments, no directives, no
deferred fragment) or `__typename`, and its type is a leaf, an object type or a list or
non-null of those (no union or interface). The projection then does what completion does
with such fields: a dict by each field's name, nulls where nullable, leaves coerced by their
type (the built-in scalars' values that are already what coercion returns are kept as they
are). Whatever the projection cannot answer exactly as completion would — an item that is not
a dict or not of its type (`is_type_of`), a null where the type says non-null, a leaf its type
refuses — gives the list back to graphql-core, which then reports it with its own errors and
paths. So the data and the errors are graphql-core's, only faster
(tests/test_graphql_projection.py executes documents both ways).

An answer selected whole (its members exactly the selection, in order, each its own
completion) is its own completion: it is returned as it is, so a warm grid builds nothing.
For a list, that is first asked of whole columns (`Column`: each member of all the items at
once, by C-level passes), and only if a column says no are the items completed one by one.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from math import isfinite
from operator import is_, itemgetter
from typing import Any

from graphql import (
    GraphQLBoolean,
    GraphQLFloat,
    GraphQLInt,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLString,
    Undefined,
    is_leaf_type,
)
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter

from service.graphql.outputs import member

MISS = object()
"""What a projection gives when only graphql-core's completion can answer."""

Complete = Callable[[Any, Any], Any]  # (value, info) -> completed value, or MISS

GRAPHQL_MIN_INT, GRAPHQL_MAX_INT = -(2**31), 2**31 - 1


def _absent(value: Any) -> bool:
    return value is None or value is Undefined


def _leaf(leaf: GraphQLLeafType, non_null: bool) -> Complete:
    """A leaf's completion: the built-in scalars keep the values their coercion returns
    unchanged (a finite float for Float, a 32-bit int for Int, a str, a bool) as they are;
    anything else is coerced by the type, as graphql-core does."""
    coerce = leaf.coerce_output_value

    def coerced(value: Any) -> Any:
        if _absent(value):
            return MISS if non_null else None
        try:
            done = coerce(value)
        except Exception:  # graphql-core reports it, with its path
            return MISS
        return MISS if _absent(done) else done

    def complete(value: Any, info: Any) -> Any:
        return coerced(value)

    def complete_float(value: Any, info: Any) -> Any:
        return value if type(value) is float and isfinite(value) else coerced(value)

    def complete_int(value: Any, info: Any) -> Any:
        if type(value) is int and GRAPHQL_MIN_INT <= value <= GRAPHQL_MAX_INT:
            return value
        return coerced(value)

    def complete_str(value: Any, info: Any) -> Any:
        return value if type(value) is str else coerced(value)

    def complete_bool(value: Any, info: Any) -> Any:
        return value if type(value) is bool else coerced(value)

    kept = {GraphQLFloat: complete_float, GraphQLInt: complete_int,
            GraphQLString: complete_str, GraphQLBoolean: complete_bool}  # fmt: skip
    return kept.get(leaf, complete)


def _list(item: Complete, non_null: bool, whole: Column | None) -> Complete:
    """A list's completion; `whole` tells, column by column, whether every item is its own
    completion (then the list is too, and no item is completed one by one)."""

    def complete(value: Any, info: Any) -> Any:
        if type(value) is not list:
            return (MISS if non_null else None) if _absent(value) else MISS
        if whole is not None and whole(value):
            return value
        out = [item(entry, info) for entry in value]
        if all(map(is_, out, value)):
            return value  # every item is its own completion: the list is too
        return MISS if MISS in out else out

    return complete


Selected = tuple[str, "str | None", Any, Any]
Field = tuple[str, "str | None", Complete]
"""A selected field: its response key, the member it reads (None: `__typename`), its
completion."""


def _object(kind: GraphQLObjectType, fields: list[Field], non_null: bool) -> Complete:
    """An object's completion. A dict whose members are the selection's, in its order, each
    its own completion (an answer selected whole), is its own completion too: returned as
    it is, not copied — nothing is built, so nothing is left for the collector."""
    is_type_of = kind.is_type_of
    name = kind.name
    # `service.graphql.outputs`' types take a dict whose `__typename`, if any, is theirs
    typename_only = getattr(is_type_of, "typename_only", False)
    keys = tuple(key for key, member_name, _ in fields if key == member_name)
    whole = [(key, done) for key, _, done in fields] if len(keys) == len(fields) else None

    def complete(value: Any, info: Any) -> Any:
        if type(value) is not dict:
            return (MISS if non_null else None) if _absent(value) else MISS
        if typename_only:
            if value.get("__typename", name) != name:
                return MISS
        elif is_type_of is not None and is_type_of(value, info) is not True:
            return MISS
        if whole is not None and tuple(value) == keys:
            for key, done in whole:
                member = value[key]
                if done(member, info) is not member:
                    break
            else:
                return value
        out = {}
        get = value.get
        for key, member_name, done in fields:
            completed = name if member_name is None else done(get(member_name), info)
            if completed is MISS:
                return MISS
            out[key] = completed
        return out

    return complete


Column = Callable[[list[Any]], bool]
"""Whether each value of a column (one member of many items, or the items themselves) is its
own completion: the checks of the completions above, made with C-level passes over the
column (`map`, `set`, `min`, `sum`) instead of a call per value. False only means "ask the
completion": a column with a null, a bool where an Int is, a float beyond a double's range
summed, falls back to it."""

NONE = type(None)
KEPT_TYPES: dict[object, type] = {
    GraphQLInt: int,
    GraphQLFloat: float,
    GraphQLString: str,
    GraphQLBoolean: bool,
}  # the built-in scalars, and the Python type their coercion returns unchanged


def _present(column: list[Any], types: set[type]) -> list[Any]:
    return [v for v in column if v is not None] if NONE in types else column


def _leaf_column(leaf: GraphQLLeafType, non_null: bool) -> Column | None:
    kind = KEPT_TYPES.get(leaf)
    if kind is None:
        return None
    allowed = {kind} if non_null else {kind, NONE}

    def check(column: list[Any]) -> bool:
        types = set(map(type, column))
        if not types <= allowed:
            return False
        values = _present(column, types)
        if not values or kind is str or kind is bool:
            return True
        if kind is int:
            return min(values) >= GRAPHQL_MIN_INT and max(values) <= GRAPHQL_MAX_INT
        return isfinite(sum(values))  # any inf or nan makes the sum one

    return check


def _list_column(items: Column, non_null: bool) -> Column:
    allowed = {list} if non_null else {list, NONE}

    def check(column: list[Any]) -> bool:
        types = set(map(type, column))
        return types <= allowed and items(list(chain.from_iterable(_present(column, types))))

    return check


def _object_column(members: list[tuple[str, Column]], non_null: bool) -> Column:
    """The items are dicts whose members are exactly the selection's, in its order (so no
    `__typename` of their own either), each column its own completion."""
    allowed = {dict} if non_null else {dict, NONE}
    keys = {tuple(name for name, _ in members)}
    pick = [(itemgetter(name), check) for name, check in members]

    def check(column: list[Any]) -> bool:
        types = set(map(type, column))
        if not types <= allowed:
            return False
        items = _present(column, types)
        if not items:
            return True
        if set(map(tuple, items)) != keys:
            return False
        return all(member(list(map(get, items))) for get, member in pick)

    return check


class Projecting(StrawberryGraphQLCoreExecutionContext):
    """strawberry's execution context, completing projectable lists of dicts at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._projections: dict[tuple[Any, int], tuple[Any, Complete | None]] = {}

    def complete_list_value(
        self,
        return_type: GraphQLList[GraphQLOutputType],
        field_details_list: Any,
        info: Any,
        path: Any,
        result: Any,
        position_context: Any,
    ) -> Any:
        if type(result) is list:
            project = self._projection(return_type, field_details_list)
            if project is not None:
                completed = project(result, info)
                if completed is not MISS:
                    return completed
        return super().complete_list_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def _projection(self, kind: GraphQLList[Any], group: Any) -> Complete | None:
        """The projection of a list field's selection, or None; once per field group."""
        key = (kind, id(group))
        found = self._projections.get(key)
        if found is None:
            middlewares = self.middleware_manager and self.middleware_manager.middlewares
            projection = None if middlewares or not _plain(group) else self._complete(kind, group)
            found = self._projections[key] = (group, projection)  # the group kept: its id
        return found[1]

    def _complete(
        self, kind: GraphQLOutputType, group: Any, non_null: bool = False
    ) -> Complete | None:
        if isinstance(kind, GraphQLNonNull):
            return self._complete(kind.of_type, group, non_null=True)
        if isinstance(kind, GraphQLList):
            item = self._complete(kind.of_type, group)
            whole = self._column(kind.of_type, group)
            return None if item is None else _list(item, non_null, whole)
        if is_leaf_type(kind):
            return _leaf(kind, non_null)
        if isinstance(kind, GraphQLObjectType):
            selection = self._selection(kind, group)
            if selection is None:
                return None
            fields: list[Field] = []
            for key, member_name, field_type, sub_group in selection:
                if member_name is None:
                    fields.append((key, None, _leaf(GraphQLString, True)))
                    continue
                done = self._complete(field_type, sub_group)
                if done is None:
                    return None
                fields.append((key, member_name, done))
            return _object(kind, fields, non_null)
        return None  # a union or an interface: its runtime type is graphql-core's to resolve

    def _column(self, kind: GraphQLOutputType, group: Any, non_null: bool = False) -> Column | None:
        """The column check of values of `kind` under this selection, or None where only
        value-by-value completion can tell (enums, custom scalars, `__typename`, aliases)."""
        if isinstance(kind, GraphQLNonNull):
            return self._column(kind.of_type, group, non_null=True)
        if isinstance(kind, GraphQLList):
            items = self._column(kind.of_type, group)
            return None if items is None else _list_column(items, non_null)
        if is_leaf_type(kind):
            return _leaf_column(kind, non_null)
        if isinstance(kind, GraphQLObjectType) and getattr(kind.is_type_of, "typename_only", False):
            selection = self._selection(kind, group)
            if selection is None:
                return None
            members = []
            for key, member_name, field_type, sub_group in selection:
                check = None if key != member_name else self._column(field_type, sub_group)
                if check is None:
                    return None
                members.append((key, check))
            return _object_column(members, non_null)
        return None

    def _selection(self, kind: GraphQLObjectType, group: Any) -> list[Selected] | None:
        """The fields selected of an object type, if every one can be projected: (response
        key, member name or None for `__typename`, type, field group)."""
        grouped, deferred, forbidden = self.collect_subfields(kind, group)
        if deferred or forbidden:
            return None
        selection: list[Selected] = []
        for key, sub_group in grouped.items():
            if not _plain(sub_group):
                return None
            name = sub_group[0].node.name.value
            if name == "__typename":
                selection.append((key, None, None, sub_group))
                continue
            field = kind.fields.get(name)
            definition = (
                field.extensions.get(GraphQLCoreConverter.DEFINITION_BACKREF) if field else None
            )
            if (
                definition is None
                or not getattr(field.resolve, "_is_default", False)
                or definition.default_resolver is not member
            ):
                return None
            selection.append((key, definition.python_name, field.type, sub_group))
        return selection


def _plain(group: Any) -> bool:
    """No arguments, no directives and no deferral on any node of a field group."""
    return all(
        not d.node.arguments and not d.node.directives and d.defer_usage is None for d in group
    )
