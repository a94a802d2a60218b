"""`greedy_bot.py --noise P`: a greedy bot that plays a random legal action with probability P."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bots" / "python" / "greedy_bot.py"
VIEW = {"game": "blackout", "players": 4, "seat": 0, "dealer": 3, "hand": ["2C", "3C", "AS"],
        "trump": "S", "trump_card": "5S", "hand_size": 3, "bids": [[0, 1]], "tricks_won": [0] * 4,
        "trick": [], "plays": []}


def actions(noise: str | None, seed: int, count: int = 60) -> list[str]:
    """The bot's leads for one position, asked ``count`` times after a game_start with ``seed``."""
    lines = [{"type": "game_start", "seed": seed}]
    lines += [{"type": "act", "id": i, "kind": "play", "legal": VIEW["hand"], "view": VIEW}
              for i in range(count)]
    argv = [sys.executable, str(BOT)] + ([] if noise is None else ["--noise", noise])
    done = subprocess.run(argv, input="".join(json.dumps(m) + "\n" for m in lines),
                          capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line)["action"] for line in done.stdout.splitlines()]


def test_without_noise_it_always_plays_its_greedy_choice() -> None:
    assert len(set(actions(None, seed=1))) == 1


def test_noise_plays_random_legal_cards_seeded_by_the_game() -> None:
    noisy = actions("0.5", seed=1)
    greedy = actions(None, seed=1)[0]
    assert set(noisy) == set(VIEW["hand"])  # every legal card turns up, and nothing else
    assert 10 < sum(card != greedy for card in noisy) < 50  # about 2/3 of half the decisions
    assert actions("0.5", seed=1) == noisy
    assert actions("0.5", seed=2) != noisy


def test_a_bad_noise_value_stops_the_bot_with_a_message() -> None:
    done = subprocess.run([sys.executable, str(BOT), "--noise", "2"], input="", capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode != 0 and "--noise" in done.stderr
