"""GraphQL's share of the HTTP contract: what a document cost, and its errors counted by code.

Each field that computes charges its estimate (`service.costs`: about a token per ms of CPU
its cells' engine work takes) to the request's `Tally` before it looks anything up — `shoot`
and `fight` their scenario's, `matchups`, `matchupGrid`, `teamMatchup` and each level's
`versus` the sum over their distinct cells — through the same bucket as REST
(`service.auth`); a field the bucket cannot pay fails alone with code `RATE_LIMITED`, the
others still answer, and a field that would take the document past the per-request ceiling
(`KILLMATH_MAX_REQUEST_TOKENS`) fails with LIMIT_EXCEEDED, naming what drives its cost. The
reply says what was charged and what is left, as public GraphQL APIs do:

    "extensions": {"cost": {"charged": 12, "remaining": 9988, "limit": 10000, "restoreRate": 100}}

(`remaining`, `limit` and `restoreRate`, in tokens and tokens per second, only when rate
limiting is on). `GraphQLHTTP` also counts every error of every reply in
`killmath_graphql_errors_total{code}`: the §12 code of a service error, else
`GRAPHQL_VALIDATION_FAILED` for a document refused before it ran, `INTERNAL_SERVER_ERROR` for
a field that failed unexpectedly.

The hooks are small on purpose: the app's GraphQL module puts a `Tally` in the context
(`"cost"`), has its resolvers call `Tally.charge`, and adds `GraphQLHTTP` to the schema's
extensions.
"""

from __future__ import annotations

import contextlib
from typing import Any

from strawberry.extensions import SchemaExtension

from service import costs, metrics
from service.auth import Meter
from service.http import RateLimited

CONTEXT_KEY = "cost"


class Tally:
    """The tokens one GraphQL request has been charged, and its key's meter (None when rate
    limiting is off: the cost is then reported, not charged)."""

    def __init__(self, meter: Meter | None, ceiling: int) -> None:
        self.meter = meter
        self.ceiling = ceiling
        self.charged = 0
        self.refused = False

    async def pay(self, estimate: costs.Estimate) -> None:
        """Charge a field's estimate before it looks anything up, or refuse it: a document
        may ask at most the per-request ceiling in all (LIMIT_EXCEEDED, naming the field's
        costliest member), and a field the bucket cannot pay is RATE_LIMITED."""
        await self.charge(costs.within(estimate, self.ceiling, self.charged).tokens)

    async def charge(self, cost: int) -> None:
        """Charge a field's cost before it computes (raises RateLimited)."""
        if self.meter is not None:
            try:
                await self.meter.charge(cost)
            except RateLimited:
                self.refused = True
                raise
        self.charged += cost

    async def settle(self) -> None:
        """A document no field of which computed (catalog, rulesets) costs `costs.REQUEST`,
        as any request does; charged after it ran, so a bucket that cannot pay it only
        shows in the reply's `remaining`. A document whose fields were refused owes
        nothing more."""
        if self.charged == 0 and not self.refused:
            with contextlib.suppress(RateLimited):
                await self.charge(costs.REQUEST)

    def report(self) -> dict[str, Any]:
        report: dict[str, Any] = {"charged": self.charged}
        if self.meter is not None:
            report["remaining"] = self.meter.remaining
            report["limit"] = self.meter.limiter.burst
            report["restoreRate"] = self.meter.limiter.rate
        return report


def _code(error: Any) -> str:
    code = (error.extensions or {}).get("code")
    if isinstance(code, str):
        return code
    return "INTERNAL_SERVER_ERROR" if error.path else "GRAPHQL_VALIDATION_FAILED"


class GraphQLHTTP(SchemaExtension):
    """`extensions.cost` on every reply, and the reply's errors counted by code."""

    async def get_results(self) -> dict[str, Any]:
        context = self.execution_context
        for error in context.pre_execution_errors or ():
            metrics.GRAPHQL_ERRORS.labels(code=_code(error)).inc()
        tally = context.context.get(CONTEXT_KEY) if isinstance(context.context, dict) else None
        if tally is None:
            return {}
        await tally.settle()
        return {"cost": tally.report()}
