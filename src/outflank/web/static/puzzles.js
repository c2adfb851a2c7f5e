// The Puzzles page: a position, your move, right or wrong with the
// refutation, then the solution line played out. The server judges; this
// page only draws what it says. The browser keeps its solver secret in
// localStorage; the rating and streak live on the server.

import { BoardView, squareIndex } from "./board.js";
import { ApiError, request } from "./api.js";

const KEY = "outflank-puzzle-solver";
// between the moves of a line played out (a browser may keep another pace)
const STEP_MS = Number(localStorage.getItem("outflank-puzzle-step")) || 550;

const $ = (id) => document.getElementById(id);
const board = new BoardView($("board"), onSquare);
const state = {
  solver: null, // the secret
  puzzle: null, // the puzzle shown (no solution)
  verdict: null, // the server's answer, once given
  busy: false,
  run: 0, // bumped to stop a line being played out
  game: null, // a game whose review's puzzles are set first (?game=ID)
  queue: [], // that game's puzzles not shown yet
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const signed = (v) => (v > 0 ? `+${v}` : `${v}`);
const side = (color) => color[0].toUpperCase() + color.slice(1);

function setStatus(html) {
  $("status").innerHTML = html;
}

function showSolver(s, change = null) {
  $("pz-rating").textContent = s.rating;
  // provisional while the deviation is wide (a new solver: few puzzles yet)
  $("pz-provisional").hidden = s.rd <= 110;
  $("pz-rating").title = `rating deviation ${s.rd}`;
  $("pz-streak").textContent = s.streak;
  $("pz-best").textContent = s.best_streak;
  $("pz-solved").textContent = s.solved;
  $("pz-failed").textContent = s.failed;
  const c = $("pz-change");
  c.textContent = change === null || change === 0 ? "" : signed(change);
  c.className = "pz-change" + (change > 0 ? " up" : change < 0 ? " down" : "");
}

async function ensureSolver() {
  const saved = localStorage.getItem(KEY);
  if (saved) {
    try {
      showSolver(await request("GET", `/api/puzzles/solvers/${encodeURIComponent(saved)}`));
      state.solver = saved;
      return;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
    }
  }
  const made = await request("POST", "/api/puzzles/solvers");
  localStorage.setItem(KEY, made.solver);
  state.solver = made.solver;
  showSolver(made);
}

function task(p) {
  return `<span class="dot ${p.turn}"></span>${side(p.turn)} to move and ${p.goal}: ` +
    `find the only move that keeps the ${p.goal}`;
}

function showPuzzle(p) {
  state.run++;
  state.puzzle = p;
  state.verdict = null;
  board.setCells(p.cells);
  board.setMarks({ legal: p.legal, turn: p.turn, playable: true });
  setStatus(task(p));
  $("pz-id").textContent = p.id;
  $("pz-about").innerHTML =
    `<div>${p.grade_name} (grade ${p.grade} of 5), rated <b>${p.rating}</b></div>` +
    `<div class="muted">${p.empties} empty squares · <a href="/puzzles/${p.id}">link</a></div>`;
  if (p.game) {
    const from = document.createElement("div");
    from.className = "pz-from";
    from.append("From ");
    const a = document.createElement("a");
    a.href = `/game/${encodeURIComponent(p.game)}`;
    a.textContent = "your game";
    from.append(a, `: ${p.source.replace(/^your game, /, "")}`);
    $("pz-about").append(from);
  }
  if (state.game) {
    $("pz-game-left").textContent = state.queue.length
      ? `${state.queue.length} more from your game`
      : "the last from your game";
  }
  $("pz-result-card").hidden = true;
  $("pz-line").disabled = true;
  $("pz-retry").disabled = true;
  const query = state.game ? `?game=${encodeURIComponent(state.game)}` : "";
  history.replaceState(null, "", `/puzzles/${p.id}${query}`);
}

async function loadNext(id = null) {
  if (!id && state.queue.length) {
    showPuzzle(state.queue.shift()); // your game's puzzles first
    return;
  }
  if (!id && state.game) {
    state.game = null; // they are done: puzzles near your rating from now on
    $("pz-game-left").textContent = "";
  }
  state.busy = true;
  try {
    const p = id
      ? await request("GET", `/api/puzzles/${encodeURIComponent(id)}`)
      : await request("GET", `/api/puzzles/next?solver=${encodeURIComponent(state.solver)}`);
    showPuzzle(p);
  } catch (err) {
    setStatus(`<span class="pz-wrong">${err.message}</span>`);
    if (id) history.replaceState(null, "", "/puzzles");
  } finally {
    state.busy = false;
  }
}

async function onSquare(name) {
  const p = state.puzzle;
  if (!p || state.verdict || state.busy || !p.legal.includes(name)) return;
  state.busy = true;
  try {
    const v = await request("POST", `/api/puzzles/${encodeURIComponent(p.id)}/answer`,
      { solver: state.solver, move: name });
    state.verdict = v;
    showVerdict(v);
    showSolver(v.solver, v.change);
    await playOut(v.played, v.correct ? v.played.length : 2);
  } catch (err) {
    setStatus(`<span class="pz-wrong">${err.message}</span>`);
  } finally {
    state.busy = false;
  }
}

function lineText(frames) {
  return frames.map((f) => `${f.color === "black" ? "●" : "○"} ${f.move}`).join("  ");
}

function showVerdict(v) {
  const p = state.puzzle;
  const rated = v.rated ? "" : " (answered before: not rated)";
  if (v.correct) {
    setStatus(`<span class="pz-right">Right! ${v.move} keeps the ${p.goal} ` +
      `(${signed(v.best)})</span>${rated}`);
    $("pz-verdict").textContent = `Right: ${v.move} is the only move that keeps the ${p.goal}.`;
    $("pz-verdict").className = "pz-verdict right";
    $("pz-refutation").hidden = true;
  } else {
    const reply = v.played[1];
    setStatus(`<span class="pz-wrong">Wrong: ${v.move} ends ${signed(v.score)}` +
      (reply ? `, refuted by ${reply.move}` : "") + `</span>${rated}`);
    $("pz-verdict").textContent =
      `Wrong: ${v.move} ends ${signed(v.score)}; ${v.solution} keeps the ${p.goal} (${signed(v.best)}).`;
    $("pz-verdict").className = "pz-verdict wrong";
    const refutation = $("pz-refutation");
    refutation.textContent = `The refutation: ${lineText(v.played)}`;
    refutation.hidden = false;
  }
  const scores = $("pz-scores");
  scores.innerHTML = "";
  for (const [move, score] of Object.entries(v.scores)) {
    const li = document.createElement("li");
    li.textContent = `${move} ${signed(score)}`;
    li.dataset.move = move;
    if (move === v.solution) li.classList.add("best");
    if (move === v.move) li.classList.add("mine");
    scores.appendChild(li);
  }
  const moves = $("pz-moves");
  moves.innerHTML = "";
  v.line.forEach((f, i) => {
    const li = document.createElement("li");
    li.innerHTML = `<span class="n">${i + 1}</span><span class="d ${f.color}"></span>${f.move}`;
    li.dataset.ply = i + 1;
    if (f.move === "pass") li.classList.add("pass");
    li.addEventListener("click", () => showFrame(v.line, i));
    moves.appendChild(li);
  });
  $("pz-result-card").hidden = false;
  $("pz-line").disabled = false;
  $("pz-retry").disabled = false;
}

// The position after frame i of a line.
function showFrame(frames, i) {
  state.run++;
  board.setCells(frames[i].cells);
  board.setMarks({ last: frames[i].move });
  markPly(frames === state.verdict?.line ? i : -1);
}

function markPly(i) {
  for (const li of $("pz-moves").children) li.classList.toggle("current", Number(li.dataset.ply) === i + 1);
}

// Play frames out on the board from the puzzle's position, one move at a time.
async function playOut(frames, count = frames.length) {
  const run = ++state.run;
  const p = state.puzzle;
  board.setCells(p.cells);
  board.setMarks({});
  for (let i = 0; i < Math.min(count, frames.length); i++) {
    await sleep(i === 0 ? 150 : STEP_MS);
    if (run !== state.run) return;
    const before = board.cells;
    const f = frames[i];
    if (f.move !== "pass") {
      const square = squareIndex(f.move);
      const flips = [];
      for (let sq = 0; sq < 64; sq++) {
        if (sq !== square && before[sq] !== "-" && before[sq] !== f.cells[sq]) flips.push(sq);
      }
      await board.animateMove(square, f.color, flips, STEP_MS >= 200);
      if (run !== state.run) return;
    }
    board.setCells(f.cells);
    board.setMarks({ last: f.move });
    if (frames === state.verdict?.line) markPly(i);
  }
  if (run === state.run) board.svg.dataset.shown = `${frames === state.verdict?.line ? "line" : "played"}:${count}`;
}

$("pz-next").addEventListener("click", () => {
  if (!state.busy) loadNext();
});
$("pz-line").addEventListener("click", () => {
  if (state.verdict) playOut(state.verdict.line);
});
$("pz-retry").addEventListener("click", () => {
  if (state.verdict && !state.busy) showPuzzle(state.puzzle); // answers from now on are not rated
});

async function start() {
  try {
    await ensureSolver();
  } catch (err) {
    setStatus(`<span class="pz-wrong">${err.message}</span>`);
    return;
  }
  const match = location.pathname.match(/^\/puzzles\/([^/]+)$/);
  const id = match ? decodeURIComponent(match[1]) : null;
  const game = new URLSearchParams(location.search).get("game");
  if (game && !(await loadGame(game, id))) return;
  await loadNext(id);
}

// A game's puzzles (found by its review at its mistakes), set before the others.
async function loadGame(game, id) {
  try {
    const found = await request("GET", `/api/games/${encodeURIComponent(game)}/puzzles`);
    state.game = game;
    state.queue = found.puzzles;
    if (id) state.queue = state.queue.filter((p) => p.id !== id);
    if (!found.puzzles.length) {
      state.game = null;
      $("pz-game-left").textContent =
        "The review of this game found no puzzle at its mistakes (or it has not been reviewed): here are puzzles near your rating.";
    }
    return true;
  } catch (err) {
    setStatus(`<span class="pz-wrong">${err.message}</span>`);
    history.replaceState(null, "", "/puzzles");
    return false;
  }
}

start();
