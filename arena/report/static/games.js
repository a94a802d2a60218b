// The game list of `arena report`: rows from data/games.js (which calls arenaGames), filterable by
// entrant (?entrant=NAME preselects one), shown a page at a time so 10,000 games stay quick.
// With an entrant chosen, the list sorts by its place or score in each game (?sort=place-worst,
// place-best, score-low or score-high): its losses first, to find what went wrong.
"use strict";
(function () {
  const PAGE = 200;
  const ORDINAL = (n) => n + (n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12
    ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th");

  function text(tag, content, cls) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (cls) node.className = cls;
    return node;
  }

  window.arenaGames = function (data) {
    const select = document.getElementById("entrant");
    const sort = document.getElementById("sort");
    const body = document.querySelector("#games tbody");
    const count = document.getElementById("count");
    const pageLabel = document.getElementById("page");
    let page = 0;
    data.entrants.forEach((name, index) => {
      const option = text("option", name);
      option.value = String(index);
      select.appendChild(option);
    });
    const wanted = new URLSearchParams(location.search).get("entrant");
    if (wanted !== null && data.entrants.includes(wanted)) {
      select.value = String(data.entrants.indexOf(wanted));
    }
    const wantedSort = new URLSearchParams(location.search).get("sort");
    if ([...sort.options].some((option) => option.value === wantedSort)) sort.value = wantedSort;

    function chosen() {
      sort.disabled = select.value === "";
      if (select.value === "") return data.games;
      const who = Number(select.value);
      const games = data.games.filter((game) => game[2].includes(who));
      if (sort.value === "played") return games;
      // The entrant's place or score in a game: at its first seat (a bot that played itself sat more).
      const field = sort.value.startsWith("place") ? 4 : 3;
      const value = (game) => game[field][game[2].indexOf(who)];
      const sign = sort.value === "place-worst" || sort.value === "score-high" ? -1 : 1;
      // Stable: games with equal values stay in the order they were played.
      return games.map((game, i) => [value(game), i, game])
        .sort((a, b) => sign * (a[0] - b[0]) || a[1] - b[1]).map((entry) => entry[2]);
    }

    function show() {
      const games = chosen();
      const pages = Math.max(1, Math.ceil(games.length / PAGE));
      page = Math.min(page, pages - 1);
      body.replaceChildren();
      for (const [key, id, entrants, scores, ranks, faults] of games.slice(page * PAGE, (page + 1) * PAGE)) {
        const row = document.createElement("tr");
        const link = text("a", id);
        link.href = "replay.html?game=" + encodeURIComponent(key);
        const cell = document.createElement("td");
        cell.appendChild(link);
        row.appendChild(cell);
        const who = document.createElement("td");
        entrants.forEach((entrant, i) => {
          const name = text("a", data.entrants[entrant]);
          name.href = data.pages[entrant];
          who.appendChild(name);
          who.appendChild(document.createTextNode(" (" + ORDINAL(ranks[i]) + ", " + scores[i] + ")"
            + (i + 1 < entrants.length ? ", " : "")));
        });
        row.appendChild(who);
        row.appendChild(text("td", faults ? String(faults) : "", faults ? "num fault" : "num"));
        body.appendChild(row);
      }
      count.textContent = games.length + " of " + data.games.length + " games";
      pageLabel.textContent = "page " + (page + 1) + " of " + pages;
      document.getElementById("prev").disabled = page === 0;
      document.getElementById("next").disabled = page >= pages - 1;
    }

    select.addEventListener("change", () => { page = 0; show(); });
    sort.addEventListener("change", () => { page = 0; show(); });
    document.getElementById("prev").addEventListener("click", () => { page -= 1; show(); });
    document.getElementById("next").addEventListener("click", () => { page += 1; show(); });
    show();
  };
})();
