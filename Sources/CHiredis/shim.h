#ifndef BOARDCAST_HIREDIS_SHIM_H
#define BOARDCAST_HIREDIS_SHIM_H
#include <ev.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libev.h>

/* The libev adapter's functions are static and take EV_P_: wrapped so Swift can call them. */
static inline int boardcast_redis_attach(void *loop, redisAsyncContext *ac) {
    return redisLibevAttach((struct ev_loop *)loop, ac);
}

/* A reply's elements, which Swift cannot index through the double pointer. */
static inline redisReply *boardcast_redis_element(redisReply *reply, size_t i) { return reply->element[i]; }
#endif
