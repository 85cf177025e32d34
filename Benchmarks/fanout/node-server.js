'use strict';
// The Node `ws` baseline for the fan-out benchmark: just enough of the Boardcast protocol
// for fanload (create, watch via /ws?watch=GAME or a watch message, moves -> diff + ack,
// merged presence), and no game rules at all. It sends BYTE-IDENTICAL frames to the ones
// Boardcast sent: the runner records Boardcast's frames for the same moves first, and
// the N-th move of a game here is answered with the recorded diff N (the recorded game id
// swapped for this game's id, which has the same length, so every frame has the same size;
// the first game gets the recorded id itself, so S1/S2 frames are identical to the byte).
//
// Past the end of the recording (S6's mover makes a move every 20 ms for as long as its
// crowd takes to arrive), diff N reuses recorded diff ((N-1) mod R)+1 with its seq rewritten:
// the same bytes but the seq digits, so still close to Boardcast's frame sizes.
//
// usage: node node-server.js [--frames FILE] [--host 127.0.0.1] [--port 0]
// Without --frames it only accepts connections and watches (S3, S5): `create` is refused.
// prints `listening on http://HOST:PORT` when ready, like the Boardcast server.

const http = require('http');
const fs = require('fs');
const crypto = require('crypto');
let ws;
try { ws = require('ws'); } catch (_) { ws = require('/usr/share/nodejs/ws'); }

const args = { host: '127.0.0.1', port: 0, frames: null };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in args) || process.argv[i + 1] === undefined) {
    console.error('usage: node node-server.js [--frames FILE] [--host 127.0.0.1] [--port 0]');
    process.exit(2);
  }
  args[k] = process.argv[i + 1];
}
// Recorded frames, one per line: KIND<TAB>FRAME (see fanload --record).
const recorded = { diffs: [], snapshot: null, joined: null, player: [] };
for (const line of args.frames ? fs.readFileSync(args.frames, 'utf8').split('\n') : []) {
  const tab = line.indexOf('\t');
  if (tab < 0) continue;
  const kind = line.slice(0, tab), frame = line.slice(tab + 1);
  if (kind === 'diff') recorded.diffs.push(frame);
  else if (kind === 'snapshot' && !recorded.snapshot) recorded.snapshot = frame;
  else if (kind === 'joined' && !recorded.joined) recorded.joined = frame;
  else if (kind === 'player' || kind === 'player-ack') recorded.player.push({ kind, frame });
}
if (args.frames && (!recorded.diffs.length || !recorded.snapshot || !recorded.joined)) {
  console.error(`${args.frames}: needs diff, snapshot and joined lines`);
  process.exit(2);
}
const recordedGame = args.frames ? JSON.parse(recorded.diffs[0]).game : 'nogame';
recorded.diffs.forEach((d, i) => {
  const seq = JSON.parse(d).seq;
  if (seq !== i + 1) { console.error(`recorded diff ${i} has seq ${seq}, expected ${i + 1}`); process.exit(2); }
});
// The create reply as Boardcast sent it: created, joined, snapshot, ..., then the ack.
const createReply = [];
for (const { kind, frame } of recorded.player) {
  createReply.push(frame);
  if (kind === 'player-ack') break;
}
const sameAck = (recorded.player.find(p => p.kind === 'player-ack') || {}).frame;
if (sameAck && sameAck !== `{"type":"ack","id":"c","seq":0}`) {
  console.error(`note: Boardcast's create ack is ${sameAck}; move acks here are {"type":"ack","id":ID,"seq":N}`);
}

const games = new Map();   // id -> { id, seq, members: Set<socket>, players, spectators, presenceTimer }
const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
function newGameId() {
  if (!games.has(recordedGame)) return recordedGame;
  for (;;) {
    let id = '';
    for (const b of crypto.randomBytes(recordedGame.length)) id += alphabet[b % alphabet.length];
    if (!games.has(id)) return id;
  }
}
const withGame = (frame, id) => frame.split(`"game":"${recordedGame}"`).join(`"game":"${id}"`);
const withSeq = (frame, seq) => frame.replace(/"seq":\d+/, `"seq":${seq}`);

function send(sock, text) { if (sock.readyState === ws.OPEN) sock.send(text); }

function schedulePresence(game) {
  // Counts are merged: at most one presence per game every 250 ms.
  if (game.presenceTimer) return;
  game.presenceTimer = setTimeout(() => {
    game.presenceTimer = null;
    const text = `{"type":"presence","game":"${game.id}","players":${game.players},"spectators":${game.spectators}}`;
    const data = Buffer.from(text);
    for (const m of game.members) if (m.readyState === ws.OPEN) m.send(data, { binary: false });
  }, 250);
}

function join(sock, game, role) {
  leave(sock);
  sock.game = game;
  sock.role = role;
  game.members.add(sock);
  if (role === 'player') game.players++; else game.spectators++;
  schedulePresence(game);
}

function leave(sock) {
  const game = sock.game;
  if (!game) return;
  game.members.delete(sock);
  if (sock.role === 'player') game.players--; else game.spectators--;
  sock.game = null;
  schedulePresence(game);
}

function watch(sock, id, msgId) {
  const game = games.get(id);
  if (!game) return error(sock, 'not-found', 'no such game', msgId);
  join(sock, game, 'spectator');
  send(sock, withSeq(withGame(recorded.joined, game.id), game.seq));
  send(sock, withSeq(withGame(recorded.snapshot, game.id), game.seq));
  if (msgId !== undefined) send(sock, `{"type":"ack","id":${JSON.stringify(msgId)},"seq":${game.seq}}`);
}

function error(sock, code, message, id) {
  const idPart = id === undefined ? '' : `,"id":${JSON.stringify(id)}`;
  send(sock, `{"type":"error","code":"${code}","message":${JSON.stringify(message)}${idPart}}`);
}

function onMessage(sock, text) {
  let msg;
  try { msg = JSON.parse(text); } catch (_) { return error(sock, 'bad-request', 'not JSON'); }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return error(sock, 'bad-request', 'not an object');
  const id = msg.id;
  switch (msg.type) {
    case 'create': {
      if (!args.frames) return error(sock, 'unavailable', 'started without --frames: no games', id);
      const game = { id: newGameId(), seq: 0, members: new Set(), players: 0, spectators: 0, presenceTimer: null };
      games.set(game.id, game);
      join(sock, game, 'player');
      for (const frame of createReply.slice(0, -1)) send(sock, withGame(frame, game.id));
      send(sock, `{"type":"ack","id":${JSON.stringify(id)},"seq":0}`);
      return;
    }
    case 'watch': return watch(sock, String(msg.game), id);
    case 'leave': {
      const g = sock.game;
      if (!g) return error(sock, 'not-joined', 'not in a game', id);
      leave(sock);
      send(sock, `{"type":"left","game":"${g.id}"}`);
      if (id !== undefined) send(sock, `{"type":"ack","id":${JSON.stringify(id)}}`);
      return;
    }
    case 'tap': case 'double-tap': case 'drag': {
      const game = sock.game;
      if (!game) return error(sock, 'not-joined', 'not in a game', id);
      if (sock.role !== 'player') return error(sock, 'forbidden', 'spectators cannot play', id);
      const n = recorded.diffs.length;
      const frame = game.seq < n ? recorded.diffs[game.seq] : withSeq(recorded.diffs[game.seq % n], game.seq + 1);
      game.seq++;
      // One buffer for every member, as Boardcast shares one buffer per broadcast.
      const data = Buffer.from(game.id === recordedGame ? frame : withGame(frame, game.id));
      for (const m of game.members) if (m.readyState === ws.OPEN) m.send(data, { binary: false });
      if (id !== undefined) send(sock, `{"type":"ack","id":${JSON.stringify(id)},"seq":${game.seq}}`);
      return;
    }
    default: return error(sock, 'unknown-type', `unknown type ${msg.type}`, id);
  }
}

const server = http.createServer((req, res) => {
  if (req.url === '/healthz') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); return; }
  res.writeHead(404); res.end();
});
const wss = new ws.WebSocketServer({ server, path: '/ws', perMessageDeflate: false, clientTracking: false, maxPayload: 64 * 1024 });
wss.on('connection', (sock, req) => {
  sock.game = null;
  sock.role = null;
  sock.on('message', (data, isBinary) => {
    if (isBinary) return error(sock, 'bad-request', 'binary frame');
    onMessage(sock, data.toString());
  });
  sock.on('close', () => leave(sock));
  sock.on('error', () => {});
  const q = new URL(req.url, 'http://x').searchParams;
  if (q.get('watch')) watch(sock, q.get('watch'));
});
server.listen(Number(args.port), args.host, () => {
  const a = server.address();
  process.stdout.write(`listening on http://${a.address}:${a.port}\n`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
