/* hdf5lock.c: the one lock around every HDF5 call sequence of the library.
 *
 * Debian's HDF5 is a thread-safe build (its own global lock), but a netCDF
 * call is a sequence of HDF5 calls that must not interleave with another
 * thread's (error-stack state, ids opened and closed in between), so the
 * whole sequence runs under this recursive lock. */
#include "config.h"
#include <pthread.h>
#include "hdf5int.h"

static pthread_mutex_t h5_mutex;
static pthread_once_t h5_once = PTHREAD_ONCE_INIT;
static _Thread_local int errors_silenced;
static _Thread_local int depth;      /* this thread's holds of the recursive lock */

static void
init_mutex(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&h5_mutex, &a);
    pthread_mutexattr_destroy(&a);
}

void
nc4h5_lock(void)
{
    pthread_once(&h5_once, init_mutex);
    pthread_mutex_lock(&h5_mutex);
    depth++;
    /* HDF5's automatic error printing is per thread in thread-safe builds;
     * errors reach the caller as NC_* codes instead. */
    if (!errors_silenced) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        errors_silenced = 1;
    }
}

void
nc4h5_unlock(void)
{
    depth--;
    pthread_mutex_unlock(&h5_mutex);
}

int
nc4h5_lock_held(void)
{
    return depth > 0;
}
