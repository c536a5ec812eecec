/* remote.h - a session served over a Unix-domain socket, so that the
 * workbench can drive a run in another process: rank 0 of a distributed
 * job serves its session (gnnscope --ranks N starts the job and attaches;
 * gnnscope attach PATH attaches to one started with --serve PATH).
 *
 * The socket is created with mode 0600 (the user alone may connect) and
 * removed when the server stops; a path that exists and is not a socket is
 * refused. One client at a time; a second is told the run is taken.
 * Requests and replies are framed (remote_wire.h): both ends are the same
 * build, checked at connection by a hash of the records' layouts, so
 * structures travel as they are, and every frame is checked before use
 * (remote_check.h). Neither end waits on the other for ever: the server
 * closes a connection that stalls (remote_server.c says how long each
 * wait may last), the client gives up on a run that stops answering. A
 * client asks for the profiler's events after the last ones it has, so a
 * frame moves only what is new. A lost connection shows in the client's
 * snapshot as a failed, finished run with the reason; a run that breaks
 * the protocol shows nothing but the reason (remote_broken). */
#ifndef GS_REMOTE_H
#define GS_REMOTE_H

#include "base/error.h"
#include "session.h"

typedef struct remote_server remote_server_t;
typedef struct remote_client remote_client_t;

/* Whether a run could serve at path (before it opens its session). */
int remote_serve_check(const char *path, gs_err_t *err);
/* Serves s at path from a thread of its own. */
int remote_serve(remote_server_t **out, session_t *s, const char *path, gs_err_t *err);
/* Whether a client sent quit. */
int remote_quit_requested(const remote_server_t *srv);
/* Stops serving, removes the socket. */
void remote_stop(remote_server_t *srv);

/* Connects to path, retrying while it does not exist yet (a job starting)
 * for up to wait_s seconds, and only while alive(user), if given, says the
 * job is still running. */
int remote_connect(remote_client_t **out, const char *path, double wait_s, int (*alive)(void *user), void *user,
                   gs_err_t *err);
/* Whether the server has had a client, and whether one is connected now. */
void remote_clients(const remote_server_t *srv, int *served, int *connected);
session_if_t remote_if(remote_client_t *c);
/* Whether the run broke the protocol (a malformed or cut-short reply). */
int remote_broken(const remote_client_t *c);
void remote_close(remote_client_t *c);

#endif
