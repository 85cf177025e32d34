#ifndef BOARDCAST_LWS_SHIM_H
#define BOARDCAST_LWS_SHIM_H
#include <libwebsockets.h>
#include <ev.h>
#include <stdlib.h>

/* Swift cannot import the LWS_PRE macro. */
static inline size_t boardcast_lws_pre(void) { return LWS_PRE; }

/*
 * libev, as lws's foreign event loop: epoll instead of lws's default poll(), which
 * scans every socket on every wake-up. lws 4.1.6's own libev loop never returns from
 * lws_service(), so the server owns the loop and runs it one iteration at a time.
 * Wrapped here because ev.h's macros and EV_P arguments do not import into Swift.
 */
static inline void *boardcast_ev_loop_new(void) { return ev_loop_new(EVFLAG_AUTO); }
static inline void boardcast_ev_run_once(void *loop) { ev_run((struct ev_loop *)loop, EVRUN_ONCE); }
static inline void boardcast_ev_run_nowait(void *loop) { ev_run((struct ev_loop *)loop, EVRUN_NOWAIT); }
static inline void boardcast_ev_loop_destroy(void *loop) { ev_loop_destroy((struct ev_loop *)loop); }

/*
 * The hub's `wake` (a delayed spectators' output coming due): one timer on the service loop,
 * so it fires on the service thread without another thread waking it (a wake a millisecond
 * apart, for a thousand delayed games, would otherwise cost two context switches each).
 */
struct boardcast_wake_timer { ev_timer timer; int fired; };

static void boardcast_wake_fired(struct ev_loop *loop, ev_timer *w, int revents) {
    (void)loop; (void)revents;
    ((struct boardcast_wake_timer *)w)->fired = 1;
}

static inline void *boardcast_wake_timer_new(void) {
    struct boardcast_wake_timer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    ev_timer_init(&w->timer, boardcast_wake_fired, 0., 0.);
    return w;
}

/* Fires once, `seconds` from now (replacing any time set before). */
static inline void boardcast_wake_timer_set(void *loop, void *w, double seconds) {
    struct ev_loop *l = loop;
    struct boardcast_wake_timer *t = w;
    ev_timer_stop(l, &t->timer);
    ev_now_update(l);   /* the loop's cached time may be a whole wait old */
    ev_timer_set(&t->timer, seconds, 0.);
    ev_timer_start(l, &t->timer);
}

/* Whether it fired since the last call. */
static inline int boardcast_wake_timer_take(void *w) {
    struct boardcast_wake_timer *t = w;
    int fired = t->fired;
    t->fired = 0;
    return fired;
}

static inline void boardcast_wake_timer_free(void *loop, void *w) {
    ev_timer_stop((struct ev_loop *)loop, &((struct boardcast_wake_timer *)w)->timer);
    free(w);
}

/*
 * The server accepts connections itself (a bounded number per loop iteration) and
 * hands them to lws: libev only marks the listening socket ready here.
 */
struct boardcast_listen_watch { ev_io io; int ready; };

static void boardcast_listen_ready(struct ev_loop *loop, ev_io *w, int revents) {
    (void)loop; (void)revents;
    ((struct boardcast_listen_watch *)w)->ready = 1;
}

static inline void *boardcast_listen_watch_start(void *loop, int fd) {
    struct boardcast_listen_watch *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    ev_io_init(&w->io, boardcast_listen_ready, fd, EV_READ);
    ev_io_start((struct ev_loop *)loop, &w->io);
    return w;
}

/* Whether the socket became readable since the last call. */
static inline int boardcast_listen_watch_take(void *w) {
    struct boardcast_listen_watch *watch = w;
    int ready = watch->ready;
    watch->ready = 0;
    return ready;
}

static inline void boardcast_listen_watch_stop(void *loop, void *w) {
    ev_io_stop((struct ev_loop *)loop, &((struct boardcast_listen_watch *)w)->io);
    free(w);
}

/*
 * lws 4.1.6 answers a client's pings itself and tells the protocol nothing (nor of an empty
 * pong): the server counts the reads of a WebSocket that delivered no frame instead. A second
 * libev watcher on the connection's socket, beside lws's own (libev allows several per fd),
 * calls `fire(context, owner)` each time the socket is readable; `owner` is the watcher's
 * `data`, `fire` and `context` are the loop's, set once (so a watcher is a bare ev_io: it
 * exists for every connection). Stopped while the connection is paused (level-triggered, it
 * would fire every iteration) and before lws closes the socket.
 */
typedef void (*boardcast_read_fire)(void *context, void *owner);
struct boardcast_read_target { boardcast_read_fire fire; void *context; };

static inline void boardcast_read_target_set(void *loop, boardcast_read_fire fire, void *context) {
    struct boardcast_read_target *target = calloc(1, sizeof *target);
    if (!target) return;
    target->fire = fire; target->context = context;
    ev_set_userdata((struct ev_loop *)loop, target);
}

static inline void boardcast_read_target_free(void *loop) {
    free(ev_userdata((struct ev_loop *)loop));
    ev_set_userdata((struct ev_loop *)loop, NULL);
}

static void boardcast_read_ready(struct ev_loop *loop, ev_io *w, int revents) {
    (void)revents;
    struct boardcast_read_target *target = ev_userdata(loop);
    if (target) target->fire(target->context, w->data);
}

static inline void *boardcast_read_watch_start(void *loop, int fd, void *owner) {
    ev_io *w = malloc(sizeof *w);
    if (!w) return NULL;
    ev_io_init(w, boardcast_read_ready, fd, EV_READ);
    w->data = owner;
    ev_io_start((struct ev_loop *)loop, w);
    return w;
}

static inline void boardcast_read_watch_pause(void *loop, void *w) { ev_io_stop((struct ev_loop *)loop, (ev_io *)w); }

static inline void boardcast_read_watch_resume(void *loop, void *w) { ev_io_start((struct ev_loop *)loop, (ev_io *)w); }

static inline void boardcast_read_watch_stop(void *loop, void *w) {
    ev_io_stop((struct ev_loop *)loop, (ev_io *)w);
    free(w);
}

/*
 * A new connection whose request head has not arrived yet waits here, before lws sees it
 * (`LWSContext` checks the head first: lws 4.1.6 drops some bad ones without a status line).
 * One-shot: a watch fires once, joins its list's ready chain, and is taken from it.
 */
struct boardcast_head_watch;
struct boardcast_head_list { struct boardcast_head_watch *ready; };
struct boardcast_head_watch { ev_io io; struct boardcast_head_list *list; struct boardcast_head_watch *next; int fd; };

static void boardcast_head_ready(struct ev_loop *loop, ev_io *w, int revents) {
    (void)revents;
    struct boardcast_head_watch *watch = (struct boardcast_head_watch *)w;
    ev_io_stop(loop, w);
    watch->next = watch->list->ready;
    watch->list->ready = watch;
}

static inline void *boardcast_head_list_new(void) { return calloc(1, sizeof(struct boardcast_head_list)); }
static inline void boardcast_head_list_free(void *list) { free(list); }

static inline void *boardcast_head_watch_start(void *loop, void *list, int fd) {
    struct boardcast_head_watch *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->list = list; w->fd = fd;
    ev_io_init(&w->io, boardcast_head_ready, fd, EV_READ);
    ev_io_start((struct ev_loop *)loop, &w->io);
    return w;
}

/* The next watch that fired since the last call (its socket is readable), or NULL. */
static inline void *boardcast_head_take(void *list) {
    struct boardcast_head_list *l = list;
    struct boardcast_head_watch *w = l->ready;
    if (w) { l->ready = w->next; w->next = NULL; }
    return w;
}

static inline int boardcast_head_watch_fd(void *w) { return ((struct boardcast_head_watch *)w)->fd; }

/* Stops (if still waiting) and frees a watch that is not on the ready chain. */
static inline void boardcast_head_watch_free(void *loop, void *w) {
    ev_io_stop((struct ev_loop *)loop, &((struct boardcast_head_watch *)w)->io);
    free(w);
}
#endif
