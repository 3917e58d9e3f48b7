"""service.cache.ByteLRU: the byte budget that GraphQL replies and rendered team matchups
share (keys and values both count; least recently used out first; an eighth at most)."""

from __future__ import annotations

from service.cache import ByteLRU


def test_pairs_count_key_and_value_and_the_least_recently_used_goes_first() -> None:
    lru = ByteLRU(800)  # pairs of at most 100 bytes are kept
    for key in (b"a", b"b", b"c"):
        lru.put(key, bytes(99))  # 100 bytes each
    assert lru.size == 300
    assert lru.get(b"a") == bytes(99)  # "a" is now the most recent
    for key in (b"d", b"e", b"f", b"g", b"h", b"i"):
        lru.put(key, bytes(99))
    assert lru.size == 800  # nine pairs of 100: one went, the least recently used
    assert lru.get(b"b") is None and lru.get(b"c") == bytes(99)
    lru.put(b"j", bytes(99))  # "c" was just read: "a" is now the oldest
    assert lru.get(b"a") is None
    assert lru.get(b"c") == bytes(99) and lru.get(b"d") == bytes(99)


def test_a_pair_above_an_eighth_is_not_kept_and_a_kept_key_is_not_replaced() -> None:
    lru = ByteLRU(800)
    lru.put("big", bytes(98))  # 101 bytes
    assert lru.get("big") is None and lru.size == 0
    lru.put("k", b"first")
    lru.put("k", b"other")
    assert lru.get("k") == b"first" and lru.size == len("k") + len(b"first")
