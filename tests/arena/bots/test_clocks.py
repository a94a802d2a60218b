"""The decision clocks, asked as the process layer asks them, at given times: each owns its
request's state, gives back what the arena stalled (wall), waits for what is left of an allowance
(cpu), and ends at the wall cap (fair, cpu) or the allowance (wall). The bots' own times are in
test_process.py, test_cputime.py and test_fair_clock.py, with real processes."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from arena.bots.clocks import (
    STALL,
    CpuClock,
    DecisionClock,
    FairClock,
    Meter,
    RequestState,
    WallClock,
    wall_cap,
)
from arena.values.faults import TimeLimit


@pytest.fixture
def meter() -> Iterator[Meter]:
    """The clocks' meter on this test's own process tree, its CPU counted from now."""
    shared = Meter()
    shared.open(os.getpid())
    shared.lap()
    yield shared
    shared.close()


def test_a_wall_clock_gives_back_what_the_arena_stalled(meter: Meter) -> None:
    clock = WallClock(meter)
    assert clock.state is RequestState.IDLE
    start = clock.begin(0.1, None)
    assert clock.state is RequestState.WAITING
    deadline = start + 0.1
    late = 0.5  # the arena woke up half a second after the deadline: it was not running
    assert clock.at_deadline(deadline + late, deadline) == pytest.approx(deadline + 2 * late)
    assert clock.state is RequestState.OVERTIME and meter.stalls == 1
    cpu, charged = clock.charge(0.7)
    assert charged == pytest.approx(0.7 - late) and cpu >= 0.0
    assert clock.state is RequestState.ANSWERED


def test_a_wall_clock_ends_at_its_allowance_and_says_so(meter: Meter) -> None:
    clock = WallClock(meter)
    start = clock.begin(0.1, None)
    now = start + 0.1 + STALL / 2  # on time: no stall to give back
    assert clock.at_deadline(now, start + 0.1) == now
    assert (clock.state, clock.limit, meter.stalls) == (RequestState.TIMED_OUT, TimeLimit.WALL, 0)
    timed_out = clock.timed_out(received=True)
    assert timed_out.limit is TimeLimit.WALL
    assert timed_out.detail.startswith("no reply within 100 ms, using ")


@pytest.mark.parametrize(("kind", "limit"), [(WallClock, TimeLimit.WALL),
                                             (FairClock, TimeLimit.WALL_CAP),
                                             (CpuClock, TimeLimit.WALL_CAP)])
def test_every_clock_ends_a_request_at_its_wall_cap(meter: Meter, kind: type[DecisionClock],
                                                    limit: TimeLimit) -> None:
    clock = kind(meter)
    start = clock.begin(10.0, 0.5)
    now = start + 0.6
    assert clock.at_deadline(now, now - 0.001) == now
    assert (clock.state, clock.limit) == (RequestState.TIMED_OUT, limit)
    assert clock.timed_out(received=True).limit is limit


def test_a_cpu_clock_waits_for_the_cpu_left_of_its_allowance(meter: Meter) -> None:
    clock = CpuClock(meter)
    start = clock.begin(10.0, 600.0)
    deadline = start + 10.0  # ten seconds of wall time, far less of this process's CPU
    later = clock.at_deadline(deadline, deadline)
    assert deadline + 9.0 < later <= deadline + 10.0
    assert clock.state is RequestState.OVERTIME
    cpu, charged = clock.charge(10.5)
    assert charged == cpu < 1.0


def test_the_default_wall_cap_is_ten_allowances_and_at_least_five_seconds() -> None:
    assert (wall_cap(0.1), wall_cap(1.0), wall_cap(3.0)) == (5.0, 10.0, 30.0)
