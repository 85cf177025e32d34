#!/usr/bin/env bash
# Fan-out benchmark: Boardcast against a minimal Node `ws` server sending byte-identical
# frames, driven by fanload (C, epoll) over loopback only.
#
#   Benchmarks/fanout/run.sh [--small] [--keep] [--floor] [S1 S1M S2 S3 S4 S5 S6]
#
#   S1  one game, 10,000 spectators, 100 moves at 10/s, on the default SQLite storage (a
#       fresh --data folder): latency p50/p99/max, deliveries/s, seq checked (no loss, no
#       reordering), server CPU and RSS
#   S1M the same as S1 with --data :memory: (not in the default set)
#   S2  one game, 10,000 spectators (in memory), a burst of 100 moves: deliveries/s,
#       pipelined (all 100 sent back to back) and ack-gated (the next move when the previous
#       ack arrives); shares its server with S1M when both run
#   S3  15,000 idle connections: server memory per connection
#   S4  1,000 games x 10 spectators, one move per game per second spread over the second,
#       for 10 s: p99 latency and server CPU
#   S5  connect cost (SQLite): the server CPU time (utime+stime) to accept 5,000, then, on a
#       fresh server, 19,000 idle /ws connections (handshake complete), and the ratio
#       CPU(19,000)/CPU(5,000) (linear: 3.8)
#   S6  crowd latency (SQLite): 15,000 spectators of one game arrive as fast as fanload
#       opens them (500 handshakes in flight) while a player of another game moves every
#       20 ms: its ack latency p50/p99/max, moves answered, time for the crowd to join
#   With no scenario named: S1 S2 S3 S4 S5 S6.
#   --small  S1 with 500 spectators, S5 at 100 and 380, S6 with a crowd of 300: the CI
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
# FANOUT_PERF=1 profiles the Boardcast server with `perf record -g` during each run
# (implies --keep; the top symbols land in WORK/perf-boardcast-NAME.txt); FANOUT_TRACE=1
# writes S6's every move (send time, ack latency) to WORK/trace-SERVER-S6.txt (implies --keep).
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
        S1|S1M|S2|S3|S4|S5|S6) SCENARIOS+=("$a") ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument $a (try --help)" >&2; exit 2 ;;
    esac
done
[ -n "${FANOUT_PERF:-}" ] && KEEP=1
[ -n "${FANOUT_TRACE:-}" ] && KEEP=1
if [ "$SMALL" = 1 ]; then
    SCENARIOS=(S1 S5 S6)
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
has S5 && [ $need -lt $((S5_SIZES[1] + 100)) ] && need=$((S5_SIZES[1] + 100))
has S6 && [ $need -lt $((S6_CROWD + 100)) ] && need=$((S6_CROWD + 100))
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
if ! command -v node >/dev/null; then
    echo "run.sh: node is not installed (apt-get install nodejs node-ws)" >&2; echo "0 passed, 1 failed"; exit 1
fi

# ---- servers ----
# start_server boardcast|node|lws-floor LOGNAME sqlite|memory: sets SERVER_PID and PORT, or
# returns 1. Boardcast with sqlite gets a fresh --data folder in the work folder; Node and
# the floor keep nothing either way.
start_server() {
    local kind=$1 log=$WORK/$2.log storage=$3 data=:memory:
    if [ "$kind" = boardcast ]; then
        if [ "$storage" = sqlite ]; then
            data=$WORK/data-$2
            rm -rf "$data" && mkdir -p "$data" || return 1
        fi
        (cd "$ROOT" && exec "$SERVER_BIN" --host 127.0.0.1 --port 0 --data "$data") >"$log" 2>&1 &
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
needs_node=0
for s in "${SCENARIOS[@]}"; do [ "$s" != S3 ] && [ "$s" != S5 ] && needs_node=1; done
[ "$FLOOR" = 1 ] && needs_node=1
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

# ---- table ----
machine="$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(uname -r)"
echo
echo "Fan-out benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $machine"
echo "Boardcast: $SERVER_BIN   Node $(node --version) ws $(node -p "require('/usr/share/nodejs/ws/package.json').version" 2>/dev/null)"
[ "$SMALL" = 1 ] && echo "(--small: S1 with $S1_SPECTATORS spectators, S5 at ${S5_SIZES[0]} and ${S5_SIZES[1]}, S6 with a crowd of $S6_CROWD; targets are for the full sizes)"
stored=(); inmem=()
for s in S1 S5 S6; do has $s && stored+=("$s"); done
for s in S1M S2 S3 S4; do has $s && inmem+=("$s"); done
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
    split("S1 S1M", s1phases, " ")
    for (i = 1; i <= 2; i++) {
        p = s1phases[i]
        s1 = p (i == 1 ? " SQLite" : " in memory") (small ? " (500 spectators)" : "")
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
    row("S3 bytes per idle connection", "S3", "bytes_per_conn", "lower", "<= 2048", 1, "%.0f")
    row("S3 server RSS MB with 15,000", "S3", "rss_after_kb", "lower", "", 1024, "%.1f")
    row("S4 latency p50 ms", "S4", "p50_ms", "lower", "", 1, "%.3f")
    row("S4 latency p99 ms", "S4", "p99_ms", "lower", "< 2", 1, "%.3f")
    row("S4 latency max ms", "S4", "max_ms", "lower", "", 1, "%.3f")
    row("S4 server CPU % of a core", "S4", "server_cpu_pct", "lower", "", 1, "%.1f")
    row("S4 server CPU us per delivery", "S4", "server_us_per_delivery", "lower", "", 1, "%.2f")
    row("S4 other CPU % (noise)", "S4", "other_cpu_pct", "lower", "", 1, "%.1f")
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
for f in "${FAILURES[@]}"; do echo "failed: $f"; done
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
