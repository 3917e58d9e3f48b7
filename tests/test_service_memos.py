"""Memos keyed by digests and bounded in bytes (issue 34, finding 5): many unique big bodies
leave neither their bytes nor more than each memo's budget behind."""

from __future__ import annotations

import orjson

from engine.errors import InputError
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
        rules = ", ".join(f"Unheard{n}x{i}" for i in range(120))  # unique, ignored, < 2,000
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


def test_a_job_above_the_largest_is_not_memoised(monkeypatch):
    """A job above the memo's largest entry (many ignored rules' names) is prepared afresh
    each time rather than kept: here with a small largest entry, since rule text is capped at
    2,000 characters a member (`schema.limits`)."""
    monkeypatch.setattr(compute, "_PREPARED", SizedLRU(compute.PREPARED_BYTES, 512))
    rules = ", ".join(f"Unheard{i}" for i in range(150))  # ~1,600 characters, all unknown
    body = {**SHOT, "attacker": {**SHOT["attacker"], "weaponRules": rules}}
    job = compute.prepare_raw(orjson.dumps(body | {"options": {"unknownRules": "IGNORE"}}), "shoot")
    assert len(job.ignored) == 150
    assert compute.job_size(job) > 512
    assert len(compute._PREPARED) == 0


def test_a_jobs_size_bound_is_never_under_what_it_holds():
    """`job_size` sizes a job from its key (`KEY_BYTES`, `JOB_BYTES`) instead of walking it:
    over every spec example and random shoots and fights it is at least the walked size."""
    import json
    import random
    import sys
    from pathlib import Path

    from service.cache import footprint

    rng = random.Random(11)
    envelopes: list[dict] = [
        example["scenario"]
        for path in sorted((Path(__file__).parent / "spec").glob("*-examples.json"))
        for example in json.loads(path.read_text())
        if isinstance(example, dict) and "scenario" in example
    ]
    for _ in range(300):
        envelopes.append({"mode": "shoot",
                          "attacker": {"attacks": rng.randint(1, 8), "piercing": rng.randint(0, 2),
                                       "weaponRules": rng.choice(["", "Lethal 5+, Rending"])},
                          "defender": {"wounds": rng.randint(1, 30), "coverSaves": rng.randint(0, 1)},
                          "options": {"exact": rng.random() < 0.5, "rounds": rng.randint(1, 4)}})  # fmt: skip
        envelopes.append({"mode": "fight", "fighterA": {"attacks": rng.randint(1, 6)},
                          "fighterB": {"wounds": rng.randint(5, 20)}})  # fmt: skip
    checked = 0
    for envelope in envelopes:
        try:
            job = compute.prepare(envelope)
        except InputError:  # an example of a refusal
            continue
        walked = footprint((job.scenario, job.key, job.ignored)) + sys.getsizeof(job)
        assert walked <= compute.job_size(job), envelope
        checked += 1
    assert checked > 600
