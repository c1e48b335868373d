"""The room store a server's configuration names: rooms in the process's memory
(``svmviz_app.rooms.InMemoryRoomStore``) or in Redis (``svmviz_app.rooms_redis.RedisRoomStore``),
and the seat limits it sets. A module apart from both, so that the in-memory backend, whose
definitions the Redis one imports, does not import the Redis one back."""

from __future__ import annotations

from svmviz_app.rooms import ADDRESS_SEATS, MAX_STUDENTS, InMemoryRoomStore, RoomStore


def _count(value: str, default: int, setting: str, example: str) -> int:
    try:
        n = int(value) if value else default
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{setting}={value[:20]!r}: give a number, e.g. {example}")
    return n


def open_store(url: str, seats: str = "", per_address: str = "") -> RoomStore:
    """The room store a server's configuration names (``SVMVIZ_ROOMS``): empty for rooms in this
    process's memory, ``redis://host:port/db`` (``rediss://``, ``unix://``) for rooms in Redis;
    ``seats`` (``SVMVIZ_ROOM_SEATS``): the students a room admits, ``MAX_STUDENTS`` when empty
    (a hall served by several processes admits more); ``per_address``
    (``SVMVIZ_ADDRESS_SEATS``): the seats one network address holds in a room and the devices it
    joins a minute, ``ADDRESS_SEATS`` when empty (students behind one router share an address)."""
    limits = {"max_students": _count(seats, MAX_STUDENTS, "SVMVIZ_ROOM_SEATS", "300")}
    limits["address_seats"] = limits["address_joins"] = _count(per_address, ADDRESS_SEATS, "SVMVIZ_ADDRESS_SEATS", "40")
    if not url:
        return InMemoryRoomStore(**limits)
    if url.split("://", 1)[0] in ("redis", "rediss", "unix"):
        from svmviz_app.rooms_redis import RedisRoomStore   # Redis's client loads only for a server that uses it

        return RedisRoomStore(url, **limits)
    raise ValueError(f"SVMVIZ_ROOMS={url[:80]!r} names no room store: leave it empty (rooms in the server's "
                     "memory) or give a Redis URL, redis://host:6379/0")
