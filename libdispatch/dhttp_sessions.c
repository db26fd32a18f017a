/* dhttp_sessions.c: the idle sessions of one dataset (contract: nchttp.h,
 * "idle sessions").
 *
 * A set holds up to cap sessions that no request uses, all for one URL,
 * behind one mutex.  A request takes one (the most recently given back,
 * whose connection is the likeliest to be open still) or, when none is
 * idle, a new one made by nch_session_open and the client's set-up hook;
 * it gives it back when done.  The mutex is held only to pop or push a
 * pointer: sessions are opened, used and closed outside it.
 */
#include "config.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "nchttp.h"

struct nch_sessions {
    pthread_mutex_t lock;    /* guards nidle and idle[] */
    char *url;               /* the dataset URL new sessions are opened for */
    nch_session_setup setup; /* client's set-up of a new session, or NULL */
    void *arg;               /* its argument */
    size_t cap;              /* idle sessions kept at most */
    size_t nidle;            /* idle sessions held: idle[0 .. nidle) */
    unsigned long made;      /* new sessions nch_sessions_take handed out */
    nch_session *idle[];     /* cap entries */
};

int
nch_sessions_open(const char *url, size_t cap, nch_session_setup setup, void *arg,
                  nch_sessions **setp)
{
    nch_sessions *set;
    if (setp == NULL || url == NULL || cap > ((size_t)1 << 20))
        return NC_EINVAL;
    *setp = NULL;
    if ((set = calloc(1, sizeof *set + cap * sizeof set->idle[0])) == NULL)
        return NC_ENOMEM;
    if ((set->url = strdup(url)) == NULL) {
        free(set);
        return NC_ENOMEM;
    }
    if (pthread_mutex_init(&set->lock, NULL) != 0) {
        free(set->url);
        free(set);
        return NC_ENOMEM;
    }
    set->setup = setup;
    set->arg = arg;
    set->cap = cap;
    *setp = set;
    return NC_NOERR;
}

void
nch_sessions_close(nch_sessions *set)
{
    if (set == NULL)
        return;
    for (size_t i = 0; i < set->nidle; i++)
        nch_session_close(set->idle[i]);
    pthread_mutex_destroy(&set->lock);
    free(set->url);
    free(set);
}

int
nch_sessions_take(nch_sessions *set, nch_session **sp)
{
    nch_session *s = NULL;
    int stat;
    if (set == NULL || sp == NULL)
        return NC_EINVAL;
    pthread_mutex_lock(&set->lock);
    if (set->nidle > 0)
        s = set->idle[--set->nidle];
    pthread_mutex_unlock(&set->lock);
    if (s == NULL) {
        if ((stat = nch_session_open(set->url, &s)))
            return stat;
        if (set->setup != NULL && (stat = set->setup(s, set->arg))) {
            nch_session_close(s);
            return stat;
        }
        pthread_mutex_lock(&set->lock);
        set->made++;
        pthread_mutex_unlock(&set->lock);
    }
    *sp = s;
    return NC_NOERR;
}

void
nch_sessions_give(nch_sessions *set, nch_session *s)
{
    if (s == NULL)
        return;
    if (set != NULL) {
        pthread_mutex_lock(&set->lock);
        if (set->nidle < set->cap) {
            set->idle[set->nidle++] = s;
            s = NULL;
        }
        pthread_mutex_unlock(&set->lock);
    }
    nch_session_close(s);
}

void
nch_sessions_count(nch_sessions *set, unsigned long *made, size_t *idle)
{
    unsigned long m = 0;
    size_t n = 0;
    if (set != NULL) {
        pthread_mutex_lock(&set->lock);
        m = set->made;
        n = set->nidle;
        pthread_mutex_unlock(&set->lock);
    }
    if (made)
        *made = m;
    if (idle)
        *idle = n;
}
