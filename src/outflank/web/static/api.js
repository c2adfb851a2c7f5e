// REST and WebSocket client of the outflank server.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function request(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    throw new ApiError(0, "the server cannot be reached");
  }
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    throw new ApiError(response.status, (data && data.error) || `error ${response.status}`);
  }
  return data;
}

// One live game: a WebSocket when it can, long polling when it cannot.
// `onEvent` receives {type: "state" | "thinking" | "info" | "error", ...}, and
// {type: "connection", ok} when the server is lost or found again.
export class GameConnection {
  constructor(gameId, seat, onEvent) {
    this.gameId = gameId;
    this.seat = seat;
    this.onEvent = onEvent;
    this.ws = null;
    this.version = -1;
    this.closed = false;
    this.failures = 0;
    this.polling = false;
    this.ok = true;
    this.open();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.seat ? `?seat=${encodeURIComponent(this.seat)}` : "";
    return `${proto}//${location.host}/ws/games/${encodeURIComponent(this.gameId)}${q}`;
  }

  open() {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (err) {
      this.startPolling();
      return;
    }
    this.ws = ws;
    ws.onopen = () => { this.failures = 0; this.polling = false; this.connected(true); };
    ws.onmessage = (msg) => {
      let event;
      try { event = JSON.parse(msg.data); } catch { return; }
      if (event.type === "state") this.version = event.state.version;
      this.onEvent(event);
    };
    ws.onclose = (ev) => {
      this.ws = null;
      if (this.closed || ev.code >= 4000) return;
      this.failures += 1;
      if (this.failures >= 2) this.connected(false); // one drop may be a blip
      if (this.failures >= 3) this.startPolling();
      setTimeout(() => this.open(), Math.min(8000, 500 * 2 ** this.failures));
    };
  }

  connected(ok) {
    if (ok === this.ok) return;
    this.ok = ok;
    this.onEvent({ type: "connection", ok });
  }

  get live() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  // REST fallback: long polling for newer versions of the game.
  async startPolling() {
    if (this.polling || this.closed) return;
    this.polling = true;
    while (this.polling && !this.closed && !this.live) {
      try {
        const q = new URLSearchParams({ since: Math.max(0, this.version), wait: 25 });
        if (this.seat) q.set("seat", this.seat);
        const state = await request("GET", `/api/games/${this.gameId}?${q}`);
        this.connected(true);
        if (state.version !== this.version) {
          this.version = state.version;
          this.onEvent({ type: "state", you: state.you, state });
        }
      } catch (err) {
        if (err.status === 0) this.connected(false);
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
    this.polling = false;
  }

  // Send an action over the socket, or over REST when the socket is down.
  async send(type, extra = {}) {
    if (this.live) {
      this.ws.send(JSON.stringify({ type, ...extra }));
      return null;
    }
    const path = type === "move" ? "moves" : type;
    const state = await request("POST", `/api/games/${this.gameId}/${path}`, { seat: this.seat, ...extra });
    this.version = state.version;
    this.onEvent({ type: "state", state });
    return state;
  }

  close() {
    this.closed = true;
    this.polling = false;
    if (this.ws) this.ws.close();
  }
}
