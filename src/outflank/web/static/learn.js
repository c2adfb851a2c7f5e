// Learn mode: draws the teaching alpha-beta tree (outflank.classic) as an SVG tree.
// MAX nodes (side to move) point up, MIN nodes point down; pruned branches are dashed.

const NS = "http://www.w3.org/2000/svg";
const W = 78; // horizontal slot per leaf
const H = 92; // vertical distance between levels
const BOX_W = 70;
const BOX_H = 50;

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function num(v) {
  if (v === null || v === undefined) return null;
  if (v === "Infinity" || v === Infinity) return Infinity;
  if (v === "-Infinity" || v === -Infinity) return -Infinity;
  return Number(v);
}

export function fmt(v) {
  const n = num(v);
  if (n === null || Number.isNaN(n)) return "·";
  if (n === Infinity) return "+∞";
  if (n === -Infinity) return "−∞";
  const r = Math.abs(n) >= 100 ? Math.round(n) : Math.round(n * 10) / 10;
  return (r > 0 ? "+" : "") + r;
}

// One sentence per log order: what the traverse log shows at a cut-off (✂).
export const ORDER_NOTES = {
  "update-first":
    "Log order <b>update-first</b> (seed 002's example): after each child, α (at MAX) or β (at MIN) " +
    "takes its value before the node's log line, so a node that cuts off (✂) is logged with α ≥ β; " +
    "test-first logs it with its old α and β. Same tree, same value.",
  "test-first":
    "Log order <b>test-first</b> (AIMA figure 5.7): after each child the cut-off is tested first, " +
    "so a node that cuts off (✂) is logged with its old α and β; update-first logs the updated " +
    "window (α ≥ β). Same tree, same value.",
};

function count(node) {
  return 1 + (node.children || []).reduce((s, c) => s + count(c), 0);
}

// Mark the principal line: from the root, follow the child the search chose
// (the trace's "best" flag; else the first unpruned child with the parent's value).
function markBest(node) {
  node._best = true;
  const kids = (node.children || []).filter((c) => !c.pruned);
  const best = kids.find((c) => c.best) || kids.find((c) => num(c.value) === num(node.value));
  if (best) markBest(best);
}

function initOpen(node, expandAll, level = 0) {
  node._open = expandAll || level === 0 || (node._best && level < 6);
  (node.children || []).forEach((c) => initOpen(c, expandAll, level + 1));
}

export class LearnView {
  constructor(svg, summary) {
    this.svg = svg;
    this.summary = summary;
    this.tree = null;
  }

  show(trace, turn) {
    this.tree = trace.tree;
    markBest(this.tree);
    initOpen(this.tree, count(this.tree) <= 40);
    const cut = trace.cutoffs ?? "?";
    this.summary.innerHTML =
      `<b>${turn}</b> to move (MAX). Best move <b>${trace.best_move ?? "—"}</b>, ` +
      `value <b>${fmt(trace.value)}</b> · <b>${trace.nodes ?? "?"}</b> nodes searched · ` +
      `<b>${cut}</b> cut-offs · tree of ${count(this.tree)} nodes · ` +
      "every leaf, a finished game too, is scored by seed 002's positional weights from MAX's view " +
      "(not the final disc count).<br>" + (ORDER_NOTES[trace.order] || "");
    this.draw();
    this.centerRoot();
  }

  message(text) {
    this.summary.textContent = text;
    this.svg.innerHTML = "";
    this.svg.setAttribute("width", 0);
    this.svg.setAttribute("height", 0);
  }

  layout(node, level, state) {
    node._level = level;
    const kids = node._open ? node.children || [] : [];
    if (!kids.length) {
      node._x = state.slot++ * W + W / 2;
    } else {
      kids.forEach((c) => this.layout(c, level + 1, state));
      node._x = (kids[0]._x + kids[kids.length - 1]._x) / 2;
    }
    state.depth = Math.max(state.depth, level);
  }

  draw() {
    const svg = this.svg;
    svg.innerHTML = "";
    const state = { slot: 0, depth: 0 };
    this.layout(this.tree, 0, state);
    const width = Math.max(state.slot * W, 300);
    const height = (state.depth + 1) * H + 20;
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const edges = el("g", {}, svg);
    const nodes = el("g", {}, svg);
    const visit = (node) => {
      const y = node._level * H + 14;
      const kids = node._open ? node.children || [] : [];
      for (const c of kids) {
        const cy = c._level * H + 14;
        const cls = c.pruned ? "edge pruned" : c._best && node._best ? "edge best" : "edge";
        el("path", {
          class: cls,
          d: `M${node._x},${y + BOX_H} C${node._x},${y + BOX_H + 24} ${c._x},${cy - 24} ${c._x},${cy}`,
        }, edges);
        visit(c);
      }
      this.drawNode(nodes, node, y);
    };
    visit(this.tree);
  }

  // Scroll the tree's box so that the root is in view.
  centerRoot() {
    const wrap = this.svg.parentElement;
    if (wrap && this.tree) wrap.scrollLeft = Math.max(0, this.tree._x - wrap.clientWidth / 2);
  }

  drawNode(parent, node, y) {
    const isMax = node.maximizing ?? node._level % 2 === 0;
    const hidden = !node._open && (node.children || []).length;
    const cls = ["node", isMax ? "max" : "min"];
    if (node.pruned) cls.push("pruned");
    if (node._best) cls.push("best");
    if (hidden) cls.push("collapsed");
    if (node.cutoff) cls.push("cutoff");
    const g = el("g", { class: cls.join(" "), transform: `translate(${node._x - BOX_W / 2},${y})` }, parent);
    el("rect", { width: BOX_W, height: BOX_H }, g);
    const tri = isMax ? "M6,15 L12,5 L18,15 Z" : "M6,5 L12,15 L18,5 Z";
    el("path", { class: "shape", d: tri }, g);
    const mv = el("text", { class: "mv", x: BOX_W / 2 + 6, y: 15 }, g);
    mv.textContent = node.move === "root" ? "root" : node.move;
    const val = el("text", { x: BOX_W / 2, y: 30 }, g);
    // "v ≥ 18": a cut-off (or a child's bound) proved only a bound, not the value
    const relation = { lower: "≥ ", upper: "≤ " }[node.bound] || "";
    val.textContent = node.pruned ? "pruned" : `v ${relation}${fmt(node.value)}${node.cutoff ? " ✂" : ""}`;
    const ab = el("text", { class: "ab", x: BOX_W / 2, y: 43 }, g);
    ab.textContent = `α${fmt(node.alpha)} β${fmt(node.beta)}`;
    if (hidden) {
      const more = el("text", { class: "more", x: BOX_W / 2, y: BOX_H + 12 }, g);
      more.textContent = `+${node.children.length} ▾`;
    }
    if ((node.children || []).length) {
      g.addEventListener("click", () => {
        node._open = !node._open;
        this.draw();
      });
    }
    const title = el("title", {}, g);
    const reason = isMax ? `${fmt(node.value)} ≥ beta ${fmt(node.beta)}` : `${fmt(node.value)} ≤ alpha ${fmt(node.alpha)}`;
    title.textContent = `${node.move}: value ${relation}${fmt(node.value)}, alpha ${fmt(node.alpha)}, beta ${fmt(node.beta)}` +
      (node.pruned ? " (pruned: never searched)" : "") +
      (relation ? ` (only a bound: the minimax value is ${relation.trim()} ${fmt(node.value)})` : "") +
      (node.cutoff ? ` (cut-off, ${reason}: the remaining children were pruned;` +
        ` its log line shows alpha ${fmt(node.logged_alpha)}, beta ${fmt(node.logged_beta)})` : "");
  }
}
