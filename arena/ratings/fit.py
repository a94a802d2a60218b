"""Bradley-Terry fits of win matrices, alone or in batches: the Newton iteration, the weak prior,
whether a finite fit exists (the graph of who scored against whom), and the Elo scale.

``wins[i, j]`` holds the points entrant i scored against j. ``arena.ratings.model`` turns results
into such matrices and a table; ``arena.ratings.bootstrap`` fits them again for every resample.
"""

from __future__ import annotations

import math

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo = ELO_PER_NAT * theta; P(i beats j) = 1/(1+e^(tj-ti))

def with_prior(wins: np.ndarray, prior: float) -> np.ndarray:
    """``wins`` (one matrix, or a batch) with ``prior`` virtual draws added between every two
    entrants that were compared (``prior / 2`` points each way)."""
    if not prior:
        return wins
    met = (wins + np.swapaxes(wins, -1, -2)) > 0
    padded: np.ndarray = wins + (prior / 2.0) * met
    return padded



def fit_elo(wins: np.ndarray) -> np.ndarray:
    """Maximum-likelihood Elo ratings (mean 0) from `wins[i, j]`, the points i scored against j.

    ValueError when no finite maximum exists: some group of entrants never scored against the rest.
    """
    wins = np.asarray(wins, dtype=np.float64)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or (wins < 0).any():
        raise ValueError("wins must be a square matrix of non-negative points")
    if len(wins) > 1 and not strongly_connected(wins[None] > 0)[0]:
        raise ValueError("no finite ratings: some entrants never scored against the others")
    theta: np.ndarray = newton(wins[None], np.zeros((1, len(wins))))[0]
    return theta * ELO_PER_NAT



def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    result: np.ndarray = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return result


def _log_likelihood(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    diff = theta[:, :, None] - theta[:, None, :]
    likelihood: np.ndarray = -(wins * np.logaddexp(0.0, -diff)).sum(axis=(1, 2))
    return likelihood


def newton(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Maximum-likelihood logits (mean 0) for a batch of strongly connected win matrices.

    Newton's method on the concave log-likelihood, halving a step that would lower it; the
    Hessian is a weighted graph Laplacian, made invertible by adding the all-ones direction
    (the gradient is orthogonal to it, so the step keeps the mean).
    """
    batch, k = theta.shape
    counts = wins + wins.transpose(0, 2, 1)
    scored = wins.sum(axis=2)
    gauge = np.full((k, k), 1.0 / k)
    theta = theta - theta.mean(axis=1, keepdims=True)
    likelihood = _log_likelihood(wins, theta)
    for _ in range(200):
        p = _sigmoid(theta[:, :, None] - theta[:, None, :])
        gradient = scored - (counts * p).sum(axis=2)
        weight = counts * p * (1.0 - p)
        hessian = -weight
        hessian[:, np.arange(k), np.arange(k)] += weight.sum(axis=2)
        step = np.linalg.solve(hessian + gauge, gradient[:, :, None])[:, :, 0]
        size = np.ones(batch)
        for _ in range(60):
            trial = theta + size[:, None] * step
            trial_likelihood = _log_likelihood(wins, trial)
            worse = trial_likelihood < likelihood - 1e-12 * (1.0 + np.abs(likelihood))
            if not worse.any():
                break
            size[worse] /= 2.0
        theta, likelihood = trial, trial_likelihood
        if np.abs(size[:, None] * step).max() < 1e-11:
            break
    centred: np.ndarray = theta - theta.mean(axis=1, keepdims=True)
    return centred


def strongly_connected(edges: np.ndarray) -> np.ndarray:
    """For a batch of directed graphs (B, k, k): whether each is strongly connected."""
    batch, k = edges.shape[:2]
    result = np.ones(batch, dtype=bool)
    graph = edges.astype(np.float32)
    for direction in (graph, graph.transpose(0, 2, 1)):
        reach = np.zeros((batch, 1, k), dtype=np.float32)
        reach[:, 0, 0] = 1.0
        for _ in range(k):
            wider = np.minimum(reach + reach @ direction, 1.0)
            if (wider == reach).all():
                break
            reach = wider
        result &= (reach[:, 0, :] > 0).all(axis=1)
    return result


def centred(elo: np.ndarray, anchor: int | None, level: float) -> np.ndarray:
    """Ratings (last axis) on the table's scale: mean `level`, or `level` for entrant `anchor`."""
    base = elo.mean(axis=-1, keepdims=True) if anchor is None else elo[..., anchor:anchor + 1]
    centred: np.ndarray = level + (elo - base)  # the anchor's exactly `level`
    return centred


def closure(edges: np.ndarray) -> np.ndarray:
    """reach[i, j]: j can be reached from i along edges (every node reaches itself)."""
    reach = edges | np.eye(len(edges), dtype=bool)
    while True:
        step = reach.astype(np.float32)
        wider = (step @ step) > 0
        if (wider == reach).all():
            return reach
        reach = wider
