// bridgerl's web view: a board, the agents' auction and play step by step with explanations, or a seat at the table.
// Everything comes from the JSON API (docs/web.md); nothing is fetched from elsewhere.
"use strict";

const SEATS = ["N", "E", "S", "W"];
const NAMES = { N: "North", E: "East", S: "South", W: "West" };
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663", N: "NT" };
const RANKS = "AKQJT98765432";
const $ = (id) => document.getElementById(id);

let board = null;     // GET /api/boards/{index}
let game = null;      // GET /api/boards/{index}/play (review mode)
let step = 0;         // actions shown in review mode
let selected = null;  // the step whose explanation is shown
let table = null;     // a person's table (play mode)
let request = 0;      // the latest board request: answers to older ones are dropped
let busy = false;     // a person's move is on its way to the server
let boards = 0;       // boards the server has: its dataset's rows, then the boards pasted since it started
let flipTimer = null; // board flips wait a moment, so that a quick flip asks only for the board it stops on
let mode = "review";  // "review": the agents' table (or a pasted record); "seated": a person at the table
let pollTimer = null; // asking the server for the agents' moves while they think
const CLIENT = Math.random().toString(36).slice(2);  // this page, for the server's superseded-request check

// the seated boards not finished yet, by row: {row: {id, seats}} (kept across reloads of this tab)
const open = JSON.parse(sessionStorage.getItem("bridgerl-tables") || "{}");
function saveOpen() { sessionStorage.setItem("bridgerl-tables", JSON.stringify(open)); }

function escapeHtml(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]);
}

async function api(path, options) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {  // no answer at all: the server is gone
    throw new Error("the server stopped: start bridgerl serve again, then reload the page");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof body.detail === "string" ? body.detail : `${response.status} ${response.statusText}`;
    const error = new Error(detail);
    error.status = response.status;
    throw error;
  }
  return body;
}

function say(text, info = false) {
  $("message").textContent = text || "";
  $("message").className = info ? "info" : "";
}

function suitHtml(suit, text) {
  const cls = suit === "H" || suit === "D" ? "red" : "";
  return `<span class="${cls}">${SYMBOL[suit]}</span>`;
}

function callHtml(call) {
  const match = /^([1-7])(C|D|H|S|NT)$/.exec(call);
  if (!match) return call;
  const strain = match[2] === "NT" ? "NT" : suitHtml(match[2]);
  return match[1] + strain;
}

function cardHtml(card) { return suitHtml(card[0]) + card[1]; }

function contractHtml(contract) {
  const doubled = (contract.match(/X+$/) || [""])[0];
  return callHtml(contract.slice(0, contract.length - doubled.length)) + doubled;
}

function signed(n) { return (n > 0 ? "+" : "") + n; }

function bidButton(call, legal) {
  return `<button class="${legal.includes(call) ? "" : "illegal"}" data-call="${call}">${callHtml(call)}</button>`;
}

// PBN "N:AKQ.T98.. ..." -> {N: ["AKQ", "T98", ...], ...}
function parseDeal(pbn) {
  const [first, rest] = pbn.split(":");
  const hands = {};
  rest.trim().split(/\s+/).forEach((hand, i) => {
    hands[SEATS[(SEATS.indexOf(first) + i) % 4]] = hand.split(".");
  });
  return hands;
}

function vulnerable(seat, vul) {
  return vul === "both" || (vul === "NS" && "NS".includes(seat)) || (vul === "EW" && "EW".includes(seat));
}

// where each seat sits on the screen: the person's seat at the bottom (South when reviewing), the others clockwise
let bottom = "S";
function position(seat) {
  return ["bottom", "left", "top", "right"][(SEATS.indexOf(seat) - SEATS.indexOf(bottom) + 4) % 4];
}

function playedHtml(c) { return `<span class="played pos-${position(c.seat)}">${cardHtml(c.card)}</span>`; }

function renderHand(seat, suits, options = {}) {
  const div = $(`hand-${seat}`);
  const vul = board && vulnerable(seat, board.vulnerability);
  const label = NAMES[seat] + (board && board.dealer === seat ? " (dealer)" : "");
  let html = `<h3 class="${vul ? "vul" : ""}">${label}</h3>` +
    (options.who ? `<div class="who">${escapeHtml(options.who)}</div>` : "");  // in full: it wraps
  if (suits === null) {
    div.className = `hand hidden pos-${position(seat)}`;
    html += `<div class="backs" title="${options.count ?? 13} cards">` +
      `${'<span class="back"></span>'.repeat(options.count ?? 13)}</div>`;
  } else {
    div.className = `hand pos-${position(seat)}`;
    SUITS.forEach((suit, i) => {
      const ranks = suits[i] || "";
      const cards = ranks ? [...ranks].map((rank) => {
        const card = suit + rank;
        if (!options.clickable) return rank;
        const legal = options.legal && options.legal.includes(card);
        return `<button class="card ${legal ? "legal" : "illegal"}" data-card="${card}">${rank}</button>`;
      }).join(options.clickable ? "" : " ") : "\u2014";
      html += `<div class="suit">${suitHtml(suit)} ${cards}</div>`;
    });
  }
  div.innerHTML = html;
  div.querySelectorAll("button.card").forEach((b) => {
    b.addEventListener("click", (event) => humanMove("card", b.dataset.card, event));
  });
}

function renderAuction(calls, dealer, current, onClick) {
  const body = $("auction").querySelector("tbody");
  const order = ["W", "N", "E", "S"];
  const cells = calls.length ? Array(order.indexOf(dealer)).fill(null).concat(calls) : [];  // no empty first row
  let html = "";
  for (let row = 0; row < cells.length; row += 4) {
    html += "<tr>" + [0, 1, 2, 3].map((k) => {
      const i = row + k;
      const c = cells[i];
      if (!c) return "<td></td>";
      const position = i - order.indexOf(dealer);
      const cls = ["call", position === current ? "current" : "", position === selected ? "selected" : ""].join(" ");
      return `<td class="${cls}" data-position="${position}">${callHtml(c.call)}</td>`;
    }).join("") + "</tr>";
  }
  body.innerHTML = html;
  if (onClick) body.querySelectorAll("td.call").forEach((td) => td.addEventListener("click", () => {
    onClick(Number(td.dataset.position));
  }));
}

function renderDD() {
  const strains = ["C", "D", "H", "S", "N"];
  let html = "<b>Double dummy</b> (tricks for each declarer)<table class='small'><tr><th></th>" +
    strains.map((s) => `<th>${s === "N" ? "NT" : suitHtml(s)}</th>`).join("") + "</tr>";
  board.dd.forEach((row, seat) => {
    html += `<tr><th>${SEATS[seat]}</th>` + row.map((t) => `<td>${t}</td>`).join("") + "</tr>";
  });
  html += `</table><div>Par: NS ${board.par.score_ns} (${board.par.contracts.join(", ") || "passed out"})</div>`;
  $("ddpar").innerHTML = html;
}

// the agent acting now for a pair's game spec: its bidder during the auction, its card player during the play
function agentName(spec, playing) {
  const [bid, play] = spec.split(",play=");
  return playing ? `plays: ${play}` : `bids: ${bid.replace(/^bid=/, "")}`;  // the server's specs name both
}

function titleText() {
  return `Board ${board.board} \u2014 dealer ${board.dealer}, vulnerable ${board.vulnerability}`;
}

// the row of a board number (1-based, as the Board box and the address show it: board 1 is row 0), or null with
// a message
function rowOf(number) {
  const value = Number(number);
  if (!Number.isInteger(value) || value < 1 || (boards && value > boards)) {
    say(`no board ${number}: this server has boards 1 to ${boards}`);
    return null;
  }
  return value - 1;
}

function boxRow() { return rowOf($("index").value); }

// ---- the address: #board=N (the number shown), &seat=S while seated ----------------------------------------------
let shownRow = null;  // the row on screen, and the seats taken there (null: the agents' table)
let shownSeats = null;

function addressOf(row, seats) { return `#board=${row + 1}` + (seats ? `&seat=${seats}` : ""); }

function setAddress(row, seats) {
  const first = shownRow === null;
  shownRow = row;
  shownSeats = seats;
  const address = addressOf(row, seats);
  if (location.hash === address) return;
  if (first) history.replaceState(null, "", address);  // the page's own first board: no bare entry before it
  else history.pushState(null, "", address);  // Back returns to the board before
}

function readAddress() {
  const board = (location.hash.match(/board=(\d+)/) || [])[1];
  const seats = (location.hash.match(/seat=([NESW]{1,2})/i) || [])[1];
  return board === undefined ? null : { number: Number(board), seats: seats ? seatsOf(seats.toUpperCase()) : null };
}

// a seated board not finished: leaving it asks first (it stays open, to be taken up again)
function unfinished() { return table !== null && table.phase !== "over"; }

function mayLeave() {
  if (!unfinished()) return true;
  return window.confirm(`Leave board ${table.index + 1}? It stays yours: come back to it (the Board box, the ` +
                        "address or Back) to play on where you left it.");
}

// an empty table while a board loads (or after a bad number): nothing of the previous board stays on screen, its
// vulnerability included, and the seated controls (Undo, Claim, Concede) stay disabled until the new table is in
function clearBoard(title) {
  board = null;
  for (const seat of SEATS) { $(`hand-${seat}`).innerHTML = ""; $(`hand-${seat}`).className = `hand pos-${position(seat)}`; }
  $("auction").querySelector("tbody").innerHTML = "";
  renderAuctionHeader();
  $("trick").innerHTML = $("ddpar").innerHTML = $("explanation").innerHTML = $("result").innerHTML = "";
  $("step").textContent = "";
  $("board-title").textContent = title || "";
  $("bidbox").hidden = true;
  $("undo").disabled = $("claim").disabled = $("concede").disabled = $("claim-tricks").disabled = true;
}

function renderAuctionHeader() {
  $("auction").querySelectorAll("thead th").forEach((th) => {
    const seat = th.textContent.trim()[0];
    th.className = board && vulnerable(seat, board.vulnerability) ? "vul" : "";
    th.title = !board ? "" : vulnerable(seat, board.vulnerability) ? "vulnerable" : "not vulnerable";
  });
}

// ---- review: the agents at all four seats (or a pasted board's own record) --------------------------------------
// ``agents``: the agents' table even where the board has a record of its own
async function loadBoard(row = boxRow(), agents = false) {
  say("");
  clearTimeout(flipTimer);  // a pending flip gives way to this load
  flipTimer = null;
  stopPolling();
  const mine = ++request;
  table = null;
  game = null;
  if (row === null) { clearBoard(); return; }
  if (open[row]) { await sitAt(row, open[row].seats, mine); return; }  // yours to play: never face up
  mode = "review";
  bottom = "S";
  $("index").value = row + 1;
  setAddress(row, null);
  clearBoard(`loading board ${row + 1}\u2026`);
  const ns = $("ns").value.trim(), ew = $("ew").value.trim();
  showControls();
  try {
    const found = await api(`/api/boards/${row}`);
    if (mine !== request) return;
    board = found;
    $("board-title").textContent = titleText();
    renderAuctionHeader();
    let played;
    if (found.record && !agents) {
      played = await api(`/api/boards/${row}/record`);
      if (mine !== request) return;
      say("The board as played at the table (the pasted record); \"Show agents\" plays it with the agents", true);
    } else {
      say("The agents bid and play the board\u2026", true);
      const query = `?ns=${encodeURIComponent(ns)}&ew=${encodeURIComponent(ew)}&client=${CLIENT}&seq=${mine}`;
      const watch = setInterval(async () => {  // a slow card player: how far the agents are
        const progress = await api("/api/progress").catch(() => ({}));
        if (mine === request && !game && progress.index === row) {
          say(`The agents bid and play the board: ${progress.calls} calls, ${progress.cards} of 52 cards so far\u2026`,
              true);
        }
      }, 500);
      try {
        played = await api(`/api/boards/${row}/play${query}`);
      } finally {
        clearInterval(watch);
      }
      if (mine !== request) return;
      say("");
    }
    game = played;
    step = 0;
    selected = null;
    renderReview();
  } catch (error) {
    if (mine === request) say(error.message);
  }
}

// the cards of the trick in progress, or of the last trick once it is complete
function lastTrick(cards) {
  const n = cards.length;
  return cards.slice(n - (n === 0 ? 0 : ((n - 1) % 4) + 1));
}

function actions() { return game.auction.length + game.play.length; }

// the contract reached (also when a record stops in the middle of the play, where there is no result yet)
function contractOf(g) { return (g.result && g.result.declarer) ? g.result : (g.contract || null); }

function renderReview() {
  if (!game) return;
  const hands = parseDeal(board.deal);
  const calls = game.auction.slice(0, Math.min(step, game.auction.length));
  const cards = game.play.slice(0, Math.max(0, step - game.auction.length));
  const played = new Set(cards.map((c) => c.card));
  const reveal = $("reveal").checked;
  if (reveal) renderDD(); else $("ddpar").innerHTML = "";  // hidden hands: no DD table or par to give them away
  for (const seat of SEATS) {
    const left = hands[seat].map((ranks, i) => [...ranks].filter((r) => !played.has(SUITS[i] + r)).join(""));
    const count = left.join("").length;
    const spec = seat === "N" || seat === "S" ? game.ns : game.ew;
    const playing = step > game.auction.length;
    const declarer = contractOf(game) && contractOf(game).declarer;
    let who = spec === "record" ? "as played" : agentName(spec, playing);
    if (playing && declarer && seat === SEATS[(SEATS.indexOf(declarer) + 2) % 4]) {
      who = `dummy, played by declarer ${declarer}` + (spec === "record" ? "" : ` (${agentName(spec, true)})`);
    }
    renderHand(seat, reveal ? left : null, { count, who });
  }
  renderAuction(calls, board.dealer, step <= game.auction.length ? step - 1 : -1, (position) => {
    selected = position;
    renderReview();
  });
  const inTrick = lastTrick(cards);
  $("trick").innerHTML = inTrick.map(playedHtml).join("");
  let playing = "";
  const reached = contractOf(game);
  if (step > game.auction.length && reached) {  // the contract, each side's tricks, who is on lead
    const done = Math.floor(cards.length / 4), winners = game.trick_winners.slice(0, done);
    const ours = winners.filter((w) => "NS".includes(w) === "NS".includes(reached.declarer)).length;
    const lead = cards.length % 4 === 0 ? (winners[done - 1] || cards[0].seat) : cards[cards.length - cards.length % 4].seat;
    playing = ` \u2014 ${reached.contract} by ${reached.declarer}: declarer ${ours}, defence ` +
      `${done - ours}` + (cards.length < 52 ? `; ${lead} on lead` : "");
    if (done > 0) {
      const last = cards.slice(4 * (done - 1), 4 * done);
      playing += ` (trick ${done} won by ${winners[done - 1]}: ${last.map((c) => c.card).join(" ")})`;
    }
  }
  $("step").textContent = `step ${step} of ${actions()}` +
    (step > game.auction.length ? ` \u2014 trick ${Math.ceil(cards.length / 4)}` : "") + playing;
  if (selected === null && step > 0) selected = step - 1;
  renderExplanation();
  const r = game.result;
  $("result").innerHTML = step < actions() ? "" : !r ? "The record stops here." : (r.declarer
    ? `<b>${escapeHtml(r.text)}</b>: ${contractHtml(r.contract)} by ${r.declarer}, ${r.tricks} tricks ` +
      `(double dummy ${r.dd_tricks}); ` +
      `NS ${r.score_ns}, par NS ${r.par_ns}: ${signed(r.vs_par_imps)} IMPs for NS against par`
    : `Passed out: NS 0, par NS ${r.par_ns}: ${signed(r.vs_par_imps)} IMPs for NS against par`);
}

function span(s) { return s.min === s.max ? `${s.min}` : `${s.min}\u2013${s.max}`; }

function callExplanationHtml(c) {
  const e = c.explanation, s = e.shows;
  let html = `<b>${c.seat}: ${callHtml(c.call)}</b> by <code>${escapeHtml(e.agent)}</code><br>`;
  if (s.hands > 0) {
    html += `Shows <b>${span(s.hcp)} HCP</b> (mean ${s.hcp.mean}); ` +
      SUITS.map((suit) => `${suitHtml(suit)} ${span(s.lengths[suit])}`).join(", ") +
      `<br><small>${s.hands} of ${s.reached} held-out hands that reached this turn make this call ` +
      `(${(100 * s.share).toFixed(1)}%; ${s.deals} deals replayed)</small>`;
  } else {
    html += `<small>None of the ${s.reached} held-out hands that reached this turn makes this call.</small>`;
  }
  if (s.calls_here && s.calls_here.length) {
    const here = s.calls_here.map((x) => `${callHtml(x.call)} ${(100 * x.share).toFixed(0)}%`).join(", ");
    html += `<div>At this turn it calls: ${here}</div>`;
  }
  const k = e.considered || {};  // absent at a seated table: the agent's own values would tell its hand
  if (k.kind === "rule") html += `<div>Rule: ${escapeHtml(k.rule)}</div>`;
  else if (k.kind === "search") {
    if (!k.searched) html += `<div><small>Search: one candidate (${callHtml(k.chosen)}), not searched</small></div>`;
    else {
      const rows = k.candidates.map((x) => `<tr><td>${callHtml(x.call)}</td><td>${x.probability.toFixed(2)}</td>` +
        `<td>${x.imps === null ? "" : (x.imps >= 0 ? "+" : "") + x.imps.toFixed(2)}</td></tr>`).join("");
      const why = k.fallback ? `too few effective worlds: the base's call ${callHtml(k.base_call)} stands` :
        `chose ${callHtml(k.chosen)}` + (k.chosen === k.base_call ? " (the base's call)" : "");
      html += `<div>Search: ${why}; ${k.worlds} worlds kept of ${k.drawn} drawn, effective ${k.ess}` +
        `<table class="small"><tr><th>candidate</th><th>base p</th><th>IMPs vs base</th></tr>${rows}</table></div>`;
    }
  } else if (k.calls) {
    const values = k.calls.map((x) => `${callHtml(x.call)} ${x.value}`).join(", ");
    html += `<div>Considered (${k.kind}): ${values}</div>`;
  } else if (k.note) html += `<div><small>${escapeHtml(k.note)}</small></div>`;
  return html;
}

function renderExplanation() {
  const div = $("explanation");
  if (selected === null || !game || selected >= actions()) { div.innerHTML = ""; return; }
  if (selected < game.auction.length) {
    div.innerHTML = callExplanationHtml(game.auction[selected]);
  } else {
    const c = game.play[selected - game.auction.length];
    const e = c.explanation;
    const by = c.player !== c.seat ? ` (by ${c.player})` : "";
    let html = `<b>${c.seat}${by}: ${cardHtml(c.card)}</b> by <code>${escapeHtml(e.agent)}</code><br>`;
    if (e.kind === "alphamu") {
      const rows = e.candidates.map((x) => `<tr><td>${cardHtml(x.card)}</td><td>${x.make.toFixed(2)}</td>` +
        `<td>${x.pimc_make.toFixed(2)}</td></tr>`).join("");
      html += `${e.worlds} worlds (${e.distinct} distinct), probability of making the contract<table class="small">` +
        `<tr><th>card</th><th>\u03b1\u03bc</th><th>PIMC</th></tr>${rows}</table>`;
    } else if (e.candidates) {
      const rows = e.candidates.map((x) => `<tr><td>${cardHtml(x.card)}</td><td>${x.value.toFixed(2)}</td>` +
        `<td>${x.tricks.toFixed(2)}</td><td>${(100 * x.best_share).toFixed(0)}%</td></tr>`).join("");
      html += `${e.worlds} world${e.worlds > 1 ? "s" : ""} (${e.distinct} distinct), chosen by ${escapeHtml(e.value)}` +
        `<table class="small"><tr><th>card</th><th>value</th><th>tricks to come</th><th>best in</th></tr>` +
        `${rows}</table>`;
    } else html += `<small>${escapeHtml(e.note)}</small>`;
    div.innerHTML = html;
  }
}

function go(to) {
  if (table || !game) return;
  step = Math.max(0, Math.min(actions(), to));
  selected = step > 0 ? step - 1 : null;
  renderReview();
}

// ---- a person at the table -------------------------------------------------------------------------------------
function seatsOf(choice) { return choice === "SN" ? "NS" : choice === "WE" ? "EW" : choice; }

// take a seat at ``row``: the open table there if there is one (where it was left), else a new one
async function sitAt(row, seats, mine = ++request) {
  say("");
  clearTimeout(flipTimer);  // a pending flip must not replace the table just taken
  flipTimer = null;
  stopPolling();
  game = null;
  table = null;
  mode = "seated";
  const kept = open[row];
  seats = kept ? kept.seats : seatsOf(seats);
  bottom = seats.length === 1 ? seats : (seats.includes("S") ? "S" : "E");  // your seat at the bottom
  $("index").value = row + 1;
  $("seat").value = seats;
  setAddress(row, seats);
  clearBoard(`${kept ? "back to" : "taking a seat at"} board ${row + 1}\u2026`);
  showControls();
  try {
    let sat = null;
    if (kept) {
      sat = await api(`/api/tables/${kept.id}`).catch((error) => {
        if (!/no table/.test(error.message)) throw error;
        return null;
      });
      if (sat === null || sat.index !== row || sat.seats !== seats) {  // a restarted server numbers tables anew
        say(`your table at board ${row + 1} is gone (the server restarted): a new one`, true);
        sat = null;
      }
    }
    if (sat === null) {
      const body = { index: row, seats, ns: $("ns").value.trim() || null, ew: $("ew").value.trim() || null };
      sat = await api("/api/tables?wait=false", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
    }
    if (mine !== request) return;
    if (kept && sat.id === kept.id && sat.index === row) say(`back to board ${row + 1} where you left it (seated ${seats})`, true);
    open[row] = { id: sat.id, seats };
    saveOpen();
    board = { index: sat.index, board: sat.board, dealer: sat.dealer, vulnerability: sat.vulnerability };
    $("board-title").textContent = titleText();
    renderAuctionHeader();
    await follow(sat, cardCount(sat));
  } catch (error) {
    if (mine === request) say(error.message);
  }
}

function cardCount(t) { return t.log.filter((x) => x.action >= 38).length; }

// show a table answer: new cards one by one, then the table; while the agents think, ask again
async function follow(answer, before) {
  const mine = request;
  table = answer;
  busy = true;  // nothing to choose while the new cards are shown
  showThinking(answer.thinking);
  await showNewCards(before);
  if (mine !== request || table !== answer) return;
  if (answer.phase === "over" && open[answer.index] && open[answer.index].id === answer.id) {
    delete open[answer.index];
    saveOpen();
  }
  busy = answer.thinking;
  renderTable();
  if (answer.notice) say(answer.notice, true);
  if (answer.thinking) {
    pollTable(answer, mine, 250, 0);
  } else {
    focusNext();
  }
}

// ask for a thinking table again; a failed ask (the server busy or restarting, the network) is retried, slower
// each time, with the reason shown, so the page never stays "thinking" until it is reloaded
function pollTable(answer, mine, delay, failures) {
  pollTimer = setTimeout(async () => {
    try {
      const next = await api(`/api/tables/${answer.id}`);
      if (mine !== request || table !== answer) return;  // the page moved on meanwhile
      if (failures) say("");
      await follow(next, cardCount(answer));
    } catch (error) {
      if (mine !== request || table !== answer) return;
      if (error.status === 404) {  // the table is gone (the server restarted): nothing to wait for
        say(error.message);
        stopPolling();
        return;
      }
      say(`${error.message}: asking again`);
      pollTable(answer, mine, Math.min(4000, 500 * 2 ** failures), failures + 1);
    }
  }, delay);
}

function stopPolling() {
  clearTimeout(pollTimer);
  busy = false;
  showThinking(false);
}

// the thinking line while the page waits for the agents: who is to move and for how long the page has waited for
// that move (counted again from 0 s with every move that comes), updated every quarter of a second
let thinkingSince = null;  // {moves: the table's moves when the wait began, at: when}
let thinkingClock = null;

function showThinking(on) {
  $("thinking").classList.toggle("shown", on);
  if (!on) {
    clearInterval(thinkingClock);
    thinkingClock = thinkingSince = null;
    return;
  }
  const moves = table ? table.log.length : -1;
  if (!thinkingSince || thinkingSince.moves !== moves) thinkingSince = { moves, at: Date.now() };
  if (thinkingClock === null) thinkingClock = setInterval(renderThinking, 250);
  renderThinking();
}

function renderThinking() {
  if (!thinkingSince) return;
  const t = table, seconds = Math.floor((Date.now() - thinkingSince.at) / 1000);
  let who = "The agents are";  // the person's move on its way: no agent named yet
  if (t && t.thinking && t.to_act && !t.seats.includes(t.to_act)) {
    who = NAMES[t.to_act] + (t.seat_to_play && t.seat_to_play !== t.to_act ? ` (for dummy, ${t.seat_to_play})` : "") +
      " is";
  }
  const text = `${who} thinking\u2026`;  // written only when it changes: a screen reader says it once
  if ($("thinking-who").textContent !== text) $("thinking-who").textContent = text;
  $("thinking-time").textContent = `${seconds} s`;
}

// a call or card of the person: one at a time (nothing while a move is on its way), and the second click of a
// double-click (its click event counts 2) is never a move of its own, even where the first was refused or
// answered at once (the refusal's message keeps its room, so nothing moves under the pointer either)
async function humanMove(kind, value, event) {
  if (!table || busy || (event && event.detail > 1)) return;
  await tableAction(`/api/tables/${table.id}/${kind}?wait=false`, { [kind]: value });
}

async function tableAction(path, body) {
  const mine = request;
  busy = true;
  showThinking(true);
  $("bidbox").querySelectorAll("button").forEach((b) => { b.disabled = true; });
  document.querySelectorAll(".hand button.card, #table-controls button").forEach((b) => { b.disabled = true; });
  const before = cardCount(table);
  try {
    const moved = await api(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
    });
    if (mine !== request || !table || moved.id !== table.id) return;
    say("");
    await follow(moved, before);
  } catch (error) {
    if (mine !== request) return;
    busy = false;
    showThinking(false);
    say(error.message);
    if (table) renderTable();
  }
}

function undo() { if (table && !busy) tableAction(`/api/tables/${table.id}/undo?wait=false`); }

function claim() {
  if (!table || busy) return;
  tableAction(`/api/tables/${table.id}/claim`, { tricks: Number($("claim-tricks").value) });
}

function concede() {
  if (!table || busy) return;
  if (window.confirm("Concede the rest of the tricks to the opponents?")) {
    tableAction(`/api/tables/${table.id}/concede`);
  }
}

// the stepper while reviewing; undo, claim and concede while seated
function showControls() {
  const seated = mode === "seated";
  $("stepper").hidden = $("reveal-label").hidden = seated;
  $("table-controls").hidden = !seated;
}

function renderTable() {
  const t = table;
  const calls = t.log.filter((x) => x.action < 38).map((x) => ({ seat: x.seat, call: x.name }));
  const cards = t.log.filter((x) => x.action >= 38).map((x) => ({ seat: x.seat, card: x.name }));
  const dummy = t.declarer && cards.length ? SEATS[(SEATS.indexOf(t.declarer) + 2) % 4] : null;
  for (const seat of SEATS) {
    const hand = t.hands[seat];
    const mine = t.your_turn && t.phase === "play" && hand !== null && t.seat_to_play === seat;
    const count = 13 - cards.filter((c) => c.seat === seat).length;
    const spec = "NS".includes(seat) ? t.ns : t.ew;
    let who = t.seats.includes(seat) ? "you" : agentName(spec, t.phase !== "auction");
    if (seat === dummy) {  // dummy's cards are chosen by declarer: say who that is
      who = t.seats.includes(t.declarer) ? "dummy, played by you" :
        `dummy, played by declarer ${t.declarer} (${agentName(spec, true)})`;
    }
    renderHand(seat, hand === null ? null : hand, { count, clickable: mine, legal: t.legal, who });
  }
  $("undo").disabled = !t.can_undo || busy;
  $("claim").disabled = $("concede").disabled = $("claim-tricks").disabled = !t.can_claim || busy;
  const left = t.tricks ? 13 - t.tricks.declarer - t.tricks.defence : -1;  // -1: no play yet, nothing to claim
  if (Number($("claim-tricks").dataset.left) !== left) {  // 0..left tricks, all of them by default
    $("claim-tricks").dataset.left = left;
    $("claim-tricks").innerHTML = left < 0 ? "<option value=''>\u2013</option>" : [...Array(left + 1).keys()].reverse()
      .map((k) => `<option value="${k}">${k} of ${left}</option>`).join("");
  }
  renderAuction(calls, board.dealer, -1, async (position) => {  // what an agent's call shows
    const seat = SEATS[(SEATS.indexOf(board.dealer) + position) % 4];
    if (t.seats.includes(seat)) { $("explanation").innerHTML = "<small>Your own call.</small>"; return; }
    try {
      $("explanation").innerHTML = callExplanationHtml(await api(`/api/tables/${t.id}/calls/${position}`));
    } catch (error) {
      say(error.message);
    }
  });
  // the trick in progress; between tricks, the last one with its winner (a reply of several cards never hides it)
  const shown = t.trick.length ? t.trick : (t.last_trick ? t.last_trick.cards : []);
  $("trick").innerHTML = shown.map(playedHtml).join("");
  const turn = turnText(t);
  let status = turn;
  if (t.contract) {
    // after a claim or concession the tricks are the result's (declarer's total agreed), not those played
    const total = t.phase === "over" && t.ended && t.result && t.result.declarer ? t.result.tricks : null;
    const tricks = total !== null ? { declarer: total, defence: 13 - total } : t.tricks;
    status = `${t.contract} by ${t.declarer}` + (tricks ? ` \u2014 declarer ${tricks.declarer}, defence ` +
      `${tricks.defence}` : "") + (t.on_lead && t.phase === "play" ? `; ${t.on_lead} on lead` : "") + ` \u2014 ${turn}`;
  }
  $("step").textContent = status;
  let side = "";
  if (t.last_trick) {
    side += `<div id="last-trick"><b>Trick ${t.last_trick.number}</b> won by ${t.last_trick.winner}: ` +
      t.last_trick.cards.map((c) => `${c.seat} ${cardHtml(c.card)}`).join(", ") + "</div>";
  }
  if (cards.length) {
    const rows = [];
    for (let k = 0; k < cards.length; k += 4) {
      rows.push(`<li>${cards.slice(k, k + 4).map((c) => `${c.seat} ${cardHtml(c.card)}`).join(", ")}</li>`);
    }
    side += `<details id="play-so-far"><summary>The play so far</summary><ol>${rows.join("")}</ol></details>`;
  }
  renderBidbox();
  if (t.phase === "over") {
    const r = t.result, o = t.other_table;
    const line = (x) => (x.declarer
      ? `<b>${escapeHtml(x.text)}</b> (${x.tricks} tricks), NS ${x.score_ns}` : "passed out, NS 0");
    side = `<b>This table:</b> ${line(r)}<br>` +
      `<b>Other table</b> (the agents at all four seats): ${line(o)}<br>` +
      `<b>Duplicate: ${signed(t.duplicate_imps)} IMPs</b> for your side; par NS ${r.par_ns}` + side;
    board = { ...board, dd: t.dd, par: t.par, deal: t.deal };  // the deal is public now: its DD table and par
    renderDD();
  }
  $("result").innerHTML = side;
  focusNext();
}

// whose turn the status line gives: who calls or plays, and from dummy's hand when declarer plays dummy's card
// ("W to play from dummy (E)", "your turn: S to call")
function turnText(t) {
  if (t.phase === "over") {
    return "board over" + (t.ended ? ` (${t.ended.how === "claim" ? "claimed" : "conceded"})` : "");
  }
  const what = t.phase === "auction" ? `${t.to_act} to call` : (t.seat_to_play && t.seat_to_play !== t.to_act
    ? `${t.to_act} to play from dummy (${t.seat_to_play})` : `${t.to_act} to play`);
  return t.your_turn ? `your turn: ${what}` : what;
}

// the agents' reply card by card: each card in the middle of the table for a moment, and every completed trick
// (with its winning card) before the next one starts, however many cards the reply holds
const CARD_PAUSE_MS = 350;

async function showNewCards(before) {
  const shown = table;
  const cards = table.log.filter((x) => x.action >= 38).map((x) => ({ seat: x.seat, card: x.name }));
  for (let n = before + 1; n < cards.length && table === shown; n++) {
    const inTrick = lastTrick(cards.slice(0, n));
    $("trick").innerHTML = inTrick.map(playedHtml).join("");
    await new Promise((resolve) => setTimeout(resolve, CARD_PAUSE_MS * (n % 4 === 0 ? 2 : 1)));
  }
}

// keyboard play: after every move, focus goes to the first thing the person can choose (never the page top)
function focusNext() {
  const target = document.querySelector("#bidbox:not([hidden]) button[data-call='Pass']:not(.illegal)") ||
    document.querySelector("#bidbox:not([hidden]) button:not(.illegal)") ||
    document.querySelector(".hand button.card.legal");
  if (target && !busy) target.focus({ preventScroll: true });
}

function renderBidbox() {
  const box = $("bidbox");
  const t = table;
  if (!t || t.phase !== "auction" || !t.your_turn) { box.hidden = true; return; }
  box.hidden = false;
  // Pass, X and XX first, above the bids: the calls made most often are the first seen, on a phone too
  let html = `<div class="wide">${["Pass", "X", "XX"].map((call) => bidButton(call, t.legal)).join("")}</div>`;
  for (let level = 1; level <= 7; level++) {
    for (const strain of ["C", "D", "H", "S", "NT"]) {
      const call = `${level}${strain}`;
      html += bidButton(call, t.legal);
    }
  }
  box.innerHTML = html;
  box.querySelectorAll("button").forEach((b) => b.addEventListener("click", (event) => {
    humanMove("call", b.dataset.call, event);
  }));
}

// a board of one's own, pasted as PBN or LIN: solved by the server and numbered after the dataset's boards; one with
// its own auction (and play) shows that record
async function pasteBoard() {
  const text = $("paste-text").value.trim();
  if (!text) { say("paste a PBN deal or board, or a BBO LIN board, first"); return; }
  if (!mayLeave()) return;
  try {
    const added = await api("/api/boards", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ deal: text }),
    });
    boards = Math.max(boards, added.index + 1);
    $("index").max = boards;
    await loadBoard(added.index);
    say(`added as board ${added.index + 1} (its own number: ${added.board}; the address ${addressOf(added.index)} ` +
        "opens it while the server runs)" + (added.record ? ": the record as played" : ""), true);
  } catch (error) {
    say(error.message);
  }
}

// go to a board: seated (``seats``) or the agents' table; leaving an unfinished seated board asks first
function goTo(row, seats, agents = false) {
  if (row === null) { clearBoard(); return; }
  if (!(row === shownRow && table) && !mayLeave()) { restoreBox(); return; }
  if (seats) sitAt(row, seats); else loadBoard(row, agents);
}

function restoreBox() {
  if (shownRow !== null) $("index").value = shownRow + 1;
}

// ---- wiring -----------------------------------------------------------------------------------------------------
async function start() {
  try {
    const config = await api("/api/config");
    $("ns").value = config.ns;
    $("ew").value = config.ew;
    boards = config.boards + config.posted;  // pasted boards keep their numbers while the server runs
    $("index").max = boards;
  } catch (error) {
    say(error.message);
    return;
  }
  $("load").addEventListener("click", () => goTo(boxRow(), null, true));
  $("index").addEventListener("keydown", (event) => {
    if (event.key === "Enter") goTo(boxRow(), mode === "seated" ? $("seat").value : null);
  });
  $("sit").addEventListener("click", () => goTo(boxRow(), $("seat").value));
  $("paste-add").addEventListener("click", pasteBoard);
  $("undo").addEventListener("click", undo);
  $("claim").addEventListener("click", claim);
  $("concede").addEventListener("click", concede);
  const stepBoard = (delta) => () => {  // seated, the next board is dealt to you: never shown face up first
    if (flipTimer === null && !mayLeave()) return;
    const row = Math.min((boards || Infinity) - 1, Math.max(0, Number($("index").value) - 1 + delta));
    $("index").value = row + 1;
    clearTimeout(flipTimer);
    stopPolling();
    ++request;  // whatever was loading is stale now
    table = null;
    game = null;
    clearBoard(`board ${row + 1}\u2026`);
    const seats = mode === "seated" ? $("seat").value : null;
    flipTimer = setTimeout(() => { flipTimer = null; goTo(row, seats); }, 300);
  };
  $("prev-board").addEventListener("click", stepBoard(-1));
  $("next-board").addEventListener("click", stepBoard(1));
  $("first").addEventListener("click", () => go(0));
  $("back").addEventListener("click", () => go(step - 1));
  $("forward").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => { if (game) go(actions()); });  // nothing before the board is in
  $("reveal").addEventListener("change", () => (table ? renderTable() : renderReview()));
  document.addEventListener("keydown", (event) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    if (event.key === "ArrowRight") go(step + 1);
    if (event.key === "ArrowLeft") go(step - 1);
  });
  // a typed address or Back: go where it says (after asking, when leaving a seated board)
  window.addEventListener("hashchange", () => {
    const address = readAddress();
    if (!address) return;
    const row = rowOf(address.number);
    if (row === shownRow && (address.seats === shownSeats || (table && open[row]))) {
      // the board on screen (seated there, it stays so: never face up)
      if (address.seats !== shownSeats) history.replaceState(null, "", addressOf(shownRow, shownSeats));
      return;
    }
    if (row === null || !mayLeave()) {  // stay: a new entry puts back the address of what is shown
      if (shownRow !== null) history.pushState(null, "", addressOf(shownRow, shownSeats));
      return;
    }
    if (address.seats) sitAt(row, address.seats); else loadBoard(row);
  });
  window.addEventListener("beforeunload", (event) => {  // a reload or a closed tab: the browser asks first
    if (unfinished()) { event.preventDefault(); event.returnValue = ""; }
  });
  const address = readAddress();
  const row = address ? rowOf(address.number) : 0;
  if (row === null) { clearBoard(); return; }
  if (address && address.seats) sitAt(row, address.seats); else loadBoard(row);
}

start();
