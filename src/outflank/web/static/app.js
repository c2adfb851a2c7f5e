// outflank web page: wires the board, the panels and the server together.
import { ApiError, GameConnection, request } from "./api.js";
import { BoardView, hintScore, squareIndex } from "./board.js";
import { LearnView } from "./learn.js";
import { levelRange, renderAISettings, renderGraph, renderMoveList, renderOpening, renderPlayers, renderShare } from "./panels.js";
import { exactFrom, renderReviewCard, renderReviewDetail, reviewFits, reviewFrom, reviewLabels, reviewMarks, reviewValues } from "./review.js";
import { renderExplorer } from "./explorer.js";

const $ = (id) => document.getElementById(id);
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const ui = {
  game: null, // latest state from the server
  you: null, // colour held by this browser, or null (spectator)
  seat: null, // the seat secret from the URL
  conn: null,
  shown: null, // {id, cursor, moves}: what the board shows in live view
  viewPly: null, // null: live; a number: replaying that ply
  hints: null,
  evals: [],
  pending: false,
  thinking: null,
  endDismissed: null,
  queue: Promise.resolve(),
  learnDepth: 2,
  learnOrder: "update-first",
  playTimer: null,
  settingsFocus: false,
  latest: null, // {id, version} of the newest state received
  thinkingVersion: 0,
  session: 0, // bumped when the page leaves a game: its late events are dropped
  review: null, // the game's review (review.js), or null
  line: null, // a line off the game on the board: {kind, ply, baseCells, steps, index, title}
  lineTimer: null,
  explore: { key: null, seq: 0, data: null },
};

const START_CELLS = "-".repeat(27) + "OX------XO" + "-".repeat(27);
const START_OBF = `${START_CELLS} X`;
const GAME_BUTTONS = ["btn-undo", "btn-redo", "btn-hint", "btn-review", "rp-first", "rp-prev", "rp-play", "rp-next", "rp-last"];

const board = new BoardView($("board"), onSquare);
const learn = new LearnView($("tree"), $("learn-summary"));
const options = {
  get anim() { return $("opt-anim").checked; },
  get legal() { return $("opt-legal").checked; },
};

// ------------------------------------------------------------------ helpers
let toastTimer = null;
function toast(text, kind = "") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, kind === "error" ? 2600 : 1800);
}

function startCells(obf) {
  return obf.slice(0, 64).toUpperCase();
}

// The cells after `ply` moves, from the server's per-move flips (no rules here).
function cellsAt(state, ply) {
  const cells = startCells(state.start).split("");
  for (const m of state.moves.slice(0, ply)) {
    if (m.move === "pass") continue;
    const c = m.color === "black" ? "X" : "O";
    cells[squareIndex(m.move)] = c;
    for (const f of m.flips) cells[f] = c;
  }
  return cells.join("");
}

function seatsStore(id, seats) {
  const key = `outflank.seats.${id}`;
  if (seats) localStorage.setItem(key, JSON.stringify(seats));
  try { return JSON.parse(localStorage.getItem(key) || "null"); } catch { return null; }
}

function myTurn() {
  const g = ui.game;
  return g && ui.viewPly === null && g.status === "playing" && ui.you && g.turn === ui.you &&
    g.players[g.turn].kind === "human";
}

// ------------------------------------------------------------------ rendering
function renderStatus() {
  const g = ui.game;
  const s = $("status");
  if (!g) return;
  const name = (c) => g.players[c].name;
  let html;
  if (ui.line) {
    html = `${ui.line.title} · ${ui.line.index} of ${ui.line.steps.length}`;
  } else if (ui.viewPly !== null) {
    html = `Replay · move ${ui.viewPly} of ${g.cursor}`;
  } else if (g.status === "over") {
    html = resultText(g).title + ` · ${g.counts.black}–${g.counts.white}`;
    if (g.rules === "reversi" && g.counts.black + g.counts.white < 64) {
      html += " (Reversi: the side to move had no move)";
    }
  } else if (ui.thinking) {
    html = `<span class="dot ${ui.thinking}"></span><span class="thinking">${cap(ui.thinking)} (${name(ui.thinking)}) is thinking</span>`;
  } else if (myTurn()) {
    html = `<span class="dot ${g.turn}"></span>Your move (${g.turn})`;
  } else if (ui.you && g.players[g.turn].kind === "human") {
    html = `<span class="dot ${g.turn}"></span>Waiting for ${g.turn}…`;
  } else {
    html = `<span class="dot ${g.turn}"></span>${cap(g.turn)} to move`;
  }
  s.innerHTML = html;
}

function resultText(g) {
  const r = g.result;
  if (!r) return { title: "", score: "" };
  const score = `Black ${r.black} – White ${r.white}`;
  if (!r.winner) return { title: "It is a tie!", score };
  const opponent = ui.you === "black" ? "white" : "black";
  if (ui.you && g.players[ui.you].kind === "human" && g.players[opponent].kind === "ai") {
    return { title: r.winner === ui.you ? "You win!" : "Computer wins!", score };
  }
  return { title: `${cap(r.winner)} wins!`, score };
}

function renderMarks() {
  const g = ui.game;
  if (!g) return;
  if (ui.line) {
    const step = ui.line.steps[ui.line.index - 1];
    board.setMarks({ last: step ? step.move : null });
    return;
  }
  if (ui.viewPly !== null) {
    const last = ui.viewPly > 0 ? g.moves[ui.viewPly - 1].move : null;
    const m = selectedReview();
    const review = m ? { played: m.move, better: m.loss > 0 ? m.best_move : m.move, label: m.label } : null;
    board.setMarks({ last, hints: ui.hints, review });
    return;
  }
  board.setMarks({
    legal: options.legal || ui.hints ? g.legal : [],
    turn: g.status === "playing" && (options.legal && (myTurn() || !ui.you)) ? g.turn : null,
    playable: myTurn() && !ui.pending,
    last: g.last,
    hints: ui.hints,
  });
}

function renderChrome() {
  const g = ui.game;
  if (!g) return;
  const ply = ui.viewPly ?? g.cursor;
  const counts = ui.viewPly === null ? g.counts : countCells(cellsAt(g, ply));
  renderPlayers(g, ui.you, counts, ui.viewPly === null ? g.turn : null, ui.thinking);
  const fits = reviewFits(ui.review, g);
  if (fits) {
    // the reviewed move at the replayed ply is the one judged on the board
    const labels = { labels: reviewLabels(ui.review), selected: ui.viewPly };
    renderMoveList(g.moves, g.cursor, ply, (p) => enterReplay(p - 1), labels);
    const extra = { exactFrom: exactFrom(ui.review), marks: reviewMarks(ui.review) };
    renderGraph(reviewValues(ui.review, g.cursor), ply, (p) => enterReplay(p), extra);
    $("eval-note").textContent = "review: black's view, discs";
  } else {
    renderMoveList(g.moves, g.cursor, ply, (p) => enterReplay(p));
    renderGraph(shownEvals(), ply, (p) => enterReplay(p));
  }
  renderOpening(g.opening);
  renderReviewCard(ui.review, g, { onPick: (p) => enterReplay(p), fits });
  renderReviewDetail(fits ? selectedReview() : null, { onPlayLine: playBetterLine, onNext: nextMistake });
  $("btn-review").disabled = !g.moves.slice(0, g.cursor).some((m) => m.move !== "pass") ||
    (ui.review !== null && ui.review.status === "running" && ui.review.current);
  renderLineBanner();
  refreshExplorer();
  renderAISettings(g, ui.you, changeAI, ui.settingsFocus);
  renderShare(g, ui.you, seatsStore(g.id));
  $("export-card").hidden = false;
  $("exp-ggf").href = `/api/games/${g.id}/ggf`;
  $("exp-txt").href = `/api/games/${g.id}/transcript`;
  $("game-id").textContent = `game ${g.id}` + (g.rules === "reversi" ? " · Reversi rules" : "");
  // back to a turn of yours after the start position (as the server does)
  let hasUndo = g.moves.slice(0, g.cursor).some((m) => m.by !== "auto" && m.by !== "setup" && m.color === ui.you);
  let hasRedo = g.redo > 0;
  if (g.players.black.kind === "human" && g.players.white.kind === "human") {
    // between two people each takes back (or replays) only their own move
    const played = g.moves.slice(0, g.cursor).filter((m) => m.by === "human");
    const next = g.moves.slice(g.cursor).find((m) => m.by === "human");
    hasUndo = played.length > 0 && played[played.length - 1].color === ui.you;
    hasRedo = next !== undefined && next.color === ui.you;
  }
  // the search's progress box keeps its place in games with an AI: the
  // column does not jump when it comes and goes
  $("engine-info").hidden = g.players.black.kind !== "ai" && g.players.white.kind !== "ai";
  // two AIs: an undone move would be played again at once (replay shows the past)
  const watching = g.players.black.kind === "ai" && g.players.white.kind === "ai";
  $("btn-undo").disabled = !ui.you || watching || !hasUndo || ui.viewPly !== null;
  $("btn-redo").disabled = !ui.you || watching || !hasRedo || ui.viewPly !== null;
  $("btn-hint").disabled = g.status !== "playing" && ui.viewPly === null;
  $("rp-first").disabled = ply === 0;
  $("rp-prev").disabled = ply === 0;
  $("rp-next").disabled = ui.viewPly === null;
  $("rp-play").disabled = g.cursor === 0;
  $("rp-last").disabled = ui.viewPly === null;
  const banner = $("replay-banner");
  banner.hidden = ui.viewPly === null || ui.line !== null;
  if (ui.viewPly !== null) {
    banner.innerHTML = `Replaying move ${ui.viewPly} of ${g.cursor}. The live game goes on.<a id="back-live">Back to live ▶|</a>`;
    $("back-live").onclick = () => leaveReplay();
  }
  renderStatus();
  renderMarks();
  const end = $("endscreen");
  const showEnd = g.status === "over" && ui.viewPly === null && ui.endDismissed !== `${g.id}:${g.version}`;
  if (showEnd && end.hidden) {
    const r = resultText(g);
    $("end-title").textContent = r.title;
    $("end-score").textContent = r.score;
  }
  end.hidden = !showEnd;
}

function countCells(cells) {
  let black = 0;
  let white = 0;
  for (const c of cells) {
    if (c === "X") black++;
    else if (c === "O") white++;
  }
  return { black, white };
}

// ------------------------------------------------------------------ live updates
function enqueue(task) {
  ui.queue = ui.queue.then(task).catch((err) => console.error(err));
  return ui.queue;
}

async function showLive(state) {
  const session = ui.session;
  const shown = ui.shown;
  const forward = shown && shown.id === state.id && state.cursor > shown.cursor &&
    shown.moves.every((m, i) => i >= shown.cursor || (state.moves[i] && state.moves[i].move === m.move));
  if (ui.viewPly === null && !ui.line && forward && board.cells === cellsAt(state, shown.cursor)) {
    for (let ply = shown.cursor; ply < state.cursor; ply++) {
      // animate only while we keep up; a page that lags behind (fast AIs) catches up at once
      const animate = options.anim && ui.latest && ui.latest.version === state.version;
      const m = state.moves[ply];
      if (m.move === "pass") {
        toast(`${cap(m.color)} has no legal move and passes`);
        if (animate) await sleep(1100);
        continue;
      }
      board.setMarks({ last: m.move });
      await board.animateMove(squareIndex(m.move), m.color, m.flips, animate);
      if (ply + 1 < state.cursor && animate) await sleep(260);
      if (session !== ui.session) return;
      if (ui.viewPly !== null) break; // the user went to a replay meanwhile
    }
  }
  if (session !== ui.session) return;
  const last = state.moves[state.cursor - 1];
  if (!forward && (!shown || shown.id !== state.id) && last && last.move === "pass") {
    toast(`${cap(last.color)} has no legal move and passes`); // e.g. a game begun at a pass
  }
  if (ui.viewPly === null && !ui.line) board.setCells(state.board);
  ui.shown = { id: state.id, cursor: state.cursor, moves: state.moves.slice() };
  renderChrome();
}

function onEvent(event) {
  if (event.type === "state") {
    const st = event.state;
    if (event.you !== undefined) ui.you = event.you;
    ui.pending = false;
    if (ui.latest && ui.latest.id === st.id && ui.latest.version >= st.version) return;
    ui.latest = { id: st.id, version: st.version };
    document.title = `outflank · game ${st.id}`;
    // the board, panels and status follow the states in order, after each animation
    const session = ui.session;
    enqueue(async () => {
      if (session !== ui.session) return; // the page has left that game
      ui.game = st;
      if (ui.line && ui.line.ply > st.cursor) exitLine();
      if (ui.viewPly !== null) {
        // an undo elsewhere may have taken back the replayed move, or changed the line
        if (ui.viewPly >= st.cursor) leaveReplay();
        else if (!ui.line) board.setCells(cellsAt(st, ui.viewPly));
      }
      if (st.version > ui.thinkingVersion) {
        ui.thinking = st.thinking;
        if (!st.thinking) $("engine-info").classList.add("idle");
      }
      ui.hints = null;
      refreshEvals();
      if (!$("learn").hidden) refreshLearn();
      await showLive(st);
    });
  } else if (event.type === "review") {
    onReviewEvent(event);
  } else if (event.type === "connection") {
    $("offline").hidden = event.ok;
  } else if (event.type === "thinking") {
    ui.thinking = event.color;
    ui.thinkingVersion = ui.latest ? ui.latest.version : 0;
    $("engine-info").classList.add("idle");
    if (ui.game) {
      renderStatus();
      renderPlayers(ui.game, ui.you, ui.game.counts, ui.game.turn, ui.thinking);
    }
  } else if (event.type === "info") {
    const info = $("engine-info");
    info.classList.remove("idle");
    const nps = event.nps ? `${(event.nps / 1e6).toFixed(2)} Mn/s` : "";
    const score = event.score === null ? "?" : `${event.score > 0 ? "+" : ""}${Math.round(event.score * 100) / 100}`;
    info.innerHTML = "";
    info.append(`${cap(event.color)} · depth ${event.depth} · score ${score} · ${event.nodes.toLocaleString()} nodes · ${nps}`);
    const pv = document.createElement("span");
    pv.className = "pv";
    pv.textContent = `pv ${event.pv.join(" ")}`;
    info.append(pv);
  } else if (event.type === "error") {
    ui.pending = false;
    toast(event.error, "error");
    renderMarks();
  }
}

// The evaluations up to the position the board shows (the server may be ahead
// of a board still animating the moves of fast AIs).
function shownEvals() {
  const cursor = ui.shown && ui.game && ui.shown.id === ui.game.id ? ui.shown.cursor : ui.game ? ui.game.cursor : 0;
  return ui.evals.slice(0, cursor + 1);
}

let evalTimer = null;
function refreshEvals() {
  clearTimeout(evalTimer);
  evalTimer = setTimeout(async () => {
    const g = ui.game;
    if (!g) return;
    try {
      const data = await request("GET", `/api/games/${g.id}/evaluations`);
      if (ui.game && ui.game.id === g.id) {
        ui.evals = data.values;
        $("eval-note").textContent = `black's view, discs, depth ${data.depth}`;
        renderGraph(shownEvals(), ui.viewPly ?? ui.game.cursor, (p) => enterReplay(p));
      }
    } catch (err) {
      $("eval-note").textContent = err.message;
    }
  }, 350);
}

// ------------------------------------------------------------------ actions
async function act(type, extra = {}) {
  if (!ui.conn) return;
  ui.pending = true;
  renderMarks();
  try {
    await ui.conn.send(type, extra);
  } catch (err) {
    ui.pending = false;
    toast(err.message, "error");
    renderMarks();
  }
}

function onSquare(name) {
  const g = ui.game;
  if (!g || ui.pending) return;
  if (ui.viewPly !== null) { toast("Replaying: go back to live to play"); return; }
  if (g.status === "over") return;
  if (!ui.you) { toast("Spectating: this link holds no seat"); return; }
  if (!myTurn()) { toast(ui.thinking ? "The computer is thinking" : `Not your turn: ${g.turn} to move`); return; }
  if (!g.legal.includes(name)) { toast(`${name} is not a legal move`, "error"); return; }
  act("move", { move: name });
}

// One AI update at a time: two quick slider changes sent together could reach
// the server in either order, and the older settings would then win.
let aiUpdates = Promise.resolve();
function changeAI(color, spec) {
  const id = ui.game.id, seat = ui.seat; // the game of the slider, whatever is shown when it is sent
  aiUpdates = aiUpdates.then(() => sendAI(id, seat, color, spec));
  return aiUpdates;
}

async function sendAI(id, seat, color, spec) {
  try {
    const state = await request("PATCH", `/api/games/${id}/players/${color}`, { seat, player: spec });
    if (!ui.game || ui.game.id !== id) return; // the page has moved to another game
    onEvent({ type: "state", state });
    toast(`${cap(color)} AI updated`);
  } catch (err) {
    toast(err.message, "error");
  }
}

async function showHints() {
  const g = ui.game;
  if (!g) return;
  const ply = ui.viewPly ?? g.cursor;
  const asked = { id: g.id, version: g.version, view: ui.viewPly };
  $("btn-hint").disabled = true;
  $("status").innerHTML = '<span class="thinking">Scoring every move</span>';
  try {
    const data = await request("GET", `/api/games/${g.id}/hints?ply=${ply}`);
    const now = ui.game;
    if (!now || now.id !== asked.id || now.version !== asked.version || ui.viewPly !== asked.view) {
      renderChrome(); // the position changed meanwhile: that answer is for another one
      return;
    }
    ui.hints = data.moves;
    const best = data.moves[0];
    renderChrome();
    if (best) {
      const kind = best.exact ? " exact" : best.book ? " book" : "";
      const v = best.score === null ? "" : ` (${hintScore(best.score, best.exact)}${kind})`;
      $("status").innerHTML = `<span>Hint for ${data.turn}: best is <b>${best.move}</b>${v}</span>`;
    }
  } catch (err) {
    toast(err.message, "error");
    renderChrome();
  }
}

// ------------------------------------------------------------------ replay
function enterReplay(ply) {
  const g = ui.game;
  if (!g) return;
  stopAutoplay();
  if (ui.line) exitLine(false);
  if (ply >= g.cursor) { leaveReplay(); return; }
  ui.viewPly = Math.max(0, ply);
  ui.hints = null;
  board.setCells(cellsAt(g, ui.viewPly));
  renderChrome();
  if (!$("learn").hidden) refreshLearn();
}

function leaveReplay() {
  stopAutoplay();
  if (ui.line) exitLine(false);
  if (ui.viewPly === null) return;
  ui.viewPly = null;
  ui.hints = null;
  if (ui.game) board.setCells(ui.game.board);
  ui.shown = ui.game ? { id: ui.game.id, cursor: ui.game.cursor, moves: ui.game.moves.slice() } : null;
  renderChrome();
  if (!$("learn").hidden) refreshLearn();
}

async function stepReplay(delta) {
  const g = ui.game;
  if (!g) return;
  if (ui.line) { stepLine(delta); return; }
  const from = ui.viewPly ?? g.cursor;
  const to = from + delta;
  if (to < 0) return;
  if (delta === 1 && ui.viewPly !== null && to <= g.cursor) {
    const m = g.moves[from];
    ui.viewPly = to;
    ui.hints = null; // they were for the position before this move
    if (m.move !== "pass") {
      board.setMarks({ last: m.move });
      await board.animateMove(squareIndex(m.move), m.color, m.flips, options.anim);
    }
    if (to >= g.cursor) leaveReplay();
    else renderChrome();
    return;
  }
  enterReplay(to);
}

function stopAutoplay() {
  if (ui.playTimer) clearInterval(ui.playTimer);
  ui.playTimer = null;
  $("rp-play").textContent = "Play";
}

function toggleAutoplay() {
  if (ui.playTimer) { stopAutoplay(); return; }
  if (ui.viewPly === null) enterReplay(0);
  $("rp-play").textContent = "Pause";
  ui.playTimer = setInterval(() => {
    if (ui.viewPly === null) { stopAutoplay(); return; }
    stepReplay(1);
  }, 900);
}

// ------------------------------------------------------------------ review
// The reviewed move judged on the board: the one played from the replayed ply.
function selectedReview() {
  if (!ui.review || ui.viewPly === null || !reviewFits(ui.review, ui.game)) return null;
  return ui.review.moves.get(ui.viewPly) || null;
}

async function startReview() {
  const g = ui.game;
  if (!g) return;
  const session = ui.session;
  $("btn-review").disabled = true;
  try {
    const data = await request("POST", `/api/games/${g.id}/review`);
    if (session !== ui.session) return;
    ui.review = reviewFrom(data);
    if (ui.review.status === "done") toast("Review ready: click a move to see it judged");
    followReview();
  } catch (err) {
    toast(err.message, "error");
  } finally {
    if (session === ui.session) renderChrome();
  }
}

async function stopReview() {
  const g = ui.game;
  if (!g) return;
  try {
    const data = await request("DELETE", `/api/games/${g.id}/review`);
    ui.review = reviewFrom(data);
    renderChrome();
  } catch (err) {
    toast(err.message, "error");
  }
}

let reviewSeq = 0;
async function fetchReview(gameId = null) {
  const id = gameId ?? (ui.game ? ui.game.id : null);
  if (!id) return;
  const session = ui.session;
  const seq = ++reviewSeq;
  try {
    const data = await request("GET", `/api/games/${encodeURIComponent(id)}/review`);
    if (session !== ui.session || seq !== reviewSeq) return;
    ui.review = data.status === "none" ? null : reviewFrom(data);
    if (ui.game) renderChrome(); // else the game's first state draws it
    followReview();
  } catch (err) {
    if (session === ui.session) console.warn("review not loaded", err);
  }
}

// Without a live socket, a running review is followed by asking again.
let reviewPoll = null;
function followReview() {
  clearTimeout(reviewPoll);
  if (ui.review && ui.review.status === "running" && !(ui.conn && ui.conn.live)) {
    reviewPoll = setTimeout(fetchReview, 1500);
  }
}

let reviewFrame = null;
function onReviewEvent(event) {
  const r = ui.review;
  if (!r || r.job !== event.job || event.status === "done") {
    fetchReview(); // a job this page has not seen (another viewer started it), or the end
    return;
  }
  if (event.status === "running") {
    if (event.move) r.moves.set(event.move.ply, event.move);
    r.done = event.done ?? r.done;
    r.total = event.total ?? r.total;
  } else {
    r.status = event.status;
    r.reason = event.reason;
  }
  if (reviewFrame === null) {
    reviewFrame = requestAnimationFrame(() => { reviewFrame = null; if (ui.game) renderChrome(); });
  }
}

function nextMistake(ply) {
  if (!ui.review) return;
  const later = [...ui.review.moves.values()]
    .filter((m) => m.ply > ply && (m.label === "mistake" || m.label === "blunder"))
    .sort((a, b) => a.ply - b.ply);
  if (later.length) enterReplay(later[0].ply);
  else toast("No more mistakes after this move");
}

function playBetterLine(m) {
  const steps = m.line || [];
  if (!steps.length) return;
  const better = m.loss > 0 && m.best_move !== m.move;
  startLine("review", m.ply, steps, better ? `Better line from move ${m.number}` : `Best line from move ${m.number}`);
  stopLinePlay();
  stepLine(1);
  ui.lineTimer = setInterval(() => {
    if (!ui.line || ui.line.index >= ui.line.steps.length) { stopLinePlay(); return; }
    stepLine(1);
  }, 900);
}

// ------------------------------------------------------------------ lines off the game
// A line from the game's position at `ply` (a better line, or a walk in the
// opening explorer), drawn from the server's flips: the page holds no rules.
function startLine(kind, ply, steps, title) {
  const g = ui.game;
  if (!g) return;
  stopAutoplay();
  ui.line = { kind, ply, baseCells: cellsAt(g, ply), steps: steps.slice(), index: 0, title };
  ui.hints = null;
  board.setCells(ui.line.baseCells);
}

function lineCells(line, index) {
  const cells = line.baseCells.split("");
  for (const s of line.steps.slice(0, index)) {
    if (s.move === "pass") continue;
    const c = s.color === "black" ? "X" : "O";
    cells[squareIndex(s.move)] = c;
    for (const f of s.flips) cells[f] = c;
  }
  return cells.join("");
}

async function stepLine(delta) {
  const line = ui.line;
  if (!line) return;
  const to = line.index + delta;
  if (to < 0 || to > line.steps.length) return;
  if (delta === 1) {
    const s = line.steps[line.index];
    line.index = to;
    renderChrome();
    if (s.move !== "pass") {
      board.setMarks({ last: s.move });
      await board.animateMove(squareIndex(s.move), s.color, s.flips, options.anim);
    }
  } else {
    stopLinePlay();
    line.index = to;
    board.setCells(lineCells(line, to));
    renderChrome();
  }
}

function stopLinePlay() {
  if (ui.lineTimer) clearInterval(ui.lineTimer);
  ui.lineTimer = null;
}

// Leave the line: the board shows the game again (replayed or live).
function exitLine(render = true) {
  stopLinePlay();
  if (!ui.line) return;
  ui.line = null;
  const g = ui.game;
  if (g) board.setCells(ui.viewPly !== null ? cellsAt(g, ui.viewPly) : g.board);
  if (render && g) renderChrome();
}

function renderLineBanner() {
  const banner = $("line-banner");
  const line = ui.line;
  banner.hidden = !line;
  if (!line) return;
  const moves = line.steps.map((s, i) => (i < line.index ? `<b>${s.move}</b>` : s.move)).join(" ");
  $("line-text").innerHTML = `${line.title}: ${moves || "…"}`;
  $("line-prev").disabled = line.index === 0;
  $("line-next").disabled = line.index >= line.steps.length;
}

// ------------------------------------------------------------------ opening explorer
// The moves from the start to the position the board shows (a line included).
function shownMoves() {
  const g = ui.game;
  const ply = ui.line ? ui.line.ply : (ui.viewPly ?? g.cursor);
  const moves = g.moves.slice(0, ply).map((m) => m.move);
  if (ui.line) moves.push(...ui.line.steps.slice(0, ui.line.index).map((s) => s.move));
  return moves;
}

let exploreTimer = null;
function refreshExplorer() {
  const g = ui.game;
  if (!g) {
    ui.explore.key = null;
    renderExplorer(null, { message: "Start or load a game to explore its opening." });
    return;
  }
  if (g.rules !== "othello") {
    ui.explore.key = null;
    renderExplorer(null, { message: "The opening book knows Othello rules only." });
    return;
  }
  const moves = shownMoves();
  const key = `${g.id}|${g.start}|${moves.join(" ")}`;
  if (key === ui.explore.key) return;
  ui.explore.key = key;
  const seq = ++ui.explore.seq;
  clearTimeout(exploreTimer);
  exploreTimer = setTimeout(async () => {
    try {
      const q = new URLSearchParams({ moves: moves.join(" ") });
      if (g.start !== START_OBF) q.set("start", g.start);
      const data = await request("GET", `/api/explorer?${q}`);
      if (seq !== ui.explore.seq) return;
      ui.explore.data = data;
      renderExplorer(data, { onPick: exploreMove });
    } catch (err) {
      if (seq === ui.explore.seq) renderExplorer(null, { message: err.message });
    }
  }, 100);
}

// A book move picked in the explorer: the walk goes on from the board shown.
function exploreMove(m) {
  const g = ui.game;
  const data = ui.explore.data;
  if (!g || !data || !data.turn) return;
  if (!ui.line) {
    startLine("explore", ui.viewPly ?? g.cursor, [], "Exploring the book");
  } else {
    stopLinePlay();
    ui.line.steps = ui.line.steps.slice(0, ui.line.index); // a new branch from here
    ui.line.kind = "explore";
    ui.line.title = "Exploring the book";
  }
  ui.line.steps.push({ move: m.move, color: data.turn, flips: m.flips });
  stepLine(1);
}

// ------------------------------------------------------------------ learn
let learnSeq = 0;
async function refreshLearn() {
  const g = ui.game;
  if (!g) { learn.message("Start or load a game first."); return; }
  const ply = ui.viewPly ?? g.cursor;
  const seq = ++learnSeq;
  learn.message(`Searching depth ${ui.learnDepth}…`);
  try {
    const query = `depth=${ui.learnDepth}&ply=${ply}&order=${ui.learnOrder}`;
    const trace = await request("GET", `/api/games/${g.id}/learn?${query}`);
    if (seq !== learnSeq) return;
    const cells = cellsAt(g, ply);
    const turn = ply === g.cursor ? g.turn : (g.moves[ply] ? g.moves[ply].color : null);
    learn.show(trace, turn || (cells ? "side" : ""));
  } catch (err) {
    if (seq === learnSeq) learn.message(err.message);
  }
}

// ------------------------------------------------------------------ games
// Leave the shown game: close its connection and put the page back to an
// empty start position with the game's controls off.
function clearGame() {
  if (ui.conn) ui.conn.close();
  ui.conn = null;
  ui.session++;
  stopAutoplay();
  stopLinePlay();
  Object.assign(ui, {
    game: null, latest: null, shown: null, viewPly: null, hints: null, evals: [], seat: null, you: null,
    thinking: null, pending: false, review: null, line: null, explore: { key: null, seq: ui.explore.seq + 1, data: null },
  });
  board.setCells(START_CELLS);
  board.setMarks({});
  for (const color of ["black", "white"]) {
    $(`name-${color}`).textContent = cap(color);
    $(`tag-${color}`).textContent = "";
    $(`count-${color}`).textContent = "2";
    $(`p-${color}`).classList.remove("turn");
  }
  renderMoveList([], 0, 0, () => {});
  renderGraph([], null, () => {});
  $("eval-note").textContent = "black's view, discs";
  for (const id of ["engine-info", "ai-card", "share-card", "export-card", "endscreen", "replay-banner", "line-banner", "review-card"]) $(id).hidden = true;
  refreshExplorer();
  for (const id of GAME_BUTTONS) $(id).disabled = true;
  document.title = "outflank";
  if (!$("learn").hidden) refreshLearn();
}

async function loadGame(id, seat) {
  clearGame();
  ui.seat = seat;
  const session = ui.session;
  try {
    const q = seat ? `?seat=${encodeURIComponent(seat)}` : "";
    const state = await request("GET", `/api/games/${encodeURIComponent(id)}${q}`);
    if (session !== ui.session) return; // another game was opened meanwhile
    ui.you = state.you;
    if (seat && !state.you) toast("This link's seat is not valid: watching only", "error");
    if (seat && state.you) localStorage.setItem(`outflank.mine.${id}`, seat);
    board.setCells(state.board);
    onEvent({ type: "state", you: state.you, state });
    $("offline").hidden = true;
    ui.conn = new GameConnection(id, seat, onEvent);
    fetchReview(id); // a review stored with the game shows at once
  } catch (err) {
    if (session !== ui.session) return;
    const why = err instanceof ApiError && err.status === 404 ? `There is no game ${id} here.` : err.message;
    $("status").textContent = why;
    openNewGame(`${why} Start a new one:`);
  }
}

function route() {
  const match = location.pathname.match(/^\/game\/([^/]+)/);
  if (match) {
    const seat = new URLSearchParams(location.search).get("seat");
    loadGame(decodeURIComponent(match[1]), seat);
  } else {
    clearGame();
    $("status").textContent = "Start a new game";
    openNewGame();
  }
}

// ------------------------------------------------------------------ new game dialog
function openNewGame(message = "") {
  const dlg = $("newgame");
  $("ng-error").textContent = message;
  $("ng-error").hidden = !message;
  if (!dlg.open) dlg.showModal();
  showRecent();
}

// Recent games, with this browser's seat when it created or joined them;
// "Older games" pages back through the rest.
const RECENT_PAGE = 8;
let recentOffset = 0;

let recentBusy = false;

async function showRecent(older = false) {
  if (older && recentBusy) return; // one page at a time: a double click asks once
  recentBusy = true;
  try {
    const offset = older ? recentOffset + RECENT_PAGE : 0;
    const { games } = await request("GET", `/api/games?limit=${RECENT_PAGE + 1}&offset=${offset}`);
    recentOffset = offset;
    const list = $("recent-list");
    if (!older) list.innerHTML = "";
    for (const g of games.slice(0, RECENT_PAGE)) {
      const mine = localStorage.getItem(`outflank.mine.${g.id}`);
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/game/${g.id}` + (mine ? `?seat=${mine}` : "");
      const names = document.createElement("span");
      names.textContent = `${g.black} vs ${g.white}`;
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = `${g.plies} ${g.plies === 1 ? "move" : "moves"} · ${g.status === "over" ? g.result : mine ? "your game" : "watch"}`;
      a.append(names, meta);
      li.append(a);
      list.append(li);
    }
    $("recent-more").hidden = games.length <= RECENT_PAGE;
    $("recent").hidden = list.children.length === 0;
  } catch {
    if (!older) $("recent").hidden = true;
  } finally {
    recentBusy = false;
  }
}

function buildRegionSliders() {
  const box = document.querySelector('.ng-extra[data-for="regions"]');
  box.innerHTML = "";
  const rows = [["Corners", "corner", -50, 50, 30], ["Edges", "edge", -50, 50, 5],
    ["X-squares", "x_square", -50, 50, -20], ["Look-ahead", "lookahead", 2, 10, 4]];
  for (const [label, name, min, max, value] of rows) {
    const row = document.createElement("label");
    row.className = "slider";
    row.innerHTML = `<span>${label}</span><input type="range" name="${name}" min="${min}" max="${max}" value="${value}"><output>${value}</output>`;
    const input = row.querySelector("input");
    input.addEventListener("input", () => { row.querySelector("output").textContent = input.value; });
    box.appendChild(row);
  }
}

function opponentSpec(form) {
  const kind = form.opponent.value;
  if (kind === "human") return { kind: "human" };
  const spec = { kind: "ai", ai: kind };
  if (kind === "level") spec.level = Number(form.level.value);
  if (kind === "regions") {
    for (const name of ["corner", "edge", "x_square", "lookahead"]) spec[name] = Number(form[name].value);
  }
  return spec;
}

async function startGame(ev) {
  ev.preventDefault();
  const form = $("newgame-form");
  if (ev.submitter && ev.submitter.value === "cancel") { $("newgame").close(); return; }
  const color = form.color.value;
  const opponent = opponentSpec(form);
  const body = { rules: form.rules.value };
  if (color === "watch") {
    const level = Number($("ng-level").defaultValue);
    body.black = opponent.kind === "human" ? { kind: "ai", ai: "level", level } : opponent;
    body.white = body.black;
  } else {
    body[color] = { kind: "human" };
    body[color === "black" ? "white" : "black"] = opponent;
  }
  const start = form.start.value.trim();
  if (start) body.start = start;
  $("ng-start").disabled = true;
  try {
    const created = await request("POST", "/api/games", body);
    const id = created.game.id;
    seatsStore(id, created.seats);
    const mine = color === "watch" ? created.seats.black : created.seats[color];
    history.pushState({}, "", `/game/${id}?seat=${mine}`);
    $("newgame").close();
    ui.endDismissed = null;
    await loadGame(id, mine);
  } catch (err) {
    $("ng-error").textContent = err.message;
    $("ng-error").hidden = false;
  } finally {
    $("ng-start").disabled = false;
  }
}

// ------------------------------------------------------------------ wiring
function wire() {
  for (const id of ["opt-anim", "opt-legal"]) {
    const box = $(id);
    const saved = localStorage.getItem(`outflank.${id}`);
    if (saved !== null) box.checked = saved === "1";
    box.addEventListener("change", () => {
      localStorage.setItem(`outflank.${id}`, box.checked ? "1" : "0");
      renderMarks();
    });
  }
  $("btn-new").addEventListener("click", () => openNewGame());
  $("recent-more").addEventListener("click", () => showRecent(true));
  $("end-new").addEventListener("click", () => openNewGame());
  $("end-replay").addEventListener("click", () => enterReplay(0));
  $("end-close").addEventListener("click", () => {
    ui.endDismissed = `${ui.game.id}:${ui.game.version}`;
    renderChrome();
  });
  $("btn-undo").addEventListener("click", () => act("undo"));
  $("btn-redo").addEventListener("click", () => act("redo"));
  $("btn-hint").addEventListener("click", showHints);
  $("btn-review").addEventListener("click", startReview);
  $("end-review").addEventListener("click", () => {
    ui.endDismissed = `${ui.game.id}:${ui.game.version}`;
    startReview();
  });
  $("review-stop").addEventListener("click", stopReview);
  $("line-prev").addEventListener("click", () => stepLine(-1));
  $("line-next").addEventListener("click", () => stepLine(1));
  $("line-exit").addEventListener("click", () => exitLine());
  $("rp-first").addEventListener("click", () => enterReplay(0));
  $("rp-prev").addEventListener("click", () => stepReplay(-1));
  $("rp-next").addEventListener("click", () => stepReplay(1));
  $("rp-last").addEventListener("click", leaveReplay);
  $("rp-play").addEventListener("click", toggleAutoplay);
  $("btn-learn").addEventListener("click", () => {
    const panel = $("learn");
    panel.hidden = !panel.hidden;
    $("btn-learn").setAttribute("aria-pressed", String(!panel.hidden));
    if (!panel.hidden) {
      refreshLearn();
      panel.scrollIntoView({ behavior: "smooth" });
    }
  });
  $("learn-order").addEventListener("change", (e) => {
    ui.learnOrder = e.target.value;
    refreshLearn();
  });
  document.querySelectorAll(".depths button").forEach((b) => {
    b.addEventListener("click", () => {
      ui.learnDepth = Number(b.dataset.depth);
      document.querySelectorAll(".depths button").forEach((x) => x.classList.toggle("on", x === b));
      refreshLearn();
    });
  });
  const sel = $("ng-opponent");
  const syncExtra = () => {
    document.querySelectorAll(".ng-extra").forEach((x) => { x.hidden = x.dataset.for !== sel.value; });
  };
  sel.addEventListener("change", syncExtra);
  syncExtra();
  $("ng-level").addEventListener("input", () => { $("ng-level-out").textContent = $("ng-level").value; });
  buildRegionSliders();
  $("newgame-form").addEventListener("submit", startGame);
  const aiCard = $("ai-card");
  aiCard.addEventListener("pointerdown", () => { ui.settingsFocus = true; });
  aiCard.addEventListener("pointerup", () => { setTimeout(() => { ui.settingsFocus = false; }, 300); });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || $("newgame").open) return;
    if (ev.key === "ArrowLeft") stepReplay(-1);
    else if (ev.key === "ArrowRight") stepReplay(1);
    else if (ev.key === "Escape") { if (ui.line) exitLine(); else leaveReplay(); }
  });
  window.addEventListener("popstate", route);
}

// The level slider's range and default come from the server (GET /api/info);
// the page's own values only stand in until they arrive.
async function loadLevels() {
  try {
    const { levels, threads } = await request("GET", "/api/info");
    if (threads) {
      // how the server searches: threads per search (outflank serve --threads)
      const n = threads.per_search;
      $("ng-threads").textContent = `The engine thinks on ${n} thread${n === 1 ? "" : "s"} per move.`;
      $("ng-threads").hidden = false;
    }
    const slider = $("ng-level");
    slider.min = String(levels.min);
    slider.max = String(levels.max);
    slider.defaultValue = String(levels.default); // moves the value too unless the user has
    $("ng-level-out").textContent = slider.value;
    Object.assign(levelRange, { min: levels.min, max: levels.max });
  } catch (err) {
    console.warn("level scale not loaded; the page's defaults stay", err);
  }
}

wire();
loadLevels();
route();
