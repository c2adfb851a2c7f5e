// The review of a game (GET/POST /api/games/{id}/review and the "review"
// events of its WebSocket): its moves by ply, the graph's values, and the
// review card (progress, each player's accuracy, the key moments, the
// selected move with its better line).

const $ = (id) => document.getElementById(id);
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export const LABELS = ["book", "best", "good", "inaccuracy", "mistake", "blunder"];
const SHOWN_IN_SUMMARY = ["inaccuracy", "mistake", "blunder"];
const PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };

// A value as the review shows it: whole discs when exact, else one decimal.
export const reviewValue = (v, exact) => {
  const text = exact ? String(Math.round(v)) : v.toFixed(1);
  return v > 0 ? `+${text}` : text === "-0.0" ? "0.0" : text;
};

// The review from the server's answer: {job, status, current, reason, done,
// total, start, gameMoves, moves: Map ply -> move review, summary, ...}.
export function reviewFrom(data) {
  const r = data.review || {};
  const moves = new Map();
  for (const m of r.moves || []) moves.set(m.ply, m);
  return {
    job: data.job ?? null,
    status: data.status,
    current: data.current,
    reason: data.reason,
    done: data.done ?? moves.size,
    total: data.total ?? moves.size,
    start: r.start,
    gameMoves: r.game_moves || [],
    moves,
    summary: r.summary || null,
    turning: r.turning_points || [],
    thresholds: r.thresholds || null,
    elapsed: r.elapsed,
    puzzles: r.puzzles || [], // ids of the puzzles found at its mistakes
  };
}

// Does the review cover the game's moves as shown (its moves a prefix of them)?
export function reviewFits(review, game) {
  if (!review || !game || review.start !== game.start) return false;
  const played = game.moves.slice(0, game.cursor);
  return review.gameMoves.length <= played.length && review.gameMoves.every((m, i) => played[i].move === m);
}

// The ply from which every reviewed move's values are exact, or null.
export function exactFrom(review) {
  let first = null;
  const plies = [...review.moves.keys()].sort((a, b) => b - a);
  for (const ply of plies) {
    const m = review.moves.get(ply);
    if (!(m.exact && m.best_exact)) break;
    first = ply;
  }
  return first;
}

// Black's view of the position after each ply (null where not reviewed yet),
// up to `plies` plies.
export function reviewValues(review, plies) {
  const n = Math.min(review.gameMoves.length, plies);
  const values = new Array(n + 1).fill(null);
  for (const [ply, m] of review.moves) {
    if (ply >= n) continue;
    const sign = m.color === "black" ? 1 : -1;
    values[ply + 1] = sign * m.value;
    if (values[ply] === null) values[ply] = sign * m.best_value;
  }
  for (let p = 0; p < n; p++) {
    if (review.gameMoves[p] === "pass" && values[p + 1] === null) values[p + 1] = values[p];
  }
  return values;
}

// Graph dots: the moves labelled inaccuracy or worse, at the ply after them.
export function reviewMarks(review) {
  const marks = [];
  for (const [ply, m] of review.moves) {
    if (SHOWN_IN_SUMMARY.includes(m.label)) marks.push({ ply: ply + 1, label: m.label });
  }
  return marks;
}

// The move list's colours and tooltips: ply -> {label, title}.
export function reviewLabels(review) {
  const labels = new Map();
  for (const [ply, m] of review.moves) {
    let title = `${m.number}. ${m.move} (${m.color}): ${m.label}, ${reviewValue(m.value, m.exact)}`;
    if (m.loss > 0) title += ` (best ${m.best_move} ${reviewValue(m.best_value, m.best_exact)}, lost ${m.loss.toFixed(1)})`;
    labels.set(ply, { label: m.label, title });
  }
  return labels;
}

function chip(label, text = label) {
  const span = document.createElement("span");
  span.className = `rv-label lab-${label}`;
  span.textContent = text;
  return span;
}

// The review card: progress while it runs, then each player's accuracy and
// the key moments (each a link to its move); `onPick(ply)` selects a move.
export function renderReviewCard(review, game, { onPick, fits }) {
  const card = $("review-card");
  card.hidden = !review;
  if (!review) return;
  const running = review.status === "running";
  $("review-progress").hidden = !running;
  $("review-bar").max = Math.max(1, review.total);
  $("review-bar").value = review.done;
  $("review-count").textContent = `${review.done} of ${review.total} moves`;
  const note = $("review-note");
  if (running) note.textContent = "reviewing…";
  else if (review.status === "done") note.textContent = review.elapsed ? `done in ${review.elapsed.toFixed(1)} s` : "done";
  else note.textContent = review.status;
  if (fits && game && review.gameMoves.length < game.cursor) {
    // the game went on after the review: it covers the moves before
    note.textContent += ` · moves 1-${review.gameMoves.length}`;
  }
  const box = $("review-summary");
  box.innerHTML = "";
  if (!fits) {
    const p = document.createElement("p");
    p.className = "muted";
    p.textContent = "This review is of another line of the game (moves were taken back): review again.";
    box.append(p);
    return;
  }
  if (review.status === "stopped" || review.status === "failed") {
    const p = document.createElement("p");
    p.className = "rv-stopped";
    p.textContent = `Stopped: ${review.reason || "the review did not finish"}. Click Review to start again.`;
    box.append(p);
  }
  if (review.summary) {
    for (const color of ["black", "white"]) {
      const s = review.summary[color];
      const row = document.createElement("div");
      row.className = "rv-player";
      row.dataset.color = color;
      const name = game && game.players[color] ? game.players[color].name : cap(color);
      const head = document.createElement("div");
      head.className = "rv-player-head";
      head.innerHTML = `<span class="disc-mini ${color}"></span><b></b>`;
      head.querySelector("b").textContent = name;
      const acc = document.createElement("span");
      acc.className = "rv-accuracy";
      acc.textContent = s.accuracy === null ? "–" : `${s.accuracy.toFixed(1)}`;
      acc.title = "accuracy, 0-100 (docs/review.md)";
      head.append(acc);
      const detail = document.createElement("div");
      detail.className = "rv-counts";
      const loss = s.mean_loss === null ? "" : `mean loss ${s.mean_loss.toFixed(2)} · `;
      detail.append(loss);
      for (const label of SHOWN_IN_SUMMARY) {
        const n = s.counts[label];
        if (n) detail.append(chip(label, `${n} ${n > 1 ? PLURALS[label] : label}`), " ");
      }
      if (!SHOWN_IN_SUMMARY.some((l) => s.counts[l])) detail.append("no inaccuracy");
      row.append(head, detail);
      box.append(row);
    }
  }
  // the key moments: turning points, then mistakes and blunders
  const key = [...review.moves.values()]
    .filter((m) => m.turning_point || m.label === "mistake" || m.label === "blunder")
    .sort((a, b) => a.ply - b.ply);
  if (key.length) {
    const row = document.createElement("div");
    row.className = "rv-moments";
    row.append("Key moments: ");
    for (const m of key) {
      const a = document.createElement("a");
      a.className = `rv-moment lab-${m.label}`;
      a.dataset.ply = m.ply;
      a.textContent = `${m.number}. ${m.move}${m.turning_point ? " ⚑" : ""}`;
      a.title = `${m.label}${m.turning_point ? ", turning point" : ""}`;
      a.onclick = () => onPick(m.ply);
      row.append(a, " ");
    }
    box.append(row);
  }
  // the positions of the mistakes where one move alone kept the result
  if (review.status === "done" && review.puzzles.length && game) {
    const n = review.puzzles.length;
    const a = document.createElement("a");
    a.id = "review-puzzles";
    a.className = "rv-puzzles";
    a.href = `/puzzles?game=${encodeURIComponent(game.id)}`;
    a.textContent = `Solve ${n === 1 ? "the puzzle" : `the ${n} puzzles`} from this game's mistakes ▸`;
    a.title = "positions of this game where one move alone kept the result, and another was played";
    box.append(a);
  }
}

// The selected move: what was played, the better move and its line.
export function renderReviewDetail(m, { onPlayLine, onNext }) {
  const box = $("review-detail");
  box.hidden = !m;
  if (!m) return;
  box.innerHTML = "";
  const head = document.createElement("div");
  head.className = "rv-head";
  head.append(chip(m.label, cap(m.label)), ` ${m.number}. ${m.move} (${m.color})`);
  if (m.turning_point) head.append(" · turning point");
  const values = document.createElement("div");
  values.className = "rv-values";
  const how = m.source === "book" ? "book" : m.best_exact ? "exact" : `depth ${m.depth}`;
  if (m.loss > 0 && m.best_move !== m.move) {
    values.innerHTML = "Played <b class=\"rv-played\"></b> <span></span> · better <b class=\"rv-better\"></b> <span></span> · lost <span></span> discs";
    const [played, better] = values.querySelectorAll("b");
    const [pv, bv, loss] = values.querySelectorAll("span");
    played.textContent = m.move;
    pv.textContent = reviewValue(m.value, m.exact);
    better.textContent = m.best_move;
    bv.textContent = reviewValue(m.best_value, m.best_exact);
    loss.textContent = m.loss.toFixed(1);
  } else {
    values.innerHTML = "Played <b class=\"rv-played\"></b> <span></span>: the best move found";
    values.querySelector("b").textContent = m.move;
    values.querySelector("span").textContent = reviewValue(m.value, m.exact);
  }
  const tag = document.createElement("span");
  tag.className = "rv-how";
  tag.textContent = how;
  values.append(" ", tag);
  box.append(head, values);
  if (m.line && m.line.length && m.loss > 0 && m.best_move !== m.move) {
    const line = document.createElement("div");
    line.className = "rv-line";
    line.textContent = `Better line: ${m.line.map((s) => s.move).join(" ")}`;
    box.append(line);
  }
  const buttons = document.createElement("div");
  buttons.className = "rv-buttons";
  if (m.line && m.line.length) {
    const play = document.createElement("button");
    play.id = "rv-play-line";
    play.textContent = m.loss > 0 && m.best_move !== m.move ? "▶ Play the better line" : "▶ Play the best line";
    play.onclick = () => onPlayLine(m);
    buttons.append(play);
  }
  const next = document.createElement("button");
  next.id = "rv-next";
  next.className = "ghost";
  next.textContent = "Next mistake ▸";
  next.onclick = () => onNext(m.ply);
  buttons.append(next);
  box.append(buttons);
}
