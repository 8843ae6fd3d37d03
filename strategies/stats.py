"""Render stats (docs/model.md, Stats): what each bucket was charged, and the totals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from reference.numerics import Number

RawBucketName = Literal["head", "tail", "middle_raw", "combined"]
LevelBucketName = Literal["l1", "l2", "l3"]


@dataclass(frozen=True)
class RawBucket:
    messages: int = 0
    tokens: Number = 0


@dataclass(frozen=True)
class LevelBucket:
    count: int = 0
    tokens: Number = 0


@dataclass(frozen=True)
class Total:
    messages: int = 0
    tokens: Number = 0


@dataclass(frozen=True)
class Charge:
    """One line of the stats: ``messages`` sent and ``tokens`` charged to a bucket, ``count`` pairs."""

    bucket: RawBucketName | LevelBucketName
    tokens: Number
    messages: int = 0
    count: int = 0


@dataclass(frozen=True)
class RenderStats:
    head: RawBucket = field(default_factory=RawBucket)
    tail: RawBucket = field(default_factory=RawBucket)
    middle_raw: RawBucket = field(default_factory=RawBucket)
    combined: RawBucket = field(default_factory=RawBucket)
    l1: LevelBucket = field(default_factory=LevelBucket)
    l2: LevelBucket = field(default_factory=LevelBucket)
    l3: LevelBucket = field(default_factory=LevelBucket)
    total: Total = field(default_factory=Total)


def level_bucket(level: int) -> LevelBucketName:
    """Level 3 and deeper count in ``l3``."""
    return "l1" if level <= 1 else "l2" if level == 2 else "l3"


def render_stats(charges: Iterable[Charge]) -> RenderStats:
    """Fold the charges into buckets; the total is the sum of the buckets."""
    counts: dict[str, int] = defaultdict(int)
    messages: dict[str, int] = defaultdict(int)
    tokens: dict[str, Number] = defaultdict(int)
    for c in charges:
        counts[c.bucket] += c.count
        messages[c.bucket] += c.messages
        tokens[c.bucket] += c.tokens
    raw = {b: RawBucket(messages[b], tokens[b]) for b in ("head", "tail", "middle_raw", "combined")}
    levels = {b: LevelBucket(counts[b], tokens[b]) for b in ("l1", "l2", "l3")}
    total = Total(sum(messages.values()), sum(tokens.values(), 0))
    return RenderStats(**raw, **levels, total=total)
