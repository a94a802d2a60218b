"""The report's pages in a real browser: headless Chromium (Debian's) driven by Selenium.

Pages are opened from disk (file://), as a user would. Each test checks that the page did what it
should and that the console has no errors. Skipped, with the reason, when Chromium, chromedriver
or selenium is missing (CI installs them when it runs as root).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from arena.report.site import write_report

from browser import chromium, console_errors, missing, page_wait
from helpers import result_lines

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing() is not None, reason=str(missing())),
              pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def site(blackout_results: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    write_report([blackout_results], out, resamples=50)
    return out


@pytest.fixture
def page(driver: Any) -> Iterator[Any]:
    """The driver; after the test, the console must have no errors."""
    console_errors(driver)
    yield driver
    assert console_errors(driver) == []


def open_replay(driver: Any, site: Path, query: str) -> None:
    driver.get(f"{site.as_uri()}/replay.html?{query}")
    page_wait(driver, lambda d: d.execute_script(
        "return document.getElementById('replay').dataset.step !== undefined"))


def state(driver: Any) -> dict[str, str]:
    return driver.execute_script("return Object.assign({}, document.getElementById('replay').dataset)")


def press(driver: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    ActionChains(driver).send_keys(key).perform()


def test_ranking_table_has_every_entrant(page, site, blackout_results):
    from selenium.webdriver.common.by import By
    page.get((site / "index.html").as_uri())
    rows = page.find_elements(By.CSS_SELECTOR, "#ranking tbody tr")
    names = {row.find_elements(By.TAG_NAME, "td")[1].text for row in rows}
    entrants = {e for r in result_lines(blackout_results) for e in r["result"]["entrants"]}
    assert names == entrants
    assert len(page.find_elements(By.CSS_SELECTOR, "svg.plot")) == 2
    assert len(page.find_elements(By.CSS_SELECTOR, ".heatmap tbody tr")) == len(entrants)


def test_viewer_steps_through_a_whole_deal_and_ends_as_the_record_says(page, site, blackout_results):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    record = result_lines(blackout_results)[0]
    open_replay(page, site, f"game={record['id']}")
    assert f"seed {record['seed']}" in page.find_element(By.TAG_NAME, "body").text  # all 64 bits
    for deal in record["deals"]:
        steps = len(deal["bids"]) + len(deal["plays"])
        assert state(page) == {"deal": str(deal["deal"]), "step": "0", "steps": str(steps),
                               "view": "all"}
        for step in range(1, steps + 1):
            if step % 2:
                press(page, Keys.ARROW_RIGHT)
            else:
                page.find_element(By.ID, "next").click()
            assert state(page)["step"] == str(step)
        tricks = [int(e.get_attribute("data-tricks"))
                  for e in page.find_elements(By.CSS_SELECTOR, ".seat .tricks")]
        assert tricks == deal["tricks"]
        scores = [int(e.get_attribute("data-score"))
                  for e in page.find_elements(By.CSS_SELECTOR, ".seat .deal-score")]
        assert scores == deal["scores"]
        last = page.find_elements(By.CSS_SELECTOR, "#score-table tbody tr.current td")
        assert [cell.text for cell in last[1:]] == [f"{'+' if s >= 0 else ''}{s} = {t}"
                                                    for s, t in zip(deal["scores"], deal["totals"],
                                                                    strict=True)]
        assert all(not e.find_elements(By.CSS_SELECTOR, ".card")
                   for e in page.find_elements(By.CSS_SELECTOR, ".seat .hand"))
        logged = page.find_elements(By.CSS_SELECTOR, "#log li")
        assert len(logged) == steps
        press(page, Keys.ARROW_RIGHT)  # on to the next deal (stays put after the last)
    final = page.find_element(By.CSS_SELECTOR, "#score-table tr.final").text
    assert all(str(score) in final for score in record["scores"])
    press(page, Keys.ARROW_LEFT)
    assert int(state(page)["step"]) == len(record["deals"][-1]["bids"]) + len(
        record["deals"][-1]["plays"]) - 1


def test_a_seat_view_shows_no_other_seats_cards(page, site, blackout_results):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    record = result_lines(blackout_results)[1]
    deal = record["deals"][-1]
    open_replay(page, site, f"game={record['id']}&deal={deal['deal']}")
    for seat in range(len(record["names"])):
        Select(page.find_element(By.ID, "view")).select_by_value(str(seat))
        assert state(page)["view"] == str(seat)
        in_hands = {e.get_attribute("data-card")
                    for e in page.find_elements(By.CSS_SELECTOR, "#table [data-card]")}
        assert in_hands == set(deal["hands"][seat])
        shown = {e.get_attribute("data-card") for e in page.find_elements(By.CSS_SELECTOR, "[data-card]")}
        assert shown == set(deal["hands"][seat]) | {deal["trump_card"]} - {None}
        backs = page.find_elements(By.CSS_SELECTOR, ".seat.hidden-hand .card.back")
        assert len(backs) == sum(len(h) for s, h in enumerate(deal["hands"]) if s != seat)
    page.find_element(By.TAG_NAME, "body").click()
    for _ in range(len(deal["bids"]) + 5):
        press(page, Keys.ARROW_RIGHT)
    played = {card for _, card in deal["plays"][:5]}
    shown = {e.get_attribute("data-card") for e in page.find_elements(By.CSS_SELECTOR, "[data-card]")}
    seat = len(record["names"]) - 1
    assert shown <= set(deal["hands"][seat]) | played | {deal["trump_card"]}


def test_fault_links_open_the_replay_where_the_fault_happened(page, site, blackout_results):
    from selenium.webdriver.common.by import By
    page.get((site / "index.html").as_uri())
    page.find_element(By.LINK_TEXT, "crasher").click()
    assert page.find_element(By.ID, "fault-kinds").text == "crash: 8"
    link = page.find_element(By.CSS_SELECTOR, "#faults tbody a")
    link.click()
    page_wait(page, lambda d: d.execute_script(
        "return document.getElementById('replay').dataset.step !== undefined"))
    assert page.find_element(By.CSS_SELECTOR, "#log li.last .fault").text.startswith("fault: crash")
    # the entrant page's decision is the viewer's: the fault sits at that decision of its deal
    step = int(state(page)["step"])
    assert int(page.find_element(By.CSS_SELECTOR, "#log li.last").get_attribute("value")) == step
    fault_line = page.find_element(By.CSS_SELECTOR, "#faults li.fault a").text
    assert fault_line == f"deal {state(page)['deal']}, decision {step}"


def test_a_fault_shows_the_bots_stderr_beside_its_decision_escaped(page, blackout_results,
                                                                  tmp_path):
    # What the bot said on stderr before it crashed was in the record, but not on the page.
    from selenium.webdriver.common.by import By
    lines = result_lines(blackout_results)
    record = next(r for r in lines if r["faults"])
    fault = record["faults"][0]
    assert "crash_mid_game: giving up on act" in fault["stderr_tail"]
    hostile = "<img src=x onerror=\"document.title='owned'\">\n\x1b[2Jstill text"
    fault["stderr_tail"] += hostile
    results = tmp_path / "results"
    results.mkdir()
    (results / "games.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in lines))
    write_report([results], tmp_path / "site", resamples=0)
    deal = next(d for d in record["deals"] if d["deal"] == fault["deal"])
    before = sum(len(d["bids"]) + len(d["plays"]) for d in record["deals"]
                 if d["deal"] < fault["deal"])
    step = fault["decision"] - before
    open_replay(page, tmp_path / "site", f"game={record['id']}&deal={deal['deal']}&step={step}")
    shown = page.find_element(By.CSS_SELECTOR, "#log li.last pre.stderr")
    assert shown.get_attribute("textContent") == fault["stderr_tail"]  # as text, not as markup
    assert not page.find_elements(By.CSS_SELECTOR, "#log img") and page.title != "owned"


def test_a_replay_opens_at_a_linked_deal_and_decision_numbered_alike_everywhere(
        page, site, blackout_results):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    record = result_lines(blackout_results)[0]
    deal = record["deals"][2]
    steps = len(deal["bids"]) + len(deal["plays"])
    open_replay(page, site, f"game={record['id']}&deal={deal['deal']}&step=5")
    assert state(page) == {"deal": str(deal["deal"]), "step": "5", "steps": str(steps),
                           "view": "all"}
    # the stepper, the list and the link count decisions within the deal, from 1
    assert page.find_element(By.ID, "position").text == \
        f"deal {deal['deal']}/{len(record['deals'])} · decision 5/{steps}"
    numbers = [int(li.get_attribute("value")) for li in page.find_elements(By.CSS_SELECTOR, "#log li")]
    assert numbers == [1, 2, 3, 4, 5]
    link = page.find_element(By.ID, "permalink").get_attribute("href")
    assert link.endswith(f"/replay.html?game={record['id']}&deal={deal['deal']}&step=5")
    page.find_element(By.TAG_NAME, "body").click()
    press(page, Keys.ARROW_RIGHT)
    assert page.find_element(By.ID, "permalink").get_attribute("href").endswith(
        f"&deal={deal['deal']}&step=6")
    page.get(link)  # the link opens where it was taken
    page_wait(page, lambda d: d.execute_script(
        "return document.getElementById('replay').dataset.step === '5'"))
    assert state(page)["deal"] == str(deal["deal"])


def test_the_index_names_the_tournament(page, site):
    from selenium.webdriver.common.by import By
    page.get((site / "index.html").as_uri())
    assert page.find_element(By.TAG_NAME, "h1").text == "Ranking: tournament report-test"
    assert page.title.startswith("Ranking: tournament report-test · tournament report-test: 8 games")


def test_game_list_filters_by_entrant(page, site, blackout_results):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    page.get((site / "games.html").as_uri())
    rows = page.find_elements(By.CSS_SELECTOR, "#games tbody tr")
    assert len(rows) == len(result_lines(blackout_results))
    Select(page.find_element(By.ID, "entrant")).select_by_visible_text("greedy")
    rows = page.find_elements(By.CSS_SELECTOR, "#games tbody tr")
    assert rows and all("greedy" in row.text for row in rows)
    rows[0].find_element(By.TAG_NAME, "a").click()
    page_wait(page, lambda d: d.execute_script(
        "return document.getElementById('replay').dataset.step === '0'"))


def test_game_list_sorts_an_entrants_games_by_its_place_or_score(page, site, blackout_results):
    # Finding a bot's losses meant paging through every game in the order they were played.
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    games = {r["id"]: r["result"] for r in result_lines(blackout_results)}

    def listed(entrant: str, field: str) -> list[float]:
        values = []
        for row in page.find_elements(By.CSS_SELECTOR, "#games tbody tr"):
            result = games[row.find_element(By.TAG_NAME, "a").text]
            values.append(result[field][result["entrants"].index(entrant)])
        return values

    page.get((site / "games.html").as_uri())
    assert not page.find_element(By.ID, "sort").is_enabled()  # by whose place? none chosen
    Select(page.find_element(By.ID, "entrant")).select_by_visible_text("greedy")
    Select(page.find_element(By.ID, "sort")).select_by_value("place-worst")
    places = listed("greedy", "ranks")
    assert places == sorted(places, reverse=True) and len(places) > 1
    page.get((site / "games.html").as_uri() + "?entrant=random-c&sort=score-low")
    scores = listed("random-c", "scores")
    assert scores == sorted(scores) and len(scores) > 1


def test_the_move_list_marks_each_trick_and_its_winner(page, site, blackout_results):
    from selenium.webdriver.common.by import By
    record = result_lines(blackout_results)[0]
    deal = record["deals"][-1]
    players = len(record["names"])
    steps = len(deal["bids"]) + len(deal["plays"])
    open_replay(page, site, f"game={record['id']}&deal={deal['deal']}&step={steps}")
    starts = page.find_elements(By.CSS_SELECTOR, "#log li.trick-start")
    assert [e.find_element(By.CSS_SELECTOR, ".trick-label").text for e in starts] == \
        [f"trick {t + 1} ·" for t in range(len(deal["plays"]) // players)]
    leaders = [int(e.text.split("seat ")[1].split(" ")[0]) for e in starts]
    assert leaders == [seat for seat, _ in deal["plays"][::players]]
    winners = [int(e.get_attribute("data-winner"))
               for e in page.find_elements(By.CSS_SELECTOR, "#log .trick-won")]
    assert winners[:-1] == leaders[1:]  # a trick's winner leads the next
    assert [winners.count(seat) for seat in range(players)] == deal["tricks"]


def test_partnership_replay_reaches_the_recorded_end(page, partnership_results, tmp_path):
    from selenium.webdriver.common.by import By
    write_report([partnership_results], tmp_path, resamples=0)
    record = result_lines(partnership_results)[0]
    open_replay(page, tmp_path, f"game={record['id']}")
    deal = record["deals"][0]
    for _ in range(len(deal["calls"]) + len(deal["plays"])):
        page.find_element(By.ID, "next").click()
    tricks = [int(e.get_attribute("data-tricks"))
              for e in page.find_elements(By.CSS_SELECTOR, ".seat .tricks")]
    assert tricks == deal["tricks"]
    assert page.find_element(By.ID, "contract").text.startswith(
        "void" if deal["contract"] is None else f"contract: team {deal['contract']['team']}")
    # Which team's tricks are which: named, team 0 first (the `tricks 5-8` column said neither).
    teams = record["teams"]
    taken = [sum(deal["tricks"][seat] for seat in members) for members in teams]
    entrants = record["result"]["entrants"]
    assert page.find_element(By.ID, "team-tricks").text == "tricks: " + " · ".join(
        f"team {t} {entrants[t]} (seats {' and '.join(map(str, teams[t]))}) {taken[t]}"
        for t in range(len(teams)))


def test_pages_fit_a_phone_screen(site, blackout_results):
    record = result_lines(blackout_results)[0]
    with chromium(390, 800, phone=True) as phone:
        for page in ("index.html", "entrant-1.html", "games.html",
                     f"replay.html?game={record['id']}&deal=3"):
            phone.get(f"{site.as_uri()}/{page}")
            width, page_width = phone.execute_script(
                "return [document.documentElement.clientWidth, document.documentElement.scrollWidth]")
            assert width == 390 and page_width <= width, page  # wide tables scroll in their box
        assert console_errors(phone) == []


def test_each_decision_shows_the_stderr_its_bot_wrote_then_as_text(page, tmp_path):
    # A bot's stderr while deciding was only in its log file: now under each of its decisions.
    import subprocess

    from selenium.webdriver.common.by import By
    root = Path(__file__).resolve().parents[3]
    says = f"{sys.executable} -S {root / 'tests' / 'bots' / 'says_each_decision.py'}"
    played = subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "play",
                             "blackout", f"a={says}", str(root / "bots" / "c" / "random_bot"),
                             f"b={says}", "-o", "deals=2", "--log", str(tmp_path / "g.json"),
                             "--stderr-dir", str(tmp_path / "logs")], capture_output=True,
                            text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    write_report([tmp_path / "g.json"], tmp_path / "site", resamples=0, logs=[tmp_path / "logs"])
    record = orjson.loads((tmp_path / "g.json").read_bytes())
    deal = record["deals"][1]
    steps = len(deal["bids"]) + len(deal["plays"])
    first = len(record["deals"][0]["bids"]) + len(record["deals"][0]["plays"])
    open_replay(page, tmp_path / "site", f"game=game&deal={deal['deal']}&step={steps}")
    boxes = page.find_elements(By.CSS_SELECTOR, "#log details.decision-stderr")
    seats = [seat for seat, _ in [*deal["bids"], *deal["plays"]]]
    assert [int(b.get_attribute("data-seat")) for b in boxes] == [s for s in seats if s != 1]
    assert [int(b.get_attribute("data-decision")) for b in boxes] == [
        first + i + 1 for i, s in enumerate(seats) if s != 1]
    for box in boxes:  # each the lines its act wrote, as text: no markup made of them
        text = box.find_element(By.CSS_SELECTOR, "pre.stderr").get_attribute("textContent")
        assert text.startswith(f"seat {box.get_attribute('data-seat')} act ")
        assert "<script>alert(" in text and "onerror=" in text
    assert not page.find_elements(By.CSS_SELECTOR, "#log img, #log script")
    assert page.title != "owned"
    # The latest decision's is open; in one seat's view, only that seat's stderr shows.
    last = page.find_element(By.CSS_SELECTOR, "#log li.last")
    opened = last.find_elements(By.CSS_SELECTOR, "details.decision-stderr")
    assert all(box.get_attribute("open") is not None for box in opened)
    from selenium.webdriver.support.ui import Select
    Select(page.find_element(By.ID, "view")).select_by_value("2")
    seats_shown = {b.get_attribute("data-seat")
                   for b in page.find_elements(By.CSS_SELECTOR, "#log details.decision-stderr")}
    assert seats_shown == {"2"}
