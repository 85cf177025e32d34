// @ts-check
/**
 * The chat beside the table: the lines (drawn from the difference between the
 * lines shown and the lines given), and for a member a line to write. Every
 * text goes into the page as text.
 */
import { el, playerColor } from "./ui.js";
import { CHAT_MAX, chatTime, textLength } from "./chat.js";

/** @typedef {import("./chat.js").ChatLine} ChatLine */

/** Numbers the panels made, for ids that tie a field to its label. */
let panels = 0;

/** How a room is called on a line and in the compose row. */
const ROOM_NAMES = { players: "Players", spectators: "Spectators" };

/**
 * @typedef {object} ChatPanelOptions
 * @property {(text: string) => Promise<any>} [send] sends a line; rejects with the server's error (none: read only)
 * @property {(who: string) => void} [mute] mutes a spectator (only a player's page offers it)
 * @property {(by: string) => boolean} [isMine] whether a name is this page's
 * @property {string} [empty] what the list says before its first line
 */

export class ChatPanel {
  /**
   * @param {HTMLElement} host
   * @param {ChatPanelOptions} options
   */
  constructor(host, options) {
    this.options = options;
    /** @type {ChatLine[]} the lines drawn, in order */
    this.shown = [];
    /** @type {HTMLElement[]} one per line shown */
    this.nodes = [];
    /** @type {Set<string>} */
    this.muted = new Set();
    /** @type {"players" | "spectators"} the room this page writes to */
    this.room = "players";
    this.canMute = false;
    /** lines that came while the panel was out of sight */
    this.unread = 0;
    this.visible = true;
    this.sending = false;
    /** @type {Set<(n: number) => void>} */
    this.unreadListeners = new Set();

    this.note = el("p.chat-note", { hidden: true });
    this.emptyLine = el("p.chat-empty", {}, options.empty || "No messages yet.");
    this.list = el("ol.chat-lines", { "aria-label": "Messages" });
    this.scroller = el("div.chat-scroll", { tabindex: "0", role: "log", "aria-live": "polite", "aria-label": "Chat messages" }, this.emptyLine, this.list);
    this.root = el("aside.chat", { "aria-label": "Chat", dataset: { rooms: "one", empty: "true" } },
      el("header.chat-head", {}, el("h2.chat-title", {}, "Chat"), this.note),
      this.scroller);
    if (options.send) this.root.append(this.buildCompose());
    host.append(this.root);
    // In sight means above the phone's tool bar, which covers the bottom of the screen.
    this.observer = new IntersectionObserver((entries) => {
      this.visible = entries.some((e) => e.isIntersecting);
      if (this.visible) this.setUnread(0);
    }, { rootMargin: "0px 0px -96px 0px" });
    this.observer.observe(this.scroller);
  }

  buildCompose() {
    const toId = `chat-to-${++panels}`;
    this.toLabel = el("span.chat-to", { id: toId }, "");
    this.input = /** @type {HTMLInputElement} */ (el("input.chat-input", {
      type: "text", autocomplete: "off", enterkeyhint: "send", placeholder: "Write a message\u2026", "aria-describedby": toId, "aria-label": "Message",
    }));
    this.count = el("span.chat-count", { "aria-live": "polite" });
    // The server's refusal stays beside the field, where a toast would cover what is typed.
    this.error = el("p.chat-error", { role: "alert", hidden: true });
    this.sendButton = /** @type {HTMLButtonElement} */ (el("button.btn.primary.chat-send", { type: "submit", disabled: true }, "Send"));
    this.input.addEventListener("input", () => this.paintCount());
    this.form = el("form.chat-compose", {
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        this.submit();
      },
    }, this.error, el("div.chat-compose-row", {}, this.toLabel, this.count), el("div.chat-compose-row", {}, this.input, this.sendButton));
    return this.form;
  }

  async submit() {
    const send = this.options.send;
    if (!send || !this.input || !this.sendButton) return;
    const text = this.input.value;
    if (!text.trim() || this.sending) return;
    this.sending = true;
    this.sendButton.disabled = true;
    this.form?.setAttribute("aria-busy", "true");
    this.setError("");
    try {
      await send(text);
      // What was typed stays until the server takes it, to send again after an error.
      if (this.input.value === text) this.input.value = "";
    } catch (e) {
      const error = /** @type {any} */ (e);
      const why = String(error.code === "disconnected" ? "not sent: the connection was lost" : error.message || error.code);
      this.setError(why[0].toUpperCase() + why.slice(1));
    } finally {
      this.sending = false;
      this.form?.setAttribute("aria-busy", "false");
      this.paintCount();
    }
  }

  /** @param {string} text empty hides the note */
  setError(text) {
    if (!this.error) return;
    this.error.textContent = text;
    this.error.hidden = !text;
    if (text) this.keepFieldInSight();
  }

  /** The list or a note grew and pushed the field being typed in down: on a phone, out from under the tool bar again. */
  keepFieldInSight() {
    if (this.input && document.activeElement === this.input) this.input.scrollIntoView({ block: "nearest" });
  }

  /** The characters left, once they run short; Send only with something to send. */
  paintCount() {
    if (!this.input || !this.sendButton || !this.count) return;
    const n = textLength(this.input.value);
    const left = CHAT_MAX - n;
    this.count.textContent = left < 40 ? String(left) : "";
    this.count.classList.toggle("over", left < 0);
    this.sendButton.disabled = n === 0 || this.sending;
  }

  /**
   * Who this page is in the chat: the room it writes to, and whether it may mute.
   * @param {"players" | "spectators"} room
   * @param {boolean} canMute
   */
  setMember(room, canMute) {
    const changed = room !== this.room || canMute !== this.canMute;
    this.room = room;
    this.canMute = canMute;
    if (this.toLabel) {
      this.toLabel.replaceChildren(el("span.chat-to-label", {}, "To"), " ", el(`strong.chat-room-name.${room}`, {}, ROOM_NAMES[room]));
    }
    if (changed) this.redraw();
  }

  /** A line under the title (the room's readers, a delay); empty hides it. @param {string} text */
  setNote(text) {
    this.note.textContent = text;
    this.note.hidden = !text;
  }

  /**
   * Shows `lines`: the lines already drawn stay, the ones that went are
   * removed, the new ones added.
   * @param {ChatLine[]} lines
   */
  setLines(lines) {
    // Lines that scrolled away at the top (the log keeps a bounded number).
    let dropped = 0;
    if (this.shown.length && lines.length && lines[0] !== this.shown[0]) {
      const at = this.shown.indexOf(lines[0]);
      if (at > 0) dropped = at;
    }
    if (dropped) {
      for (const n of this.nodes.splice(0, dropped)) n.remove();
      this.shown = this.shown.slice(dropped);
    }
    let same = 0;
    while (same < this.shown.length && same < lines.length && this.shown[same] === lines[same]) same++;
    const stick = this.atBottom();
    for (const n of this.nodes.splice(same)) n.remove();
    const added = lines.slice(same);
    const nodes = added.map((line) => this.lineNode(line));
    this.list.append(...nodes);
    this.nodes.push(...nodes);
    this.shown = lines.slice();
    this.paintRooms();
    this.emptyLine.hidden = lines.length > 0;
    this.root.dataset.empty = String(!lines.length);
    if (stick) this.scroller.scrollTop = this.scroller.scrollHeight;
    this.keepFieldInSight();
    if (added.length && !this.visible) this.setUnread(this.unread + added.length);
  }

  /** Room tags show when lines of both rooms may be on the list. */
  paintRooms() {
    const both = this.room === "spectators" || this.shown.some((l) => l.room === "spectators");
    this.root.dataset.rooms = both ? "both" : "one";
  }

  /** @param {Set<string>} muted spectators muted from this page */
  setMuted(muted) {
    const changed = [...muted].some((m) => !this.muted.has(m)) || [...this.muted].some((m) => !muted.has(m));
    this.muted = new Set(muted);
    if (changed) this.redraw();
  }

  /** Every line again (who may mute, or who is muted, changed). */
  redraw() {
    const lines = this.shown;
    this.shown = [];
    for (const n of this.nodes.splice(0)) n.remove();
    this.setLines(lines);
  }

  atBottom() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 24;
  }

  /** @param {ChatLine} line */
  lineNode(line) {
    const mine = this.options.isMine?.(line.by) ?? false;
    const muted = line.room === "spectators" && this.muted.has(line.by);
    // A signed-in user's line carries their name (PROTOCOL section 19); else the player id or spectator name.
    const shown = line.name || line.by;
    const who = el("strong.chat-by", { title: line.name ? `${line.name} (${line.by})` : line.by }, mine ? "you" : shown);
    if (line.room === "players") who.style.color = playerColor(line.by);
    const parts = [
      who,
      el(`span.chat-room.${line.room}`, {}, ROOM_NAMES[line.room]),
      muted ? el("span.chat-muted", {}, "muted") : null,
      el("time.chat-at", { datetime: line.at }, chatTime(line.at)),
    ];
    if (this.canMute && this.options.mute && line.room === "spectators" && !muted && !mine) {
      const mute = this.options.mute;
      parts.push(el("button.btn.small.ghost.chat-mute", {
        type: "button", title: `Stop ${shown} writing in this game`, "aria-label": `Mute ${shown}`,
        onclick: () => mute(line.by),
      }, "Mute"));
    }
    return el("li.chat-line", { dataset: mine ? { room: line.room, by: line.by, mine: "true" } : { room: line.room, by: line.by } },
      el("div.chat-meta", {}, ...parts),
      el("p.chat-text", { text: line.text }));
  }

  /** On a phone the panel sits under the table: bring it into view and put the cursor in it. */
  reveal() {
    this.root.scrollIntoView({ behavior: "smooth", block: "end" });
    this.input?.focus({ preventScroll: true });
    this.setUnread(0);
  }

  /** @param {number} n */
  setUnread(n) {
    if (n === this.unread) return;
    this.unread = n;
    for (const listener of this.unreadListeners) listener(n);
  }

  /** @param {(n: number) => void} listener */
  onUnread(listener) {
    this.unreadListeners.add(listener);
    return () => this.unreadListeners.delete(listener);
  }

  destroy() {
    this.observer.disconnect();
    this.root.remove();
  }
}
