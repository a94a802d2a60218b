"""Seed derivation: every random stream of a game comes one-way from the game's seed."""

from __future__ import annotations

import hashlib


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed derived from ``seed`` and ``parts``; stable across runs and Python versions.

    One-way (BLAKE2b), so a bot given a seed derived for its seat learns nothing about the deal seeds.
    """
    text = ":".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1
