"""Hypothesis example databases named by a string: a folder (embedded) or ``redis://HOST:PORT[/DB]`` (shared).

The fuzzer's workers save what they find there and the ordinary test run replays it from there
(``--cm-database``), so a failure found by any worker, on any machine sharing the database, is red again in
``pytest``. A bad value raises ``DatabaseError`` with one line naming it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

#: The environment variable the plugin reads when ``--cm-database`` is not given (the fuzzer's workers set it).
DATABASE_ENV = "CMHARNESS_DATABASE"


class DatabaseError(ValueError):
    """A database value that names no usable database; the message is one line."""


def open_database(spec: str, *, connect: bool = True) -> ExampleDatabase:
    """The database ``spec`` names: ``redis://HOST:PORT[/DB]`` or a folder path (created when missing).

    ``connect`` pings a Redis server first, so an unreachable one is reported here, not by the first save.
    """
    spec = spec.strip()
    if not spec:
        raise DatabaseError("an empty database value: give a folder or redis://HOST:PORT")
    if "://" in spec:
        return _redis(spec, connect=connect)
    path = Path(spec)
    if path.exists() and not path.is_dir():
        raise DatabaseError(f"database {spec!r} is a file, not a folder")
    return DirectoryBasedExampleDatabase(path)


def _redis(spec: str, *, connect: bool) -> ExampleDatabase:
    parts = urlsplit(spec)
    if parts.scheme != "redis":
        raise DatabaseError(f"database {spec!r}: unknown scheme {parts.scheme!r} (a folder, or redis://HOST:PORT)")
    try:
        port = parts.port
    except ValueError:
        raise DatabaseError(f"database {spec!r}: the port is not a number from 0 to 65535") from None
    if not parts.hostname or port is None:
        raise DatabaseError(f"database {spec!r}: give both host and port, redis://HOST:PORT")
    number = parts.path.strip("/") or "0"
    if not number.isdigit() or parts.query or parts.fragment:
        raise DatabaseError(f"database {spec!r}: after the port only /DB (a number) may follow")
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise DatabaseError(
            f"database {spec!r}: the redis client is not installed (pip install 'hypothesis[redis]')"
        ) from None
    client = redis.Redis(host=parts.hostname, port=port, db=int(number), socket_connect_timeout=5)
    if connect:
        try:
            client.ping()
        except redis.RedisError as err:
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise DatabaseError(f"database {spec!r}: cannot reach the Redis server: {reason}") from None
    return RedisExampleDatabase(client)
