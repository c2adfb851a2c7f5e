// The opening explorer card (GET /api/explorer): the book's moves of the
// position shown, their values and the openings they lead to; a click on
// one walks the tree (the board shows the line; ◀ and ✕ go back).

const $ = (id) => document.getElementById(id);
const LEADS_SHOWN = 3;

const value = (v) => (v > 0 ? "+" : "") + v.toFixed(2);

export function renderExplorer(data, { onPick, message = null }) {
  const head = $("explorer-head");
  const list = $("explorer-moves");
  list.innerHTML = "";
  head.innerHTML = "";
  if (message || !data) {
    head.textContent = message || "";
    $("explorer-note").textContent = "";
    return;
  }
  $("explorer-note").textContent = data.in_book ? `book value ${value(data.value)}` : "";
  const name = document.createElement("div");
  name.className = "explorer-opening";
  name.textContent = data.opening ? data.opening : data.moves_played.length ? "No named opening" : "Start position";
  head.append(name);
  if (!data.in_book) {
    const out = document.createElement("div");
    out.className = "muted";
    out.textContent = "Out of the book: no book moves here.";
    head.append(out);
    return;
  }
  for (const m of data.moves) {
    const li = document.createElement("li");
    li.dataset.move = m.move;
    li.className = m.in_book ? "in-book" : "leaves";
    li.title = m.in_book ? "stays in the book" : "leaves the book";
    const mv = document.createElement("b");
    mv.textContent = m.move;
    const v = document.createElement("span");
    v.className = "ex-value";
    v.textContent = value(m.value);
    const names = document.createElement("span");
    names.className = "ex-names";
    const leads = m.leads_to.slice(0, LEADS_SHOWN).join(", ") + (m.leads_to.length > LEADS_SHOWN ? ` +${m.leads_to.length - LEADS_SHOWN}` : "");
    names.textContent = (m.opening || "") + (leads ? ` → ${leads}` : "");
    li.append(mv, v, names);
    li.onclick = () => onPick(m);
    list.append(li);
  }
}
