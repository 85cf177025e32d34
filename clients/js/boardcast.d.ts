// Type declarations of boardcast.js: Boardcast's client library (PROTOCOL section 21).

/** A JSON message, as sent or received. */
export type Message = { [key: string]: any };

export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };

export interface PatchOp {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test" | string;
  path: string;
  value?: JSONValue;
  from?: string;
}

/** Timers and time, injectable for tests. */
export interface Clock {
  setTimeout(fn: () => void, ms: number): any;
  clearTimeout(handle: any): void;
  /** milliseconds */
  now(): number;
}

/** The wait before each reconnection try: a cap growing from `initial` by `factor` to `max`, of which a random half to whole is waited. */
export interface BackoffOptions {
  /** the cap of the first wait, ms (default 500; the first try comes within 1000 ms whatever this says) */
  initial?: number;
  /** the cap of every wait, ms (default 5000; tries come at most 5000 ms apart whatever this says) */
  max?: number;
  /** growth of the cap per failed try (default 2) */
  factor?: number;
}

export interface ClientOptions {
  /** A JWT provider (PROTOCOL section 19), called on every (re)connection; its token is sent as `auth` first. */
  token?: () => string | null | undefined | Promise<string | null | undefined>;
  backoff?: BackoffOptions | ((attempt: number, random: () => number) => number);
  /** A WebSocket constructor (default: the global one). */
  WebSocket?: any;
  clock?: Clock;
  /** in [0, 1), for the backoff's jitter (default Math.random) */
  random?: () => number;
  /** ms a connection may take to open before it is given up and tried again at once (default 5000) */
  connectTimeout?: number;
  /** ms during which a re-join refused `forbidden` (our dropped connection still holds the seat) is tried again (default 120000) */
  rejoinTimeout?: number;
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

/** One change of a handle's state. */
export interface StateChange<S = any> {
  /** the seq of `state` */
  seq: number;
  /** the state now: a new object at each change, never changed in place */
  state: S;
  /** the state before (undefined for a first snapshot) */
  prev: S | undefined;
  via: "snapshot" | "diff";
  /** the diff's cause (PROTOCOL section 4); null for a snapshot */
  cause: Message | null;
  /** the diff's operations; null for a snapshot */
  ops: PatchOp[] | null;
}

export interface CommandOptions {
  /**
   * The seq of the state the command was chosen from (default: the handle's seq when `command`
   * is called). A handle that has been shown a newer seq refuses the command with code `stale`
   * before sending it (and, for a command queued while disconnected, at sending).
   */
  basedOn?: number;
  /** the message id (default: a fresh random one) */
  id?: string;
}

export interface CommandResult {
  /** the command's id */
  id: string;
  /** the seq of the diff it caused */
  seq: number;
}

export type Status = "connecting" | "joining" | "ready" | "reconnecting" | "closed";

export type CloseReason = "left" | "closed" | "replaced" | "error";

export interface ClosedInfo {
  reason: CloseReason;
  error?: BoardcastError;
}

/** Listeners a handle has from its start, so that none of its states is missed. */
export interface HandleListeners<S = any> {
  state?: (state: S, change: StateChange<S>) => void;
  event?: (message: Message) => void;
  chat?: (message: Message) => void;
  presence?: (message: Message) => void;
  closed?: (info: ClosedInfo) => void;
  status?: (status: Status, detail?: { attempt: number; delay: number }) => void;
  joined?: (message: Message) => void;
  created?: (message: Message) => void;
  error?: (error: BoardcastError) => void;
  message?: (message: Message) => void;
}

/**
 * An error reply (`code` is the protocol's, PROTOCOL section 8: `bad-request`, `unknown-type`,
 * `not-found`, `not-joined`, `forbidden`, `illegal-move`, `unavailable`, `limited`,
 * `rate-limited`), or one of the library's: `disconnected`, `closed`, `stale`.
 */
export class BoardcastError extends Error {
  constructor(code: string, message: string, reply?: Message);
  code: string;
  reply: Message | undefined;
  static fromReply(reply: Message): BoardcastError;
}

export class PatchError extends Error {}

/** Applies an RFC 6902 patch to a copy of `document`; throws a PatchError, changing nothing, if it does not apply. */
export function applyPatch<T = any>(document: any, ops: PatchOp[]): T;

/** The wait in ms before reconnection try `attempt` (0: the first after a drop). */
export function backoffDelay(attempt: number, backoff?: ClientOptions["backoff"], random?: () => number): number;

/** A random message id. */
export function randomId(): string;

export const FIRST_TRY_WITHIN: number;
export const TRIES_AT_MOST_APART: number;
/** Frames a second the client sends on a connection at most, and its burst: under the server's read limit (PROTOCOL section 14), so no command is dropped unanswered. */
export const SEND_RATE: number;
export const SEND_BURST: number;

/** What a diff did to a held state (see HeldState.diff). */
export type DiffOutcome<S = any> =
  | { outcome: "applied"; change: StateChange<S> }
  /** wait: no state held yet; stale: a seq already held; gap: a seq missed (ask again with `since`) */
  | { outcome: "wait" | "stale" | "gap" }
  /** its ops do not apply: ask for a snapshot */
  | { outcome: "broken"; error: Error };

/**
 * A game's state as a client holds it: a snapshot, then diffs strictly in seq order, and the
 * newest seq the server has shown. Pure (no connection, no timers): a GameHandle keeps one, and so
 * can an app that runs its own connection.
 */
export class HeldState<S = any> {
  /** the seq of `state`; null before the first state */
  seq: number | null;
  /** the newest seq the server has shown: above `seq` while a gap is being filled */
  shownSeq: number | null;
  state: S;
  /** a state the app already holds at `seq`, to catch up from */
  hold(seq: number, state: S): void;
  /** nothing held can be trusted: the next snapshot starts again */
  forget(): void;
  snapshot(message: Message): StateChange<S>;
  diff(message: Message): DiffOutcome<S>;
  /** why a command chosen from the state at `basedOn` must not be sent (code `stale`), or null */
  staleness(basedOn: number | null | undefined): BoardcastError | null;
}

export type ConnectionStatus = "connecting" | "syncing" | "ready" | "reconnecting" | "closed";

/**
 * One WebSocket shared by several parts of an app (a page's lobby, its sign-in, the one game it
 * shows), with a GameHandle's reconnection, pacing and re-sent ids. On every (re)connection it
 * signs in (`options.token`), runs the `onOpen` hooks in order (`first` ones first), awaiting each,
 * then is `ready` and sends what waits.
 */
export class Connection {
  constructor(url: string, options?: ClientOptions);
  readonly url: string;
  readonly status: ConnectionStatus;
  /** when the next try starts (the clock's ms), while reconnecting */
  retryAt: number;
  /** A hook re-joins its game with `exchange`, so re-sent commands follow the re-join. */
  onOpen(hook: (conn: Connection) => void | Promise<void>, options?: { first?: boolean }): () => void;
  on(name: "message", fn: (message: Message) => void): () => void;
  on(name: "text", fn: (line: string) => void): () => void;
  on(name: "status", fn: (status: ConnectionStatus, detail?: { attempt: number; delay: number }) => void): () => void;
  on(name: "auth-refused", fn: (error: BoardcastError) => void): () => void;
  /** Sent when ready. `resend`: a game command, sent again with its id after a reconnection until answered; `check`: a last look before each sending. */
  request(body: Message, options?: { resend?: boolean; check?: () => Error | null }): Promise<Message>;
  /** On the open connection now (from an open hook): refused `disconnected` when not open. */
  exchange(body: Message): Promise<Message>;
  /** Refuses the waiting requests `which` picks. */
  cancel(which: (body: Message, resend: boolean) => boolean, error: BoardcastError): void;
  /** Tries again now rather than after the backoff's wait. */
  retryNow(): void;
  close(): void;
}

/** One game joined, watched or created, on a WebSocket of its own. */
export class GameHandle<S = any> {
  readonly client: BoardcastClient;
  /** the game id */
  game: string | undefined;
  /** the game token (players) */
  token: string | null | undefined;
  /** the watch key of a game watched by link or by players (PROTOCOL section 19) */
  key: string | undefined;
  kind: string | undefined;
  role: "player" | "spectator" | undefined;
  /** this connection's player id or seat (players) */
  you: string | undefined;
  /** the seq of `state`; null before the first state */
  seq: number | null;
  /** the newest seq the server has shown: above `seq` while a gap is being filled */
  shownSeq: number | null;
  /** the current state */
  state: S;
  /** spectator delay in seconds, 0 for none */
  delay: number;
  bots: { [seat: string]: number };
  clock: { initial: number; increment: number } | null;
  names: { [player: string]: string };
  /** who may watch: anyone, link or players */
  watchMode: string;
  players: number;
  spectators: number;
  status: Status;
  closed: boolean;
  /** settles with the first join, watch or create */
  readonly ready: Promise<GameHandle<S>>;
  /** whether the state's status says the game has ended (won, drawn, finished) */
  readonly ended: boolean;

  on(name: "state", fn: (state: S, change: StateChange<S>) => void): () => void;
  on(name: "event" | "chat" | "presence" | "joined" | "created" | "message", fn: (message: Message) => void): () => void;
  on(name: "closed", fn: (info: ClosedInfo) => void): () => void;
  on(name: "status", fn: (status: Status, detail?: { attempt: number; delay: number }) => void): () => void;
  on(name: "error", fn: (error: BoardcastError) => void): () => void;

  /** Each state from now on, starting with the current one, until the handle closes. */
  states(): AsyncIterableIterator<S>;
  /** Each change from now on, starting with the current state, until the handle closes. */
  changes(): AsyncIterableIterator<StateChange<S>>;
  /** Waits for a state for which `predicate` holds (the current one first). */
  until(predicate: (state: S, handle: GameHandle<S>) => boolean): Promise<S>;
  /** The server's time now, ms since the epoch. */
  serverNow(): number;

  /** A game command: resolves once acknowledged (exactly once, across reconnections). */
  command(command: Message & { type: string; basedOn?: number }, options?: CommandOptions): Promise<CommandResult>;
  tap(target: string | { x: number; y: number }, options?: CommandOptions): Promise<CommandResult>;
  doubleTap(target: string | { x: number; y: number }, options?: CommandOptions): Promise<CommandResult>;
  drag(from: string | { x: number; y: number }, to: string | { x: number; y: number }, options?: CommandOptions): Promise<CommandResult>;
  reset(options?: Message, commandOptions?: CommandOptions): Promise<CommandResult>;
  undo(options?: CommandOptions): Promise<CommandResult>;
  resign(options?: CommandOptions): Promise<CommandResult>;
  /** Chat; never sent twice (a line whose answer was lost is refused `disconnected`). */
  say(text: string, options?: { to?: "players" | "spectators" }): Promise<{ seq: number | undefined }>;
  mute(who: string): Promise<void>;
  hint(): Promise<Message>;
  show(): Promise<string[]>;
  /** Leaves the game and closes the handle. */
  leave(): Promise<void>;
  close(reason: CloseReason, error?: BoardcastError): void;
}

/** A followed lobby: `games` is the latest list. */
export class LobbyFeed {
  games: Message[];
  closed: boolean;
  on(name: "lobby", fn: (games: Message[]) => void): () => void;
  on(name: "closed", fn: () => void): () => void;
  [Symbol.asyncIterator](): AsyncIterableIterator<Message[]>;
  close(): void;
}

export class BoardcastClient {
  /** @param url the server's WebSocket address, `ws://HOST:PORT/ws` */
  constructor(url: string, options?: ClientOptions);
  readonly url: string;
  readonly handles: Set<GameHandle>;
  /** Creates a game and joins it as its first player. */
  create<S = any>(kind: string, options?: Message, extra?: { on?: HandleListeners<S> }): Promise<GameHandle<S>>;
  /** Joins a game as a player (token: the game token; none for a signed-in user taking their place back). */
  join<S = any>(
    game: string,
    token?: string | null,
    options?: { seat?: string; since?: number; state?: S; on?: HandleListeners<S> },
  ): Promise<GameHandle<S>>;
  /** Watches a game (`since: 0` without a state, or `replay: true`: from the deal). */
  watch<S = any>(
    game: string,
    options?: { key?: string; since?: number; state?: S; replay?: boolean; on?: HandleListeners<S> },
  ): Promise<GameHandle<S>>;
  /** The lobby: once, or followed. */
  list(options: { follow: true }): Promise<LobbyFeed>;
  list(options?: { follow?: false }): Promise<Message[]>;
  /** Closes every handle and the lobby; nothing reconnects after it. */
  close(): void;
}

export default BoardcastClient;
