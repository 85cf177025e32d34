#!/usr/bin/env bash
# Fan-out benchmark: Boardcast against a minimal Node `ws` server sending byte-identical
# frames, driven by fanload (C, epoll) over loopback only.
#
#   Benchmarks/fanout/run.sh [--small] [--keep] [--floor] [S1 S1M S1D S1P S2 S3 S4 S4D S4S S4P S5 S6 C1 C1R C1P C2]
#
#   S1  one game, 10,000 spectators, 100 moves at 10/s, on the default SQLite storage (a
#       fresh --data folder): latency p50/p99/max, deliveries/s, seq checked (no loss, no
#       reordering), server CPU and RSS
#   S1M the same as S1 with --data :memory: (not in the default set)
#   S1D S1 with a spectator delay of 10 s (PROTOCOL section 15; Boardcast only, not in the
#       default set): latency measured from the move's send plus the delay
#   S1P S1 on a private PostgreSQL store (--store; Boardcast only, not in the default set):
#       run.sh starts PostgreSQL 15 (Debian's) on a free loopback port, a fresh database a run
#   S2  one game, 10,000 spectators (in memory), a burst of 100 moves: deliveries/s,
#       pipelined (all 100 sent back to back) and ack-gated (the next move when the previous
#       ack arrives); shares its server with S1M when both run
#   S3  15,000 idle connections: server memory per connection
#   S4  1,000 games x 10 spectators, one move per game per second spread over the second,
#       for 10 s: p99 latency and server CPU
#   S4D S4 with a spectator delay of 10 s, in memory: the RSS against S4's is the memory a
#       delayed game holds (ten seconds of frames) (Boardcast only, not in the default set)
#   S4S S4 on SQLite, S4P S4 on the private PostgreSQL store (Boardcast only, run by name)
#   S5  connect cost (SQLite): the server CPU time (utime+stime) to accept 5,000, then, on a
#       fresh server, 19,000 idle /ws connections (handshake complete), and the ratio
#       CPU(19,000)/CPU(5,000) (linear: 3.8)
#   S6  crowd latency (SQLite): 15,000 spectators of one game arrive as fast as fanload
#       opens them (500 handshakes in flight) while a player of another game moves every
#       20 ms: its ack latency p50/p99/max, moves answered, time for the crowd to join
#   Cluster on Redis, Boardcast only, SQLite storage, run only when named; each
#   starts its own redis-server on a free loopback port and stops it:
#   C1  one game, 9,000 spectators (C1_SPECTATORS=N), 100 moves at 10/s from a player on
#       node-1 (the owner): on ONE node without Redis, then on THREE nodes on Redis, each on
#       its own port, spectators spread evenly (3,000 each): latency, deliveries/s, loss and
#       reordering, CPU of every node and of redis-server per move and per delivery, RSS
#   C1R C1 on three nodes sharing one port (--reuse-port): how evenly the kernel spreads
#   C1P the owner's CPU per published diff: a player alone on one node, then alone on node-1
#       of three with the 9,000 spectators on node-2 and node-3 only
#   C2  45,000 spectators, 15,000 on each of three nodes (C2_PER_NODE=N), 100 moves at 10/s
#       (C_RATE=R for another rate): one fanload process per node (each one's open files
#       stay below 20,000); the player's process writes the game id and the moves' send
#       times to files, the two others watch that game and report back (fanload --watch-file)
#   With no scenario named: S1 S2 S3 S4 S5 S6.
#   --small  S1 with 500 spectators, S5 at 100 and 380, S6 with a crowd of 300, and C2 with
#            100 spectators per node and 20 moves when redis-server is installed: the CI
#            smoke run of this harness (about 45 s)
#   --keep   keep the work folder (logs, recorded frames, data folders) even when every run passed
#   --floor  also run lws-floor.c (the same protocol subset in C on libwebsockets, no
#            game logic, no presence) for every scenario but S6: a third column, the floor
#            under Boardcast; FLOOR_OPTS passes it options, e.g. FLOOR_OPTS="--loop libev"
#
# Every fanload run is a check: it passes when it finished with no loss, no reordering,
# no error reply, no unanswered move and no dropped connection. Figures against targets
# are printed, not judged. The last line is `N passed, N failed`; the exit status is
# non-zero on a failure.
# Environment: BOARDCAST_SERVER=path skips the release build and runs that binary;
# FANOUT_BOARDCAST_ONLY=1 runs no Node server (before/after runs of two Boardcast builds);
# FANOUT_PERF=1 profiles the Boardcast server with `perf record -g` during each run
# (implies --keep; the top symbols land in WORK/perf-boardcast-NAME.txt); FANOUT_TRACE=1
# writes S6's every move (send time, ack latency) to WORK/trace-SERVER-S6.txt, and the cluster
# runs' every move (deliveries, mean and max latency) to WORK/trace-*.txt (implies --keep);
# with FANOUT_PERF=1 the cluster runs profile every node and redis-server (perf per process,
# the moves only: WORK/perf-LABEL-NAME-node-N.txt, -redis.txt).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SMALL=0
KEEP=0
FLOOR=0
SCENARIOS=()
for a in "$@"; do
    case "$a" in
        --small) SMALL=1 ;;
        --keep) KEEP=1 ;;
        --floor) FLOOR=1 ;;
        S1|S1M|S1D|S1P|S2|S3|S4|S4D|S4S|S4P|S5|S6|C1|C1R|C1P|C2) SCENARIOS+=("$a") ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $a (try --help)" >&2; exit 2 ;;
    esac
done
[ -n "${FANOUT_PERF:-}" ] && KEEP=1
[ -n "${FANOUT_TRACE:-}" ] && KEEP=1
if [ "$SMALL" = 1 ]; then
    SCENARIOS=(S1 S5 S6)
    command -v redis-server >/dev/null && SCENARIOS+=(C2)
elif [ ${#SCENARIOS[@]} -eq 0 ]; then
    SCENARIOS=(S1 S2 S3 S4 S5 S6)
fi
has() { local s; for s in "${SCENARIOS[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

S1_SPECTATORS=10000
[ "$SMALL" = 1 ] && S1_SPECTATORS=500
S3_CONNECTIONS=15000
S4_GAMES=1000
S4_SPECTATORS=10
S4_SECONDS=10
S5_SIZES=(5000 19000)   # two runs, a fresh server each; 19,000 + fanload's own fds fit the 20,000 limit
S6_CROWD=15000
S6_MOVE_RATE=50         # the other game's player: one move every 20 ms
S6_TAIL_MS=1000         # it keeps moving this long after the last of the crowd joined
S6_INFLIGHT=500         # handshakes in flight while the crowd arrives: the server always has a queue,
                        # and it stays below Node's default listen backlog (511), so no SYN is dropped
if [ "$SMALL" = 1 ]; then
    S5_SIZES=(100 380)
    S6_CROWD=300
    S6_TAIL_MS=500
    S6_INFLIGHT=200
fi
C1_SPECTATORS=${C1_SPECTATORS:-9000}   # spread evenly over the three nodes (3,000 each)
C1_MOVES=100
C2_PER_NODE=${C2_PER_NODE:-15000}      # one fanload process per node: 45,000 in all
C2_MOVES=100
C_RATE=${C_RATE:-10}                   # moves per second, from a player on node 1 (the owner)
C_SETTLE_MS=1500                       # quiet time on the line before the moves start
if [ "$SMALL" = 1 ]; then
    C2_PER_NODE=100
    C2_MOVES=20
    C_SETTLE_MS=300
fi
FANLOAD_TIMEOUT=240     # hard wall-clock limit of every fanload run, seconds

WORK=$(mktemp -d /tmp/boardcast-fanout.XXXXXX)
: >"$WORK/results.txt"
SERVER_PID=""
PG_DIR=""               # S1P/S4P's PostgreSQL: its folder, port and server process
PG_PORT=""
PG_PID=""
REDIS_PID=""            # a cluster scenario's redis-server, and its nodes
REDIS_PORT=""
NODE_PIDS=()
NODE_PORTS=()
watchers=()             # C2's watching fanload processes
PASSED=0
FAILED=0
FAILURES=()

cleanup() {
    local rc=$?
    local w
    for w in "${watchers[@]}"; do kill -TERM "$w" 2>/dev/null; done
    stop_server
    stop_cluster
    stop_postgres
    if [ "$KEEP" = 1 ] || [ "$FAILED" -gt 0 ] || [ $rc -ne 0 ]; then
        echo "work folder kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "== $*" >&2; }
fail_run() { FAILED=$((FAILED + 1)); FAILURES+=("$1"); say "FAILED: $1"; }

# ---- limits: every connection is a file descriptor in fanload and in the server ----
need=$((S1_SPECTATORS + 100))
has S3 && [ $need -lt $((S3_CONNECTIONS + 100)) ] && need=$((S3_CONNECTIONS + 100))
{ has S4 || has S4D || has S4S || has S4P; } && [ $need -lt $((S4_GAMES * (S4_SPECTATORS + 1) + 100)) ] && need=$((S4_GAMES * (S4_SPECTATORS + 1) + 100))
has S5 && [ $need -lt $((S5_SIZES[1] + 100)) ] && need=$((S5_SIZES[1] + 100))
has S6 && [ $need -lt $((S6_CROWD + 100)) ] && need=$((S6_CROWD + 100))
has C2 && [ $need -lt $((C2_PER_NODE + 100)) ] && need=$((C2_PER_NODE + 100))
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $need ]; then
    echo "run.sh: open-file limit $(ulimit -n) is below the $need these scenarios need" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- build ----
say "building fanload"
if ! cc -O2 -Wall -pthread -o "$WORK/fanload" "$HERE/fanload.c"; then
    echo "0 passed, 1 failed"; exit 1
fi
if [ -n "${BOARDCAST_SERVER:-}" ]; then
    SERVER_BIN=$BOARDCAST_SERVER
else
    say "building the server (release, scratch path .build-bench)"
    if ! (cd "$ROOT" && swift build -c release --scratch-path .build-bench --product server 2>&1 | tail -5); then
        echo "0 passed, 1 failed"; exit 1
    fi
    SERVER_BIN=$ROOT/.build-bench/release/server
fi
if [ ! -x "$SERVER_BIN" ]; then
    echo "run.sh: no server binary at $SERVER_BIN" >&2; echo "0 passed, 1 failed"; exit 1
fi
if [ "$FLOOR" = 1 ] && ! cc -O2 -Wall -o "$WORK/lws-floor" "$HERE/lws-floor.c" $(pkg-config --cflags --libs libwebsockets); then
    echo "0 passed, 1 failed"; exit 1
fi
# Node runs the scenarios but S3, S5 and the cluster ones (Boardcast only)
needs_node=0
for s in "${SCENARIOS[@]}"; do
    case "$s" in S1D|S1P|S3|S4D|S4S|S4P|S5|C*) ;; *) needs_node=1 ;; esac
done
[ "$FLOOR" = 1 ] && needs_node=1
[ "${FANOUT_BOARDCAST_ONLY:-0}" = 1 ] && needs_node=0
if [ $needs_node = 1 ] && ! command -v node >/dev/null; then
    echo "run.sh: node is not installed (apt-get install nodejs node-ws)" >&2; echo "0 passed, 1 failed"; exit 1
fi
has_cluster=0
for s in "${SCENARIOS[@]}"; do case "$s" in C*) has_cluster=1 ;; esac; done
if [ $has_cluster = 1 ] && ! command -v redis-server >/dev/null; then
    echo "run.sh: redis-server is not installed (apt-get install redis-server)" >&2; echo "0 passed, 1 failed"; exit 1
fi

# ---- servers ----
# start_server boardcast|node|lws-floor LOGNAME sqlite|memory: sets SERVER_PID and PORT, or
# returns 1. Boardcast with sqlite gets a fresh --data folder in the work folder; Node and
# the floor keep nothing either way.
# Every load comes from one address (127.0.0.1): Boardcast's per-address limits are lifted.
LOAD_LIMITS=(--max-connections-per-address 1000000 --create-rate 1000000)
# A build from before the limits (a before/after run) has no such flags. The help is read
# whole first: `grep -q` leaving early would kill the writer with SIGPIPE, and under
# pipefail that read as "no such flag" (the limits stayed on: 429s on a loaded machine).
SERVER_HELP=$("$SERVER_BIN" --help 2>&1)
grep -q -- --max-connections-per-address <<<"$SERVER_HELP" || LOAD_LIMITS=()

start_server() {
    local kind=$1 log=$WORK/$2.log storage=$3 data=:memory:
    if [ "$kind" = boardcast ]; then
        local store=()
        if [ "$storage" = sqlite ] || [ "$storage" = postgres ]; then
            data=$WORK/data-$2
            rm -rf "$data" && mkdir -p "$data" || return 1
        fi
        if [ "$storage" = postgres ]; then
            # started here, not inside $(...): the server must outlive this call
            start_postgres || return 1
            local url
            url=$(postgres_database) || return 1
            store=(--store "$url")
        fi
        (cd "$ROOT" && exec "$SERVER_BIN" --host 127.0.0.1 --port 0 --data "$data" "${store[@]}" "${LOAD_LIMITS[@]}") >"$log" 2>&1 &
    elif [ "$kind" = lws-floor ]; then
        # shellcheck disable=SC2086
        "$WORK/lws-floor" "$WORK/frames.txt" ${FLOOR_OPTS:-} >"$log" 2>&1 &
    else
        local frames=()
        [ -s "$WORK/frames.txt" ] && frames=(--frames "$WORK/frames.txt")
        NODE_PATH=/usr/share/nodejs exec node "$HERE/node-server.js" "${frames[@]}" \
            --host 127.0.0.1 --port 0 >"$log" 2>&1 &
    fi
    SERVER_PID=$!
    local i
    for i in $(seq 1 300); do
        PORT=$(sed -n 's#^listening on http://[^ ]*:\([0-9][0-9]*\)/\{0,1\}[[:space:]]*$#\1#p' "$log" | head -1)
        if [ -n "$PORT" ]; then
            [ "$kind" = boardcast ] && [ "$SMALL" = 0 ] && wait_for_pool "$PORT"
            return 0
        fi
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            say "$kind server exited before listening:"; tail -5 "$log" >&2
            SERVER_PID=""; return 1
        fi
        sleep 0.1
    done
    say "$kind server did not print its listening line in 30 s"; tail -5 "$log" >&2
    stop_server
    return 1
}

# A fresh Boardcast server fills its pool of proven winnable deals in the background, 10 s
# after it starts (a few CPU seconds at the lowest priority, off the service thread). That is
# start-up work, not the scenario's: wait for it (at most 60 s), so no scenario's CPU figures
# include it. A server without the pool's metrics (an older build) is not waited for.
wait_for_pool() {  # PORT [ANSWERS]: ANSWERS full answers in a row (nodes sharing a port)
    local port=$1 want=${2:-1} i metrics target full seen=0
    for i in $(seq 1 600); do
        metrics=$(curl -s --max-time 2 "http://127.0.0.1:$port/metrics") || return 0
        target=$(sed -n 's/^boardcast_winnable_pool_target \([0-9.]*\)$/\1/p' <<<"$metrics")
        [ -n "$target" ] || return 0
        full=$(awk -v t="$target" '/^boardcast_winnable_pool_seeds/ { n++; if ($2 + 0 >= t + 0) f++ } END { print (n > 0 && f == n) ? 1 : 0 }' <<<"$metrics")
        if [ "$full" = 1 ]; then seen=$((seen + 1)); [ "$seen" -ge "$want" ] && return 0; continue; fi
        seen=0
        sleep 0.1
    done
    say "the winnable pool did not fill within 60 s; measuring anyway"
}

stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null
    local i
    for i in $(seq 1 100); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=""
}

# ---- S1P and S4P: a private PostgreSQL 15 (Debian's, default settings: fsync and
# synchronous_commit on) on a free loopback port, started once; as root it runs as `postgres` ----
pg_bin() { echo "$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)/$1"; }
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_postgres() {
    [ -n "$PG_PID" ] && return 0
    if [ ! -x "$(pg_bin initdb)" ]; then say "PostgreSQL is not installed (apt-get install postgresql)"; return 1; fi
    PG_DIR=$(mktemp -d /tmp/boardcast-fanout-pg.XXXXXX) && chmod 755 "$PG_DIR" || return 1
    [ "$(id -u)" -eq 0 ] && chown postgres: "$PG_DIR"
    as_postgres "$(pg_bin initdb)" -D "$PG_DIR/data" -A trust -U postgres --no-sync -E UTF8 >"$WORK/postgres-initdb.log" 2>&1 || return 1
    PG_PORT=$(free_port)
    as_postgres "$(pg_bin postgres)" -D "$PG_DIR/data" -p "$PG_PORT" -k "$PG_DIR" -c listen_addresses=127.0.0.1 \
        >"$WORK/postgres.log" 2>&1 &
    PG_PID=$!
    local i
    for i in $(seq 1 300); do
        "$(pg_bin pg_isready)" -h 127.0.0.1 -p "$PG_PORT" -U postgres -q && return 0
        kill -0 "$PG_PID" 2>/dev/null || { say "postgres exited at start:"; tail -5 "$WORK/postgres.log" >&2; PG_PID=""; return 1; }
        sleep 0.1
    done
    say "postgres was not ready in 30 s"
    return 1
}

# postgres_database: a fresh database for one run (named by the time: run in a subshell); prints its URL
postgres_database() {
    local name
    name=fanout$(date +%s%N)
    "$(pg_bin createdb)" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$name" >&2 || return 1
    echo "postgresql://postgres@127.0.0.1:$PG_PORT/$name"
}

# a fast shutdown: SIGINT to the postmaster (runuser, in front of it, passes no signal on)
stop_postgres() {
    [ -n "$PG_PID" ] || return 0
    local pid i
    pid=$(head -1 "$PG_DIR/data/postmaster.pid" 2>/dev/null)
    [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
    for i in $(seq 1 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$PG_PID" 2>/dev/null
    wait "$PG_PID" 2>/dev/null
    rm -rf "$PG_DIR"
    PG_PID=""; PG_DIR=""; PG_PORT=""
}

# ---- a cluster: its own redis-server on a free loopback port, and Boardcast nodes ----

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
        || echo $((20000 + RANDOM % 10000))
}

# start_redis LOGNAME: sets REDIS_PID and REDIS_PORT, or returns 1
start_redis() {
    local log=$WORK/$1.log i
    REDIS_PORT=$(free_port)
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$log" 2>&1 &
    REDIS_PID=$!
    for i in $(seq 1 200); do
        grep -q 'Ready to accept connections' "$log" 2>/dev/null && return 0
        if ! kill -0 "$REDIS_PID" 2>/dev/null; then
            say "redis-server exited before it was ready:"; tail -5 "$log" >&2
            REDIS_PID=""; REDIS_PORT=""; return 1
        fi
        sleep 0.05
    done
    say "redis-server was not ready in 10 s"; tail -5 "$log" >&2
    return 1
}

# start_node LOGNAME NODE PORT [ARGS...]: a Boardcast node with a fresh SQLite --data folder,
# on the cluster's Redis when one runs; appends to NODE_PIDS and NODE_PORTS, or returns 1.
start_node() {
    local log=$WORK/$1.log name=$2 port=$3 data=$WORK/data-$1
    shift 3
    rm -rf "$data" && mkdir -p "$data" || return 1
    local redis=()
    [ -n "$REDIS_PORT" ] && redis=(--redis "redis://127.0.0.1:$REDIS_PORT" --node "$name")
    (cd "$ROOT" && exec "$SERVER_BIN" --host 127.0.0.1 --port "$port" --data "$data" "${redis[@]}" "${LOAD_LIMITS[@]}" "$@") >"$log" 2>&1 &
    local pid=$! i listening
    NODE_PIDS+=("$pid")
    for i in $(seq 1 300); do
        listening=$(sed -n 's#^listening on http://[^ ]*:\([0-9][0-9]*\)/\{0,1\}[[:space:]]*$#\1#p' "$log" | head -1)
        if [ -n "$listening" ]; then NODE_PORTS+=("$listening"); return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then say "node $name exited before listening:"; tail -5 "$log" >&2; return 1; fi
        sleep 0.1
    done
    say "node $name did not print its listening line in 30 s"; tail -5 "$log" >&2
    return 1
}

# cluster_up NAME COUNT none|ports|reuse: COUNT nodes node-1.. (none: one node, no Redis;
# ports: each node on its own port; reuse: all on node-1's port with --reuse-port, the kernel
# spreads connections). Returns once every node has seen the others alive in Redis.
cluster_up() {
    local name=$1 count=$2 mode=$3 n port
    NODE_PIDS=(); NODE_PORTS=()
    if [ "$mode" != none ]; then start_redis "$name-redis" || return 1; fi
    for n in $(seq 1 "$count"); do
        case "$mode" in
            reuse) port=0; [ "$n" -gt 1 ] && port=${NODE_PORTS[0]}
                    start_node "$name-node-$n" "node-$n" "$port" --reuse-port || return 1 ;;
            *) start_node "$name-node-$n" "node-$n" 0 || return 1 ;;
        esac
    done
    if [ "$SMALL" = 0 ]; then
        # every node's pool (see wait_for_pool); on a shared port, 12 full answers in a row
        if [ "$mode" = reuse ]; then wait_for_pool "${NODE_PORTS[0]}" 12
        else for port in "${NODE_PORTS[@]}"; do wait_for_pool "$port"; done
        fi
    fi
    [ "$mode" = none ] && return 0
    # each node writes its liveness key once its Redis link is up; the others read them once
    # a second: a watch forwarded to an owner not yet seen alive would be refused
    local i keys=()
    for n in $(seq 1 "$count"); do keys+=("bc:alive:node-$n"); done
    for i in $(seq 1 100); do
        if command -v redis-cli >/dev/null; then
            [ "$(redis-cli -p "$REDIS_PORT" exists "${keys[@]}" 2>/dev/null)" = "$count" ] && break
        else
            [ "$i" -ge 30 ] && break
        fi
        sleep 0.1
    done
    sleep 1.5   # one cluster round (every second) of every node after the last key appeared
}

# stop_pid PID: SIGTERM, up to 10 s to stop, then SIGKILL (only processes this script started)
stop_pid() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

# the nodes first (they talk to Redis as they stop), then redis-server
stop_cluster() {
    local pid
    for pid in "${NODE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${NODE_PIDS[@]}"; do stop_pid "$pid"; done
    [ -n "$REDIS_PID" ] && stop_pid "$REDIS_PID"
    NODE_PIDS=(); NODE_PORTS=(); REDIS_PID=""; REDIS_PORT=""
}

# cluster_fanload NAME LABEL ARGS...: one fanload run against the running nodes (ARGS name
# their ports and pids); RESULT lines go to results.txt. FANOUT_PERF=1 profiles every node
# and redis-server, one perf record each (WORK/perf-LABEL-NAME-node-N.txt, -redis.txt).
cluster_fanload() {
    local name=$1 label=$2
    shift 2
    local out=$WORK/fanload-$label-$name
    local perf_pids=() perf_names=() p n=0 who
    if [ -n "${FANOUT_PERF:-}" ]; then
        for p in "${NODE_PIDS[@]}" $REDIS_PID; do
            n=$((n + 1)); who=node-$n
            [ "$p" = "$REDIS_PID" ] && who=redis
            perf record -q -F 999 -g -k CLOCK_MONOTONIC -p "$p" -o "$WORK/perf-$label-$name-$who.data" >/dev/null 2>&1 &
            perf_pids+=($!); perf_names+=("$who")
        done
    fi
    local trace=()
    [ -n "${FANOUT_TRACE:-}" ] && trace=(--trace "$WORK/trace-$label-$name.txt")
    "$WORK/fanload" --label "$label" --storage sqlite --timeout $FANLOAD_TIMEOUT "${trace[@]}" "$@" >"$out.out" 2>"$out.err"
    local rc=$?
    if [ ${#perf_pids[@]} -gt 0 ]; then
        for p in "${perf_pids[@]}"; do kill -INT "$p" 2>/dev/null; done
        for p in "${perf_pids[@]}"; do wait "$p" 2>/dev/null; done
        # the moves only: the phase's start and end (t0, t1) are on the same clock (CLOCK_MONOTONIC)
        local window
        window=$(sed -n 's/^RESULT .* t0=\([0-9.]*\) t1=\([0-9.]*\) .*/\1,\2/p' "$out.out" | head -1)
        for who in "${perf_names[@]}"; do
            perf report -i "$WORK/perf-$label-$name-$who.data" ${window:+--time "$window"} --stdio --no-children \
                --sort dso,symbol 2>/dev/null | grep -E '^ +[0-9]' | head -60 >"$WORK/perf-$label-$name-$who.txt"
        done
        say "profiles: $WORK/perf-$label-$name-{${perf_names[*]}}.txt"
    fi
    cat "$out.err" >&2
    grep '^RESULT ' "$out.out" | tee -a "$WORK/results.txt" >&2
    if [ -n "$REDIS_PORT" ] && command -v redis-cli >/dev/null; then
        # Redis's own time per command, over its whole life (the joins' forwards included)
        redis-cli -p "$REDIS_PORT" info commandstats >"$WORK/redis-commandstats-$label-$name.txt" 2>/dev/null
        redis-cli -p "$REDIS_PORT" info cpu >>"$WORK/redis-commandstats-$label-$name.txt" 2>/dev/null
        grep -E '^cmdstat_(eval|publish)' "$WORK/redis-commandstats-$label-$name.txt" | tr -d '\r' | sed 's/^/redis: /' >&2
    fi
    return $rc
}

# fanload_run NAME KIND sqlite|memory ARGS...: one fanload run on a fresh server; RESULT
# lines go to results.txt.
fanload_run() {
    local name=$1 kind=$2 storage=$3
    shift 3
    if ! start_server "$kind" "$kind-$name" "$storage"; then fail_run "$name $kind: server did not start"; return 1; fi
    local label=$storage
    [ "$kind" != boardcast ] && label=none
    say "$name on $kind (port $PORT, pid $SERVER_PID, storage $label)"
    local perf_pid=""
    if [ -n "${FANOUT_PERF:-}" ] && [ "$kind" = boardcast ] && [ "$name" != record ]; then
        perf record -q -F 999 -g -p "$SERVER_PID" -o "$WORK/perf-$kind-$name.data" >/dev/null 2>&1 &
        perf_pid=$!
    fi
    "$WORK/fanload" --port "$PORT" --pid "$SERVER_PID" --label "$kind" --storage "$label" --timeout $FANLOAD_TIMEOUT "$@" \
        >"$WORK/fanload-$kind-$name.out" 2>"$WORK/fanload-$kind-$name.err"
    local rc=$?
    if [ -n "$perf_pid" ]; then
        kill -INT "$perf_pid" 2>/dev/null; wait "$perf_pid" 2>/dev/null
        perf report -i "$WORK/perf-$kind-$name.data" --stdio --no-children --sort dso,symbol 2>/dev/null \
            | grep -E '^ +[0-9]' | head -40 >"$WORK/perf-$kind-$name.txt"
        say "profile of the server: $WORK/perf-$kind-$name.txt (perf report -i $WORK/perf-$kind-$name.data)"
    fi
    cat "$WORK/fanload-$kind-$name.err" >&2
    grep '^RESULT ' "$WORK/fanload-$kind-$name.out" | tee -a "$WORK/results.txt" >&2
    stop_server
    if [ $rc -ne 0 ]; then fail_run "$name $kind: fanload exit $rc"; return 1; fi
    PASSED=$((PASSED + 1))
}

# ---- record Boardcast's frames, so that Node sends the very same bytes ----
# (S3 and S5 only connect: Node needs no frames for them; the floor always does. S6's
# mover outlasts any recording: node-server.js reuses recorded diffs past its end.)
moves=0
has S1 && moves=$((moves + 100))
has S1M && moves=$((moves + 100))
has S2 && moves=$((moves + 200))
[ $moves -lt $((S4_SECONDS + 5)) ] && moves=$((S4_SECONDS + 5))
if [ $needs_node = 1 ]; then
    # 80 moves/s stays under the server's 100 frames/s per connection
    fanload_run record boardcast memory --games 1 --spectators 1 --phase "record:paced:$moves:80" \
        --record "$WORK/frames.txt" --settle-ms 300
    : >"$WORK/results.txt"
    if [ ! -s "$WORK/frames.txt" ] || [ "$(grep -c '^diff' "$WORK/frames.txt")" -lt $moves ]; then
        fail_run "record: Boardcast's frames were not recorded"
    fi
fi

# ---- the Node server must send the very bytes Boardcast sent ----
if [ $needs_node = 1 ] && [ -s "$WORK/frames.txt" ]; then
    if fanload_run identical node memory --games 1 --spectators 1 --phase "record:paced:$moves:80" \
        --record "$WORK/frames-node.txt" --settle-ms 300; then
        if cmp -s <(grep '^diff' "$WORK/frames.txt") <(grep '^diff' "$WORK/frames-node.txt"); then
            say "Node's diff frames are byte-identical to Boardcast's ($moves frames)"
        else
            PASSED=$((PASSED - 1))
            fail_run "identical: Node's diff frames differ from Boardcast's"
        fi
    fi
    : >"$WORK/results.txt"
fi

# ---- scenarios ----
kinds=(boardcast node)
[ "${FANOUT_BOARDCAST_ONLY:-0}" = 1 ] && kinds=(boardcast)
[ "$FLOOR" = 1 ] && kinds+=(lws-floor)
for kind in "${kinds[@]}"; do
    if [ $kind != boardcast ] && [ ! -s "$WORK/frames.txt" ] && [ $needs_node = 1 ]; then
        say "skipping $kind: no recorded frames"; continue
    fi
    if has S1; then
        fanload_run S1 $kind sqlite --games 1 --spectators "$S1_SPECTATORS" --phase "S1:paced:100:10"
    fi
    if has S1M || has S2; then
        phases=()
        has S1M && phases+=(--phase "S1M:paced:100:10")
        has S2 && phases+=(--phase "S2:burst:100:100" --phase "S2-acked:burst:100:1")
        group=""
        has S1M && group=S1M
        has S2 && group=${group}S2
        fanload_run "$group" $kind memory --games 1 --spectators "$S1_SPECTATORS" "${phases[@]}"
    fi
    if has S3; then
        fanload_run S3 $kind memory --idle "$S3_CONNECTIONS"
    fi
    if has S4; then
        fanload_run S4 $kind memory --games "$S4_GAMES" --spectators "$S4_SPECTATORS" --phase "S4:paced:$S4_SECONDS:1"
    fi
    if [ $kind = boardcast ]; then
        # Boardcast only: a spectator delay (PROTOCOL section 15), and the shared PostgreSQL store (11.1)
        has S1D && fanload_run S1D $kind sqlite --games 1 --spectators "$S1_SPECTATORS" --phase "S1D:paced:100:10" --delay 10
        has S1P && fanload_run S1P $kind postgres --games 1 --spectators "$S1_SPECTATORS" --phase "S1P:paced:100:10"
        has S4D && fanload_run S4D $kind memory --games "$S4_GAMES" --spectators "$S4_SPECTATORS" --phase "S4D:paced:$S4_SECONDS:1" --delay 10
        has S4S && fanload_run S4S $kind sqlite --games "$S4_GAMES" --spectators "$S4_SPECTATORS" --phase "S4S:paced:$S4_SECONDS:1"
        has S4P && fanload_run S4P $kind postgres --games "$S4_GAMES" --spectators "$S4_SPECTATORS" --phase "S4P:paced:$S4_SECONDS:1"
    fi
    if has S5; then
        fanload_run "S5-${S5_SIZES[0]}" $kind sqlite --idle "${S5_SIZES[0]}" --name S5a --settle-ms 500
        fanload_run "S5-${S5_SIZES[1]}" $kind sqlite --idle "${S5_SIZES[1]}" --name S5b --settle-ms 500
    fi
    if has S6 && [ $kind != lws-floor ]; then
        trace=()
        [ -n "${FANOUT_TRACE:-}" ] && trace=(--trace "$WORK/trace-$kind-S6.txt")
        fanload_run S6 $kind "${S6_STORAGE:-sqlite}" --crowd "$S6_CROWD" --move-rate "$S6_MOVE_RATE" --tail-ms "$S6_TAIL_MS" \
            --inflight "$S6_INFLIGHT" --settle-ms 300 "${trace[@]}"
    fi
done

# ---- cluster on Redis: Boardcast only, SQLite storage, fresh data folders ----
ports_csv() { (IFS=,; echo "${NODE_PORTS[*]}"); }
pids_csv() { (IFS=,; echo "${NODE_PIDS[*]}${REDIS_PID:+,$REDIS_PID}"); }
if has C1; then
    say "C1 on one node (no Redis): $C1_SPECTATORS spectators, $C1_MOVES moves at $C_RATE/s"
    if cluster_up C1-one 1 none; then
        if cluster_fanload C1 one-node --ports "$(ports_csv)" --pid "$(pids_csv)" --games 1 \
            --spectators "$C1_SPECTATORS" --phase "C1:paced:$C1_MOVES:$C_RATE" --settle-ms $C_SETTLE_MS; then PASSED=$((PASSED + 1))
        else fail_run "C1 one node: fanload exit $?"; fi
    else fail_run "C1 one node: the server did not start"; fi
    stop_cluster
    say "C1 on three nodes on Redis, one port each: the player on node-1 (the owner), spectators spread evenly"
    if cluster_up C1-three 3 ports; then
        say "nodes on ports $(ports_csv) (pids $(pids_csv), the last is redis-server on port $REDIS_PORT)"
        if cluster_fanload C1 three-nodes --ports "$(ports_csv)" --pid "$(pids_csv)" --games 1 \
            --spectators "$C1_SPECTATORS" --phase "C1:paced:$C1_MOVES:$C_RATE" --settle-ms $C_SETTLE_MS; then PASSED=$((PASSED + 1))
        else fail_run "C1 three nodes: fanload exit $?"; fi
    else fail_run "C1 three nodes: a node or redis-server did not start"; fi
    stop_cluster
fi
if has C1R; then
    say "C1R: C1 on three nodes sharing one port (--reuse-port): the kernel spreads the connections"
    if cluster_up C1R 3 reuse; then
        say "nodes on port ${NODE_PORTS[0]} (pids $(pids_csv), the last is redis-server on port $REDIS_PORT)"
        if cluster_fanload C1R reuse-port --ports "${NODE_PORTS[0]}" --pid "$(pids_csv)" --games 1 \
            --spectators "$C1_SPECTATORS" --phase "C1R:paced:$C1_MOVES:$C_RATE" --settle-ms $C_SETTLE_MS; then PASSED=$((PASSED + 1))
        else fail_run "C1R: fanload exit $?"; fi
    else fail_run "C1R: a node or redis-server did not start"; fi
    stop_cluster
fi
if has C1P; then
    say "C1P: the owner's CPU per published diff: a player alone on one node (no Redis), then alone on node-1 of three, $C1_SPECTATORS spectators on node-2 and node-3"
    if cluster_up C1P-one 1 none; then
        if cluster_fanload C1P one-node --ports "$(ports_csv)" --pid "$(pids_csv)" --games 1 \
            --spectators 0 --phase "C1P:paced:$C1_MOVES:$C_RATE" --settle-ms $C_SETTLE_MS; then PASSED=$((PASSED + 1))
        else fail_run "C1P one node: fanload exit $?"; fi
    else fail_run "C1P one node: the server did not start"; fi
    stop_cluster
    if cluster_up C1P-three 3 ports; then
        say "nodes on ports $(ports_csv) (pids $(pids_csv), the last is redis-server on port $REDIS_PORT)"
        if cluster_fanload C1P three-nodes --player-port "${NODE_PORTS[0]}" --ports "${NODE_PORTS[1]},${NODE_PORTS[2]}" \
            --pid "$(pids_csv)" --games 1 --spectators "$C1_SPECTATORS" --phase "C1P:paced:$C1_MOVES:$C_RATE" \
            --settle-ms $C_SETTLE_MS; then PASSED=$((PASSED + 1))
        else fail_run "C1P three nodes: fanload exit $?"; fi
    else fail_run "C1P three nodes: a node or redis-server did not start"; fi
    stop_cluster
fi
if has C2; then
    say "C2: $C2_PER_NODE spectators on each of three nodes, one fanload process per node, $C2_MOVES moves at $C_RATE/s"
    if cluster_up C2 3 ports; then
        say "nodes on ports $(ports_csv) (pids $(pids_csv), the last is redis-server on port $REDIS_PORT)"
        c2=$WORK/c2
        rm -rf "$c2" && mkdir -p "$c2"
        # node-2's and node-3's spectators: processes that watch the game the player's process
        # creates (its id in $c2/game), then read the player's send times for their latencies
        watchers=()
        for n in 2 3; do
            trace=()
            [ -n "${FANOUT_TRACE:-}" ] && trace=(--trace "$WORK/trace-watch-C2-node-$n.txt")
            "$WORK/fanload" "${trace[@]}" --label boardcast --storage sqlite --timeout $FANLOAD_TIMEOUT --ports "${NODE_PORTS[$((n - 1))]}" \
                --pid "${NODE_PIDS[$((n - 1))]}" --src-base $((n * 20)) --watch-file "$c2/game" \
                --spectators "$C2_PER_NODE" --ready-file "$c2/ready-$n" --done-file "$c2/done-$n" \
                --send-times "$c2/send-times" --report "$c2/report-$n" --phase-name "C2-node-$n" --settle-ms $C_SETTLE_MS \
                >"$WORK/fanload-watch-C2-node-$n.out" 2>"$WORK/fanload-watch-C2-node-$n.err" &
            watchers+=($!)
        done
        cluster_fanload C2 three-nodes --ports "${NODE_PORTS[0]}" --pid "$(pids_csv)" --games 1 \
            --spectators "$C2_PER_NODE" --phase "C2:paced:$C2_MOVES:$C_RATE" --game-file "$c2/game" \
            --go-files "$c2/ready-2,$c2/ready-3" --done-files "$c2/done-2,$c2/done-3" \
            --send-times "$c2/send-times" --merge "$c2/report-2,$c2/report-3" --settle-ms $C_SETTLE_MS
        rc=$?
        # a player's process that failed may leave the watchers waiting: end them
        [ $rc -ne 0 ] && for w in "${watchers[@]}"; do kill -TERM "$w" 2>/dev/null; done
        for n in 2 3; do
            wait "${watchers[$((n - 2))]}"
            wrc=$?
            cat "$WORK/fanload-watch-C2-node-$n.err" >&2
            grep '^RESULT ' "$WORK/fanload-watch-C2-node-$n.out" | tee -a "$WORK/results.txt" >&2
            [ $wrc -ne 0 ] && [ $rc -eq 0 ] && rc=$wrc
        done
        watchers=()
        if [ $rc -eq 0 ]; then PASSED=$((PASSED + 1)); else fail_run "C2: a fanload process exited $rc"; fi
    else fail_run "C2: a node or redis-server did not start"; fi
    stop_cluster
fi

# ---- table ----
machine="$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(uname -r)"
echo
echo "Fan-out benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $machine"
has_s=0
for s in "${SCENARIOS[@]}"; do case "$s" in S*) has_s=1 ;; esac; done
if [ $has_s = 1 ]; then
echo "Boardcast: $SERVER_BIN   Node $(node --version) ws $(node -p "require('/usr/share/nodejs/ws/package.json').version" 2>/dev/null)"
[ "$SMALL" = 1 ] && echo "(--small: S1 with $S1_SPECTATORS spectators, S5 at ${S5_SIZES[0]} and ${S5_SIZES[1]}, S6 with a crowd of $S6_CROWD; targets are for the full sizes)"
stored=(); inmem=()
for s in S1 S1D S4S S5 S6; do has $s && stored+=("$s"); done
for s in S1M S2 S3 S4 S4D; do has $s && inmem+=("$s"); done
{ has S1P || has S4P; } && echo "storage: S1P and S4P on a private PostgreSQL 15 (--store; a fresh database per run)"
[ ${#stored[@]} -gt 0 ] && echo "storage: ${stored[*]} on Boardcast's default SQLite storage (a fresh --data folder in the work folder per run)"
[ ${#inmem[@]} -gt 0 ] && echo "storage: ${inmem[*]} with --data :memory:"
echo "(Node and the floor store nothing)"
awk -v small="$SMALL" -v floor="$FLOOR" -v s5a="${S5_SIZES[0]}" -v s5b="${S5_SIZES[1]}" -v crowd="$S6_CROWD" \
    -v tail="$S6_TAIL_MS" -v rate="$S6_MOVE_RATE" '
function val(phase, server, key,    k) { k = phase SUBSEP server SUBSEP key; return (k in R) ? R[k] : "" }
function row(label, phase, key, better, target, scale, fmt,    b, n, f, ratio, met, t) {
    b = val(phase, "boardcast", key); n = val(phase, "node", key)
    if (b == "" && n == "") return
    ratio = "-"
    if (small && target != "" && phase != "S1") target = ""
    if (better != "none" && b != "" && n != "" && b + 0 > 0 && n + 0 > 0) ratio = sprintf("%.2fx", better == "lower" ? n / b : b / n)
    met = ""
    if (target != "" && b != "") {
        split(target, t, " ")
        if (t[1] == "<=") met = (b + 0 <= t[2] + 0) ? "met" : "MISSED"
        else if (t[1] == "<") met = (b + 0 < t[2] + 0) ? "met" : "MISSED"
        else if (t[1] == ">=") met = (b + 0 >= t[2] + 0) ? "met" : "MISSED"
        if (t[3] == "and" && ratio != "-") met = (met == "met" && substr(ratio, 1, length(ratio) - 1) + 0 >= t[5] + 0) ? "met" : "MISSED"
        met = target " " met
    }
    f = val(phase, "lws-floor", key)
    printf "%-54s %14s %14s %9s", label, (b == "" ? "-" : sprintf(fmt, b / scale)), (n == "" ? "-" : sprintf(fmt, n / scale)), ratio
    if (floor) printf " %12s", (f == "" ? "-" : sprintf(fmt, f / scale))
    printf "   %s\n", met
}
/^RESULT / {
    delete F
    for (i = 2; i <= NF; i++) { split($i, kv, "="); F[kv[1]] = substr($i, length(kv[1]) + 2) }
    for (k in F) R[F["phase"], F["server"], k] = F[k]
}
END {
    split("boardcast node lws-floor", servers, " ")
    for (i in servers) {
        a = val("S5a", servers[i], "server_cpu_s"); b = val("S5b", servers[i], "server_cpu_s")
        if (a != "" && b != "" && a + 0 > 0) R["S5", servers[i], "cpu_ratio"] = b / a
    }
    printf "%-54s %14s %14s %9s", "scenario / figure", "Boardcast", "Node ws", "ratio"
    if (floor) printf " %12s", "lws C floor"
    printf "   %s\n", "target (Boardcast)"
    split("S1 S1M S1D S1P", s1phases, " ")
    split("SQLite|in memory|SQLite, delay 10 s|PostgreSQL", s1kinds, "|")
    for (i = 1; i <= 4; i++) {
        p = s1phases[i]
        s1 = p " " s1kinds[i] (small ? " (500 spectators)" : "")
        row(s1 " latency p50 ms", p, "p50_ms", "lower", "", 1, "%.2f")
        row(s1 " latency p99 ms", p, "p99_ms", "lower", "<= 75", 1, "%.2f")
        row(s1 " latency max ms", p, "max_ms", "lower", "", 1, "%.2f")
        row(s1 " deliveries/s", p, "dps", "higher", "", 1, "%.0f")
        row(s1 " server CPU % of a core", p, "server_cpu_pct", "lower", "", 1, "%.1f")
        row(s1 " server CPU us per delivery", p, "server_us_per_delivery", "lower", "", 1, "%.2f")
        row(s1 " server RSS MB", p, "server_rss_kb", "lower", "", 1024, "%.1f")
        row(s1 " other CPU % (noise)", p, "other_cpu_pct", "lower", "", 1, "%.1f")
    }
    row("S2 burst deliveries/s (pipelined)", "S2", "dps", "higher", ">= 500000 and >= 3", 1, "%.0f")
    row("S2 burst deliveries/s (ack-gated)", "S2-acked", "dps", "higher", "", 1, "%.0f")
    row("S2 burst server CPU %", "S2", "server_cpu_pct", "lower", "", 1, "%.1f")
    row("S2 server CPU us per delivery", "S2", "server_us_per_delivery", "lower", "", 1, "%.2f")
    row("S2 other CPU % (noise)", "S2", "other_cpu_pct", "lower", "", 1, "%.1f")
    row("S3 bytes per idle connection", "S3", "bytes_per_conn", "lower", "<= 2560", 1, "%.0f")
    row("S3 server RSS MB with 15,000", "S3", "rss_after_kb", "lower", "", 1024, "%.1f")
    row("S4 latency p50 ms", "S4", "p50_ms", "lower", "", 1, "%.3f")
    row("S4 latency p99 ms", "S4", "p99_ms", "lower", "< 2", 1, "%.3f")
    row("S4 latency max ms", "S4", "max_ms", "lower", "", 1, "%.3f")
    row("S4 server CPU % of a core", "S4", "server_cpu_pct", "lower", "", 1, "%.1f")
    row("S4 server CPU us per delivery", "S4", "server_us_per_delivery", "lower", "", 1, "%.2f")
    row("S4 other CPU % (noise)", "S4", "other_cpu_pct", "lower", "", 1, "%.1f")
    row("S4 server RSS MB", "S4", "server_rss_kb", "lower", "", 1024, "%.1f")
    row("S4 server peak RSS MB", "S4", "server_peak_rss_kb", "lower", "", 1024, "%.1f")
    split("S4D S4S S4P", s4phases, " ")
    split("in memory, delay 10 s|SQLite|PostgreSQL", s4kinds, "|")
    for (i = 1; i <= 3; i++) {
        p = s4phases[i]; s4 = p " " s4kinds[i]
        row(s4 " latency p50 ms", p, "p50_ms", "lower", "", 1, "%.3f")
        row(s4 " latency p99 ms", p, "p99_ms", "lower", (p == "S4P" ? "<= 5" : ""), 1, "%.3f")
        row(s4 " latency max ms", p, "max_ms", "lower", "", 1, "%.3f")
        row(s4 " server CPU % of a core", p, "server_cpu_pct", "lower", "", 1, "%.1f")
        row(s4 " server CPU us per delivery", p, "server_us_per_delivery", "lower", "", 1, "%.2f")
        row(s4 " server RSS MB", p, "server_rss_kb", "lower", "", 1024, "%.1f")
        row(s4 " server peak RSS MB", p, "server_peak_rss_kb", "lower", "", 1024, "%.1f")
        row(s4 " other CPU % (noise)", p, "other_cpu_pct", "lower", "", 1, "%.1f")
    }
    a = val("S4", "boardcast", "server_peak_rss_kb"); b = val("S4D", "boardcast", "server_peak_rss_kb")
    if (a != "" && b != "") printf "%-54s %14.1f\n", "S4D peak RSS per delayed game, KB: (S4D - S4) / games", (b - a) / 1000
    row("S5 server CPU s to accept " s5a, "S5a", "server_cpu_s", "lower", "", 1, "%.2f")
    row("S5 server CPU s to accept " s5b, "S5b", "server_cpu_s", "lower", "<= 3", 1, "%.2f")
    row("S5 CPU ratio " s5b "/" s5a " (linear " sprintf("%.1f", s5b / s5a) ")", "S5", "cpu_ratio", "lower", "<= 4.6", 1, "%.2f")
    row("S5 server us per connection at " s5b, "S5b", "server_us_per_conn", "lower", "", 1, "%.0f")
    row("S5 seconds to connect " s5a, "S5a", "open_seconds", "lower", "", 1, "%.2f")
    row("S5 seconds to connect " s5b, "S5b", "open_seconds", "lower", "", 1, "%.2f")
    row("S5 server RSS MB with " s5b, "S5b", "rss_after_kb", "lower", "", 1024, "%.1f")
    row("S5 other CPU % (noise) at " s5a, "S5a", "other_cpu_pct", "lower", "", 1, "%.1f")
    row("S5 other CPU % (noise) at " s5b, "S5b", "other_cpu_pct", "lower", "", 1, "%.1f")
    row("S6 seconds until the " crowd " all joined", "S6", "crowd_seconds", "lower", "", 1, "%.2f")
    row("S6 ack latency p50 ms while they arrive", "S6", "p50_ms", "lower", "", 1, "%.2f")
    row("S6 ack latency p99 ms while they arrive", "S6", "p99_ms", "lower", "<= 25", 1, "%.2f")
    row("S6 ack latency max ms while they arrive", "S6", "max_ms", "lower", "", 1, "%.2f")
    row("S6 ack p99 ms, " tail " ms tail included", "S6", "all_p99_ms", "lower", "", 1, "%.2f")
    row("S6 ack max ms, " tail " ms tail included", "S6", "all_max_ms", "lower", "", 1, "%.2f")
    row("S6 moves while they arrive (" rate "/s)", "S6", "moves_during_arrival", "none", "", 1, "%.0f")
    row("S6 moves sent", "S6", "moves", "none", "", 1, "%.0f")
    row("S6 moves answered", "S6", "acked", "none", "", 1, "%.0f")
    row("S6 server CPU % while they arrive", "S6", "arrival_server_cpu_pct", "lower", "", 1, "%.1f")
    row("S6 server RSS MB at the end", "S6", "server_rss_kb", "lower", "", 1024, "%.1f")
    row("S6 other CPU % (noise)", "S6", "other_cpu_pct", "lower", "", 1, "%.1f")
}' "$WORK/results.txt"
echo "ratio: Node/Boardcast for times, bytes and CPU; Boardcast/Node for deliveries/s (above 1: Boardcast better)"
echo "other CPU: busy time of the machine outside the server and fanload, in % of one core (2 cores = 200)"
if has S5 || has S6; then
    echo "S5: server utime+stime from the first connect until 0.5 s after the last handshake; other CPU while connecting"
    echo "S6: ack latency = move sent to its ack, measured on the mover's own thread; other CPU while the crowd arrived"
fi
fi
if [ $has_cluster = 1 ]; then
echo
echo "Cluster on Redis: Boardcast $SERVER_BIN, $(redis-server --version | sed 's/ sha=.*//'), SQLite storage"
if has C1 || has C1R; then
    echo "C1: one game, $C1_SPECTATORS spectators, $C1_MOVES moves at $C_RATE/s from a player on node-1 (the owner);"
    echo "    three nodes: spectators spread evenly over them (one port each; C1R: one shared port, --reuse-port)"
fi
has C2 && echo "C2: one game, $C2_PER_NODE spectators on each of three nodes (three fanload processes), $C2_MOVES moves at $C_RATE/s"
awk -v c1n="$C1_SPECTATORS" -v rate="$C_RATE" '
function val(phase, server, key,    k) { k = phase SUBSEP server SUBSEP key; return (k in R) ? R[k] : "" }
function part(list, i,    a, n) { n = split(list, a, ":"); return (i <= n) ? a[i] : "" }
function parts(list, scale, fmt,    a, n, i, out) {
    if (list == "" || list == "-") return "-"
    n = split(list, a, ":"); out = ""
    for (i = 1; i <= n; i++) out = out (i > 1 ? " / " : "") sprintf(fmt, a[i] / scale)
    return out
}
function cell(v, scale, fmt) { return v == "" ? "-" : sprintf(fmt, v / scale) }
function line(label, a, b, c) {
    printf "%-50s %12s %26s", label, a, b
    if (reuse) printf " %26s", c
    printf "\n"
}
# seconds from the last move sent to the last diff received (moves paced at rate r: span - (moves - 1) / r)
function drain(phase, server,    sp, m) {
    sp = val(phase, server, "span"); m = val(phase, server, "moves")
    return (sp == "" || m == "") ? "" : sp - (m - 1) / rate
}
function row(label, key, scale, fmt) {
    line(label, cell(val("C1", "one-node", key), scale, fmt), cell(val("C1", "three-nodes", key), scale, fmt),
         cell(val("C1R", "reuse-port", key), scale, fmt))
}
# CPU seconds of process i over the phase (scheduler time from /proc/PID/task/*/schedstat)
function pidcpu(phase, server, i) { return part(val(phase, server, "pid_cpu_ms"), i) / 1000 }
# all of them, per delivery, us
function totalus(phase, server,    a, n, i, t, d) {
    d = val(phase, server, "deliveries"); if (d + 0 <= 0 || val(phase, server, "pid_cpu_ms") == "") return ""
    n = split(val(phase, server, "pid_cpu_ms"), a, ":"); t = 0
    for (i = 1; i <= n; i++) t += a[i]
    return t * 1000 / d
}
/^RESULT / {
    delete F
    for (i = 2; i <= NF; i++) { split($i, kv, "="); F[kv[1]] = substr($i, length(kv[1]) + 2) }
    for (k in F) R[F["phase"], F["server"], k] = F[k]
}
END {
    reuse = val("C1R", "reuse-port", "p99_ms") != ""
    if (val("C1", "one-node", "p99_ms") != "" || val("C1", "three-nodes", "p99_ms") != "" || reuse) {
        line("C1 figure", "1 node", "3 nodes + Redis", "3 nodes, --reuse-port")
        row("latency p50 ms", "p50_ms", 1, "%.2f")
        row("latency p99 ms", "p99_ms", 1, "%.2f")
        row("latency max ms", "max_ms", 1, "%.2f")
        row("deliveries/s", "dps", 1, "%.0f")
        row("deliveries", "deliveries", 1, "%.0f")
        line("last diff received, s after the last move was sent", cell(drain("C1", "one-node"), 1, "%.3f"),
             cell(drain("C1", "three-nodes"), 1, "%.3f"), cell(drain("C1R", "reuse-port"), 1, "%.3f"))
        row("loss", "loss", 1, "%.0f")
        row("reordering", "reorder", 1, "%.0f")
        row("server CPU % of a core (nodes + redis-server)", "server_cpu_pct", 1, "%.1f")
        line("server CPU us per delivery (nodes + redis-server)", cell(totalus("C1", "one-node"), 1, "%.2f"),
             cell(totalus("C1", "three-nodes"), 1, "%.2f"), cell(totalus("C1R", "reuse-port"), 1, "%.2f"))
        split("one-node three-nodes reuse-port", S, " ")
        split("C1 C1 C1R", P, " ")
        for (j = 1; j <= 3; j++) {
            m = val(P[j], S[j], "moves"); d = val(P[j], S[j], "deliveries"); np = val(P[j], S[j], "pids")
            cpu[j] = parts(val(P[j], S[j], "pid_cpu_ms"), 1000, "%.2f")
            rss[j] = parts(val(P[j], S[j], "pid_rss_kb"), 1024, "%.0f")
            rss0[j] = parts(val(P[j], S[j], "pid_rss_ready_kb"), 1024, "%.0f")
            socks[j] = parts(val(P[j], S[j], "pid_socks"), 1, "%.0f")
            own[j] = "-"; non[j] = "-"; red[j] = "-"; pernode[j] = "-"
            if (m + 0 > 0 && np != "") {
                own[j] = sprintf("%.2f", pidcpu(P[j], S[j], 1) * 1000 / m)
                if (np >= 3) non[j] = sprintf("%.2f", (pidcpu(P[j], S[j], 2) + pidcpu(P[j], S[j], 3)) / 2 * 1000 / m)
                if (np == 4) red[j] = sprintf("%.0f", pidcpu(P[j], S[j], 4) * 1e6 / m)
            }
            # per delivery at each node, members spread evenly (one port each)
            if (d + 0 > 0 && np != "" && S[j] != "reuse-port") {
                nn = (np >= 3) ? 3 : 1
                pernode[j] = ""
                for (i = 1; i <= nn; i++) pernode[j] = pernode[j] (i > 1 ? " / " : "") sprintf("%.2f", pidcpu(P[j], S[j], i) * 1e6 / (d / nn))
            }
        }
        line("CPU s per process (node-1 / 2 / 3 / redis)", cpu[1], cpu[2], cpu[3])
        line("node-1 (owner) CPU per move, ms", own[1], own[2], own[3])
        line("node-2, node-3 CPU per move, ms (mean)", non[1], non[2], non[3])
        line("redis-server CPU per diff, us", red[1], red[2], red[3])
        line("node CPU us per delivery to its own members", pernode[1], pernode[2], pernode[3])
        line("RSS MB per process, all joined (before the moves)", rss0[1], rss0[2], rss0[3])
        line("RSS MB per process at the end", rss[1], rss[2], rss[3])
        line("sockets per process (clients + own)", socks[1], socks[2], socks[3])
        row("other CPU % (noise)", "other_cpu_pct", 1, "%.1f")
        a = totalus("C1", "one-node"); b = totalus("C1", "three-nodes")
        if (a != "" && b != "") printf "Redis adds %.2f us of server CPU per delivery (3 nodes + redis-server against 1 node)\n", b - a
    }
    if (val("C1P", "one-node", "moves") != "" || val("C1P", "three-nodes", "moves") != "") {
        reuse = 0
        printf "\n"
        line("C1P figure (the player alone on node-1)", "1 node", "3 nodes + Redis")
        m1 = val("C1P", "one-node", "moves"); m3 = val("C1P", "three-nodes", "moves")
        a = (m1 + 0 > 0 && val("C1P", "one-node", "pid_cpu_ms") != "") ? pidcpu("C1P", "one-node", 1) * 1e6 / m1 : ""
        b = (m3 + 0 > 0 && val("C1P", "three-nodes", "pid_cpu_ms") != "") ? pidcpu("C1P", "three-nodes", 1) * 1e6 / m3 : ""
        line("remote members (spectators on node-2 and node-3)", "0", cell(val("C1P", "three-nodes", "spectators"), 1, "%.0f"))
        line("node-1 CPU per move, us", cell(a, 1, "%.0f"), cell(b, 1, "%.0f"))
        if (a != "" && b != "") printf "the owner spends %.0f us more per move when it publishes the diff (its CPU per published diff)\n", b - a
        if (m3 + 0 > 0 && val("C1P", "three-nodes", "pids") == 4)
            line("redis-server CPU per diff, us", "-", sprintf("%.0f", pidcpu("C1P", "three-nodes", 4) * 1e6 / m3))
        d = val("C1P", "three-nodes", "deliveries")
        if (d + 0 > 0) line("node-2, node-3 CPU us per delivery", "-", sprintf("%.2f / %.2f", pidcpu("C1P", "three-nodes", 2) * 1e6 / (d / 2), pidcpu("C1P", "three-nodes", 3) * 1e6 / (d / 2)))
        line("latency p50 / p99 ms (node-2 and node-3 spectators)", "-",
             sprintf("%.2f / %.2f", val("C1P", "three-nodes", "p50_ms"), val("C1P", "three-nodes", "p99_ms")))
        line("loss / reordering", sprintf("%d / %d", val("C1P", "one-node", "loss"), val("C1P", "one-node", "reorder")),
             sprintf("%d / %d", val("C1P", "three-nodes", "loss"), val("C1P", "three-nodes", "reorder")))
        line("other CPU % (noise)", cell(val("C1P", "one-node", "other_cpu_pct"), 1, "%.1f"), cell(val("C1P", "three-nodes", "other_cpu_pct"), 1, "%.1f"))
    }
    if (val("C2", "three-nodes", "p99_ms") != "") {
        reuse = 0
        printf "\n%-50s %26s\n", "C2 figure", "3 nodes + Redis"
        c2("spectators", "spectators", 1, "%.0f")
        c2("latency p50 ms", "p50_ms", 1, "%.2f")
        c2("latency p99 ms", "p99_ms", 1, "%.2f")
        c2("latency max ms", "max_ms", 1, "%.2f")
        printf "%-50s %26s\n", "latency p99 ms per process (node-1 / 2 / 3)", parts(val("C2", "three-nodes", "parts_p99_ms"), 1, "%.1f")
        c2("deliveries/s", "dps", 1, "%.0f")
        c2("deliveries", "deliveries", 1, "%.0f")
        printf "%-50s %26s\n", "last diff received, s after the last move was sent", cell(drain("C2", "three-nodes"), 1, "%.3f")
        c2("loss", "loss", 1, "%.0f")
        c2("reordering", "reorder", 1, "%.0f")
        c2("server CPU % of a core (nodes + redis-server)", "server_cpu_pct", 1, "%.1f")
        printf "%-50s %26s\n", "server CPU us per delivery (nodes + redis-server)", cell(totalus("C2", "three-nodes"), 1, "%.2f")
        printf "%-50s %26s\n", "CPU s per process (node-1 / 2 / 3 / redis)", parts(val("C2", "three-nodes", "pid_cpu_ms"), 1000, "%.2f")
        printf "%-50s %26s\n", "RSS MB per process, all joined (before the moves)", parts(val("C2", "three-nodes", "pid_rss_ready_kb"), 1024, "%.0f")
        printf "%-50s %26s\n", "RSS MB per process at the end", parts(val("C2", "three-nodes", "pid_rss_kb"), 1024, "%.0f")
        printf "%-50s %26s\n", "sockets per process (clients + own)", parts(val("C2", "three-nodes", "pid_socks"), 1, "%.0f")
        c2("other CPU % (noise)", "other_cpu_pct", 1, "%.1f")
    }
}
function c2(label, key, scale, fmt) { printf "%-50s %26s\n", label, cell(val("C2", "three-nodes", key), scale, fmt) }
' "$WORK/results.txt"
echo "server CPU: utime+stime (% of a core); per process, per move and per delivery: the scheduler's time (schedstat)"
echo "other CPU: the machine's busy time outside the servers, redis-server and fanload, % of one core (2 cores = 200)"
fi
for f in "${FAILURES[@]}"; do echo "failed: $f"; done
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
