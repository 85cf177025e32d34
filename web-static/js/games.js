// @ts-check
/**
 * Every kind of game this page can show, by the name the server gives it
 * (`kind` in `joined`, `snapshot` and the lobby's objects). The shell (the
 * game view, the replay, the lobby, the session) asks this registry what a
 * kind needs and never compares kind names itself: a new kind is one module
 * exporting a descriptor, and one line below.
 *
 * A descriptor says what the shell needs of its kind:
 *
 * @typedef {object} GameKind
 * @property {string} kind the server's name for it ("klondike")
 * @property {string} name what the page calls it ("Klondike")
 * @property {string} noun what a sentence calls one game of it ("race", "game")
 * @property {string} icon the sprite icon of its tiles and lobby rows (index.html)
 * @property {boolean} seats players hold seats (PROTOCOL sections 13 and 16): the
 *   tab remembers the seat it took and asks for it back on every join
 * @property {number} [seatCount] how many seats when the lobby's object does not say
 * @property {boolean} playersReadSpectatorsAfter players read the spectators' chat
 *   once the game is over (a game that never ends: false)
 * @property {(state: any) => {name: string, detail?: string}} title the page's title for a
 *   state (null before the first one); `detail` may be left out on a phone
 * @property {(host: HTMLElement, options: BoardOptions) => Board} board draws states
 *   (for a game being played or watched, and for a replay)
 * @property {(shell: Shell, board: any) => Play} play what a game being played or
 *   watched does beyond drawing: tools, figures, events, hints, keys
 * @property {string} replayStart the replay's caption for the state at seq 0
 * @property {(cause: any, who?: {bots?: any, names?: {[seat: string]: string}, you?: string}) => (string | null)} [describe]
 *   the replay's caption for a diff's cause, naming seats as the board does (null: the generic one)
 * @property {(state: any) => boolean} [over] whether a state is a game that ended (won, drawn, finished);
 *   a kind that never ends leaves it out
 * @property {string} [shake] what shaking the phone does mid-game ("for a new deal"); a kind where a
 *   shake does nothing while it is played leaves it out, and its bar offers no Shake
 * @property {string} [shakeOver] what shaking does once the game is over ("for a rematch"), in a kind where
 *   it does nothing before: its bar offers no Shake, and motion is asked for on the first move instead
 * @property {boolean} [solo] one player's table (Klondike): a second window on its play link is said
 * @property {(state: any, bots: {[seat: string]: number}) => boolean} [invites] whether the play link is
 *   offered (a seat is still free for a person); left out: always
 * @property {string} [inviteText] what the play link does, said where it is shown
 * @property {(lobby: LobbyContext) => HTMLElement[]} [tiles] the lobby's tiles that create one
 * @property {(lobby: LobbyContext) => HTMLElement[]} [computerTiles] the lobby's tiles that start one against
 *   bots (PROTOCOL section 18), shown together under "Play the computer"
 * @property {(game: any) => string} [lobbyLabel] how a lobby row names a game (else `name`)
 *
 * @typedef {object} BoardOptions
 * @property {boolean} interactive a player's board: gestures become commands
 * @property {(message: {[key: string]: any}) => Promise<any>} send a game command
 * @property {() => (string | undefined)} you this connection's player id (seat)
 * @property {boolean} [replay] drawn by the replay
 * @property {() => number} [now] the server's time in ms (PROTOCOL section 17): turn clocks count down
 *   from it; left out (a replay), clocks show what each state stored
 * @property {() => {[seat: string]: number}} [bots] the seats bots play, with their levels (PROTOCOL section 18)
 * @property {() => {[player: string]: string}} [names] the players' signed-in users' names (PROTOCOL section 19)
 * @property {() => number} [below] the height the page puts under the board (the result on a narrow
 *   screen), for a board sized to the screen
 *
 * @typedef {object} Board
 * @property {(state: any, animate: boolean, before?: any) => void} setState `before`: the state before
 *   the last change, whose move is marked (lichess's last move); null or left out: none marked
 * @property {() => void} [relayout] what stands around the board changed size: fit it again
 * @property {() => void} destroy
 * @property {() => void} [namesChanged] the names changed (a board that shows names draws them again)
 *
 * What the game view offers a kind's Play (game.js's GameView is one):
 * @typedef {object} Shell
 * @property {boolean} isPlayer
 * @property {import("./session.js").GameSession} session the state, `you`, presence
 * @property {HTMLElement} note the line under the game bar (a hint's verdict)
 * @property {HTMLElement} overlay the won message
 * @property {(message: any) => Promise<any>} command sends a game command; errors other than illegal moves are shown
 * @property {() => void} askHint
 * @property {(fromShake: boolean) => void} newDeal
 * @property {(label: string, icon: string, key: string, fn: () => void, cls: string) => HTMLElement} tool a toolbar button
 * @property {(label: string, value: any, cls: string) => HTMLElement} stat a figure of the stats row
 * @property {(kind: string, title: string, body: (Node | null)[], actions: (Node | null)[], art?: Node) => void} showOverlay
 * @property {() => void} hideWon
 * @property {(info: any) => HTMLElement} figures moves, score and time as a row
 * @property {(text: string, winnable: "true" | "null" | "") => void} setVerdict the solver's word on a position
 * @property {(state: any) => any} knownEnd the end event this browser saw of the game a state shows (its time)
 * @property {() => (HTMLElement | null)} replayButton the won message's link to the replay (none in a game nobody may watch)
 * @property {() => (string | null)} playURL the play link to share, if this page holds the token
 * @property {(url: string, what: string) => Promise<void>} copyLink copies a link ("play", "watch"), or shows it to copy
 *
 * A kind's Play: every method optional.
 * @typedef {object} Play
 * @property {() => Node[]} [tools] its toolbar buttons (before Shake, Replay and Chat)
 * @property {(state: any) => Node[]} [stats] the stats row for a state (and its tools' enabled states)
 * @property {(change: import("./session.js").StateChange) => void} [changed] after the board shows a new state
 * @property {(event: any) => void} [event] a game `event` (won, reset, start...)
 * @property {(hint: any) => void} [hint] the server's answer to `hint`
 * @property {(fromShake: boolean) => void} [newGame] N, a New button, a shake (players only)
 * @property {(e: KeyboardEvent) => void} [key] keys other than Escape
 * @property {(players: number) => void} [presence] players present changed
 * @property {() => void} [destroy]
 *
 * What the lobby offers a kind's tiles:
 * @typedef {object} LobbyContext
 * @property {{winnable: boolean, delay: number, [key: string]: any}} choices the lobby's choices for every game
 * @property {(button: HTMLButtonElement, kind: string, options: any) => Promise<void>} start creates a game
 * @property {(options: any) => any} withWinnable options plus `winnable` when chosen (PROTOCOL section 12)
 * @property {(options: any) => any} withDelay options plus the spectator delay when chosen (PROTOCOL section 15)
 * @property {(label: string, sub: string, kind: string, options: () => any, cls: string) => HTMLElement} button a one-click tile
 */
import { klondikeGame } from "./klondike.js";
import { raceGame } from "./race.js";
import { planeGame } from "./plane.js";
import { fourGame } from "./four.js";

/** Every kind, in the lobby's order. @type {GameKind[]} */
export const GAMES = [klondikeGame, raceGame, planeGame, fourGame];

const BY_KIND = new Map(GAMES.map((g) => [g.kind, g]));

/** The descriptor of a kind, or null for a kind this page does not know. @param {string | null | undefined} kind */
export function gameKind(kind) {
  return (kind && BY_KIND.get(kind)) || null;
}

/** Whether players of this kind hold seats. @param {string | null | undefined} kind */
export function hasSeats(kind) {
  return !!gameKind(kind)?.seats;
}

/**
 * Kinds this page does not ship: a game developer's package serves their page
 * modules beside its games, and lists them at `/api/pages` (`[{kind, module}]`).
 * Each module exports its descriptor (a GameKind) as `default`; its `iconPath`
 * (an SVG path's `d` on a 24x24 box), if any, becomes the sprite icon named by
 * `icon`. Loaded once, before the first route is drawn; a module that fails to
 * load leaves its kind out (the lobby still lists its games, by kind name).
 * @returns {Promise<void>}
 */
export async function loadPageModules() {
  /** @type {{kind: string, module: string}[]} */
  let pages = [];
  try {
    const answer = await fetch("/api/pages");
    if (answer.ok) pages = await answer.json();
  } catch {
    return;
  }
  for (const { kind, module } of Array.isArray(pages) ? pages : []) {
    if (BY_KIND.has(kind)) continue;
    try {
      /** @type {GameKind & {iconPath?: string}} */
      const descriptor = (await import(module)).default;
      if (!descriptor || descriptor.kind !== kind) throw new Error(`${module} exports no descriptor of kind ${kind}`);
      if (descriptor.iconPath) addIcon(descriptor.icon, descriptor.iconPath);
      GAMES.push(descriptor);
      BY_KIND.set(kind, descriptor);
    } catch (error) {
      console.warn(`the page module of ${kind} did not load:`, error);
    }
  }
}

/** A symbol `i-NAME` in the page's sprite. @param {string} name @param {string} path */
function addIcon(name, path) {
  const sprite = document.querySelector("svg symbol")?.parentElement;
  if (!sprite || document.getElementById(`i-${name}`)) return;
  const ns = "http://www.w3.org/2000/svg";
  const symbol = document.createElementNS(ns, "symbol");
  symbol.id = `i-${name}`;
  symbol.setAttribute("viewBox", "0 0 24 24");
  const shape = document.createElementNS(ns, "path");
  shape.setAttribute("d", path);
  symbol.append(shape);
  sprite.append(symbol);
}
