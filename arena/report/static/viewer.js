// The replay viewer of `arena report`: replay.html?game=KEY loads games/KEY.js (a <script>, since
// fetch() of local files fails from file://), which calls arenaGame(record) with the game record.
// Served by `arena league serve`, the page's #replay names its JSON instead (data-json), fetched
// as {record, seed, said}: the same arguments, never served as a script.
// Deal by deal, decision by decision: buttons and the arrow keys (left/right: one decision,
// up/down: one deal); every hand face up, or one seat's view (its own hand only).
// ?deal=N&step=K opens deal N at its decision K (0: as dealt); the "link" beside the stepper is
// that address for the decision shown. Decisions are numbered within their deal everywhere here:
// the stepper, the list and the faults. (?decision=K, a game-wide number as in the records, still
// opens the decision it names.) Decisions analysed by `arena analyse` (the third argument of
// arenaGame) carry a mark in the list (?! inaccuracy, ? mistake, ?? blunder) and, for the latest
// decision shown, every legal action's expected score with the chosen and the best marked.
// What each bot wrote to stderr while deciding (the fourth argument: {decisions: [[game-wide
// decision, seat, text], ...], note}) shows under that decision in the list, as text (never
// markup), open for the latest decision; in one seat's view, only that seat's.
"use strict";
(function () {
  const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const params = new URLSearchParams(location.search);
  const root = document.getElementById("replay");
  // A served page (arena league serve) names its game, and the JSON to fetch, on the element.
  const key = params.get("game") || root.dataset.game || "";
  const status = document.getElementById("status");

  if (!/^[A-Za-z0-9_.~-]+$/.test(key)) {
    status.textContent = "No game given: open a game from the game list (replay.html?game=ID).";
    return;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "class") node.className = value;
      else if (name.startsWith("data-")) node.setAttribute(name, value);
      else node[name] = value;
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function card(name) {
    const suit = name[1];
    const red = suit === "H" || suit === "D";
    return el("span", { class: "card" + (red ? " red" : ""), "data-card": name, title: name },
      (name[0] === "T" ? "10" : name[0]) + SUIT[suit]);
  }

  function ms(value) {
    return value === null || value === undefined ? "" : value.toFixed(1) + " ms";
  }

  function prepare(record) {
    const players = record.names.length;
    let before = 0;
    return record.deals.map((deal) => {
      const auction = deal.bids || deal.calls || [];
      const auctionMs = deal.bid_ms || deal.call_ms || [];
      const plays = deal.plays;
      const winners = [];
      const counted = new Array(players).fill(0);
      for (let t = 0; (t + 1) * players <= plays.length; t++) {
        const next = plays[(t + 1) * players];
        let winner;
        if (next) winner = next[0]; // the winner of a trick leads the next one
        else winner = deal.tricks.findIndex((taken, seat) => taken > counted[seat]);
        winners.push(winner);
        counted[winner] += 1;
      }
      const prepared = { deal, auction, auctionMs, plays, playMs: deal.play_ms || [], winners,
        first: before + 1, steps: auction.length + plays.length };
      before += prepared.steps;
      return prepared;
    });
  }

  const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };

  function start(record, analysed, said) {
    const deals = prepare(record);
    const stderrAt = new Map();
    for (const [decision, seat, text] of (said && said.decisions) || []) {
      if (!stderrAt.has(decision)) stderrAt.set(decision, []);
      stderrAt.get(decision).push([seat, text]);
    }
    const analysisAt = new Map((analysed || []).map((a) => [a.decision, a]));
    const players = record.names.length;
    const teams = record.teams || null;
    const isBlackout = deals.length > 0 && deals[0].deal.bids !== undefined;
    const faultsAt = new Map();
    for (const fault of record.faults || []) {
      if (!faultsAt.has(fault.decision)) faultsAt.set(fault.decision, []);
      faultsAt.get(fault.decision).push(fault);
    }
    let d = 0;
    let s = 0;
    let view = "all";
    const wantedDeal = Number(params.get("deal"));
    const wanted = deals.findIndex((x) => x.deal.deal === wantedDeal);
    if (wanted >= 0) {
      d = wanted;
      const step = Number(params.get("step"));
      const decision = Number(params.get("decision"));
      if (params.has("step") && step >= 0) s = Math.min(deals[d].steps, Math.floor(step));
      else if (decision >= deals[d].first) s = Math.min(deals[d].steps, decision - deals[d].first + 1);
    }
    function stepOf(fault) { // a fault's game-wide decision as [deal index, decision in that deal]
      const at = deals.findIndex((x) => x.deal.deal === fault.deal);
      return at < 0 ? [-1, 0] : [at, Math.max(0, Math.min(deals[at].steps, fault.decision - deals[at].first + 1))];
    }
    function address(dealNumber, step) {
      return "replay.html?game=" + encodeURIComponent(key) + "&deal=" + dealNumber + "&step=" + step;
    }

    const viewSelect = el("select", { id: "view" }, el("option", { value: "all" }, "all hands"));
    record.names.forEach((name, seat) => viewSelect.appendChild(
      el("option", { value: String(seat) }, "seat " + seat + " (" + name + ") only")));
    const controls = el("div", { class: "controls" },
      el("button", { id: "prev-deal", title: "previous deal (↑)" }, "« deal"),
      el("button", { id: "prev", title: "back one decision (←)" }, "◀"),
      el("span", { id: "position" }),
      el("button", { id: "next", title: "forward one decision (→)" }, "▶"),
      el("button", { id: "next-deal", title: "next deal (↓)" }, "deal »"),
      el("a", { id: "permalink", title: "a link to this deal and decision" }, "link"),
      el("label", {}, "view ", viewSelect));
    const header = el("div", { id: "deal-info", class: "deal-info" });
    const table = el("div", { id: "table", class: "table-seats" });
    const trick = el("div", { id: "trick", class: "trick" });
    const log = el("ol", { id: "log", class: "log" });
    const scores = el("div", { id: "scores", class: "scroll" });
    const faults = el("div", { id: "faults" });
    const analysis = el("div", { id: "analysis", class: "analysis" });
    const title = el("p", { class: "note" }, "Game " + record.id + " · " + record.game + " · "
      + players + " seats · seed " + record.seed);
    const stderrNote = said && said.note ? el("p", { id: "stderr-note", class: "note" }, said.note) : null;
    root.replaceChildren(title, controls, header, table, trick,
      el("div", { class: "columns" }, el("section", {}, el("h2", {}, "This deal"), log, stderrNote),
        el("section", {}, el("h2", {}, "Scores"), scores)), analysis, faults);

    function move(step) {
      s += step;
      if (s < 0) {
        if (d > 0) { d -= 1; s = deals[d].steps; } else s = 0;
      } else if (s > deals[d].steps) {
        if (d + 1 < deals.length) { d += 1; s = 0; } else s = deals[d].steps;
      }
      render();
    }
    function moveDeal(step) {
      d = Math.max(0, Math.min(deals.length - 1, d + step));
      s = 0;
      render();
    }
    document.getElementById("prev").addEventListener("click", () => move(-1));
    document.getElementById("next").addEventListener("click", () => move(1));
    document.getElementById("prev-deal").addEventListener("click", () => moveDeal(-1));
    document.getElementById("next-deal").addEventListener("click", () => moveDeal(1));
    viewSelect.addEventListener("change", () => { view = viewSelect.value; render(); });
    document.addEventListener("keydown", (event) => {
      if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
      const actions = { ArrowRight: () => move(1), ArrowLeft: () => move(-1),
        ArrowDown: () => moveDeal(1), ArrowUp: () => moveDeal(-1) };
      if (actions[event.key]) { event.preventDefault(); actions[event.key](); }
    });

    // Trick boundaries in the move list: a trick's first card opens it ("trick 3 · "), its last
    // says who won it. ``play``: the item's card among the deal's plays (-1: an auction item).
    function markTrick(item, play, p) {
      if (play < 0) return;
      if (play % players === 0) {
        item.classList.add("trick-start");
        item.insertBefore(el("span", { class: "trick-label" }, "trick " + (play / players + 1) + " · "),
          item.firstChild);
      }
      if (play % players === players - 1) {
        const trickNumber = (play + 1) / players;
        const winner = p.winners[trickNumber - 1];
        const team = teams ? teams.findIndex((t) => t.includes(winner)) : -1;
        item.insertBefore(el("span", { class: "trick-won", "data-winner": String(winner) },
          " → trick " + trickNumber + " to seat " + winner + (team >= 0 ? " (team " + team + ")" : "")),
          item.querySelector(".ms").nextSibling);
      }
    }

    function render() {
      if (deals.length === 0) {
        header.textContent = "This game has no finished deal.";
        return;
      }
      const p = deals[d];
      const deal = p.deal;
      const auctionDone = Math.min(s, p.auction.length);
      const played = Math.max(0, s - p.auction.length);
      const over = s === p.steps;
      root.dataset.deal = String(deal.deal);
      root.dataset.step = String(s);
      root.dataset.steps = String(p.steps);
      root.dataset.view = view;
      document.getElementById("position").textContent = "deal " + deal.deal + "/" + deals.length
        + " · " + (s === 0 ? "dealt" : "decision " + s + "/" + p.steps + (over ? ", deal over" : ""));
      document.getElementById("permalink").href = address(deal.deal, s);
      document.getElementById("prev").disabled = d === 0 && s === 0;
      document.getElementById("next").disabled = d === deals.length - 1 && over;

      const won = new Array(players).fill(0);
      const complete = Math.floor(played / players);
      for (let t = 0; t < complete; t++) won[p.winners[t]] += 1;
      const info = [el("span", {}, "dealer: seat " + deal.dealer + " (" + record.names[deal.dealer] + ")")];
      if (deal.hand_size !== undefined) info.push(el("span", {}, deal.hand_size + " cards each"));
      info.push(el("span", { id: "turned" }, "turned: ", deal.trump_card ? card(deal.trump_card) : "none"));
      info.push(el("span", { id: "trump" }, "trump: " + (deal.trump ? SUIT[deal.trump] + " " + deal.trump : "none")));
      if (deal.contract !== undefined && (auctionDone === p.auction.length)) {
        const c = deal.contract;
        info.push(el("span", { id: "contract" }, c === null ? "void deal: every seat passed"
          : "contract: team " + c.team + " " + (c.kind === "zero" ? "zero" : c.tricks + " tricks")));
      }
      if (teams) {
        // Partnership: the tricks each team has taken so far, team 0 first (as the contract names it).
        const taken = teams.map((members) => members.reduce((sum, seat) => sum + won[seat], 0));
        info.push(el("span", { id: "team-tricks" }, "tricks: " + teams.map((members, team) => "team " + team
          + (record.result ? " " + record.result.entrants[team] : "") + " (seats " + members.join(" and ")
          + ") " + taken[team]).join(" · ")));
      }
      header.replaceChildren(...info);

      const bySeat = new Array(players).fill(null);
      p.auction.slice(0, auctionDone).forEach(([seat, value], i) => { bySeat[seat] = [value, p.auctionMs[i]]; });
      const playedCards = new Set(p.plays.slice(0, played).map(([, name]) => name));
      const next = over ? null : s < p.auction.length ? p.auction[s][0] : p.plays[played][0];

      const seats = record.names.map((name, seat) => {
        const hand = deal.hands[seat].filter((c) => !playedCards.has(c));
        const visible = view === "all" || Number(view) === seat;
        const handNode = el("div", { class: "hand" });
        if (visible) hand.forEach((c) => handNode.appendChild(card(c)));
        else {
          hand.forEach(() => handNode.appendChild(el("span", { class: "card back" })));
        }
        const said = bySeat[seat];
        const team = teams ? teams.findIndex((t) => t.includes(seat)) : -1;
        return el("div", { class: "seat" + (seat === next ? " to-act" : "") + (visible ? "" : " hidden-hand"),
          "data-seat": String(seat) },
          el("div", { class: "seat-name" }, "seat " + seat + " · " + name
            + (team >= 0 ? " · team " + team : "") + (seat === deal.dealer ? " · dealer" : "")),
          el("div", { class: "seat-stats" },
            el("span", { class: "said" }, (isBlackout ? "bid " : "call ") + (said ? said[0] : "–")),
            el("span", { class: "tricks", "data-tricks": String(won[seat]) }, "tricks " + won[seat]),
            over && isBlackout ? el("span", { class: "deal-score", "data-score": String(deal.scores[seat]) },
              (deal.scores[seat] >= 0 ? "+" : "") + deal.scores[seat]) : null),
          handNode);
      });
      table.replaceChildren(...seats);

      trick.replaceChildren();
      if (played > 0) {
        const startAt = played % players === 0 ? played - players : played - (played % players);
        const cards = p.plays.slice(startAt, played);
        const finished = cards.length === players;
        trick.appendChild(el("div", { class: "note" }, "trick " + (Math.floor(startAt / players) + 1)
          + (finished ? ": won by seat " + p.winners[startAt / players] : "")));
        const row = el("div", { class: "trick-cards" });
        cards.forEach(([seat, name], i) => row.appendChild(el("div",
          { class: "played" + (finished && seat === p.winners[startAt / players] ? " winner" : "") },
          card(name), el("div", { class: "note" }, "seat " + seat + " " + ms(p.playMs[startAt + i])))));
        trick.appendChild(row);
      } else {
        trick.appendChild(el("div", { class: "note" }, s === 0 ? "The cards are dealt." : "Bidding."));
      }

      log.replaceChildren();
      for (let i = 0; i < s; i++) {
        const number = p.first + i; // game-wide, as faults record it; the list shows i + 1
        const auction = i < p.auction.length;
        const [seat, value] = auction ? p.auction[i] : p.plays[i - p.auction.length];
        const time = auction ? p.auctionMs[i] : p.playMs[i - p.auction.length];
        const item = el("li", { class: i === s - 1 ? "last" : "", value: i + 1 },
          "seat " + seat + " (" + record.names[seat] + ") " + (auction ? (isBlackout ? "bids " : "calls ") : "plays "),
          auction ? String(value) : card(value),
          el("span", { class: "ms" }, time === null && (p.auctionMs.length || p.playMs.length) ? " fallback" : " " + ms(time)));
        const judged = analysisAt.get(number);
        if (judged && judged.mark) {
          item.appendChild(el("span", { class: "mark mark-" + judged.mark, title: judged.mark
            + ": expected loss " + judged.loss.toFixed(1) + " points (best " + judged.best + ")" },
            " " + MARK[judged.mark]));
        }
        for (const fault of faultsAt.get(number) || []) {
          item.appendChild(el("div", { class: "fault" }, "fault: " + fault.kind + ": " + fault.detail));
          // What the bot last wrote to stderr, kept with the fault: beside the decision it faulted.
          if (fault.stderr_tail) {
            item.appendChild(el("div", { class: "note" }, "its stderr, the end:"));
            item.appendChild(el("pre", { class: "stderr" }, fault.stderr_tail));
          }
        }
        // What the bot wrote to stderr while deciding this move (its text, never markup).
        for (const [writer, text] of stderrAt.get(number) || []) {
          if (view !== "all" && Number(view) !== writer) continue;
          item.appendChild(el("details", { class: "decision-stderr", open: i === s - 1,
            "data-seat": String(writer), "data-decision": String(number) },
            el("summary", {}, "its stderr"), el("pre", { class: "stderr" }, text)));
        }
        markTrick(item, auction ? -1 : i - p.auction.length, p);
        log.appendChild(item);
      }
      log.scrollTop = log.scrollHeight; // the latest decision in view, without scrolling the page
      renderAnalysis(s > 0 ? analysisAt.get(p.first + s - 1) : undefined, s);

      const entrants = record.result ? record.result.entrants : record.scores.map((_, i) => "#" + i);
      const head = el("tr", {}, el("th", {}, "deal"), ...entrants.map((name) => el("th", {}, name)));
      const rows = [];
      const shown = over ? d + 1 : d;
      for (let i = 0; i < shown; i++) {
        const x = deals[i].deal;
        rows.push(el("tr", { class: i === d ? "current" : "" }, el("td", { class: "num" }, String(x.deal)),
          ...x.scores.map((score, j) => el("td", { class: "num" },
            (score >= 0 ? "+" : "") + score + " = " + x.totals[j]))));
      }
      if (over && d === deals.length - 1) {
        rows.push(el("tr", { class: "final" }, el("th", {}, "final"),
          ...record.scores.map((score, j) => el("th", { class: "num" }, score + " (place "
            + (record.result ? record.result.ranks[j] : record.places[j]) + ")"))));
      }
      scores.replaceChildren(el("table", { id: "score-table" }, el("thead", {}, head), el("tbody", {}, ...rows)));

      const gameFaults = record.faults || [];
      faults.replaceChildren();
      if (gameFaults.length) {
        faults.appendChild(el("h2", {}, "Faults"));
        const list = el("ul", {});
        for (const fault of gameFaults) {
          const here = fault.deal === deal.deal;
          const [target, step] = stepOf(fault);
          const link = el("a", { href: address(fault.deal, step) },
            "deal " + fault.deal + ", decision " + step);
          link.addEventListener("click", (event) => {
            event.preventDefault();
            if (target >= 0) {
              d = target;
              s = step;
              render();
            }
          });
          list.appendChild(el("li", { class: "fault" + (here ? " here" : "") }, "seat " + fault.seat + " ("
            + fault.bot + "): " + fault.kind + ", " + ms(fault.elapsed_ms) + " · ", link, " · " + fault.detail));
        }
        faults.appendChild(list);
      }
    }
    function renderAnalysis(judged, step) {
      analysis.replaceChildren();
      if (!analysisAt.size) return;
      analysis.appendChild(el("h2", {}, "Analysis"));
      if (!judged) {
        analysis.appendChild(el("p", { class: "note" }, step === 0 ? "Step to a decision of an analysed entrant."
          : "Decision " + step + " was not analysed (arena analyse --entrant NAME analyses one entrant's)."));
        return;
      }
      const who = "seat " + judged.seat + " (" + record.names[judged.seat] + ")";
      if (judged.best === null || judged.values.length < 2) {
        analysis.appendChild(el("p", { id: "analysis-summary" }, "Decision " + step + ", " + who + ": "
          + (judged.best === null ? "not analysed (no deal of the unseen cards fits the view)" : "forced, nothing to choose")));
        return;
      }
      analysis.appendChild(el("p", { id: "analysis-summary" }, "Decision " + step + ", " + who + " "
        + judged.kind + ": chose " + judged.chosen + ", best " + judged.best + "; expected loss "
        + judged.loss.toFixed(1) + " ± " + (2 * judged.stderr).toFixed(1) + " points"
        + (judged.mark ? " · " + judged.mark + " " + MARK[judged.mark] : "")));
      const rows = judged.values.map(([action, mean, stderr]) => {
        const tags = [];
        if (action === judged.chosen) tags.push("chosen");
        if (action === judged.best) tags.push("best");
        const label = judged.kind === "play" ? card(String(action)) : String(action);
        return el("tr", { class: tags.join(" "), "data-action": String(action) },
          el("td", {}, label), el("td", { class: "num" }, mean.toFixed(1)),
          el("td", { class: "num" }, "± " + (2 * stderr).toFixed(1)), el("td", {}, tags.join(", ")));
      });
      analysis.appendChild(el("div", { class: "scroll" }, el("table", { id: "analysis-values" },
        el("thead", {}, el("tr", {}, el("th", {}, "action"), el("th", {}, "expected score"),
          el("th", {}, "noise"), el("th", {}, ""))), el("tbody", {}, ...rows))));
      analysis.appendChild(el("p", { class: "note" }, "Expected score of the deal for the seat's "
        + (teams ? "team" : "entrant") + " after each legal action, on the same sampled deals of the cards it could "
        + "not see, played out greedily: the reference search's view, not an oracle (docs/analysis.md)."));
    }

    render();
  }

  function show(record, exactSeed, analysed, said) {
    try {
      if (exactSeed) record.seed = exactSeed;  // the number lost its low digits in JSON.parse
      start(record, analysed, said);
    } catch (error) {
      status.textContent = "Could not show this game: " + error;
      throw error;
    }
  }

  if (root.dataset.json) {
    // Served: the game is JSON that this page fetches (never a script, which a page of another
    // site could include with this browser's cookies and read by defining arenaGame).
    fetch(root.dataset.json, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => {
        if (!response.ok) throw new Error("the server answered " + response.status);
        return response.json();
      })
      .then((game) => show(game.record, game.seed, [], game.said),
        (error) => { status.textContent = "No replay for game " + key + ": " + error.message; });
    return;
  }
  window.arenaGame = show;
  const script = document.createElement("script");
  script.src = "games/" + encodeURIComponent(key) + ".js";
  script.onerror = () => { status.textContent = "No replay for game " + key + " (games/" + key + ".js is missing)."; };
  document.head.appendChild(script);
})();
