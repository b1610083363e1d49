from cache.lru import LRUCache


def test_put_get() -> None:
    cache = LRUCache(1)
    cache.put("a", 1)
    assert cache.get("a") == 1
