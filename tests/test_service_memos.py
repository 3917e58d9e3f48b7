"""Memos keyed by digests and bounded in bytes (issue 34, finding 5): many unique big bodies
leave neither their bytes nor more than each memo's budget behind."""

from __future__ import annotations

import orjson

from schema.grid import GridRequest
from service import compute
from service import grid as grids
from service.cache import SizedLRU

SHOT = {"attacker": {"attacks": 4, "hit": 3}, "defender": {"save": 4}}


def test_prepared_bodies_are_kept_by_digest_within_their_budget():
    compute._PREPARED.clear()
    bodies = [orjson.dumps(SHOT) + b" " * (100_000 + n) for n in range(200)]  # 20 MB of bodies
    jobs = [compute.prepare_raw(body, "shoot") for body in bodies]
    assert len({job.key for job in jobs}) == 1  # the same scenario, whatever the padding
    assert len(compute._PREPARED) == 200  # each body its own entry ...
    assert all(len(key) == 16 for key in compute._PREPARED.held())  # ... under a digest
    assert compute._PREPARED.size < 200 * 4096  # the jobs, not the bodies
    assert compute.prepare_raw(bodies[7], "shoot") is jobs[7]  # memoised


def test_a_memo_stays_within_its_byte_budget():
    memo = SizedLRU(64 * 1024)
    for n in range(1000):
        memo.keep(n.to_bytes(16, "little"), object(), 1000)
    assert memo.size <= 64 * 1024 and len(memo) == memo.size // 1016
    memo.keep(b"huge", object(), 64 * 1024 // 8)  # above an eighth: not kept
    assert memo.get(b"huge") is None


def test_grid_cells_are_kept_by_digest_within_their_budget(monkeypatch):
    monkeypatch.setattr(grids, "_CELLS", SizedLRU(256 * 1024))
    monkeypatch.setattr(compute, "_PREPARED", SizedLRU(256 * 1024))
    for n in range(60):
        rules = ", ".join(f"Unheard{n}x{i}" for i in range(200))  # unique, ignored rule text
        grid = GridRequest.model_validate(
            {
                "attackers": [{"attacks": 4, "weaponRules": rules}, {"attacks": 5}],
                "defenders": [{"save": 3}, {"save": 4}],
                "options": {"unknownRules": "IGNORE"},
            }
        )
        assert len(grids.prepare_cells(grid)) == 4
    for memo in (grids._CELLS, compute._PREPARED):
        assert all(len(key) == 16 for key in memo.held())
        assert 0 < memo.size <= 256 * 1024


def test_a_job_holding_many_ignored_rules_is_not_memoised():
    compute._PREPARED.clear()
    rules = ", ".join(f"Unheard{i}" for i in range(20_000))  # ~250 KB of unknown rules
    body = {**SHOT, "attacker": {**SHOT["attacker"], "weaponRules": rules}}
    job = compute.prepare_raw(orjson.dumps(body | {"options": {"unknownRules": "IGNORE"}}), "shoot")
    assert len(job.ignored) == 20_000
    assert compute.job_size(job) > compute.LARGEST_JOB
    assert len(compute._PREPARED) == 0
