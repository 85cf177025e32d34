#!/usr/bin/env bash
# Fan-out benchmark: Boardcast against a minimal Node `ws` server sending byte-identical
# frames, driven by fanload (C, epoll) over loopback only.
#
#   Benchmarks/fanout/run.sh [--small] [--keep] [S1 S2 S3 S4]
#
#   S1  one game, 10,000 spectators, 100 moves at 10/s: latency p50/p99/max, deliveries/s,
#       seq checked (no loss, no reordering), server CPU and RSS
#   S2  the same game, then a burst of 100 moves: deliveries/s, pipelined (all 100 sent back
#       to back) and ack-gated (the next move when the previous ack arrives)
#   S3  15,000 idle connections: server memory per connection
#   S4  1,000 games x 10 spectators, one move per game per second spread over the second,
#       for 10 s: p99 latency and server CPU
#   --small  S1 with 500 spectators only: the CI smoke run of this harness
#   --keep   keep the work folder (logs, recorded frames) even when every run passed
#   --floor  also run lws-floor.c (the same protocol subset in C on libwebsockets, no
#            game logic): a third column, the floor under Boardcast; FLOOR_OPTS passes
#            it options, e.g. FLOOR_OPTS="--loop libev --rx-buffer 256"
#
# Every fanload run is a check: it passes when it finished with no loss, no reordering,
# no error reply and no dropped connection. Figures against targets are printed, not
# judged. The last line is `N passed, N failed`; the exit status is non-zero on a failure.
# Environment: BOARDCAST_SERVER=path skips the release build and runs that binary;
# FANOUT_PERF=1 profiles the Boardcast server with `perf record -g` during each run
# (implies --keep; the top symbols land in WORK/perf-boardcast-NAME.txt).
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
        S1|S2|S3|S4) SCENARIOS+=("$a") ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown argument $a (try --help)" >&2; exit 2 ;;
    esac
done
[ -n "${FANOUT_PERF:-}" ] && KEEP=1
if [ "$SMALL" = 1 ]; then
    SCENARIOS=(S1)
elif [ ${#SCENARIOS[@]} -eq 0 ]; then
    SCENARIOS=(S1 S2 S3 S4)
fi
has() { local s; for s in "${SCENARIOS[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

S1_SPECTATORS=10000
[ "$SMALL" = 1 ] && S1_SPECTATORS=500
S3_CONNECTIONS=15000
S4_GAMES=1000
S4_SPECTATORS=10
S4_SECONDS=10
FANLOAD_TIMEOUT=240     # hard wall-clock limit of every fanload run, seconds

WORK=$(mktemp -d /tmp/boardcast-fanout.XXXXXX)
: >"$WORK/results.txt"
SERVER_PID=""
PASSED=0
FAILED=0
FAILURES=()

cleanup() {
    local rc=$?
    stop_server
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
has S4 && [ $need -lt $((S4_GAMES * (S4_SPECTATORS + 1) + 100)) ] && need=$((S4_GAMES * (S4_SPECTATORS + 1) + 100))
ulimit -Sn "$(ulimit -Hn)" 2>/dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $need ]; then
    echo "run.sh: open-file limit $(ulimit -n) is below the $need these scenarios need" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

# ---- build ----
say "building fanload"
if ! cc -O2 -Wall -o "$WORK/fanload" "$HERE/fanload.c"; then
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
if ! command -v node >/dev/null; then
    echo "run.sh: node is not installed (apt-get install nodejs node-ws)" >&2; echo "0 passed, 1 failed"; exit 1
fi

# ---- servers ----
# start_server boardcast|node LOGNAME: sets SERVER_PID and PORT, or returns 1.
start_server() {
    local kind=$1 log=$WORK/$2.log
    if [ "$kind" = boardcast ]; then
        (cd "$ROOT" && exec "$SERVER_BIN" --host 127.0.0.1 --port 0 --data :memory:) >"$log" 2>&1 &
    elif [ "$kind" = lws-floor ]; then
        # shellcheck disable=SC2086
        "$WORK/lws-floor" "$WORK/frames.txt" ${FLOOR_OPTS:-} >"$log" 2>&1 &
    else
        NODE_PATH=/usr/share/nodejs exec node "$HERE/node-server.js" --frames "$WORK/frames.txt" \
            --host 127.0.0.1 --port 0 >"$log" 2>&1 &
    fi
    SERVER_PID=$!
    local i
    for i in $(seq 1 300); do
        PORT=$(sed -n 's#^listening on http://[^ ]*:\([0-9][0-9]*\)/\{0,1\}[[:space:]]*$#\1#p' "$log" | head -1)
        [ -n "$PORT" ] && return 0
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

# fanload_run NAME KIND ARGS...: one fanload run on a fresh server; RESULT lines go to results.txt.
fanload_run() {
    local name=$1 kind=$2
    shift 2
    if ! start_server "$kind" "$kind-$name"; then fail_run "$name $kind: server did not start"; return 1; fi
    say "$name on $kind (port $PORT, pid $SERVER_PID)"
    local perf_pid=""
    if [ -n "${FANOUT_PERF:-}" ] && [ "$kind" = boardcast ] && [ "$name" != record ]; then
        perf record -q -F 999 -g -p "$SERVER_PID" -o "$WORK/perf-$kind-$name.data" >/dev/null 2>&1 &
        perf_pid=$!
    fi
    "$WORK/fanload" --port "$PORT" --pid "$SERVER_PID" --label "$kind" --timeout $FANLOAD_TIMEOUT "$@" \
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
moves=0
has S1 && moves=$((moves + 100))
has S2 && moves=$((moves + 200))
[ $moves -lt $((S4_SECONDS + 5)) ] && moves=$((S4_SECONDS + 5))
needs_node=0
for s in "${SCENARIOS[@]}"; do [ "$s" != S3 ] && needs_node=1; done
if [ $needs_node = 1 ]; then
    # 80 moves/s stays under the server's 100 frames/s per connection
    fanload_run record boardcast --games 1 --spectators 1 --phase "record:paced:$moves:80" \
        --record "$WORK/frames.txt" --settle-ms 300
    : >"$WORK/results.txt"
    if [ ! -s "$WORK/frames.txt" ] || [ "$(grep -c '^diff' "$WORK/frames.txt")" -lt $moves ]; then
        fail_run "record: Boardcast's frames were not recorded"
    fi
fi

# ---- the Node server must send the very bytes Boardcast sent ----
if [ $needs_node = 1 ] && [ -s "$WORK/frames.txt" ]; then
    if fanload_run identical node --games 1 --spectators 1 --phase "record:paced:$moves:80" \
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
[ "$FLOOR" = 1 ] && kinds+=(lws-floor)
for kind in "${kinds[@]}"; do
    if [ $kind != boardcast ] && [ ! -s "$WORK/frames.txt" ] && [ $needs_node = 1 ]; then
        say "skipping $kind: no recorded frames"; continue
    fi
    if has S1 || has S2; then
        phases=()
        has S1 && phases+=(--phase "S1:paced:100:10")
        has S2 && phases+=(--phase "S2:burst:100:100" --phase "S2-acked:burst:100:1")
        fanload_run S1S2 $kind --games 1 --spectators "$S1_SPECTATORS" "${phases[@]}"
    fi
    if has S3; then
        fanload_run S3 $kind --idle "$S3_CONNECTIONS"
    fi
    if has S4; then
        fanload_run S4 $kind --games "$S4_GAMES" --spectators "$S4_SPECTATORS" --phase "S4:paced:$S4_SECONDS:1"
    fi
done

# ---- table ----
machine="$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(uname -r)"
echo
echo "Fan-out benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $machine"
echo "Boardcast: $SERVER_BIN   Node $(node --version) ws $(node -p "require('/usr/share/nodejs/ws/package.json').version" 2>/dev/null)"
[ "$SMALL" = 1 ] && echo "(--small: S1 with $S1_SPECTATORS spectators)"
awk -v small="$SMALL" -v floor="$FLOOR" '
function val(phase, server, key,    k) { k = phase SUBSEP server SUBSEP key; return (k in R) ? R[k] : "" }
function row(label, phase, key, better, target, scale, fmt,    b, n, f, ratio, met, t) {
    b = val(phase, "boardcast", key); n = val(phase, "node", key)
    if (b == "" && n == "") return
    ratio = "-"
    if (b != "" && n != "" && b + 0 > 0 && n + 0 > 0) ratio = sprintf("%.2fx", better == "lower" ? n / b : b / n)
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
    printf "%-46s %14s %14s %9s", label, (b == "" ? "-" : sprintf(fmt, b / scale)), (n == "" ? "-" : sprintf(fmt, n / scale)), ratio
    if (floor) printf " %12s", (f == "" ? "-" : sprintf(fmt, f / scale))
    printf "   %s\n", met
}
/^RESULT / {
    delete F
    for (i = 2; i <= NF; i++) { split($i, kv, "="); F[kv[1]] = substr($i, length(kv[1]) + 2) }
    for (k in F) R[F["phase"], F["server"], k] = F[k]
}
END {
    printf "%-46s %14s %14s %9s", "scenario / figure", "Boardcast", "Node ws", "ratio"
    if (floor) printf " %12s", "lws C floor"
    printf "   %s\n", "target (Boardcast)"
    s1 = small ? "S1 (500 spectators)" : "S1"
    row(s1 " latency p50 ms", "S1", "p50_ms", "lower", "", 1, "%.2f")
    row(s1 " latency p99 ms", "S1", "p99_ms", "lower", "<= 75", 1, "%.2f")
    row(s1 " latency max ms", "S1", "max_ms", "lower", "", 1, "%.2f")
    row(s1 " deliveries/s", "S1", "dps", "higher", "", 1, "%.0f")
    row(s1 " server CPU % of a core", "S1", "server_cpu_pct", "lower", "", 1, "%.1f")
    row(s1 " server CPU us per delivery", "S1", "server_us_per_delivery", "lower", "", 1, "%.2f")
    row(s1 " server RSS MB", "S1", "server_rss_kb", "lower", "", 1024, "%.1f")
    row(s1 " other CPU % (noise)", "S1", "other_cpu_pct", "lower", "", 1, "%.1f")
    row("S2 burst deliveries/s (pipelined)", "S2", "dps", "higher", ">= 500000 and >= 3", 1, "%.0f")
    row("S2 burst deliveries/s (ack-gated)", "S2-acked", "dps", "higher", "", 1, "%.0f")
    row("S2 burst server CPU %", "S2", "server_cpu_pct", "lower", "", 1, "%.1f")
    row("S2 server CPU us per delivery", "S2", "server_us_per_delivery", "lower", "", 1, "%.2f")
    row("S2 other CPU % (noise)", "S2", "other_cpu_pct", "lower", "", 1, "%.1f")
    row("S3 bytes per idle connection", "S3", "bytes_per_conn", "lower", "<= 2048", 1, "%.0f")
    row("S3 server RSS MB with 15,000", "S3", "rss_after_kb", "lower", "", 1024, "%.1f")
    row("S4 latency p50 ms", "S4", "p50_ms", "lower", "", 1, "%.3f")
    row("S4 latency p99 ms", "S4", "p99_ms", "lower", "< 2", 1, "%.3f")
    row("S4 latency max ms", "S4", "max_ms", "lower", "", 1, "%.3f")
    row("S4 server CPU % of a core", "S4", "server_cpu_pct", "lower", "", 1, "%.1f")
    row("S4 server CPU us per delivery", "S4", "server_us_per_delivery", "lower", "", 1, "%.2f")
    row("S4 other CPU % (noise)", "S4", "other_cpu_pct", "lower", "", 1, "%.1f")
}' "$WORK/results.txt"
echo "ratio: Node/Boardcast for times, bytes and CPU; Boardcast/Node for deliveries/s (above 1: Boardcast better)"
echo "other CPU: busy time of the machine outside the server and fanload, in % of one core (2 cores = 200)"
for f in "${FAILURES[@]}"; do echo "failed: $f"; done
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
