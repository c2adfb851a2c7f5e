// The SVG board: squares, coordinates, discs, markers and the flip animation.
// It holds no rules: it draws what the server says (cells, legal moves, flips).

const NS = "http://www.w3.org/2000/svg";
const M = 30; // frame margin
const C = 60; // cell size
const FILES = "abcdefgh";

export const squareName = (sq) => FILES[sq % 8] + (Math.floor(sq / 8) + 1);
export const squareIndex = (name) => FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1);

// A hint's score as the board and the status line show it: whole discs when
// exact or large, else one decimal; an upper bound (a move worse than the best
// by more than the analysis window) as "at most", rounded up.
const signed = (v) => (v > 0 ? "+" : "") + v;
export const hintScore = (v, exact, upper = false) =>
  upper ? "\u2264" + signed(Math.ceil(v)) : signed(Math.abs(v) >= 10 || exact ? Math.round(v) : v.toFixed(1));

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

const center = (sq) => [M + (sq % 8) * C + C / 2, M + Math.floor(sq / 8) * C + C / 2];
const fillOf = (cell) => (cell === "X" ? "url(#disc-black)" : "url(#disc-white)");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class BoardView {
  constructor(svg, onSquare) {
    this.svg = svg;
    this.onSquare = onSquare;
    this.cells = "-".repeat(64);
    this.discs = new Array(64).fill(null);
    this.epoch = 0; // bumped by every redraw: animations still running stop writing
    this.build();
  }

  build() {
    const svg = this.svg;
    svg.innerHTML = "";
    const defs = el("defs", {}, svg);
    const felt = el("radialGradient", { id: "felt", cx: "50%", cy: "40%", r: "75%" }, defs);
    el("stop", { offset: "0%", "stop-color": "#23925c" }, felt);
    el("stop", { offset: "100%", "stop-color": "#17704a" }, felt);
    const b = el("radialGradient", { id: "disc-black", cx: "38%", cy: "32%", r: "70%" }, defs);
    el("stop", { offset: "0%", "stop-color": "#5a5a5a" }, b);
    el("stop", { offset: "55%", "stop-color": "#161616" }, b);
    el("stop", { offset: "100%", "stop-color": "#000" }, b);
    const w = el("radialGradient", { id: "disc-white", cx: "38%", cy: "32%", r: "75%" }, defs);
    el("stop", { offset: "0%", "stop-color": "#ffffff" }, w);
    el("stop", { offset: "60%", "stop-color": "#ececec" }, w);
    el("stop", { offset: "100%", "stop-color": "#bdbdbd" }, w);
    const shadow = el("filter", { id: "disc-shadow", x: "-30%", y: "-30%", width: "160%", height: "160%" }, defs);
    el("feDropShadow", { dx: "0", dy: "2.5", stdDeviation: "2", "flood-color": "#000", "flood-opacity": ".45" }, shadow);

    el("rect", { class: "frame", x: 0, y: 0, width: 540, height: 540, rx: 14 }, svg);
    el("rect", { class: "frame-inner", x: 8, y: 8, width: 524, height: 524, rx: 10 }, svg);
    for (let i = 0; i < 8; i++) {
      const pos = M + i * C + C / 2;
      for (const [x, y, t] of [[pos, 15, FILES[i]], [pos, 525, FILES[i]], [15, pos, i + 1], [525, pos, i + 1]]) {
        const text = el("text", { class: "coord", x, y }, svg);
        text.textContent = t;
      }
    }
    this.cellNodes = [];
    for (let sq = 0; sq < 64; sq++) {
      const cell = el("rect", {
        class: "cell", x: M + (sq % 8) * C, y: M + Math.floor(sq / 8) * C, width: C, height: C,
        "data-square": squareName(sq), role: "gridcell", "aria-label": squareName(sq),
      }, svg);
      cell.addEventListener("click", () => this.onSquare(squareName(sq)));
      cell.addEventListener("keydown", (event) => { // playable squares take Tab, Enter, Space
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          this.onSquare(squareName(sq));
        }
      });
      this.cellNodes.push(cell);
    }
    for (const [cx, cy] of [[2, 2], [6, 2], [2, 6], [6, 6]]) {
      el("circle", { class: "star", cx: M + cx * C, cy: M + cy * C, r: 4 }, svg);
    }
    this.markLayer = el("g", {}, svg);
    this.discLayer = el("g", { filter: "url(#disc-shadow)" }, svg);
    this.topLayer = el("g", {}, svg);
    this.discs = new Array(64).fill(null);
    this.cells = "-".repeat(64);
  }

  setDisc(sq, cell) {
    let disc = this.discs[sq];
    if (cell === "-") {
      if (disc) { disc.remove(); this.discs[sq] = null; }
      return;
    }
    if (!disc) {
      const [cx, cy] = center(sq);
      disc = el("circle", { class: "disc", cx, cy, r: 24.5, "data-square": squareName(sq) }, this.discLayer);
      this.discs[sq] = disc;
    }
    disc.setAttribute("fill", fillOf(cell));
    disc.dataset.color = cell === "X" ? "black" : "white";
  }

  // Draw a position at once (and cut short any animation still running).
  setCells(cells) {
    this.epoch++;
    for (let sq = 0; sq < 64; sq++) this.setDisc(sq, cells[sq]);
    this.cells = cells;
  }

  // Markers: legal moves for the side to move, the last move, hint scores,
  // and a reviewed move: the move played (ringed in its label's colour) and
  // the better one (a green ring).
  setMarks({ legal = [], turn = null, playable = false, last = null, hints = null, review = null }) {
    this.markLayer.innerHTML = "";
    this.topLayer.innerHTML = "";
    const legalSet = new Set(legal);
    this.cellNodes.forEach((node, sq) => {
      const canPlay = playable && legalSet.has(squareName(sq));
      node.classList.toggle("playable", canPlay);
      if (canPlay) node.setAttribute("tabindex", "0");
      else node.removeAttribute("tabindex");
    });
    if (!hints && turn) {
      for (const name of legal) {
        const [cx, cy] = center(squareIndex(name));
        el("circle", { class: `legal ${turn}`, cx, cy, r: 7, "data-legal": name }, this.markLayer);
      }
    }
    if (last && last !== "pass") {
      const [cx, cy] = center(squareIndex(last));
      el("circle", { class: "last-mark", cx, cy, r: 4.5, "data-last": last }, this.topLayer);
    }
    if (review) {
      const ring = (name, cls, data) => {
        if (!name || name === "pass") return;
        const [cx, cy] = center(squareIndex(name));
        el("circle", { class: cls, cx, cy, r: 25, [data]: name }, this.topLayer);
      };
      ring(review.played, `rv-played lab-${review.label}`, "data-played");
      if (review.better !== review.played) ring(review.better, "rv-better", "data-better");
    }
    if (hints) {
      const scores = hints.filter((h) => h.move !== "pass" && h.score !== null);
      const best = Math.max(...scores.map((h) => h.score));
      const worst = Math.min(...scores.map((h) => h.score));
      for (const h of scores) {
        const [cx, cy] = center(squareIndex(h.move));
        const t = best === worst ? 1 : (h.score - worst) / (best - worst);
        const hue = Math.round(0 + 130 * t);
        el("circle", {
          class: "hint-bg", cx, cy, r: 23, fill: `hsla(${hue}, 80%, 45%, ${h.score === best ? 0.95 : 0.7})`,
          stroke: h.score === best ? "#fff" : "none", "stroke-width": 2,
        }, this.markLayer);
        const kind = h.upper ? "hint upper" : "hint"; // a bound: smaller, it says "at most"
        const text = el("text", { class: kind, x: cx, y: cy, fill: "#fff", "data-hint": h.move }, this.topLayer);
        text.textContent = hintScore(h.score, h.exact, h.upper);
      }
    }
  }

  // Animate one move: the new disc appears, then the flipped discs turn.
  async animateMove(square, color, flips, animate) {
    const cell = color === "black" ? "X" : "O";
    const chars = this.cells.split("");
    chars[square] = cell;
    for (const f of flips) chars[f] = cell;
    this.cells = chars.join("");
    this.setDisc(square, cell);
    if (!animate) {
      for (const f of flips) this.setDisc(f, cell);
      return;
    }
    const epoch = this.epoch; // a redraw meanwhile (replay, a new state) has the last word
    const placed = this.discs[square];
    placed.animate([{ transform: "scale(0.2)", opacity: 0.2 }, { transform: "scale(1)", opacity: 1 }],
      { duration: 160, easing: "ease-out" });
    await sleep(120);
    await Promise.all(flips.map(async (f, i) => {
      await sleep(i * 35);
      if (this.epoch !== epoch) return;
      const disc = this.discs[f];
      if (!disc) { this.setDisc(f, cell); return; }
      disc.classList.add("flipping");
      await disc.animate([{ transform: "scaleX(1)" }, { transform: "scaleX(0.04)" }],
        { duration: 130, easing: "ease-in" }).finished.catch(() => {});
      if (this.epoch === epoch) this.setDisc(f, cell);
      await disc.animate([{ transform: "scaleX(0.04)" }, { transform: "scaleX(1)" }],
        { duration: 130, easing: "ease-out" }).finished.catch(() => {});
      disc.classList.remove("flipping");
    }));
  }
}
