#ifndef BOARDCAST_LWS_SHIM_H
#define BOARDCAST_LWS_SHIM_H
#include <libwebsockets.h>

/* Swift cannot import the LWS_PRE macro. */
static inline size_t boardcast_lws_pre(void) { return LWS_PRE; }
#endif
