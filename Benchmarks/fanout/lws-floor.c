/*
 * lws-floor: the fan-out subset of the protocol (the same one node-server.js speaks) in
 * plain C on libwebsockets, with no game logic. It shows what libwebsockets itself costs,
 * the floor under Boardcast, and lets lws settings be tried without touching the server:
 * the event loop (--loop: poll, lws's default, or libev, which uses epoll), rx_buffer_size
 * (--rx-buffer, most of lws's memory per connection), pt_serv_buf_size (--serv-buf), and
 * writing at once from the broadcast loop instead of from the writable callback (--direct 1).
 *
 *   cc -O2 -o lws-floor lws-floor.c $(pkg-config --cflags --libs libwebsockets)
 *   ./lws-floor FRAMES [--rx-buffer BYTES] [--serv-buf BYTES] [--loop poll|libev] [--direct 1]
 *
 * FRAMES is a recording made by `fanload --record` (run.sh keeps one in its work folder
 * with --keep): the N-th move of a game is answered with the recorded diff N, the game id
 * swapped for this game's (same length), and an ack. Prints `listening on
 * http://127.0.0.1:PORT`; listens on loopback only; stop it with a signal.
 * Frames queued to one connection go out in one write when two or more are waiting, as
 * Boardcast does.
 */
#define _GNU_SOURCE
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Frame { int refs; size_t len; unsigned char bytes[]; } Frame;   /* LWS_PRE, then the payload */
typedef struct Conn { struct lws *wsi; int game; Frame **ring; int head, tail, cap; } Conn;
typedef struct Game { char id[8]; int seq; Conn **members; int count, cap; } Game;

static char **diffs;
static int ndiffs;
static char recorded_id[8];
static Game *games;
static int ngames;
static unsigned char *coalesce;
static int direct_writes;   /* --direct: write at once when nothing is queued, skipping the writable round trip */
#define COALESCE_BYTES (256 * 1024)

static Frame *frame_new(const char *text, size_t n) {
    Frame *f = malloc(sizeof(Frame) + LWS_PRE + n);
    if (!f) abort();
    f->refs = 0;
    f->len = n;
    memcpy(f->bytes + LWS_PRE, text, n);
    return f;
}

static void frame_release(Frame *f) { if (--f->refs == 0) free(f); }

static void enqueue(Conn *c, Frame *f) {
    if (direct_writes && c->tail == c->head && !lws_send_pipe_choked(c->wsi)) {
        /* lws asks for writes from the WRITEABLE callback; this measures what skipping it saves */
        if (lws_write(c->wsi, f->bytes + LWS_PRE, f->len, LWS_WRITE_TEXT) < (int)f->len)
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
        return;
    }
    if (c->tail - c->head == c->cap) {
        int cap = c->cap ? c->cap * 2 : 4;
        Frame **ring = malloc(sizeof *ring * (size_t)cap);
        if (!ring) abort();
        for (int i = 0; i < c->tail - c->head; i++) ring[i] = c->ring[(c->head + i) % c->cap];
        c->tail -= c->head;
        c->head = 0;
        free(c->ring);
        c->ring = ring;
        c->cap = cap;
    }
    c->ring[c->tail++ % c->cap] = f;
    f->refs++;
    lws_callback_on_writable(c->wsi);
}

static void send_text(Conn *c, const char *text) {
    Frame *f = frame_new(text, strlen(text));
    f->refs = 1;
    enqueue(c, f);
    frame_release(f);
}

static void join(Conn *c, int g) {
    Game *game = &games[g];
    if (game->count == game->cap) {
        game->cap = game->cap ? game->cap * 2 : 16;
        game->members = realloc(game->members, sizeof(Conn *) * (size_t)game->cap);
        if (!game->members) abort();
    }
    game->members[game->count++] = c;
    c->game = g;
}

static void leave(Conn *c) {
    if (c->game < 0) return;
    Game *game = &games[c->game];
    for (int i = 0; i < game->count; i++)
        if (game->members[i] == c) { game->members[i] = game->members[--game->count]; break; }
    c->game = -1;
}

static void on_message(Conn *c, const char *m, size_t len) {
    char out[256];
    if (memmem(m, len, "\"create\"", 8)) {
        games = realloc(games, sizeof(Game) * (size_t)(ngames + 1));
        if (!games) abort();
        Game *g = &games[ngames];
        memset(g, 0, sizeof *g);
        if (ngames == 0) strcpy(g->id, recorded_id);
        else snprintf(g->id, sizeof g->id, "g%05d", ngames);
        join(c, ngames++);
        snprintf(out, sizeof out, "{\"type\":\"created\",\"game\":\"%s\",\"token\":\"t\"}", g->id);
        send_text(c, out);
        send_text(c, "{\"type\":\"ack\",\"id\":\"c\",\"seq\":0}");
    } else if (memmem(m, len, "\"tap\"", 5) && c->game >= 0) {
        Game *g = &games[c->game];
        if (g->seq >= ndiffs) { send_text(c, "{\"type\":\"error\",\"code\":\"illegal-move\",\"message\":\"no recorded diff\"}"); return; }
        const char *d = diffs[g->seq++];
        Frame *f = frame_new(d, strlen(d));
        char *at = memmem(f->bytes + LWS_PRE, f->len, "\"game\":\"", 8);
        if (at) memcpy(at + 8, g->id, strlen(g->id));
        f->refs = 1;   /* held across the loop, so the last enqueue cannot free it early */
        for (int i = 0; i < g->count; i++) enqueue(g->members[i], f);
        frame_release(f);
        const char *id = memmem(m, len, "\"id\":\"m", 7);
        snprintf(out, sizeof out, "{\"type\":\"ack\",\"id\":\"m%d\",\"seq\":%d}", id ? atoi(id + 7) : 0, g->seq);
        send_text(c, out);
    }
}

static int write_next(Conn *c, struct lws *wsi) {
    int pending = c->tail - c->head;
    if (pending == 1) {
        Frame *f = c->ring[c->head++ % c->cap];
        int len = (int)f->len;
        int n = lws_write(wsi, f->bytes + LWS_PRE, f->len, LWS_WRITE_TEXT);
        frame_release(f);
        if (n < len) return -1;
    } else if (pending > 1) {
        /* Raw bytes: our own frame headers, several frames in one send(). */
        unsigned char *out = coalesce + LWS_PRE;
        size_t used = 0;
        while (c->head < c->tail) {
            Frame *f = c->ring[c->head % c->cap];
            if (used + f->len + 4 > COALESCE_BYTES) break;
            c->head++;
            out[used++] = 0x81;
            if (f->len < 126) out[used++] = (unsigned char)f->len;
            else { out[used++] = 126; out[used++] = (unsigned char)(f->len >> 8); out[used++] = (unsigned char)f->len; }
            memcpy(out + used, f->bytes + LWS_PRE, f->len);
            used += f->len;
            frame_release(f);
        }
        if (lws_write(wsi, out, used, LWS_WRITE_HTTP) < (int)used) return -1;
    }
    if (c->tail > c->head) lws_callback_on_writable(wsi);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    Conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->game = -1;
        char arg[64], out[160];
        const char *watch = lws_get_urlarg_by_name(wsi, "watch=", arg, sizeof arg);
        for (int g = 0; watch && g < ngames; g++) {
            if (strcmp(games[g].id, watch)) continue;
            join(c, g);
            snprintf(out, sizeof out, "{\"type\":\"joined\",\"game\":\"%s\",\"kind\":\"klondike\",\"role\":\"spectator\",\"seq\":%d}",
                     games[g].id, games[g].seq);
            send_text(c, out);
        }
        return 0;
    }
    case LWS_CALLBACK_RECEIVE:
        on_message(c, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return write_next(c, wsi);
    case LWS_CALLBACK_CLOSED:
        leave(c);
        while (c->head < c->tail) frame_release(c->ring[c->head++ % c->cap]);
        free(c->ring);
        return 0;
    default:
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: lws-floor FRAMES [--rx-buffer BYTES] [--serv-buf BYTES] [--loop poll|libev] [--direct 1]\n"); return 2; }
    int rx = 16384, serv_buf = 0, libev = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rx-buffer")) rx = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--direct")) direct_writes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--serv-buf")) serv_buf = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--loop")) libev = !strcmp(argv[i + 1], "libev");
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
    }
    FILE *fp = fopen(argv[1], "r");
    if (!fp) { perror(argv[1]); return 2; }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) > 0) {
        if (strncmp(line, "diff\t", 5)) continue;
        if (line[n - 1] == '\n') line[n - 1] = 0;
        diffs = realloc(diffs, sizeof(char *) * (size_t)(ndiffs + 1));
        diffs[ndiffs++] = strdup(line + 5);
    }
    fclose(fp);
    char *at = ndiffs ? strstr(diffs[0], "\"game\":\"") : NULL;
    char *end = at ? strchr(at + 8, '"') : NULL;
    if (!at || !end || end - (at + 8) >= (long)sizeof recorded_id) { fprintf(stderr, "%s: no recorded diffs\n", argv[1]); return 2; }
    memcpy(recorded_id, at + 8, (size_t)(end - (at + 8)));
    coalesce = malloc(LWS_PRE + COALESCE_BYTES);

    static struct lws_protocols protocols[2];
    protocols[0].name = "boardcast.v1";
    protocols[0].callback = callback;
    protocols[0].per_session_data_size = sizeof(Conn);
    protocols[0].rx_buffer_size = (size_t)rx;
    static struct lws_protocol_vhost_options is_default = { NULL, NULL, "default", "1" };
    static struct lws_protocol_vhost_options pvo = { NULL, &is_default, "boardcast.v1", "" };
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = 0;
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.pvo = &pvo;
    info.fd_limit_per_thread = 20480;
    info.pt_serv_buf_size = (unsigned int)serv_buf;   /* 0: lws's default, 4096 */
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6 | (libev ? LWS_SERVER_OPTION_LIBEV : 0);
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context *context = lws_create_context(&info);
    if (!context) return 1;
    printf("listening on http://127.0.0.1:%d\n", lws_get_vhost_listen_port(lws_get_vhost_by_name(context, "default")));
    fflush(stdout);
    /* With libev, lws 4.1.6 runs ev_run() inside the first lws_service() and never returns. */
    for (;;) lws_service(context, 0);
}
