// bridgerl's web view: a board, the agents' auction and play step by step with explanations, or a seat at the table.
// Everything comes from the JSON API (docs/web.md); nothing is fetched from elsewhere.
"use strict";

const SEATS = ["N", "E", "S", "W"];
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
let boards = 0;       // rows in the server's dataset
let flipTimer = null; // board flips wait a moment, so that a quick flip asks only for the board it stops on
const CLIENT = Math.random().toString(36).slice(2);  // this page, for the server's superseded-request check

function escapeHtml(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]);
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof body.detail === "string" ? body.detail : `${response.status} ${response.statusText}`;
    throw new Error(detail);
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

function renderHand(seat, suits, options = {}) {
  const div = $(`hand-${seat}`);
  const vul = board && vulnerable(seat, board.vulnerability);
  const name = { N: "North", E: "East", S: "South", W: "West" }[seat];
  const label = name + (board && board.dealer === seat ? " (dealer)" : "");
  let html = `<h3 class="${vul ? "vul" : ""}">${label}</h3>` +
    (options.who ? `<div class="who" title="${escapeHtml(options.who)}">${escapeHtml(options.who)}</div>` : "");
  if (suits === null) {
    div.className = "hand hidden";
    html += `<div class="backs" title="${options.count ?? 13} cards">` +
      `${'<span class="back"></span>'.repeat(options.count ?? 13)}</div>`;
  } else {
    div.className = "hand";
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
    b.addEventListener("click", () => humanMove("card", b.dataset.card));
  });
}

function renderAuction(calls, dealer, current, onClick) {
  const body = $("auction").querySelector("tbody");
  const order = ["W", "N", "E", "S"];
  const cells = Array(order.indexOf(dealer)).fill(null).concat(calls);
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

// the dataset row of the Board box (1-based: board 1 is row 0), or null with a message
function boxRow() {
  const value = Number($("index").value);
  if (!Number.isInteger(value) || value < 1 || (boards && value > boards)) {
    say(`no board ${$("index").value}: this dataset has boards 1 to ${boards}`);
    return null;
  }
  return value - 1;
}

// an empty table while a board loads (or after a bad number): nothing of the previous board stays on screen
function clearBoard(title) {
  board = null;
  for (const seat of SEATS) { $(`hand-${seat}`).innerHTML = ""; $(`hand-${seat}`).className = "hand"; }
  $("auction").querySelector("tbody").innerHTML = "";
  $("trick").innerHTML = $("ddpar").innerHTML = $("explanation").innerHTML = $("result").innerHTML = "";
  $("step").textContent = "";
  $("board-title").textContent = title || "";
  $("bidbox").hidden = true;
}

function renderAuctionHeader() {
  $("auction").querySelectorAll("thead th").forEach((th) => {
    const seat = th.textContent.trim()[0];
    th.className = board && vulnerable(seat, board.vulnerability) ? "vul" : "";
    th.title = board && vulnerable(seat, board.vulnerability) ? "vulnerable" : "not vulnerable";
  });
}

// ---- review: the agents at all four seats ---------------------------------------------------------------------
async function loadBoard() {
  say("");
  clearTimeout(flipTimer);  // a pending flip gives way to this load
  const mine = ++request;
  table = null;
  game = null;
  const index = boxRow();
  if (index === null) { clearBoard(); return; }
  clearBoard(`loading board ${index + 1}\u2026`);
  const ns = $("ns").value.trim(), ew = $("ew").value.trim();
  $("stepper").hidden = $("reveal-label").hidden = false;
  history.replaceState(null, "", `#board=${index}`);
  try {
    const found = await api(`/api/boards/${index}`);
    if (mine !== request) return;
    board = found;
    $("board-title").textContent = titleText();
    renderAuctionHeader();
    say("The agents bid and play the board (explanations take a few seconds the first time)\u2026", true);
    const query = `?ns=${encodeURIComponent(ns)}&ew=${encodeURIComponent(ew)}&client=${CLIENT}&seq=${mine}`;
    const played = await api(`/api/boards/${index}/play${query}`);
    if (mine !== request) return;
    game = played;
    say("");
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
    renderHand(seat, reveal ? left : null, { count, who: agentName(spec, step > game.auction.length) });
  }
  renderAuction(calls, board.dealer, step <= game.auction.length ? step - 1 : -1, (position) => {
    selected = position;
    renderReview();
  });
  const inTrick = lastTrick(cards);
  $("trick").innerHTML = inTrick.map((c) => `<span class="played ${c.seat}">${cardHtml(c.card)}</span>`).join("");
  let playing = "";
  if (step > game.auction.length && game.result.declarer) {  // the contract, each side's tricks, who is on lead
    const done = Math.floor(cards.length / 4), winners = game.trick_winners.slice(0, done);
    const ours = winners.filter((w) => "NS".includes(w) === "NS".includes(game.result.declarer)).length;
    const lead = cards.length % 4 === 0 ? (winners[done - 1] || cards[0].seat) : cards[cards.length - cards.length % 4].seat;
    playing = ` \u2014 ${game.result.contract} by ${game.result.declarer}: declarer ${ours}, defence ` +
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
  $("result").innerHTML = step < actions() ? "" : (r.declarer
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
  else if (k.calls) {
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
async function sit() {
  say("");
  clearTimeout(flipTimer);  // a pending flip must not replace the table just taken
  const mine = ++request;
  game = null;
  table = null;
  const index = boxRow();
  if (index === null) { clearBoard(); return; }
  clearBoard(`taking a seat at board ${index + 1}\u2026`);
  $("stepper").hidden = $("reveal-label").hidden = true;  // stepping is for the agents' table
  history.replaceState(null, "", `#board=${index}`);
  try {
    const body = { index, seats: $("seat").value, ns: $("ns").value.trim() || null, ew: $("ew").value.trim() || null };
    $("thinking").hidden = false;  // the agents may call first
    const sat = await api("/api/tables", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    }).finally(() => { $("thinking").hidden = true; });
    if (mine !== request) return;
    table = sat;
    board = { index: sat.index, board: sat.board, dealer: sat.dealer, vulnerability: sat.vulnerability };
    $("board-title").textContent = titleText();
    renderAuctionHeader();
    renderTable();
  } catch (error) {
    if (mine === request) say(error.message);
  }
}

async function humanMove(kind, value) {
  if (!table || busy) return;
  busy = true;
  $("thinking").hidden = false;
  $("bidbox").querySelectorAll("button").forEach((b) => { b.disabled = true; });
  document.querySelectorAll(".hand button.card").forEach((b) => { b.disabled = true; });
  try {
    const moved = await api(`/api/tables/${table.id}/${kind}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ [kind]: value }),
    });
    if (!table || moved.id !== table.id) return;
    const before = table.log.filter((x) => x.action >= 38).length;
    table = moved;
    say("");
    await showNewCards(before);
    if (table !== moved) return;  // the person left the table (another board) while the cards were shown
    renderTable();
  } catch (error) {
    say(error.message);
    if (table) renderTable();
  } finally {
    busy = false;
    $("thinking").hidden = true;
    focusNext();
  }
}

function renderTable() {
  const t = table;
  const calls = t.log.filter((x) => x.action < 38).map((x) => ({ seat: x.seat, call: x.name }));
  const cards = t.log.filter((x) => x.action >= 38).map((x) => ({ seat: x.seat, card: x.name }));
  for (const seat of SEATS) {
    const hand = t.hands[seat];
    const mine = t.your_turn && t.phase === "play" && hand !== null && t.seat_to_play === seat;
    const count = 13 - cards.filter((c) => c.seat === seat).length;
    renderHand(seat, hand === null ? null : hand, {
      count, clickable: mine, legal: t.legal,
      who: t.seats.includes(seat) ? "you" : agentName("NS".includes(seat) ? t.ns : t.ew, t.phase !== "auction"),
    });
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
  $("trick").innerHTML = shown.map((c) => `<span class="played ${c.seat}">${cardHtml(c.card)}</span>`).join("");
  const dummy = t.seat_to_play && t.seat_to_play !== t.to_act ? `, from dummy ${t.seat_to_play}` : "";
  const turn = t.phase === "over" ? "board over"
    : (t.your_turn ? `your turn (${t.to_act}${dummy})` : `${t.to_act} to act`);
  let status = turn;
  if (t.contract) {
    status = `${t.contract} by ${t.declarer}` + (t.tricks ? ` \u2014 declarer ${t.tricks.declarer}, defence ` +
      `${t.tricks.defence}` : "") + (t.on_lead && t.phase === "play" ? `; ${t.on_lead} on lead` : "") + ` \u2014 ${turn}`;
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

// the agents' reply card by card: each card in the middle of the table for a moment, and every completed trick
// (with its winning card) before the next one starts, however many cards the reply holds
const CARD_PAUSE_MS = 350;

async function showNewCards(before) {
  const shown = table;
  const cards = table.log.filter((x) => x.action >= 38).map((x) => ({ seat: x.seat, card: x.name }));
  for (let n = before + 1; n < cards.length && table === shown; n++) {
    const inTrick = lastTrick(cards.slice(0, n));
    $("trick").innerHTML = inTrick.map((c) => `<span class="played ${c.seat}">${cardHtml(c.card)}</span>`).join("");
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
  let html = "";
  for (let level = 1; level <= 7; level++) {
    for (const strain of ["C", "D", "H", "S", "NT"]) {
      const call = `${level}${strain}`;
      html += bidButton(call, t.legal);
    }
  }
  html += `<div class="wide">${["Pass", "X", "XX"].map((call) => bidButton(call, t.legal)).join("")}</div>`;
  box.innerHTML = html;
  box.querySelectorAll("button").forEach((b) => b.addEventListener("click", () => humanMove("call", b.dataset.call)));
}

// a board of one's own, pasted as PBN or LIN: solved by the server and numbered after the dataset's boards
async function pasteBoard() {
  const text = $("paste-text").value.trim();
  if (!text) { say("paste a PBN deal or board, or a BBO LIN board, first"); return; }
  try {
    const added = await api("/api/boards", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ deal: text }),
    });
    boards = Math.max(boards, added.index + 1);
    $("index").max = boards;
    $("index").value = added.index + 1;
    say(`added as board ${added.index + 1} (its own number: ${added.board})`, true);
    loadBoard();
  } catch (error) {
    say(error.message);
  }
}

// ---- wiring -----------------------------------------------------------------------------------------------------
async function start() {
  try {
    const config = await api("/api/config");
    $("ns").value = config.ns;
    $("ew").value = config.ew;
    boards = config.boards;
    $("index").max = config.boards;
  } catch (error) {
    say(error.message);
    return;
  }
  const fromHash = Number((location.hash.match(/board=(\d+)/) || [])[1]);  // the address keeps the row
  if (!Number.isNaN(fromHash)) $("index").value = fromHash + 1;
  $("load").addEventListener("click", loadBoard);
  $("index").addEventListener("keydown", (event) => { if (event.key === "Enter") loadBoard(); });
  $("sit").addEventListener("click", sit);
  $("paste-add").addEventListener("click", pasteBoard);
  const stepBoard = (delta) => () => {
    $("index").value = Math.min(boards || Infinity, Math.max(1, Number($("index").value) + delta));
    clearTimeout(flipTimer);
    ++request;  // whatever was loading is stale now
    clearBoard(`board ${$("index").value}\u2026`);
    flipTimer = setTimeout(loadBoard, 300);
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
  loadBoard();
}

start();
