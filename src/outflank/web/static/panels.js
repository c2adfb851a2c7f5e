// Side panels: players, move list, evaluation graph, AI settings, share links.

const NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

function svgEl(tag, attrs, parent) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  parent.appendChild(node);
  return node;
}

export function renderPlayers(state, you, counts, turn, thinkingColor) {
  for (const color of ["black", "white"]) {
    const p = state.players[color];
    $(`name-${color}`).textContent = p.name;
    const tags = [];
    if (you === color && p.kind === "human") tags.push("you");
    if (p.kind === "human" && you !== color) tags.push("human");
    if (p.kind === "ai") tags.push("computer");
    if (thinkingColor === color) tags.push("thinking…");
    $(`tag-${color}`).textContent = tags.join(" · ");
    $(`count-${color}`).textContent = counts[color];
    $(`p-${color}`).classList.toggle("turn", turn === color);
  }
}

// `review`: {labels: Map ply -> {label, title}, selected: ply or null}, to
// colour the moves by their review's label.
export function renderMoveList(moves, cursor, viewPly, onPick, review = null) {
  const list = $("movelist");
  // items that still show the same move are kept (a click in progress on one
  // survives a new state); only changed or new ones are made
  while (list.children.length > moves.length) list.lastChild.remove();
  moves.forEach((m, i) => {
    let li = list.children[i];
    const identity = `${m.color} ${m.move}`;
    if (!li || li.dataset.move !== identity) {
      const fresh = document.createElement("li");
      fresh.dataset.ply = i + 1;
      fresh.dataset.move = identity;
      if (m.move === "pass") fresh.classList.add("pass");
      fresh.innerHTML = `<span class="n">${i + 1}</span><span class="d ${m.color}"></span>${m.move}`;
      if (li) li.replaceWith(fresh);
      else list.appendChild(fresh);
      li = fresh;
    }
    li.classList.toggle("future", i >= cursor);
    const judged = review && review.labels.get(i);
    for (const cls of [...li.classList]) if (cls.startsWith("lab-")) li.classList.remove(cls);
    if (judged) li.classList.add(`lab-${judged.label}`);
    li.dataset.label = judged ? judged.label : "";
    const selected = review && review.selected !== null;
    li.classList.toggle("current", selected ? review.selected === i : i + 1 === viewPly);
    li.title = judged ? judged.title
      : `${m.color} ${m.move}${m.by === "ai" && m.score !== null ? ` (AI score ${m.score}, depth ${m.depth})` : ""}`;
    li.onclick = () => onPick(i + 1);
  });
  const current = list.querySelector(".current");
  if (current) {
    // scroll the list only, never the page
    const top = current.offsetTop; // the list is the offset parent
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  }
  $("moves-note").textContent = moves.length ? `${cursor} played${moves.length > cursor ? `, ${moves.length - cursor} to redo` : ""}` : "";
}

export function renderOpening(name) {
  // the named opening the game is in ("Tiger"), as the game goes
  const el = $("opening");
  el.textContent = name ? `Opening: ${name}` : "";
  el.hidden = !name;
}

// The evaluation graph of black's view, one value a ply (null: not known
// yet). `extra.exactFrom`: the ply from which the values are exact (shaded);
// `extra.marks`: [{ply, label}] dots for the mistakes a review found.
export function renderGraph(values, viewPly, onPick, extra = {}) {
  const svg = $("graph");
  svg.innerHTML = "";
  const W = 320;
  const H = 110;
  const known = values.filter((v) => v !== null && v !== undefined);
  const n = Math.max(values.length - 1, 1);
  const cap = Math.max(8, ...known.map((v) => Math.min(64, Math.abs(v))));
  const span = Math.max(n, 60);
  const x = (i) => (i / span) * W;
  const y = (v) => H / 2 - (Math.max(-cap, Math.min(cap, v)) / cap) * (H / 2 - 6);
  if (extra.exactFrom !== null && extra.exactFrom !== undefined && values.length) {
    const from = x(extra.exactFrom);
    svgEl("rect", { class: "exact-band", x: from, y: 0, width: Math.max(0, x(values.length - 1) - from), height: H }, svg);
    const label = svgEl("text", { class: "exact-label", x: Math.min(from + 3, W - 30), y: 10 }, svg);
    label.textContent = "exact";
  }
  svgEl("line", { class: "zero", x1: 0, x2: W, y1: H / 2, y2: H / 2 }, svg);
  const defs = svgEl("defs", {}, svg);
  svgEl("path", { d: `M0,0 H${W} V${H / 2} H0 Z` }, svgEl("clipPath", { id: "g-pos" }, defs));
  svgEl("path", { d: `M0,${H / 2} H${W} V${H} H0 Z` }, svgEl("clipPath", { id: "g-neg" }, defs));
  // each run of known values: its area and its line
  let run = [];
  const flush = () => {
    if (run.length) {
      const pts = run.map(([i, v]) => `${x(i)},${y(v)}`).join(" ");
      const area = `${x(run[0][0])},${H / 2} ${pts} ${x(run[run.length - 1][0])},${H / 2}`;
      svgEl("polygon", { class: "area-pos", points: area, "clip-path": "url(#g-pos)" }, svg);
      svgEl("polygon", { class: "area-neg", points: area, "clip-path": "url(#g-neg)" }, svg);
      svgEl("polyline", { class: "line", points: pts }, svg);
    }
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null || v === undefined) flush();
    else run.push([i, v]);
  });
  flush();
  for (const mark of extra.marks || []) {
    const v = values[mark.ply];
    if (v === null || v === undefined) continue;
    svgEl("circle", { class: `mark lab-${mark.label}`, cx: x(mark.ply), cy: y(v), r: 3.2, "data-ply": mark.ply }, svg);
  }
  if (values.length && viewPly !== null && viewPly < values.length) {
    svgEl("line", { class: "cursor", x1: x(viewPly), x2: x(viewPly), y1: 0, y2: H }, svg);
  }
  svg.onclick = (ev) => {
    if (!values.length) return;
    const rect = svg.getBoundingClientRect();
    const ply = Math.round(((ev.clientX - rect.left) / rect.width) * span);
    onPick(Math.max(0, Math.min(values.length - 1, ply)));
  };
}

function slider(parent, label, name, min, max, value, onChange, key = name) {
  const row = document.createElement("label");
  row.className = "slider";
  row.innerHTML = `<span>${label}</span><input type="range" min="${min}" max="${max}" value="${value}" name="${name}"><output>${value}</output>`;
  const input = row.querySelector("input");
  input.dataset.key = key;
  const out = row.querySelector("output");
  input.addEventListener("input", () => { out.textContent = input.value; });
  input.addEventListener("change", () => onChange(name, Number(input.value)));
  parent.appendChild(row);
  return row;
}

// The engine's level scale; the page sets it from GET /api/info.
export const levelRange = { min: 1, max: 20 };

// Region sliders (seed 004) or the level of each AI seat; `onChange(color, spec)`.
export function renderAISettings(state, you, onChange, focused) {
  const card = $("ai-card");
  const box = $("ai-settings");
  const ais = ["black", "white"].filter((c) => state.players[c].kind === "ai");
  card.hidden = !you || !ais.length;
  if (card.hidden || focused) return;
  // a slider moved from the keyboard keeps the focus across the redraw
  const active = box.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  box.innerHTML = "";
  for (const color of ais) {
    const spec = { ...state.players[color] };
    delete spec.name;
    const seat = document.createElement("div");
    seat.className = "ai-seat";
    seat.textContent = `${color}: ${state.players[color].name}`;
    box.appendChild(seat);
    // every slider of the seat as the page shows it: a change sent before the
    // state of the previous one came back must not undo that previous one
    const update = (name, value) => {
      const next = { ...spec };
      for (const input of box.querySelectorAll(`input[data-key^="${color}:"]`)) {
        next[input.name] = Number(input.value);
      }
      onChange(color, { ...next, [name]: value });
    };
    const add = (label, name, min, max) =>
      slider(box, label, name, min, max, spec[name], update, `${color}:${name}`);
    if (spec.ai === "regions") {
      add("Corners", "corner", -50, 50);
      add("Edges", "edge", -50, 50);
      add("X-squares", "x_square", -50, 50);
      add("Look-ahead", "lookahead", 2, 10);
    } else if (spec.ai === "level") {
      add("Level", "level", levelRange.min, levelRange.max);
    } else {
      const note = document.createElement("div");
      note.className = "muted";
      note.style.fontSize = "13px";
      note.textContent = "fixed settings (as in its seed)";
      box.appendChild(note);
    }
  }
  if (active) box.querySelector(`input[data-key="${active}"]`)?.focus();
}

export function renderShare(state, you, seats) {
  const card = $("share-card");
  const box = $("share");
  const base = `${location.origin}/game/${state.id}`;
  const links = [];
  if (seats) {
    for (const color of ["black", "white"]) {
      if (color !== you && state.players[color].kind === "human" && seats[color]) {
        links.push([`Invite (${color})`, `${base}?seat=${seats[color]}`, `invite-${color}`]);
      }
    }
  }
  links.push(["Spectators", base, "spectate"]);
  card.hidden = false;
  const key = JSON.stringify(links);
  if (box.dataset.links === key) return; // unchanged: its buttons (and "Copied") stay
  box.dataset.links = key;
  box.innerHTML = "";
  for (const [label, url, id] of links) {
    const row = document.createElement("div");
    row.className = "link";
    row.innerHTML = `<span>${label}</span><input readonly id="link-${id}" value="${url}"><button>Copy</button>`;
    row.querySelector("button").addEventListener("click", async () => {
      const input = row.querySelector("input");
      input.select();
      try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand("copy"); }
      row.querySelector("button").textContent = "Copied";
    });
    box.appendChild(row);
  }
}
