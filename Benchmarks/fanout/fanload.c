/*
 * fanload: the fan-out load generator for Boardcast (and the Node `ws` baseline).
 *
 * One process plays every role: one player connection per game sends the moves and
 * stamps their send time; the spectators of that game receive the diffs. Sender and
 * receivers share one clock, so receive time minus send time is the delivery latency.
 *
 * It is its own minimal WebSocket client: HTTP upgrade, masked client frames, unmasked
 * server frames with 7/16/64-bit lengths, several frames per read, fragments, ping->pong.
 * Non-blocking sockets on one epoll loop. Every diff's "seq" is checked per connection:
 * a gap is loss, a seq at or below the last one is reordering.
 *
 * Safety: it only ever connects to 127.0.0.0/8, the connection count is capped, and a
 * hard wall-clock limit (alarm) ends the process whatever happens.
 *
 * Modes:
 *   fanout: --games G --spectators N --phase NAME:paced:MOVES:RATE | NAME:burst:MOVES:WINDOW ...
 *   idle:   --idle N [--name S3]   (N plain /ws connections: server memory per connection and
 *           the server CPU time it took to accept them, handshakes included)
 *           [--auth frame|bearer --auth-tokens FILE]   (each signs in, PROTOCOL section 19, with
 *           the JWT on line i mod L of FILE: `frame` sends {"type":"auth","jwt":...,"id":"a"} once
 *           open and the phase ends when every connection has its `authed`; `bearer` sends
 *           `Authorization: Bearer JWT` with the upgrade, which the server answers 101 or 401)
 *   crowd:  --crowd N [--move-rate 50] [--tail-ms 1000]   (one game is created, then N
 *           spectators of it, /ws?watch=GAME, arrive as fast as --inflight allows, while a
 *           player of ANOTHER game, on its own thread and socket, makes a move every
 *           1/rate s from the crowd's first connect until --tail-ms after the last one joined;
 *           its ack latency, send to ack, is what is measured; every move must be acked)
 *   watch:  --watch-file F --spectators N ...   (cluster scenario C2: several fanload processes
 *           on one game, coordinated by files. The player's process, in fanout mode with
 *           --game-file F, writes "GAME BASESEQ MOVES RATE" once its game exists, waits for the
 *           --go-files (each watcher's --ready-file, written once its spectators joined), ends its
 *           phase when the --done-files exist too (each watcher's, once every spectator has the
 *           last diff), writes every move's send time to --send-times and merges the watchers'
 *           --report files (figures and latencies) into its RESULT line. Processes on one
 *           machine share CLOCK_MONOTONIC, so a watcher's receive time minus the player's send
 *           time is the latency.)
 * Several servers: --ports P1,P2,... (the player on P1, or on --player-port P; spectators
 * round-robin over --ports) and --pid A,B,... (CPU and RSS summed, and each process's too:
 * pid_cpu_ms from the scheduler's schedstat, pid_rss_kb, pid_socks = its sockets once everyone
 * joined, which shows how --reuse-port spread the connections). --src-base B starts the source
 * addresses at 127.0.0.B (processes on one destination take different ones).
 * Each finished phase prints one line starting with "RESULT " (key=value pairs);
 * --storage NAME only labels them (storage=NAME), for the runner's table.
 * Exit status: 0 clean, 1 loss/reordering/errors seen, 2 run failure, 3 hard time limit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

#define MAX_CONNS 19000          /* below the 20,000 open-file hard limit of this machine */
#define CONNS_PER_SOURCE_IP 10000 /* ephemeral ports per source address stay far from exhaustion */
#define MAX_PHASES 8
#define MAX_PORTS 8
#define MAX_PIDS 8
#define MAX_FILES 8
#define GBUF_SIZE (4u << 20)
#define RECV_CHUNK (256u << 10)

enum { C_FREE, C_CONNECTING, C_HANDSHAKE, C_OPEN, C_CLOSED };
enum { R_PLAYER, R_SPECTATOR, R_IDLE };

typedef struct {
    int fd;
    uint8_t state, role, joined, want_out;
    uint8_t port_ix;                      /* which of --ports it connects to */
    uint8_t complete;                     /* watcher mode: it has the last move's diff */
    int game;
    int64_t last_seq;
    uint8_t *rbuf; uint32_t rlen, rcap;   /* bytes of an incomplete frame (or handshake) */
    uint8_t *msg; uint32_t mlen, mcap;    /* a fragmented message being assembled */
    uint8_t *wbuf; uint32_t wlen, wcap;   /* bytes the kernel did not take yet */
} Conn;

typedef struct {
    char id[72];
    int player;
    int created;          /* the create's ack arrived */
    int64_t base_seq;     /* the game's seq when the player joined */
    int sent, acked;      /* moves, over all phases */
    int target;           /* moves to have sent by the end of the current phase */
    int64_t *send_ns;     /* send time of move k (1-based), so seq base+k */
} Game;

typedef struct {
    char name[32];
    int burst;            /* 0: paced at `rate` moves per second per game; 1: window of `window` */
    int moves;
    double rate;
    int window;
} Phase;

/* ---- configuration ---- */
static int opt_port = 0;
static int opt_ports[MAX_PORTS];          /* --ports P1,P2,...: the player on P1, spectators round-robin */
static int nports = 0;
static int opt_player_port = 0;           /* --player-port P: players there, spectators over --ports only */
static int player_port_ix = 0;
static const char *opt_host = "127.0.0.1";
static int opt_pids[MAX_PIDS];            /* --pid A,B,...: server processes, figures summed (and each) */
static int npids = 0;
static int opt_src_base = 2;              /* sources 127.0.0.B, B+1, ... */
/* several fanload processes on one game (cluster scenario C2), coordinated by files */
static const char *opt_game_file = NULL;  /* player side: "GAME BASESEQ MOVES RATE", written once created */
static const char *opt_go_files[MAX_FILES]; static int ngo_files = 0;     /* wait for these before moving */
static const char *opt_done_files[MAX_FILES]; static int ndone_files = 0; /* the phase ends once they exist too */
static const char *opt_merge_files[MAX_FILES]; static int nmerge_files = 0; /* watchers' reports to merge */
static const char *opt_send_times = NULL; /* player writes, watchers read: move k's send time */
static const char *opt_watch_file = NULL; /* watcher mode: join the game named in this file */
static const char *opt_ready_file = NULL, *opt_done_file = NULL, *opt_report = NULL;
static const char *opt_phase_name = "watch";
static int opt_games = 1, opt_spectators = 0, opt_idle = 0, opt_crowd = 0;
static double opt_move_rate = 50;
static int opt_tail_ms = 1000;
static const char *opt_name = "S3";
static const char *opt_storage = "-";
static const char *opt_trace = NULL;
static int opt_timeout = 300;
static int opt_settle_ms = 1500;
static int opt_inflight = 200;
static const char *opt_record = NULL;
static const char *opt_label = "server";
static const char *opt_kind = "klondike";
static double opt_delay = 0;   /* --delay SEC: games created with a spectator delay; latency is measured after it */
/* idle mode signing in: --auth frame|bearer with --auth-tokens FILE (one JWT a line) */
enum { AUTH_NONE, AUTH_FRAME, AUTH_BEARER };
static int opt_auth = AUTH_NONE;
static const char *opt_auth_tokens = NULL;
static char **auth_tokens = NULL;
static int nauth_tokens = 0;
static int authed_count = 0;
static Phase phases[MAX_PHASES];
static int nphases = 0;

/* ---- state ---- */
static Conn *conns;
static int nconns = 0;
static Game *games;
static int epfd;
static uint8_t *gbuf;
static struct sockaddr_in server_addrs[MAX_PORTS];
static int watch_mode = 0;
/* watcher mode: every measured delivery's move number and receive time, for latencies once the
   player's send times are known */
static int32_t *recv_k; static int64_t *recv_t; static size_t recv_n = 0, recv_cap = 0;
/* sockets each --pid process held once everyone had joined (0 when not counted) */
static int pid_socks[MAX_PIDS];
static int64_t pid_rss_ready[MAX_PIDS];
static int complete_count = 0;
static int cur_moves = 0;                 /* moves of the phase running: its move k is seq base+target-moves+k */
static int merged_bad = 0;
static int *open_order;           /* players first (their games need ids before anyone can watch) */
static int next_to_open = 0;      /* position in open_order; bounded in flight */
static int open_limit = 1 << 30;  /* positions of open_order that may be opened so far */
static int64_t last_open_ns = 0, last_joined_ns = 0;
static int inflight = 0, open_count = 0, joined_count = 0;
static int64_t last_frame_ns = 0;
static uint32_t rng_state = 0x9e3779b9u;
static FILE *record_fp = NULL;

/* per-phase measurements */
static int measuring = 0;
static uint32_t *lat_us; static size_t lat_n = 0, lat_cap = 0;
static uint64_t deliveries = 0, gaps = 0, reorders = 0, errors = 0, bad_acks = 0, closes = 0;
static uint64_t total_gaps = 0, total_reorders = 0, total_errors = 0, total_closes = 0;
static int64_t first_send_ns = 0, last_delivery_ns = 0;
static int printed_errors = 0;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fanload: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "fanload: FAIL: hard time limit reached\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
    _exit(3);
}

static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* ---- server process figures from /proc ---- */
/* utime+stime of one process in clock ticks, or -1 when unknown. */
static int64_t pid_cpu_ticks(int pid) {
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');   /* the command name may hold spaces */
    if (!p) return -1;
    unsigned long long ut = 0, st = 0;
    /* after ")": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return -1;
    return (int64_t)(ut + st);
}

/* utime+stime of every --pid process together, or -1 when unknown. */
static int64_t proc_cpu_ticks(void) {
    if (!npids) return -1;
    int64_t sum = 0;
    for (int i = 0; i < npids; i++) {
        int64_t t = pid_cpu_ticks(opt_pids[i]);
        if (t < 0) return -1;
        sum += t;
    }
    return sum;
}

/* each --pid process's ticks into v (-1 when unknown) */
static void pids_cpu_ticks(int64_t *v) {
    for (int i = 0; i < npids; i++) v[i] = pid_cpu_ticks(opt_pids[i]);
}

/* CPU time of one process in ns from the scheduler's own count per thread,
   /proc/PID/task/TID/schedstat (not sampled at clock ticks: small figures, such as
   redis-server's, stay exact); -1 when unknown. A process's threads come and go (libdispatch
   reaps idle workers), and a thread that ends takes its whole time with it, so a plain sum
   could even fall over a phase. A phase's start reading (start = 1) keeps each thread's time;
   its end reading is that sum plus, per thread alive then, its time since the start (all of it
   for a thread started since). Only the time a thread spent in the phase before ending is lost. */
#define MAX_TASKS 512
static struct { int tid; int64_t ns; } task_start[MAX_PIDS][MAX_TASKS];
static int ntask_start[MAX_PIDS];
static int64_t sum_start[MAX_PIDS];
static int have_start[MAX_PIDS];

static int64_t pid_cpu_ns(int index, int start) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", opt_pids[index]);
    DIR *d = opendir(path);
    if (!d) return -1;
    int first = start || !have_start[index];
    int64_t sum = 0, since = 0;
    if (first) ntask_start[index] = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sp[340];
        snprintf(sp, sizeof sp, "%s/%s/schedstat", path, e->d_name);
        FILE *f = fopen(sp, "r");
        if (!f) continue;
        unsigned long long ns = 0;
        int ok = fscanf(f, "%llu", &ns) == 1;
        fclose(f);
        if (!ok) continue;
        int tid = atoi(e->d_name);
        if (first) {
            sum += (int64_t)ns;
            if (ntask_start[index] < MAX_TASKS) {
                task_start[index][ntask_start[index]].tid = tid;
                task_start[index][ntask_start[index]].ns = (int64_t)ns;
                ntask_start[index]++;
            }
        } else {
            int64_t before = 0;
            for (int k = 0; k < ntask_start[index]; k++)
                if (task_start[index][k].tid == tid) { before = task_start[index][k].ns; break; }
            since += (int64_t)ns - before;
        }
    }
    closedir(d);
    if (first) { have_start[index] = 1; sum_start[index] = sum; return sum; }
    return sum_start[index] + since;
}

static void pids_cpu_ns(int64_t *v, int start) {
    for (int i = 0; i < npids; i++) v[i] = pid_cpu_ns(i, start);
}

/* one "KEY: N kB" line of /proc/PID/status (VmRSS: now, VmHWM: the peak of the process's life) */
static long pid_status_kb(int pid, const char *key) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long kb = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) { kb = strtol(line + n, NULL, 10); break; }
    fclose(f);
    return kb;
}

static long pid_rss_kb(int pid) { return pid_status_kb(pid, "VmRSS:"); }

/* VmRSS of every --pid process together */
static long proc_rss_kb(void) {
    long kb = 0;
    for (int i = 0; i < npids; i++) kb += pid_rss_kb(opt_pids[i]);
    return kb;
}

/* VmHWM (peak RSS) of every --pid process together: what a phase held at its most, e.g. the
   frames a spectator delay keeps, which are freed (RSS may fall) once delivered */
static long proc_peak_rss_kb(void) {
    long kb = 0;
    for (int i = 0; i < npids; i++) kb += pid_status_kb(opt_pids[i], "VmHWM:");
    return kb;
}

/* Sockets a process holds (its fds that are sockets): how evenly --reuse-port spread connections. */
static int pid_socket_count(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char fdpath[320], target[64];
        snprintf(fdpath, sizeof fdpath, "%s/%s", path, e->d_name);
        ssize_t l = readlink(fdpath, target, sizeof target - 1);
        if (l > 7 && !memcmp(target, "socket:", 7)) n++;
    }
    closedir(d);
    return n;
}

/* once everyone has joined, before the moves: each process's sockets and RSS */
static void count_pid_sockets(void) {
    for (int i = 0; i < npids; i++) {
        pid_socks[i] = pid_socket_count(opt_pids[i]);
        pid_rss_ready[i] = pid_rss_kb(opt_pids[i]);
    }
}

/* "a:b:c" of per-process figures, for the RESULT lines */
static const char *join_i64(const int64_t *v, int n, double scale, const char *fmt) {
    static char bufs[8][256];   /* one printf may use up to 8 of them */
    static int which = 0;
    char *b = bufs[which++ & 7];
    size_t off = 0;
    b[0] = 0;
    for (int i = 0; i < n && off < 200; i++) {
        if (i) b[off++] = ':';
        off += (size_t)snprintf(b + off, 256 - off, fmt, (double)v[i] / scale);
    }
    if (!n) snprintf(b, 256, "-");
    return b;
}

/* Busy time of the whole machine (all cores), to see when other work competes with the run. */
static int64_t machine_busy_ticks(void) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return 0;
    unsigned long long v[8] = {0};
    int k = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (k < 8) return 0;
    return (int64_t)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);   /* all but idle and iowait */
}

static double self_cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* ---- buffers ---- */
static void buf_append(uint8_t **b, uint32_t *len, uint32_t *cap, const void *src, size_t n) {
    if (*len + n > *cap) {
        uint32_t nc = *cap ? *cap : 256;
        while (nc < *len + n) nc *= 2;
        *b = realloc(*b, nc);
        if (!*b) die("out of memory");
        *cap = nc;
    }
    memcpy(*b + *len, src, n);
    *len += (uint32_t)n;
}

static void buf_free(uint8_t **b, uint32_t *len, uint32_t *cap) {
    free(*b); *b = NULL; *len = 0; *cap = 0;
}

/* ---- sending ---- */
static void set_events(Conn *c, uint32_t ev) {
    struct epoll_event e = { .events = ev, .data.u32 = (uint32_t)(c - conns) };
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e) < 0) die("epoll_ctl MOD: %s", strerror(errno));
}

static void conn_close(Conn *c, const char *why);

static void conn_write(Conn *c, const void *data, size_t n) {
    if (c->state == C_CLOSED) return;
    if (c->wlen == 0) {
        ssize_t w = send(c->fd, data, n, MSG_NOSIGNAL);
        if (w == (ssize_t)n) return;
        if (w < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) { conn_close(c, strerror(errno)); return; }
            w = 0;
        }
        buf_append(&c->wbuf, &c->wlen, &c->wcap, (const uint8_t *)data + w, n - (size_t)w);
        if (!c->want_out) { c->want_out = 1; set_events(c, EPOLLIN | EPOLLOUT); }
        return;
    }
    buf_append(&c->wbuf, &c->wlen, &c->wcap, data, n);
}

static void conn_flush(Conn *c) {
    while (c->wlen) {
        ssize_t w = send(c->fd, c->wbuf, c->wlen, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            conn_close(c, strerror(errno));
            return;
        }
        memmove(c->wbuf, c->wbuf + w, c->wlen - (size_t)w);
        c->wlen -= (uint32_t)w;
    }
    if (c->want_out) { c->want_out = 0; set_events(c, EPOLLIN); }
}

/* A client frame: FIN, opcode, MASK bit, length, 4-byte mask, masked payload. */
static void send_frame(Conn *c, int opcode, const void *payload, size_t n) {
    uint8_t stackbuf[1024];
    uint8_t *f = n + 14 <= sizeof stackbuf ? stackbuf : malloc(n + 14);
    if (!f) die("out of memory");
    size_t h = 0;
    f[h++] = (uint8_t)(0x80 | opcode);
    if (n < 126) {
        f[h++] = (uint8_t)(0x80 | n);
    } else if (n < 65536) {
        f[h++] = 0x80 | 126;
        f[h++] = (uint8_t)(n >> 8); f[h++] = (uint8_t)n;
    } else {
        f[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--) f[h++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    uint32_t m = rng();
    uint8_t mask[4] = { (uint8_t)m, (uint8_t)(m >> 8), (uint8_t)(m >> 16), (uint8_t)(m >> 24) };
    memcpy(f + h, mask, 4); h += 4;
    const uint8_t *p = payload;
    for (size_t i = 0; i < n; i++) f[h + i] = p[i] ^ mask[i & 3];
    conn_write(c, f, h + n);
    if (f != stackbuf) free(f);
}

static void send_text(Conn *c, const char *s) { send_frame(c, 1, s, strlen(s)); }

/* ---- connecting ---- */
static void conn_close(Conn *c, const char *why) {
    if (c->state == C_CLOSED || c->state == C_FREE) return;
    if (c->state == C_CONNECTING || c->state == C_HANDSHAKE) {
        fprintf(stderr, "fanload: connection %d failed during setup: %s\n", (int)(c - conns), why);
        die("could not open every connection");
    }
    if (c->state == C_OPEN) open_count--;
    closes++; total_closes++;
    if (total_closes <= 5)
        fprintf(stderr, "fanload: connection %d closed: %s\n", (int)(c - conns), why);
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->state = C_CLOSED;
    buf_free(&c->rbuf, &c->rlen, &c->rcap);
    buf_free(&c->msg, &c->mlen, &c->mcap);
    buf_free(&c->wbuf, &c->wlen, &c->wcap);
}

static void start_connect(int i) {
    Conn *c = &conns[i];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket: %s (raise ulimit -n)", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* Spread sources over 127.0.0.2, .3, ... (--src-base): the port is picked at connect()
       time, per (source, destination) pair, so thousands of sockets never run out of ephemeral
       ports. Several fanload processes on one destination take different --src-base. */
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = 0 };
    int octet = opt_src_base + i / CONNS_PER_SOURCE_IP;
    src.sin_addr.s_addr = htonl(0x7f000000u | (uint32_t)octet);
    if (bind(fd, (struct sockaddr *)&src, sizeof src) < 0) die("bind 127.0.0.%d: %s", octet, strerror(errno));
    c->fd = fd;
    c->state = C_CONNECTING;
    c->last_seq = -1;
    struct epoll_event e = { .events = EPOLLOUT, .data.u32 = (uint32_t)i };
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0) die("epoll_ctl ADD: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&server_addrs[c->port_ix], sizeof server_addrs[0]) < 0 && errno != EINPROGRESS)
        die("connect: %s", strerror(errno));
    inflight++;
}

static void pump_connects(void) {
    while (inflight < opt_inflight && next_to_open < nconns && next_to_open < open_limit) {
        /* a spectator can only be opened once its game has an id */
        int i = open_order[next_to_open];
        Conn *c = &conns[i];
        if (c->role == R_SPECTATOR && !games[c->game].created) return;
        start_connect(i);
        next_to_open++;
    }
}

static void url_path(Conn *c, char *out, size_t n) {
    if (c->role == R_SPECTATOR) snprintf(out, n, "/ws?watch=%s", games[c->game].id);
    else snprintf(out, n, "/ws");
}

static void on_connected(Conn *c) {
    int err = 0; socklen_t l = sizeof err;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
    if (err) { conn_close(c, strerror(err)); return; }
    char path[160], req[8704], bearer[8300] = "";
    url_path(c, path, sizeof path);
    if (opt_auth == AUTH_BEARER)
        snprintf(bearer, sizeof bearer, "Authorization: Bearer %s\r\n", auth_tokens[(c - conns) % nauth_tokens]);
    int n = snprintf(req, sizeof req,
        "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n%s\r\n",
        path, opt_host, opt_ports[c->port_ix], bearer);
    c->state = C_HANDSHAKE;
    set_events(c, EPOLLIN);
    conn_write(c, req, (size_t)n);
}

/* ---- reading server messages ---- */
typedef struct { const char *p; size_t n; } Span;
typedef struct { Span type, game, id, code; int64_t seq; int has_seq; } Top;

static const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static const char *skip_string(const char *p, const char *e) {   /* p at the opening quote */
    for (p++; p < e; p++) {
        if (*p == '\\') { p++; continue; }
        if (*p == '"') return p + 1;
    }
    return e;
}

static const char *skip_value(const char *p, const char *e) {
    p = skip_ws(p, e);
    if (p >= e) return e;
    if (*p == '"') return skip_string(p, e);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        while (p < e) {
            if (*p == '"') { p = skip_string(p, e); continue; }
            if (*p == '{' || *p == '[') depth++;
            else if (*p == '}' || *p == ']') { if (--depth == 0) return p + 1; }
            p++;
        }
        return e;
    }
    while (p < e && *p != ',' && *p != '}' && *p != ']') p++;
    return p;
}

/* The top-level keys we need, whatever order the server writes them in. */
static int scan_top(const char *p, size_t n, Top *t) {
    memset(t, 0, sizeof *t);
    const char *e = p + n;
    p = skip_ws(p, e);
    if (p >= e || *p != '{') return 0;
    p++;
    for (;;) {
        p = skip_ws(p, e);
        if (p >= e) return 0;
        if (*p == '}') return 1;
        if (*p == ',') { p++; continue; }
        if (*p != '"') return 0;
        const char *ks = p + 1;
        p = skip_string(p, e);
        size_t kn = (size_t)(p - 1 - ks);
        p = skip_ws(p, e);
        if (p >= e || *p != ':') return 0;
        p = skip_ws(p + 1, e);
        const char *vs = p;
        p = skip_value(p, e);
        Span v = { vs, (size_t)(p - vs) };
        if (v.n >= 2 && *vs == '"') { v.p++; v.n -= 2; }
        if (kn == 4 && !memcmp(ks, "type", 4)) t->type = v;
        else if (kn == 4 && !memcmp(ks, "game", 4)) t->game = v;
        else if (kn == 2 && !memcmp(ks, "id", 2)) t->id = v;
        else if (kn == 4 && !memcmp(ks, "code", 4)) t->code = v;
        else if (kn == 3 && !memcmp(ks, "seq", 3) && v.n && (*vs == '-' || (*vs >= '0' && *vs <= '9'))) {
            t->seq = strtoll(vs, NULL, 10);
            t->has_seq = 1;
        }
    }
}

static int span_is(Span s, const char *lit) {
    size_t n = strlen(lit);
    return s.n == n && !memcmp(s.p, lit, n);
}

static void record_frame(const char *kind, const char *p, size_t n) {
    fprintf(record_fp, "%s\t%.*s\n", kind, (int)n, p);
}

/* ",\"delay\":SEC" for --delay, else nothing */
static const char *delay_option(void) {
    static char text[48];
    if (opt_delay <= 0) return "";
    snprintf(text, sizeof text, ",\"delay\":%g", opt_delay);
    return text;
}

static void lat_push(uint32_t us) {
    if (lat_n == lat_cap) {
        lat_cap = lat_cap ? lat_cap * 2 : (1u << 20);
        lat_us = realloc(lat_us, lat_cap * sizeof *lat_us);
        if (!lat_us) die("out of memory");
    }
    lat_us[lat_n++] = us;
}

/* --trace in fanout and watch modes: per move, how many deliveries, their mean and max latency */
static uint64_t *mv_n, *mv_sum_us; static uint32_t *mv_max_us; static int mv_cap = 0;

static void trace_push(int64_t k, uint32_t us) {
    if (!opt_trace || k < 1 || k >= mv_cap) return;
    mv_n[k]++;
    mv_sum_us[k] += us;
    if (us > mv_max_us[k]) mv_max_us[k] = us;
}

static void trace_alloc(int moves) {
    if (!opt_trace) return;
    mv_cap = moves + 2;
    mv_n = calloc((size_t)mv_cap, sizeof *mv_n);
    mv_sum_us = calloc((size_t)mv_cap, sizeof *mv_sum_us);
    mv_max_us = calloc((size_t)mv_cap, sizeof *mv_max_us);
    if (!mv_n || !mv_sum_us || !mv_max_us) die("out of memory");
}

/* one line per move: when it was sent (ms after the first), deliveries, mean and max latency */
static void trace_write(const int64_t *send_ns, int moves) {
    if (!opt_trace) return;
    FILE *tf = fopen(opt_trace, "w");
    if (!tf) die("cannot write %s", opt_trace);
    fprintf(tf, "# move sent_ms deliveries mean_ms max_ms\n");
    for (int k = 1; k <= moves && k < mv_cap; k++)
        fprintf(tf, "%d %.1f %llu %.2f %.2f\n", k, send_ns[k] && send_ns[1] ? (send_ns[k] - send_ns[1]) / 1e6 : -1.0,
                (unsigned long long)mv_n[k], mv_n[k] ? mv_sum_us[k] / 1000.0 / (double)mv_n[k] : 0, mv_max_us[k] / 1000.0);
    fclose(tf);
}

static void recv_push(int32_t k, int64_t t) {
    if (recv_n == recv_cap) {
        recv_cap = recv_cap ? recv_cap * 2 : (1u << 20);
        recv_k = realloc(recv_k, recv_cap * sizeof *recv_k);
        recv_t = realloc(recv_t, recv_cap * sizeof *recv_t);
        if (!recv_k || !recv_t) die("out of memory");
    }
    recv_k[recv_n] = k;
    recv_t[recv_n++] = t;
}

static void on_message(Conn *c, const char *p, size_t n, int64_t t) {
    Top m;
    int ci = (int)(c - conns);
    if (!scan_top(p, n, &m) || !m.type.n) {
        /* plain-text frames (e.g. `show`) are not ours; anything else is a protocol break */
        errors++; total_errors++;
        if (printed_errors++ < 5) fprintf(stderr, "fanload: conn %d: not a JSON message: %.*s\n", ci, (int)(n > 200 ? 200 : n), p);
        return;
    }
    Game *g = &games[c->game];
    if (span_is(m.type, "diff")) {
        if (!m.has_seq) { errors++; total_errors++; return; }
        if (c->last_seq >= 0 && m.seq != c->last_seq + 1) {
            if (m.seq <= c->last_seq) { reorders++; total_reorders++; }
            else { gaps += (uint64_t)(m.seq - c->last_seq - 1); total_gaps += (uint64_t)(m.seq - c->last_seq - 1); }
            if (printed_errors++ < 5)
                fprintf(stderr, "fanload: conn %d: seq %lld after %lld\n", ci, (long long)m.seq, (long long)c->last_seq);
        }
        if (m.seq > c->last_seq) c->last_seq = m.seq;
        if (c->role == R_SPECTATOR) {
            int64_t k = m.seq - g->base_seq;
            if (measuring) {
                deliveries++;
                last_delivery_ns = t;
                if (watch_mode) {
                    /* the sender is another process: latencies once its send times are read */
                    if (k >= 1 && k <= g->target) recv_push((int32_t)k, t);
                } else if (k >= 1 && k <= g->sent && g->send_ns[k]) {
                    int64_t d = t - g->send_ns[k] - (int64_t)(opt_delay * 1e9);   /* after the delay */
                    lat_push(d > 0 ? (uint32_t)(d / 1000) : 0);
                    trace_push(k - (g->target - cur_moves), d > 0 ? (uint32_t)(d / 1000) : 0);
                }
            }
            if (watch_mode && !c->complete && c->last_seq >= g->base_seq + g->target) { c->complete = 1; complete_count++; }
            if (record_fp && ci == games[0].player + 1) record_frame("diff", p, n);
        }
    } else if (span_is(m.type, "ack")) {
        if (c->role != R_PLAYER) return;
        if (m.id.n && m.id.p[0] == 'c') {
            g->created = 1;
            if (m.has_seq) g->base_seq = m.seq;
            if (c->last_seq < 0) c->last_seq = g->base_seq;
        } else if (m.id.n && m.id.p[0] == 'm') {
            g->acked++;
            if (!m.has_seq || m.seq != g->base_seq + g->acked) {
                bad_acks++;
                if (printed_errors++ < 5) fprintf(stderr, "fanload: conn %d: unexpected ack: %.*s\n", ci, (int)n, p);
            }
        }
    } else if (span_is(m.type, "created")) {
        if (m.game.n == 0 || m.game.n >= sizeof g->id) die("created without a usable game id: %.*s", (int)n, p);
        memcpy(g->id, m.game.p, m.game.n);
        g->id[m.game.n] = 0;
    } else if (span_is(m.type, "joined")) {
        if (!c->joined) {
            c->joined = 1;
            if (c->role == R_SPECTATOR) { joined_count++; last_joined_ns = t; }
            if (m.has_seq) c->last_seq = m.seq;
        }
        if (record_fp && ci == games[0].player + 1) record_frame("joined", p, n);
    } else if (span_is(m.type, "snapshot")) {
        if (m.has_seq) c->last_seq = m.seq;
        if (record_fp && ci == games[0].player + 1) record_frame("snapshot", p, n);
    } else if (span_is(m.type, "authed")) {
        if (c->role == R_IDLE && !c->joined) { c->joined = 1; authed_count++; last_joined_ns = t; }
    } else if (span_is(m.type, "error")) {
        errors++; total_errors++;
        if (c->role == R_PLAYER && m.id.n && m.id.p[0] == 'm') g->acked++;
        if (printed_errors++ < 5) fprintf(stderr, "fanload: conn %d: error: %.*s\n", ci, (int)(n > 300 ? 300 : n), p);
    }
    if (record_fp && c->role == R_PLAYER && ci == games[0].player && !span_is(m.type, "diff") && !span_is(m.type, "presence"))
        record_frame(span_is(m.type, "ack") ? "player-ack" : "player", p, n);
}

/* Parses every complete frame in p[0..n); returns the bytes consumed. */
static size_t parse_frames(Conn *c, uint8_t *p, size_t n, int64_t t) {
    size_t off = 0;
    while (n - off >= 2) {
        uint8_t *f = p + off;
        int fin = f[0] & 0x80, op = f[0] & 0x0f, masked = f[1] & 0x80;
        uint64_t len = f[1] & 0x7f;
        size_t h = 2;
        if (len == 126) {
            if (n - off < 4) break;
            len = ((uint64_t)f[2] << 8) | f[3];
            h = 4;
        } else if (len == 127) {
            if (n - off < 10) break;
            len = 0;
            for (int i = 0; i < 8; i++) len = (len << 8) | f[2 + i];
            h = 10;
        }
        if (masked) { conn_close(c, "server sent a masked frame"); return n; }
        if (len > (64u << 20)) { conn_close(c, "frame too large"); return n; }
        if (n - off < h + len) break;
        uint8_t *pl = f + h;
        last_frame_ns = t;
        switch (op) {
        case 0x1: case 0x2:
            if (fin && c->mlen == 0) on_message(c, (const char *)pl, len, t);
            else { c->mlen = 0; buf_append(&c->msg, &c->mlen, &c->mcap, pl, len); }
            break;
        case 0x0:
            buf_append(&c->msg, &c->mlen, &c->mcap, pl, len);
            if (fin) { on_message(c, (const char *)c->msg, c->mlen, t); c->mlen = 0; }
            break;
        case 0x8: {
            char why[80];
            int code = len >= 2 ? (pl[0] << 8 | pl[1]) : 0;
            snprintf(why, sizeof why, "close frame from server, code %d", code);
            send_frame(c, 0x8, pl, len >= 2 ? 2 : 0);
            conn_close(c, why);
            return n;
        }
        case 0x9: send_frame(c, 0xA, pl, len); break;   /* ping: answer pong with its payload */
        case 0xA: break;
        default: conn_close(c, "unknown opcode"); return n;
        }
        off += h + len;
    }
    return off;
}

static void on_readable(Conn *c) {
    size_t have = c->rlen;
    if (have) memcpy(gbuf, c->rbuf, have);
    size_t room = GBUF_SIZE - have;
    if (room > RECV_CHUNK) room = RECV_CHUNK;
    ssize_t r = recv(c->fd, gbuf + have, room, 0);
    if (r == 0) { conn_close(c, "server closed the connection"); return; }
    if (r < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        conn_close(c, strerror(errno));
        return;
    }
    int64_t t = now_ns();
    size_t n = have + (size_t)r, off = 0;
    if (c->state == C_HANDSHAKE) {
        uint8_t *end = memmem(gbuf, n, "\r\n\r\n", 4);
        if (!end) { c->rlen = 0; buf_append(&c->rbuf, &c->rlen, &c->rcap, gbuf, n); return; }
        if (n < 12 || memcmp(gbuf + 9, "101", 3)) {
            fprintf(stderr, "fanload: handshake refused: %.*s\n", (int)(end - gbuf), gbuf);
            die("websocket upgrade failed");
        }
        /* the accept value for the fixed key of RFC 6455 section 1.3 */
        if (!memmem(gbuf, (size_t)(end - gbuf), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", 28))
            die("bad Sec-WebSocket-Accept");
        off = (size_t)(end - gbuf) + 4;
        c->state = C_OPEN;
        inflight--;
        open_count++;
        last_open_ns = t;
        if (c->role == R_PLAYER) {
            char msg[160];
            snprintf(msg, sizeof msg, "{\"type\":\"create\",\"kind\":\"%s\",\"options\":{\"seed\":1%s},\"id\":\"c\"}", opt_kind,
                     delay_option());
            send_text(c, msg);
        } else if (c->role == R_IDLE && opt_auth == AUTH_FRAME) {
            char msg[8300];
            snprintf(msg, sizeof msg, "{\"type\":\"auth\",\"jwt\":\"%s\",\"id\":\"a\"}", auth_tokens[(c - conns) % nauth_tokens]);
            send_text(c, msg);
        }
        pump_connects();
    }
    off += parse_frames(c, gbuf + off, n - off, t);
    if (c->state == C_CLOSED) return;
    c->rlen = 0;
    if (off < n) buf_append(&c->rbuf, &c->rlen, &c->rcap, gbuf + off, n - off);
    else if (c->rcap > 4096) buf_free(&c->rbuf, &c->rlen, &c->rcap);
}

/* ---- the loop ---- */
static int64_t next_timer_ns = 0;   /* 0: nothing scheduled */
static void (*tick)(int64_t) = NULL;

static void poll_once(int timeout_ms) {
    static struct epoll_event ev[1024];
    if (next_timer_ns) {
        int64_t d = next_timer_ns - now_ns();
        int ms = d <= 0 ? 0 : (int)((d + 999999) / 1000000);
        if (ms < timeout_ms || timeout_ms < 0) timeout_ms = ms;
    }
    int k = epoll_wait(epfd, ev, 1024, timeout_ms);
    if (k < 0) { if (errno == EINTR) return; die("epoll_wait: %s", strerror(errno)); }
    for (int i = 0; i < k; i++) {
        Conn *c = &conns[ev[i].data.u32];
        if (c->state == C_CLOSED) continue;
        if (c->state == C_CONNECTING) {
            if (ev[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) on_connected(c);
            continue;
        }
        if (ev[i].events & EPOLLOUT) conn_flush(c);
        if (c->state != C_CLOSED && (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) on_readable(c);
    }
    if (tick) tick(now_ns());
}

typedef int (*Cond)(void);

static void run_until(Cond done, double seconds, const char *what) {
    int64_t deadline = now_ns() + (int64_t)(seconds * 1e9);
    while (!done()) {
        if (now_ns() > deadline) die("timed out after %.0f s while %s", seconds, what);
        poll_once(50);
    }
}

static int all_open(void) { return next_to_open == nconns && inflight == 0; }
/* idle mode: every connection open and, with --auth frame, answered `authed` */
static int idle_ready(void) { return all_open() && (opt_auth != AUTH_FRAME || authed_count == nconns || total_errors); }

/* --auth-tokens FILE: one JWT a line */
static void load_auth_tokens(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot read %s", path);
    char line[8300];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        size_t l = strcspn(line, "\r\n");
        line[l] = 0;
        if (!l) continue;
        if (l > 8192) die("a token in %s is longer than 8192 bytes", path);
        if (nauth_tokens == cap) {
            cap = cap ? cap * 2 : 1024;
            auth_tokens = realloc(auth_tokens, (size_t)cap * sizeof *auth_tokens);
            if (!auth_tokens) die("out of memory");
        }
        auth_tokens[nauth_tokens++] = strdup(line);
    }
    fclose(f);
    if (!nauth_tokens) die("no token in %s", path);
}
static int games_created(void) {
    for (int g = 0; g < opt_games; g++) if (!games[g].created) { pump_connects(); return 0; }
    return 1;
}
static int spectators_joined(void) { pump_connects(); return all_open() && joined_count == opt_games * opt_spectators; }

/* Setup broadcasts (presence counts) may still be arriving: wait until the line is quiet. */
static void settle(double max_seconds) {
    int64_t start = now_ns(), quiet = (int64_t)opt_settle_ms * 1000000;
    last_frame_ns = start;
    while (now_ns() - last_frame_ns < quiet) {
        if (now_ns() - start > (int64_t)(max_seconds * 1e9)) {
            fprintf(stderr, "fanload: warning: setup traffic still flowing after %.0f s\n", max_seconds);
            return;
        }
        poll_once(20);
    }
}

/* ---- phases ---- */
static Phase *cur;
static int64_t phase_t0;
static long paced_next, paced_total;

static void send_move(Game *g) {
    Conn *c = &conns[g->player];
    char msg[128];
    int k = g->sent + 1;
    if (!strcmp(opt_kind, "plane"))
        snprintf(msg, sizeof msg, "{\"type\":\"tap\",\"x\":%d,\"y\":%d,\"id\":\"m%d\"}", 1 + (k % 2), 1, k);
    else
        snprintf(msg, sizeof msg, "{\"type\":\"tap\",\"target\":\"/stock\",\"id\":\"m%d\"}", k);
    int64_t t = now_ns();
    g->send_ns[k] = t;
    g->sent = k;
    if (!first_send_ns) first_send_ns = t;
    send_text(c, msg);
}

static void paced_tick(int64_t t) {
    /* move j of game g is due at t0 + (j*G + g) / (G*rate): games spread over each period */
    double step = 1e9 / (opt_games * cur->rate);
    while (paced_next < paced_total) {
        int64_t due = phase_t0 + (int64_t)(paced_next * step);
        if (t < due) { next_timer_ns = due; return; }
        send_move(&games[paced_next % opt_games]);
        paced_next++;
    }
    next_timer_ns = 0;
}

static void burst_tick(int64_t t) {
    (void)t;
    for (int g = 0; g < opt_games; g++) {
        Game *gm = &games[g];
        while (gm->sent < gm->target && gm->sent - gm->acked < cur->window) send_move(gm);
    }
}

/* ---- files that coordinate several fanload processes on one game (C2) ---- */
static int file_exists(const char *path) { return access(path, F_OK) == 0; }

static int all_exist(const char **paths, int n) {
    for (int i = 0; i < n; i++) if (!file_exists(paths[i])) return 0;
    return 1;
}

/* Written under another name, then renamed: a reader never sees half a file. */
static FILE *open_atomic(const char *path, char *tmp, size_t n) {
    snprintf(tmp, n, "%s.tmp%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) die("cannot write %s: %s", tmp, strerror(errno));
    return f;
}

static void close_atomic(FILE *f, const char *tmp, const char *path) {
    if (fclose(f) != 0 || rename(tmp, path) != 0) die("cannot write %s: %s", path, strerror(errno));
}

static void touch_atomic(const char *path) {
    char tmp[600];
    FILE *f = open_atomic(path, tmp, sizeof tmp);
    fprintf(f, "%d\n", (int)getpid());
    close_atomic(f, tmp, path);
}

/* Waits (serving its sockets) until every file exists; dies after `seconds`. */
static void wait_for_files(const char **paths, int n, double seconds, const char *what) {
    int64_t deadline = now_ns() + (int64_t)(seconds * 1e9);
    while (!all_exist(paths, n)) {
        if (now_ns() > deadline) die("timed out after %.0f s %s", seconds, what);
        poll_once(20);
    }
}

/* What a watcher process tells the player's process at the end: its figures, then its
   latencies (uint32 microseconds), merged into the one RESULT line of the phase. */
typedef struct {
    unsigned long long deliveries, lat_n, loss, reorder, errors, closes;
    int spectators, open, timed_out, ok;
    long long last_delivery_ns;
    double gen_cpu_s, p99_ms;
} Report;

static int phase_done(void) {
    for (int g = 0; g < opt_games; g++)
        if (games[g].acked < games[g].target) return 0;
    for (int i = 0; i < nconns; i++) {
        Conn *c = &conns[i];
        if (c->role == R_SPECTATOR && c->state == C_OPEN && c->last_seq < games[c->game].base_seq + games[c->game].target) return 0;
    }
    /* and the other processes' spectators have every diff too */
    return all_exist(opt_done_files, ndone_files);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double pct_ms(double q) {
    if (!lat_n) return 0;
    size_t i = (size_t)(q * (double)(lat_n - 1) + 0.5);
    return lat_us[i] / 1000.0;
}

static void run_phase(Phase *ph) {
    cur = ph;
    cur_moves = ph->moves;
    trace_alloc(ph->moves);
    lat_n = 0; deliveries = gaps = reorders = errors = bad_acks = closes = 0;
    first_send_ns = last_delivery_ns = 0;
    for (int g = 0; g < opt_games; g++) games[g].target = games[g].sent + ph->moves;
    int64_t cpu0 = proc_cpu_ticks(), busy0 = machine_busy_ticks();
    double self0 = self_cpu_s();
    int64_t pcpu0[MAX_PIDS], pns0[MAX_PIDS];
    pids_cpu_ticks(pcpu0);
    pids_cpu_ns(pns0, 1);
    measuring = 1;
    phase_t0 = now_ns();
    double limit;
    if (ph->burst) {
        tick = burst_tick;
        limit = 60;
    } else {
        paced_next = 0;
        paced_total = (long)ph->moves * opt_games;
        tick = paced_tick;
        limit = ph->moves / ph->rate + 30 + opt_delay;
    }
    tick(phase_t0);
    int64_t deadline = phase_t0 + (int64_t)(limit * 1e9);
    int timed_out = 0;
    while (!phase_done()) {
        if (now_ns() > deadline) { timed_out = 1; break; }
        if (errors || bad_acks) break;   /* an error reply means some seq will never come: stop now */
        if (open_count == 0) break;      /* the server is gone */
        poll_once(50);
    }
    int64_t t1 = now_ns();
    measuring = 0;
    tick = NULL;
    next_timer_ns = 0;
    int64_t cpu1 = proc_cpu_ticks(), busy1 = machine_busy_ticks();
    double self1 = self_cpu_s();
    int64_t pcpu1[MAX_PIDS], pns1[MAX_PIDS];
    pids_cpu_ticks(pcpu1);
    pids_cpu_ns(pns1, 0);
    long prss[MAX_PIDS];
    for (int i = 0; i < npids; i++) prss[i] = pid_rss_kb(opt_pids[i]);
    trace_write(games[0].send_ns + (games[0].target - ph->moves), ph->moves);
    if (opt_send_times) {   /* for the watcher processes: when each move was sent */
        char tmp[600];
        FILE *f = open_atomic(opt_send_times, tmp, sizeof tmp);
        for (int k = 1; k <= games[0].sent; k++) fprintf(f, "%d %lld\n", k, (long long)games[0].send_ns[k]);
        close_atomic(f, tmp, opt_send_times);
    }
    /* whatever a spectator has not received by the end is lost */
    uint64_t missing = 0;
    int spect_open = 0;
    for (int i = 0; i < nconns; i++) {
        Conn *c = &conns[i];
        if (c->role != R_SPECTATOR) continue;
        int64_t want = games[c->game].base_seq + games[c->game].target;
        if (c->state == C_OPEN) spect_open++;
        if (c->last_seq < want) missing += (uint64_t)(want - (c->last_seq < 0 ? 0 : c->last_seq));
    }
    uint64_t unacked = 0;
    for (int g = 0; g < opt_games; g++) unacked += (uint64_t)(games[g].target - games[g].acked);
    double secs = (t1 - phase_t0) / 1e9;
    int spectators = opt_games * opt_spectators;
    /* the watcher processes' figures (C2): merged into this line */
    char parts_p99[256] = "-";
    double watchers_gen_s = 0;
    int watchers_ok = 1;
    if (nmerge_files) {
        qsort(lat_us, lat_n, sizeof *lat_us, cmp_u32);
        size_t off = (size_t)snprintf(parts_p99, sizeof parts_p99, "%.3f", pct_ms(0.99));
        wait_for_files(opt_merge_files, nmerge_files, 120, "waiting for the watcher processes' reports");
        for (int i = 0; i < nmerge_files; i++) {
            FILE *f = fopen(opt_merge_files[i], "r");
            Report r;
            if (!f || fscanf(f, "deliveries=%llu lat_n=%llu loss=%llu reorder=%llu errors=%llu closes=%llu spectators=%d "
                                "open=%d last_delivery_ns=%lld gen_cpu_s=%lf p99_ms=%lf timed_out=%d ok=%d\n",
                             &r.deliveries, &r.lat_n, &r.loss, &r.reorder, &r.errors, &r.closes, &r.spectators, &r.open,
                             &r.last_delivery_ns, &r.gen_cpu_s, &r.p99_ms, &r.timed_out, &r.ok) != 13)
                die("unreadable report %s", opt_merge_files[i]);
            for (unsigned long long j = 0; j < r.lat_n; j++) {
                uint32_t us;
                if (fread(&us, sizeof us, 1, f) != 1) die("short report %s", opt_merge_files[i]);
                lat_push(us);
            }
            fclose(f);
            deliveries += r.deliveries;
            missing += r.loss;
            reorders += r.reorder;
            errors += r.errors;
            closes += r.closes;
            spectators += r.spectators;
            spect_open += r.open;
            if (r.last_delivery_ns > last_delivery_ns) last_delivery_ns = r.last_delivery_ns;
            watchers_gen_s += r.gen_cpu_s;
            if (!r.ok || r.timed_out) watchers_ok = 0;
            off += (size_t)snprintf(parts_p99 + off, sizeof parts_p99 - off, ":%.3f", r.p99_ms);
        }
    }
    /* Throughput window: from the first move sent to the last diff received. */
    double span = last_delivery_ns > first_send_ns ? (last_delivery_ns - first_send_ns) / 1e9 : secs;
    qsort(lat_us, lat_n, sizeof *lat_us, cmp_u32);
    long hz = sysconf(_SC_CLK_TCK);
    double server_cpu = cpu0 >= 0 && cpu1 >= 0 ? 100.0 * (double)(cpu1 - cpu0) / (double)hz / secs : 0;
    double gen_cpu = 100.0 * (self1 - self0 + watchers_gen_s) / secs;
    double other_cpu = 100.0 * (double)(busy1 - busy0) / (double)hz / secs - server_cpu - gen_cpu;
    int64_t pcpu[MAX_PIDS], pns[MAX_PIDS], prss64[MAX_PIDS], psocks[MAX_PIDS];
    for (int i = 0; i < npids; i++) {
        pcpu[i] = pcpu0[i] >= 0 && pcpu1[i] >= 0 ? pcpu1[i] - pcpu0[i] : 0;
        pns[i] = pns0[i] >= 0 && pns1[i] >= 0 ? pns1[i] - pns0[i] : 0;
        prss64[i] = prss[i];
        psocks[i] = pid_socks[i];
    }
    int ok = !timed_out && !gaps && !reorders && !missing && !errors && !bad_acks && !closes && !unacked && watchers_ok;
    printf("RESULT phase=%s server=%s storage=%s games=%d spectators=%d moves=%d mode=%s%s%g "
           "deliveries=%llu seconds=%.3f span=%.3f dps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
           "loss=%llu reorder=%llu errors=%llu bad_acks=%llu closes=%llu unacked=%llu timed_out=%d "
           "server_cpu_pct=%.1f server_us_per_delivery=%.2f server_rss_kb=%ld server_peak_rss_kb=%ld gen_cpu_pct=%.1f other_cpu_pct=%.1f "
           "pids=%d pid_cpu_s=%s pid_cpu_ms=%s pid_rss_ready_kb=%s pid_rss_kb=%s pid_socks=%s parts_p99_ms=%s "
           "t0=%lld.%06lld t1=%lld.%06lld ok=%d\n",
           ph->name, opt_label, opt_storage, opt_games, spectators, ph->moves, ph->burst ? "burst" : "paced",
           ph->burst ? ":window=" : ":rate=", ph->burst ? (double)ph->window : ph->rate,
           (unsigned long long)deliveries, secs, span, span > 0 ? deliveries / span : 0,
           pct_ms(0.50), pct_ms(0.99), lat_n ? lat_us[lat_n - 1] / 1000.0 : 0,
           (unsigned long long)(gaps + missing), (unsigned long long)reorders, (unsigned long long)errors,
           (unsigned long long)bad_acks, (unsigned long long)closes, (unsigned long long)unacked, timed_out,
           server_cpu, deliveries ? server_cpu / 100.0 * secs * 1e6 / (double)deliveries : 0, proc_rss_kb(), proc_peak_rss_kb(), gen_cpu, other_cpu < 0 ? 0 : other_cpu,
           npids, join_i64(pcpu, npids, (double)hz, "%.2f"), join_i64(pns, npids, 1e6, "%.1f"), join_i64(pid_rss_ready, npids, 1, "%.0f"), join_i64(prss64, npids, 1, "%.0f"), join_i64(psocks, npids, 1, "%.0f"),
           parts_p99, (long long)(phase_t0 / 1000000000), (long long)(phase_t0 % 1000000000 / 1000),
           (long long)(t1 / 1000000000), (long long)(t1 % 1000000000 / 1000), ok);
    fflush(stdout);
    total_gaps += missing;
    if (!watchers_ok) merged_bad = 1;   /* the exit status reports the watchers' problems too */
    if (spect_open < spectators) fprintf(stderr, "fanload: %d spectators still open of %d\n", spect_open, spectators);
}

/* ---- crowd: a crowd arrives while a player of another game moves ---- */
/* The mover has its own thread and its own blocking socket, so its acks are read at once,
   not behind thousands of crowd events in the main loop's epoll batches. It shares nothing
   with the main loop but the atomics below and its own figures (read after the join). */
typedef struct {
    int fd;
    uint8_t buf[1 << 16]; size_t len;
    uint8_t msg[1 << 16]; size_t mlen;   /* a fragmented message being assembled */
    uint32_t rng;
    atomic_int ready, go, stop, done, failed;
    int64_t go_ns;
    int created;
    int64_t base_seq, last_seq;
    int sent, acked;
    int warm;                            /* moves made before the crowd, not measured */
    uint64_t errors, bad_acks, gaps, reorders, closes;
    int64_t *send_ns; int cap;           /* send time of move k, 1-based */
    int64_t *ack_ns;                     /* its ack's arrival, 0 until then */
    char why[200];
} Mover;

static Mover mover;

static void mover_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mover.why, sizeof mover.why, fmt, ap);
    va_end(ap);
    atomic_store(&mover.failed, 1);
    atomic_store(&mover.done, 1);
}

static int mover_send_all(const void *p, size_t n) {
    const uint8_t *b = p;
    while (n) {
        ssize_t w = send(mover.fd, b, n, MSG_NOSIGNAL);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        b += w; n -= (size_t)w;
    }
    return 0;
}

static int mover_frame(int opcode, const void *payload, size_t n) {
    uint8_t f[1024];
    if (n > sizeof f - 14) return -1;
    size_t h = 0;
    f[h++] = (uint8_t)(0x80 | opcode);
    if (n < 126) f[h++] = (uint8_t)(0x80 | n);
    else { f[h++] = 0x80 | 126; f[h++] = (uint8_t)(n >> 8); f[h++] = (uint8_t)n; }
    mover.rng ^= mover.rng << 13; mover.rng ^= mover.rng >> 17; mover.rng ^= mover.rng << 5;
    uint8_t mask[4] = { (uint8_t)mover.rng, (uint8_t)(mover.rng >> 8), (uint8_t)(mover.rng >> 16), (uint8_t)(mover.rng >> 24) };
    memcpy(f + h, mask, 4); h += 4;
    const uint8_t *p = payload;
    for (size_t i = 0; i < n; i++) f[h + i] = p[i] ^ mask[i & 3];
    return mover_send_all(f, h + n);
}

static void mover_message(const char *p, size_t n, int64_t t) {
    Top m;
    if (!scan_top(p, n, &m) || !m.type.n) { mover.errors++; return; }
    if (span_is(m.type, "ack") && m.id.n && m.id.p[0] == 'c') {
        mover.created = 1;
        mover.base_seq = m.has_seq ? m.seq : 0;
        if (mover.last_seq < 0) mover.last_seq = mover.base_seq;
    } else if (span_is(m.type, "ack") && m.id.n > 1 && m.id.p[0] == 'm') {
        int k = atoi(m.id.p + 1);
        if (k < 1 || k > mover.sent || mover.ack_ns[k]) { mover.bad_acks++; return; }
        mover.ack_ns[k] = t;
        mover.acked++;
        if (!m.has_seq || m.seq != mover.base_seq + k) mover.bad_acks++;
    } else if (span_is(m.type, "diff")) {
        if (!m.has_seq) { mover.errors++; return; }
        if (mover.last_seq >= 0 && m.seq != mover.last_seq + 1) {
            if (m.seq <= mover.last_seq) mover.reorders++;
            else mover.gaps += (uint64_t)(m.seq - mover.last_seq - 1);
        }
        if (m.seq > mover.last_seq) mover.last_seq = m.seq;
    } else if (span_is(m.type, "joined") || span_is(m.type, "snapshot")) {
        if (m.has_seq) mover.last_seq = m.seq;
    } else if (span_is(m.type, "error")) {
        mover.errors++;
        fprintf(stderr, "fanload: mover: error: %.*s\n", (int)(n > 300 ? 300 : n), p);
    }
}

/* Reads what is there (waiting at most timeout_ms) and handles every complete frame. */
static int mover_read(int timeout_ms) {
    struct pollfd pf = { .fd = mover.fd, .events = POLLIN };
    int k = poll(&pf, 1, timeout_ms);
    if (k < 0 && errno != EINTR) return -1;
    if (k <= 0) return 0;
    ssize_t r = recv(mover.fd, mover.buf + mover.len, sizeof mover.buf - mover.len, 0);
    if (r == 0) { mover.closes++; return -1; }
    if (r < 0) return errno == EINTR || errno == EAGAIN ? 0 : -1;
    int64_t t = now_ns();
    mover.len += (size_t)r;
    size_t off = 0;
    while (mover.len - off >= 2) {
        uint8_t *f = mover.buf + off;
        int fin = f[0] & 0x80, op = f[0] & 0x0f;
        uint64_t len = f[1] & 0x7f;
        size_t h = 2;
        if (f[1] & 0x80) return -1;   /* a masked server frame */
        if (len == 126) { if (mover.len - off < 4) break; len = ((uint64_t)f[2] << 8) | f[3]; h = 4; }
        else if (len == 127) {
            if (mover.len - off < 10) break;
            len = 0;
            for (int i = 0; i < 8; i++) len = (len << 8) | f[2 + i];
            h = 10;
        }
        if (h + len > sizeof mover.buf) return -1;   /* the mover only expects small frames */
        if (mover.len - off < h + len) break;
        uint8_t *pl = f + h;
        if (op == 0x1 || op == 0x2 || op == 0x0) {
            if (op != 0x0 && fin && mover.mlen == 0) mover_message((const char *)pl, len, t);
            else {
                if (op != 0x0) mover.mlen = 0;
                if (mover.mlen + len > sizeof mover.msg) return -1;
                memcpy(mover.msg + mover.mlen, pl, len); mover.mlen += len;
                if (fin) { mover_message((const char *)mover.msg, mover.mlen, t); mover.mlen = 0; }
            }
        } else if (op == 0x9) {
            if (mover_frame(0xA, pl, len) < 0) return -1;
        } else if (op == 0x8) {
            mover.closes++;
            return -1;
        }
        off += h + len;
    }
    memmove(mover.buf, mover.buf + off, mover.len - off);
    mover.len -= off;
    return 0;
}

static void mover_send_move(void) {
    int k = mover.sent + 1;
    if (k >= mover.cap) { mover_fail("more moves than planned"); return; }
    char msg[128];
    if (!strcmp(opt_kind, "plane"))
        snprintf(msg, sizeof msg, "{\"type\":\"tap\",\"x\":%d,\"y\":%d,\"id\":\"m%d\"}", 1 + (k % 2), 1, k);
    else
        snprintf(msg, sizeof msg, "{\"type\":\"tap\",\"target\":\"/stock\",\"id\":\"m%d\"}", k);
    mover.send_ns[k] = now_ns();
    mover.sent = k;
    if (mover_frame(1, msg, strlen(msg)) < 0) mover_fail("send: %s", strerror(errno));
}

static void *mover_main(void *arg) {
    (void)arg;
    mover.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (mover.fd < 0) { mover_fail("socket: %s", strerror(errno)); return NULL; }
    int one = 1;
    setsockopt(mover.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(mover.fd, (struct sockaddr *)&server_addrs[0], sizeof server_addrs[0]) < 0) { mover_fail("connect: %s", strerror(errno)); return NULL; }
    char req[512];
    int n = snprintf(req, sizeof req,
        "GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", opt_host, opt_ports[0]);
    if (mover_send_all(req, (size_t)n) < 0) { mover_fail("send: %s", strerror(errno)); return NULL; }
    int64_t deadline = now_ns() + 30000000000LL;
    for (;;) {
        if (now_ns() > deadline) { mover_fail("no handshake reply in 30 s"); return NULL; }
        struct pollfd pf = { .fd = mover.fd, .events = POLLIN };
        if (poll(&pf, 1, 100) <= 0) continue;
        ssize_t r = recv(mover.fd, mover.buf + mover.len, sizeof mover.buf - mover.len, 0);
        if (r <= 0) { mover_fail("handshake: connection closed"); return NULL; }
        mover.len += (size_t)r;
        uint8_t *end = memmem(mover.buf, mover.len, "\r\n\r\n", 4);
        if (!end) continue;
        if (mover.len < 12 || memcmp(mover.buf + 9, "101", 3) || !memmem(mover.buf, (size_t)(end - mover.buf), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", 28)) {
            mover_fail("handshake refused"); return NULL;
        }
        size_t off = (size_t)(end - mover.buf) + 4;
        memmove(mover.buf, mover.buf + off, mover.len - off);
        mover.len -= off;
        break;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "{\"type\":\"create\",\"kind\":\"%s\",\"options\":{\"seed\":1%s},\"id\":\"c\"}", opt_kind,
                     delay_option());
    if (mover_frame(1, msg, strlen(msg)) < 0) { mover_fail("send: %s", strerror(errno)); return NULL; }
    while (!mover.created) {
        if (now_ns() > deadline) { mover_fail("no ack to create in 30 s"); return NULL; }
        if (mover_read(100) < 0) { mover_fail("connection lost while creating its game"); return NULL; }
        if (mover.errors) { mover_fail("error reply to create"); return NULL; }
    }
    /* a few moves first, ack-gated: the game's first commits (and anything else a first move
       costs) are not what S6 measures */
    for (int w = 0; w < 5; w++) {
        mover_send_move();
        while (mover.acked < mover.sent) {
            if (now_ns() > deadline) { mover_fail("no ack to a warm-up move in 30 s"); return NULL; }
            if (mover_read(100) < 0) { mover_fail("connection lost while warming up"); return NULL; }
        }
        if (mover.errors || mover.bad_acks) { mover_fail("error reply to a warm-up move"); return NULL; }
    }
    mover.warm = mover.sent;
    atomic_store(&mover.ready, 1);
    while (!atomic_load(&mover.go))
        if (mover_read(5) < 0) { mover_fail("connection lost before moving"); return NULL; }
    /* move k is due at go + (k-1)/rate; a late move goes at once, the next keeps its own time */
    int64_t period = (int64_t)(1e9 / opt_move_rate);
    while (!atomic_load(&mover.stop)) {
        int64_t t = now_ns(), due = mover.go_ns + (int64_t)(mover.sent - mover.warm) * period;
        if (t >= due) {
            mover_send_move();
            if (atomic_load(&mover.failed)) return NULL;
            continue;
        }
        int ms = (int)((due - t) / 1000000);
        if (mover_read(ms > 5 ? 5 : ms) < 0) { mover_fail("connection lost while moving"); return NULL; }
    }
    /* every move must be answered */
    deadline = now_ns() + 15000000000LL;
    while (mover.acked < mover.sent && now_ns() < deadline)
        if (mover_read(20) < 0) { mover_fail("connection lost while waiting for acks"); return NULL; }
    atomic_store(&mover.done, 1);
    return NULL;
}

static int mover_ready(void) {
    if (atomic_load(&mover.failed)) die("mover: %s", mover.why);
    return atomic_load(&mover.ready);
}
static int mover_done(void) { return atomic_load(&mover.done); }

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct_of(const int64_t *v, size_t n, double q) {
    if (!n) return 0;
    return v[(size_t)(q * (double)(n - 1) + 0.5)] / 1e6;
}

static int run_crowd(void) {
    /* conns[0]: the crowd game's creator; conns[1..N]: its spectators */
    opt_games = 1;
    opt_spectators = opt_crowd;
    games[0].player = 0;
    games[0].send_ns = calloc(2, sizeof(int64_t));
    conns[0].role = R_PLAYER;
    for (int i = 0; i < nconns; i++) {
        if (i) conns[i].role = R_SPECTATOR;
        if (i) conns[i].port_ix = (uint8_t)((i - 1) % nports);
        conns[i].game = 0;
        open_order[i] = i;
    }
    open_limit = 1;
    int64_t t_setup = now_ns();
    pump_connects();
    run_until(games_created, 60, "creating the crowd's game");

    double max_seconds = 240;
    mover.cap = (int)(opt_move_rate * max_seconds) + 16;
    mover.send_ns = calloc((size_t)mover.cap, sizeof(int64_t));
    mover.ack_ns = calloc((size_t)mover.cap, sizeof(int64_t));
    if (!mover.send_ns || !mover.ack_ns) die("out of memory");
    mover.last_seq = -1;
    mover.rng = 0x2545f491u ^ (uint32_t)getpid();
    pthread_t th;
    if (pthread_create(&th, NULL, mover_main, NULL)) die("pthread_create failed");
    run_until(mover_ready, 40, "creating the mover's game");
    settle(10);
    fprintf(stderr, "fanload: %s: both games created, settled at %.2f s; the crowd of %d arrives now\n",
            opt_label, (now_ns() - t_setup) / 1e9, opt_crowd);

    long hz = sysconf(_SC_CLK_TCK);
    int64_t cpu0 = proc_cpu_ticks(), busy0 = machine_busy_ticks();
    double self0 = self_cpu_s();
    int64_t t0 = now_ns();
    mover.go_ns = t0;
    atomic_store(&mover.go, 1);
    open_limit = nconns;
    pump_connects();
    int64_t deadline = t0 + (int64_t)(max_seconds - 30) * 1000000000LL;
    while (!(all_open() && joined_count == opt_crowd)) {
        if (now_ns() > deadline || atomic_load(&mover.failed)) break;
        pump_connects();
        poll_once(50);
    }
    int crowd_ok = all_open() && joined_count == opt_crowd;
    int64_t t_joined = now_ns();
    int64_t cpu_mid = proc_cpu_ticks(), busy_mid = machine_busy_ticks();
    double self_mid = self_cpu_s();
    while (now_ns() < t_joined + (int64_t)opt_tail_ms * 1000000 && !atomic_load(&mover.failed)) poll_once(20);
    atomic_store(&mover.stop, 1);
    int64_t t_stop = now_ns();
    while (!mover_done() && now_ns() < t_stop + 20000000000LL) poll_once(20);
    int64_t t1 = now_ns();
    int64_t cpu1 = proc_cpu_ticks(), busy1 = machine_busy_ticks();
    double self1 = self_cpu_s();
    if (!mover_done()) die("mover did not finish");
    pthread_join(th, NULL);
    if (atomic_load(&mover.failed)) fprintf(stderr, "fanload: mover: %s\n", mover.why);

    /* latencies: moves sent while the crowd arrived, and all moves (the tail included) */
    int64_t *arr = malloc(sizeof(int64_t) * (size_t)(mover.sent + 1));
    int64_t *all = malloc(sizeof(int64_t) * (size_t)(mover.sent + 1));
    size_t na = 0, nall = 0;
    for (int k = mover.warm + 1; k <= mover.sent; k++) {
        if (!mover.ack_ns[k]) continue;
        int64_t d = mover.ack_ns[k] - mover.send_ns[k];
        all[nall++] = d;
        if (mover.send_ns[k] < t_joined) arr[na++] = d;
    }
    if (opt_trace) {   /* one line per move: ms after the crowd's first connect, ack latency ms */
        FILE *tf = fopen(opt_trace, "w");
        if (!tf) die("cannot write %s", opt_trace);
        fprintf(tf, "# move sent_ms latency_ms (crowd joined at %.1f ms, last handshake at %.1f ms)\n",
                (t_joined - t0) / 1e6, last_open_ns > t0 ? (last_open_ns - t0) / 1e6 : 0);
        for (int k = mover.warm + 1; k <= mover.sent; k++)
            fprintf(tf, "%d %.1f %.3f\n", k - mover.warm, (mover.send_ns[k] - t0) / 1e6,
                    mover.ack_ns[k] ? (mover.ack_ns[k] - mover.send_ns[k]) / 1e6 : -1.0);
        fclose(tf);
    }
    qsort(arr, na, sizeof *arr, cmp_i64);
    qsort(all, nall, sizeof *all, cmp_i64);
    int during = 0;
    for (int k = mover.warm + 1; k <= mover.sent; k++) if (mover.send_ns[k] < t_joined) during++;
    double crowd_s = (t_joined - t0) / 1e9, secs = (t1 - t0) / 1e9;
    double open_s = last_open_ns > t0 ? (last_open_ns - t0) / 1e9 : 0;
    int known = cpu0 >= 0 && cpu1 >= 0 && cpu_mid >= 0;
    double server_cpu_s = known ? (double)(cpu1 - cpu0) / (double)hz : 0;
    double arrival_cpu_s = known ? (double)(cpu_mid - cpu0) / (double)hz : 0;
    /* noise while the crowd arrived */
    double gen_cpu = crowd_s > 0 ? 100.0 * (self_mid - self0) / crowd_s : 0;
    double other_cpu = crowd_s > 0 ? 100.0 * (double)(busy_mid - busy0) / (double)hz / crowd_s - 100.0 * arrival_cpu_s / crowd_s - gen_cpu : 0;
    (void)busy1; (void)self1;
    uint64_t unacked = (uint64_t)(mover.sent - mover.acked);
    uint64_t errs = mover.errors + total_errors;
    int ok = crowd_ok && !atomic_load(&mover.failed) && !unacked && !mover.bad_acks && !mover.gaps
             && !mover.reorders && !mover.closes && !errs && !total_closes && !total_gaps && !total_reorders;
    printf("RESULT phase=S6 server=%s storage=%s crowd=%d joined=%d open_seconds=%.2f crowd_seconds=%.2f "
           "move_rate=%g moves=%d moves_during_arrival=%d acked=%d unacked=%llu "
           "p50_ms=%.3f p99_ms=%.3f max_ms=%.3f all_p50_ms=%.3f all_p99_ms=%.3f all_max_ms=%.3f "
           "loss=%llu reorder=%llu errors=%llu bad_acks=%llu closes=%llu seconds=%.2f "
           "server_cpu_s=%.2f server_cpu_pct=%.1f arrival_server_cpu_pct=%.1f server_rss_kb=%ld "
           "gen_cpu_pct=%.1f other_cpu_pct=%.1f ok=%d\n",
           opt_label, opt_storage, opt_crowd, joined_count, open_s, crowd_s,
           opt_move_rate, mover.sent - mover.warm, during, mover.acked - mover.warm, (unsigned long long)unacked,
           pct_of(arr, na, 0.50), pct_of(arr, na, 0.99), na ? arr[na - 1] / 1e6 : 0,
           pct_of(all, nall, 0.50), pct_of(all, nall, 0.99), nall ? all[nall - 1] / 1e6 : 0,
           (unsigned long long)(mover.gaps + total_gaps), (unsigned long long)(mover.reorders + total_reorders),
           (unsigned long long)errs, (unsigned long long)mover.bad_acks,
           (unsigned long long)(mover.closes + total_closes), secs,
           server_cpu_s, secs > 0 ? 100.0 * server_cpu_s / secs : 0, crowd_s > 0 ? 100.0 * arrival_cpu_s / crowd_s : 0,
           proc_rss_kb(), gen_cpu, other_cpu < 0 ? 0 : other_cpu, ok);
    fflush(stdout);
    if (!crowd_ok) fprintf(stderr, "fanload: the crowd did not fully join: %d of %d joined, %d open\n", joined_count, opt_crowd, open_count - 1);
    return ok ? 0 : 1;
}

/* ---- watch: spectators of a game another fanload process plays (C2) ---- */
/* The player's process writes the game file once the game exists; this process opens its
   spectators, says it is ready, counts and checks every diff up to the last move's, says it is
   done, then reads the player's send times (both processes read the same CLOCK_MONOTONIC) for
   the latencies, and leaves a report that the player's process merges into the phase's line. */
static int run_watch(void) {
    const char *gf[1] = { opt_watch_file };
    wait_for_files(gf, 1, 180, "waiting for the game file");
    FILE *f = fopen(opt_watch_file, "r");
    char id[72];
    long long base;
    int moves;
    double rate;
    if (!f || fscanf(f, "%71s %lld %d %lf", id, &base, &moves, &rate) != 4) die("unreadable game file %s", opt_watch_file);
    fclose(f);
    if (moves < 1 || moves > 100000 || rate <= 0) die("bad game file %s", opt_watch_file);
    Game *g = &games[0];
    snprintf(g->id, sizeof g->id, "%s", id);
    g->created = 1;
    g->player = -1;
    g->base_seq = base;
    g->target = moves;
    for (int i = 0; i < nconns; i++) {
        conns[i].role = R_SPECTATOR;
        conns[i].game = 0;
        conns[i].port_ix = (uint8_t)(i % nports);
        open_order[i] = i;
    }
    int64_t t0 = now_ns();
    pump_connects();
    run_until(spectators_joined, 180, "joining spectators");
    double join_s = (now_ns() - t0) / 1e9;
    settle(20);
    count_pid_sockets();
    fprintf(stderr, "fanload: %s: %d spectators of %s joined by %.2f s, settled at %.2f s\n",
            opt_label, joined_count, g->id, join_s, (now_ns() - t0) / 1e9);
    for (int i = 0; i < nconns; i++)
        if (conns[i].last_seq != base) die("spectator %d joined at seq %lld, not %lld: moves began too early",
                                           i, (long long)conns[i].last_seq, base);
    measuring = 1;
    watch_mode = 1;
    trace_alloc(moves);
    if (opt_ready_file) touch_atomic(opt_ready_file);

    /* until every spectator has the last diff: time to be let go (the other processes join),
       then the moves themselves */
    int64_t deadline = now_ns() + (int64_t)((180 + moves / rate + 30) * 1e9);
    int timed_out = 0;
    double self0 = 0;
    int started = 0;
    while (complete_count < nconns) {
        if (now_ns() > deadline) { timed_out = 1; break; }
        if (errors) break;
        if (open_count == 0) break;
        poll_once(50);
        if (!started && deliveries) { started = 1; self0 = self_cpu_s(); }
    }
    double gen_cpu_s = started ? self_cpu_s() - self0 : 0;
    measuring = 0;
    if (opt_done_file) touch_atomic(opt_done_file);
    uint64_t missing = 0;
    int spect_open = 0;
    for (int i = 0; i < nconns; i++) {
        Conn *c = &conns[i];
        int64_t want = base + moves;
        if (c->state == C_OPEN) spect_open++;
        if (c->last_seq < want) missing += (uint64_t)(want - (c->last_seq < 0 ? base : c->last_seq));
    }

    /* latencies: move k's send time from the player's process */
    int64_t *send_ns = calloc((size_t)moves + 2, sizeof *send_ns);
    if (!send_ns) die("out of memory");
    if (opt_send_times) {
        const char *sf[1] = { opt_send_times };
        wait_for_files(sf, 1, 120, "waiting for the player's send times");
        FILE *st = fopen(opt_send_times, "r");
        if (!st) die("cannot read %s", opt_send_times);
        int k;
        long long ns;
        while (fscanf(st, "%d %lld", &k, &ns) == 2)
            if (k >= 1 && k <= moves) send_ns[k] = ns;
        fclose(st);
    }
    size_t unmatched = 0;
    for (size_t i = 0; i < recv_n; i++) {
        int64_t s0 = send_ns[recv_k[i]];
        if (!s0) { unmatched++; continue; }
        int64_t d = recv_t[i] - s0;
        lat_push(d > 0 ? (uint32_t)(d / 1000) : 0);
        trace_push(recv_k[i], d > 0 ? (uint32_t)(d / 1000) : 0);
    }
    trace_write(send_ns, moves);
    if (unmatched) fprintf(stderr, "fanload: %s: %zu deliveries without a send time\n", opt_label, unmatched);
    qsort(lat_us, lat_n, sizeof *lat_us, cmp_u32);
    int ok = !timed_out && !gaps && !reorders && !missing && !errors && !closes && !unmatched;
    if (opt_report) {
        char tmp[600];
        FILE *r = open_atomic(opt_report, tmp, sizeof tmp);
        fprintf(r, "deliveries=%llu lat_n=%llu loss=%llu reorder=%llu errors=%llu closes=%llu spectators=%d "
                   "open=%d last_delivery_ns=%lld gen_cpu_s=%.3f p99_ms=%.3f timed_out=%d ok=%d\n",
                (unsigned long long)deliveries, (unsigned long long)lat_n, (unsigned long long)(gaps + missing),
                (unsigned long long)reorders, (unsigned long long)errors, (unsigned long long)closes, nconns, spect_open,
                (long long)last_delivery_ns, gen_cpu_s, pct_ms(0.99), timed_out, ok);
        if (lat_n && fwrite(lat_us, sizeof *lat_us, lat_n, r) != lat_n) die("cannot write %s", tmp);
        close_atomic(r, tmp, opt_report);
    }
    int64_t socks[MAX_PIDS];
    for (int i = 0; i < npids; i++) socks[i] = pid_socks[i];
    printf("RESULT phase=%s server=%s storage=%s spectators=%d moves=%d deliveries=%llu p50_ms=%.3f p99_ms=%.3f max_ms=%.3f "
           "loss=%llu reorder=%llu errors=%llu closes=%llu timed_out=%d server_rss_kb=%ld pid_socks=%s gen_cpu_s=%.2f ok=%d\n",
           opt_phase_name, opt_label, opt_storage, nconns, moves, (unsigned long long)deliveries,
           pct_ms(0.50), pct_ms(0.99), lat_n ? lat_us[lat_n - 1] / 1000.0 : 0,
           (unsigned long long)(gaps + missing), (unsigned long long)reorders, (unsigned long long)errors,
           (unsigned long long)closes, timed_out, proc_rss_kb(), join_i64(socks, npids, 1, "%.0f"), gen_cpu_s, ok);
    fflush(stdout);
    return ok ? 0 : 1;
}

/* ---- main ---- */
static void usage(void) {
    fprintf(stderr,
        "usage: fanload --port P|--ports P1,P2,... [--pid SERVER_PID,...] [--label NAME] [--timeout SEC]\n"
        "         (--games G --spectators N --phase NAME:paced:MOVES:RATE|NAME:burst:MOVES:WINDOW ... [--record FILE]\n"
        "          | --idle N [--name PHASE] [--auth frame|bearer --auth-tokens FILE]\n"
        "          | --crowd N [--move-rate PER_S] [--tail-ms MS] [--trace FILE]\n"
        "          | --watch-file F --spectators N [--ready-file F] [--done-file F] [--send-times F] [--report F] [--phase-name NAME])\n"
        "       [--ports P1,P2,... [--player-port P]] [--pid A,B,...] [--src-base B]\n"
        "       [--game-file F --go-files F,... --done-files F,... --send-times F --merge F,...] [--trace FILE]\n"
        "       [--kind klondike|plane] [--delay SEC] [--settle-ms MS] [--inflight K] [--storage LABEL]\n");
    exit(2);
}

/* "a,b,c" into up to max strings (pointing into a copy of s) */
static int split_list(const char *s, const char **out, int max) {
    char *copy = strdup(s);
    if (!copy) die("out of memory");
    int n = 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max) die("more than %d items in %s", max, s);
        out[n++] = tok;
    }
    return n;
}

static int split_ints(const char *s, int *out, int max) {
    const char *items[16];
    int n = split_list(s, items, max < 16 ? max : 16);
    for (int i = 0; i < n; i++) out[i] = atoi(items[i]);
    return n;
}

static void parse_phase(const char *s) {
    if (nphases == MAX_PHASES) die("too many phases");
    Phase *p = &phases[nphases++];
    char kind[16];
    double a, b;
    if (sscanf(s, "%31[^:]:%15[^:]:%lf:%lf", p->name, kind, &a, &b) != 4) die("bad phase %s", s);
    p->moves = (int)a;
    if (!strcmp(kind, "paced")) { p->burst = 0; p->rate = b; }
    else if (!strcmp(kind, "burst")) { p->burst = 1; p->window = (int)b; }
    else die("bad phase kind %s", kind);
    if (p->moves < 1 || p->moves > 100000 || b <= 0) die("bad phase numbers in %s", s);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage();
        if (!strcmp(a, "--port")) opt_port = atoi(v);
        else if (!strcmp(a, "--ports")) nports = split_ints(v, opt_ports, MAX_PORTS - 1);
        else if (!strcmp(a, "--player-port")) opt_player_port = atoi(v);
        else if (!strcmp(a, "--host")) opt_host = v;
        else if (!strcmp(a, "--pid")) npids = split_ints(v, opt_pids, MAX_PIDS);
        else if (!strcmp(a, "--src-base")) opt_src_base = atoi(v);
        else if (!strcmp(a, "--game-file")) opt_game_file = v;
        else if (!strcmp(a, "--go-files")) ngo_files = split_list(v, opt_go_files, MAX_FILES);
        else if (!strcmp(a, "--done-files")) ndone_files = split_list(v, opt_done_files, MAX_FILES);
        else if (!strcmp(a, "--merge")) nmerge_files = split_list(v, opt_merge_files, MAX_FILES);
        else if (!strcmp(a, "--send-times")) opt_send_times = v;
        else if (!strcmp(a, "--watch-file")) opt_watch_file = v;
        else if (!strcmp(a, "--ready-file")) opt_ready_file = v;
        else if (!strcmp(a, "--done-file")) opt_done_file = v;
        else if (!strcmp(a, "--report")) opt_report = v;
        else if (!strcmp(a, "--phase-name")) opt_phase_name = v;
        else if (!strcmp(a, "--games")) opt_games = atoi(v);
        else if (!strcmp(a, "--spectators")) opt_spectators = atoi(v);
        else if (!strcmp(a, "--idle")) opt_idle = atoi(v);
        else if (!strcmp(a, "--crowd")) opt_crowd = atoi(v);
        else if (!strcmp(a, "--move-rate")) opt_move_rate = atof(v);
        else if (!strcmp(a, "--tail-ms")) opt_tail_ms = atoi(v);
        else if (!strcmp(a, "--name")) opt_name = v;
        else if (!strcmp(a, "--storage")) opt_storage = v;
        else if (!strcmp(a, "--trace")) opt_trace = v;
        else if (!strcmp(a, "--phase")) parse_phase(v);
        else if (!strcmp(a, "--record")) opt_record = v;
        else if (!strcmp(a, "--timeout")) opt_timeout = atoi(v);
        else if (!strcmp(a, "--settle-ms")) opt_settle_ms = atoi(v);
        else if (!strcmp(a, "--inflight")) opt_inflight = atoi(v);
        else if (!strcmp(a, "--label")) opt_label = v;
        else if (!strcmp(a, "--kind")) opt_kind = v;
        else if (!strcmp(a, "--delay")) opt_delay = atof(v);
        else if (!strcmp(a, "--auth") && v && !strcmp(v, "frame")) opt_auth = AUTH_FRAME;
        else if (!strcmp(a, "--auth") && v && !strcmp(v, "bearer")) opt_auth = AUTH_BEARER;
        else if (!strcmp(a, "--auth-tokens")) opt_auth_tokens = v;
        else usage();
        i++;
    }
    if (opt_port && !nports) { opt_ports[0] = opt_port; nports = 1; }
    if (!nports) usage();
    int nports_all = nports;
    if (opt_player_port) { player_port_ix = nports; opt_ports[nports_all++] = opt_player_port; }
    for (int i = 0; i < nports_all; i++) if (opt_ports[i] <= 0 || opt_ports[i] > 65535) usage();
    for (int i = 0; i < npids; i++) if (opt_pids[i] <= 0) usage();
    if (opt_src_base < 2 || opt_src_base > 250) die("--src-base must be 2..250");
    if (opt_timeout < 1 || opt_timeout > 1800) die("--timeout must be 1..1800 seconds");
    if (opt_inflight < 1 || opt_inflight > 2000) die("--inflight must be 1..2000");
    signal(SIGALRM, on_alarm);
    alarm((unsigned)opt_timeout);
    signal(SIGPIPE, SIG_IGN);

    for (int i = 0; i < nports_all; i++) {
        struct sockaddr_in *sa = &server_addrs[i];
        memset(sa, 0, sizeof *sa);
        sa->sin_family = AF_INET;
        sa->sin_port = htons((uint16_t)opt_ports[i]);
        if (inet_pton(AF_INET, opt_host, &sa->sin_addr) != 1) die("--host must be an IPv4 address");
        if ((ntohl(sa->sin_addr.s_addr) >> 24) != 127) die("refusing to load anything but loopback (127.0.0.0/8)");
    }

    if (opt_watch_file) {
        if (opt_spectators < 1) die("--watch-file needs --spectators N");
        opt_games = 1;
        nconns = opt_spectators;
    } else if (opt_idle) nconns = opt_idle;
    else if (opt_crowd) {
        if (opt_move_rate <= 0 || opt_move_rate > 90) die("--move-rate must be in (0, 90]: the server allows 100 frames/s");
        if (opt_tail_ms < 0 || opt_tail_ms > 60000) die("--tail-ms must be 0..60000");
        nconns = 1 + opt_crowd;
    } else {
        if (opt_games < 1 || opt_spectators < 0 || !nphases) usage();
        nconns = opt_games * (1 + opt_spectators);
    }
    if (opt_auth != AUTH_NONE && (!opt_idle || !opt_auth_tokens)) die("--auth needs --idle N and --auth-tokens FILE");
    if (opt_auth != AUTH_NONE) load_auth_tokens(opt_auth_tokens);
    if (nconns < 1 || nconns > MAX_CONNS) die("connection count %d outside 1..%d", nconns, MAX_CONNS);
    if (opt_src_base + (nconns - 1) / CONNS_PER_SOURCE_IP > 254) die("--src-base too high for %d connections", nconns);
    if (opt_game_file && (opt_games != 1 || nphases != 1 || phases[0].burst || opt_idle || opt_crowd))
        die("--game-file needs one game and one paced phase");
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < (rlim_t)nconns + 64) {   /* raise the soft limit to the hard one */
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < (rlim_t)nconns + 64) die("open-file limit %llu too low for %d connections", (unsigned long long)rl.rlim_cur, nconns);
    }

    conns = calloc((size_t)nconns, sizeof *conns);
    games = calloc((size_t)opt_games, sizeof *games);
    gbuf = malloc(GBUF_SIZE);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (!conns || !games || !gbuf || epfd < 0) die("setup failed");
    rng_state ^= (uint32_t)getpid() * 2654435761u;

    open_order = malloc((size_t)nconns * sizeof *open_order);
    if (!open_order) die("out of memory");
    if (opt_watch_file) return run_watch();
    if (opt_idle) {
        for (int i = 0; i < nconns; i++) { conns[i].role = R_IDLE; conns[i].port_ix = (uint8_t)(i % nports); open_order[i] = i; }
        long before = proc_rss_kb();
        long hz = sysconf(_SC_CLK_TCK);
        int64_t ns0[MAX_PIDS], ns1[MAX_PIDS];
        pids_cpu_ns(ns0, 1);
        int64_t cpu0 = proc_cpu_ticks(), busy0 = machine_busy_ticks();
        double self0 = self_cpu_s();
        int64_t t0 = now_ns();
        pump_connects();
        run_until(idle_ready, 120, opt_auth == AUTH_FRAME ? "opening idle connections and signing them in" : "opening idle connections");
        int64_t t1 = now_ns();
        int64_t cpu_open = proc_cpu_ticks(), busy1 = machine_busy_ticks();
        double self1 = self_cpu_s();
        double open_s = (t1 - t0) / 1e9;
        settle(10);   /* whatever the server does after the last handshake counts too */
        int64_t cpu1 = proc_cpu_ticks();
        pids_cpu_ns(ns1, 0);
        /* the same span from the scheduler's per-thread nanoseconds (not sampled at clock ticks) */
        double sched_s = 0;
        for (int i = 0; i < npids; i++) sched_s += ns0[i] >= 0 && ns1[i] >= 0 ? (double)(ns1[i] - ns0[i]) / 1e9 : 0;
        long after = proc_rss_kb();
        int alive = open_count;
        int ok = alive == nconns && !total_errors && (opt_auth != AUTH_FRAME || authed_count == nconns);
        int known = cpu0 >= 0 && cpu1 >= 0 && cpu_open >= 0;
        double cpu_s = known ? (double)(cpu1 - cpu0) / (double)hz : 0;
        double cpu_open_s = known ? (double)(cpu_open - cpu0) / (double)hz : 0;
        /* noise while the connections were opening: the machine's busy time outside both processes */
        double gen_cpu = open_s > 0 ? 100.0 * (self1 - self0) / open_s : 0;
        double other_cpu = open_s > 0 ? 100.0 * (double)(busy1 - busy0) / (double)hz / open_s - 100.0 * cpu_open_s / open_s - gen_cpu : 0;
        printf("RESULT phase=%s server=%s storage=%s conns=%d open=%d open_seconds=%.2f rss_before_kb=%ld rss_after_kb=%ld "
               "bytes_per_conn=%.0f server_cpu_s=%.2f server_cpu_open_s=%.2f server_us_per_conn=%.1f "
               "gen_cpu_pct=%.1f other_cpu_pct=%.1f closes=%llu errors=%llu auth=%s authed=%d sched_us_per_conn=%.1f ok=%d\n",
               opt_name, opt_label, opt_storage, nconns, alive, open_s, before, after,
               npids ? (after - before) * 1024.0 / nconns : 0, cpu_s, cpu_open_s, cpu_s * 1e6 / nconns,
               gen_cpu, other_cpu < 0 ? 0 : other_cpu, (unsigned long long)total_closes,
               (unsigned long long)total_errors,
               opt_auth == AUTH_FRAME ? "frame" : opt_auth == AUTH_BEARER ? "bearer" : "none", authed_count,
               sched_s * 1e6 / nconns, ok);
        return ok ? 0 : 1;
    }

    if (opt_crowd) return run_crowd();

    /* Layout: game g's player at g*(N+1), its spectators right after it. */
    int total_moves = 0;
    for (int p = 0; p < nphases; p++) total_moves += phases[p].moves;
    for (int g = 0; g < opt_games; g++) {
        games[g].player = g * (1 + opt_spectators);
        games[g].send_ns = calloc((size_t)total_moves + 2, sizeof(int64_t));
        conns[games[g].player].role = R_PLAYER;
        conns[games[g].player].game = g;
        conns[games[g].player].port_ix = (uint8_t)player_port_ix;
        for (int s = 1; s <= opt_spectators; s++) {
            conns[games[g].player + s].role = R_SPECTATOR;
            conns[games[g].player + s].game = g;
            conns[games[g].player + s].port_ix = (uint8_t)((s - 1) % nports);   /* players on the first port */
        }
    }
    int k = 0;
    for (int g = 0; g < opt_games; g++) open_order[k++] = games[g].player;
    for (int i = 0; i < nconns; i++) if (conns[i].role == R_SPECTATOR) open_order[k++] = i;
    if (opt_record && opt_spectators < 1) die("--record needs a spectator");
    if (opt_record && !(record_fp = fopen(opt_record, "w"))) die("cannot write %s", opt_record);

    int64_t t0 = now_ns();
    pump_connects();
    run_until(games_created, 60, "creating games");
    double create_s = (now_ns() - t0) / 1e9;
    if (opt_game_file) {   /* the watcher processes may join now */
        char tmp[600];
        FILE *f = open_atomic(opt_game_file, tmp, sizeof tmp);
        fprintf(f, "%s %lld %d %g\n", games[0].id, (long long)games[0].base_seq, phases[0].moves, phases[0].rate);
        close_atomic(f, tmp, opt_game_file);
    }
    run_until(spectators_joined, 180, "joining spectators");
    double join_s = (now_ns() - t0) / 1e9;
    settle(20);
    fprintf(stderr, "fanload: %s: %d games created in %.2f s, %d spectators joined by %.2f s, settled at %.2f s, server rss %ld kB\n",
            opt_label, opt_games, create_s, joined_count, join_s, (now_ns() - t0) / 1e9, proc_rss_kb());
    if (ngo_files) {   /* the other processes' spectators have joined too */
        wait_for_files(opt_go_files, ngo_files, 200, "waiting for the watcher processes to join");
        settle(20);
        fprintf(stderr, "fanload: %s: the watcher processes are ready at %.2f s\n", opt_label, (now_ns() - t0) / 1e9);
    }
    count_pid_sockets();
    for (int p = 0; p < nphases; p++) {
        if (p) {
            /* let the server's per-connection rate bucket (100 frames/s) refill between phases */
            int64_t until = now_ns() + 1200000000LL;
            while (now_ns() < until) poll_once(20);
        }
        run_phase(&phases[p]);
    }
    if (record_fp) fclose(record_fp);
    int clean = !total_gaps && !total_reorders && !total_errors && !total_closes && !merged_bad;
    return clean ? 0 : 1;
}
