"""The one status line of long work (``arena.statusline``)."""

from __future__ import annotations

from arena.statusline import HEARTBEAT, StatusLine


def test_progress_to_a_file_never_falls_silent_while_work_moves(tmp_path) -> None:
    """A line per tenth of the work, and one more whenever the last is HEARTBEAT seconds old:
    a league run's tenth can be an hour (issue 33: one line in 60 s)."""
    path = tmp_path / "progress.log"
    with path.open("w") as stream:
        line = StatusLine(stream)
        line.draw(lambda: "1 of 1000", 1, 1000)  # the first tenth's line
        line.draw(lambda: "2 of 1000", 2, 1000)  # same tenth, just now: nothing
        line.last_draw -= HEARTBEAT  # as if the last line were that old
        line.draw(lambda: "3 of 1000", 3, 1000)
        line.draw(lambda: "4 of 1000", 4, 1000)
    assert path.read_text().splitlines() == ["1 of 1000", "3 of 1000"]
