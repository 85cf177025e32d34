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
#endif
