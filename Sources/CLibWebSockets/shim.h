#ifndef BOARDCAST_LWS_SHIM_H
#define BOARDCAST_LWS_SHIM_H
#include <libwebsockets.h>
#include <ev.h>

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
static inline void boardcast_ev_loop_destroy(void *loop) { ev_loop_destroy((struct ev_loop *)loop); }
#endif
