/* dglobal.c: global library state and the library-wide API calls.
 *
 * Sections: lock and lazy start-up; the registry of open files; the
 * default format; user-defined format slots; library-wide settings
 * (chunk cache, alignment, metadata block size, logging); version.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include "config.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ncinfer.h"
#include "ncplugins.h"
#include "ncrc.h"
#include "ncstate.h"
#include "ncapi.h"
#include "netcdf_meta.h"

static pthread_mutex_t nc_global_lock = PTHREAD_MUTEX_INITIALIZER;

/* Everything below is guarded by nc_global_lock. */
/* Slot 0 unused.  Writers hold the registry lock; NC_check_id, on the path
 * of every call, reads a slot without it: the pointer is atomic and a record
 * is published (release) only once it is complete. */
static NC *_Atomic open_files[NC_MAX_OPEN_FILES + 1];
/* Per slot: the number of calls in flight on its file (low bits) and
 * SLOT_CLOSING while nc_close/nc_abort runs.  Static like the slots, so a
 * call may count itself in before it knows whether the file is still open;
 * lock-free, so calls on one handle do not wait for each other here. */
#define SLOT_CLOSING 0x80000000u
static _Atomic unsigned slot_calls[NC_MAX_OPEN_FILES + 1];
/* The slot this thread is closing (0: none): the format's close may call
 * the API on its own file, and those calls must not be refused. */
static _Thread_local int closing_slot;
static int n_open_files;
static int default_format = NC_FORMAT_CLASSIC;
static NC_UDF udf_slots[NC_MAX_UDF_FORMATS];
static size_t cache_size = 16777216;     /* upstream's CHUNK_CACHE_SIZE */
static size_t cache_nelems = 4133;       /* upstream's CHUNK_CACHE_NELEMS */
static float cache_preemption = 0.75f;   /* upstream's CHUNK_CACHE_PREEMPTION */
static int align_threshold;
static int align_alignment;
static int align_defined;                /* nc_set_alignment was called */
static size_t meta_block_size;
static int log_level = -1;
static int initialized;

void NC_lock(void) { pthread_mutex_lock(&nc_global_lock); }
void NC_unlock(void) { pthread_mutex_unlock(&nc_global_lock); }

/* ---- start-up and shutdown ------------------------------------------------ */

int
nc_initialize(void)
{
    int stat = NC_NOERR;
    NC_lock();
    if (!initialized) {
        stat = NC_formats_initialize();  /* each built layer, in registry order */
        if (stat == NC_NOERR)
            initialized = 1;
    }
    NC_unlock();
    return stat;
}

int
NC_ensure_initialized(void)
{
    int done;
    NC_lock();
    done = initialized;
    NC_unlock();
    return done ? NC_NOERR : nc_initialize();
}

int
nc_finalize(void)
{
    int stat = NC_NOERR;
    NC_lock();
    if (initialized) {
        stat = NC_formats_finalize();  /* each built layer, in registry order */
        initialized = 0;
    }
    NC_unlock();
    /* Layers that serve no format release their state next, whether or not
     * a format was started: the filter layer goes after the format layers
     * (no file is left to flush through its pool; HDF5 keeps only the
     * built-in codecs it was given, never a pointer into a plugin libfilter
     * dlopen'ed) and before the plugin path it read.  Their status does
     * not change the call's. */
    (void)NC_services_finalize();
    NC_plugin_path_finalize();
    NC_rc_finalize();
    return stat;
}

/* ---- registry ---------------------------------------------------------------- */

int
NC_new(const char *path, int mode, int model, const NC_Dispatch *table, NC **ncpp)
{
    NC *nc = calloc(1, sizeof(NC));
    if (nc == NULL)
        return NC_ENOMEM;
    nc->path = strdup(path != NULL ? path : "");
    if (nc->path == NULL) {
        free(nc);
        return NC_ENOMEM;
    }
    nc->mode = mode;
    nc->model = model;
    nc->dispatch = table;
    /* The enhanced-model formats that write share one in-memory tree per
     * handle with no lock of its own: the entry points lock the handle.
     * Classic handles lock in libsrc; the read-only formats build their
     * tree at open. */
    if (model == NC_FORMATX_NC_HDF5 || model == NC_FORMATX_NCZARR) {
        pthread_rwlockattr_t a;
        int err;
        pthread_rwlockattr_init(&a);
#ifdef __GLIBC__
        /* A waiting writer goes before new readers: threads reading in a
         * loop would otherwise keep a writer out for ever (glibc prefers
         * readers by default).  No thread takes the lock twice. */
        pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
        err = pthread_rwlock_init(&nc->lock, &a);
        pthread_rwlockattr_destroy(&a);
        if (err != 0) {
            free(nc->path);
            free(nc);
            return NC_ENOMEM;
        }
        nc->locking = 1;
        nc->maybe_indef = 1; /* a created file starts in define mode */
    }
    *ncpp = nc;
    return NC_NOERR;
}

void
NC_free(NC *nc)
{
    if (nc == NULL)
        return;
    if (nc->locking)
        pthread_rwlock_destroy(&nc->lock);
    free(nc->path);
    free(nc);
}

/* ---- the handle lock ---------------------------------------------------------- */

/* The record whose handle lock this thread holds (the innermost, when a
 * call on one file makes a call on another): a nested call on the same
 * file runs inside the outer call's lock instead of taking it again, which
 * would deadlock.  Initial-exec: one load from the thread pointer. */
static _Thread_local NC *held_handle __attribute__((tls_model("initial-exec")));

void
NC_handle_lock(NC *nc, int exclusive, NC_handle_guard *g)
{
    g->nc = NULL;
    if (!nc->locking || held_handle == nc)
        return;
    if (exclusive) {
        pthread_rwlock_wrlock(&nc->lock);
        /* A change in data mode may enter define mode (the enhanced
         * model's implicit redef): data calls go exclusive until the file
         * is known to be back in data mode. */
        __atomic_store_n(&nc->maybe_indef, 1, __ATOMIC_RELAXED);
    } else {
        pthread_rwlock_rdlock(&nc->lock);
    }
    g->nc = nc;
    g->excl = exclusive;
    g->prev = held_handle;
    held_handle = nc;
}

void
NC_handle_lock_data(NC *nc, int isput, NC_handle_guard *g)
{
    int excl = isput || __atomic_load_n(&nc->maybe_indef, __ATOMIC_RELAXED);
    NC_handle_lock(nc, excl, g);
    /* Set by an exclusive call that ran between the look and the lock. */
    if (g->nc != NULL && !excl && __atomic_load_n(&nc->maybe_indef, __ATOMIC_RELAXED)) {
        NC_handle_unlock(g);
        NC_handle_lock(nc, 1, g);
    }
}

void
NC_handle_data_mode(NC_handle_guard *g)
{
    if (g->nc != NULL && g->excl)
        __atomic_store_n(&g->nc->maybe_indef, 0, __ATOMIC_RELAXED);
}

void
NC_handle_unlock(NC_handle_guard *g)
{
    if (g->nc == NULL)
        return;
    held_handle = g->prev;
    pthread_rwlock_unlock(&g->nc->lock);
    g->nc = NULL;
}

int
NC_registry_add(NC *nc)
{
    int stat = NC_ENFILE;
    NC_lock();
    for (int slot = 1; slot <= NC_MAX_OPEN_FILES; slot++) {
        unsigned calls;
        if (atomic_load_explicit(&open_files[slot], memory_order_relaxed) != NULL)
            continue;
        /* Until NC_registry_publish, the file is being opened: calls from
         * other threads (a stale ncid) are refused, as while closing; the
         * opening thread's own calls (the format's) go through.  A slot a
         * stale nc_close is marking is skipped. */
        calls = atomic_load_explicit(&slot_calls[slot], memory_order_acquire);
        if ((calls & SLOT_CLOSING) == 0
            && atomic_compare_exchange_strong_explicit(&slot_calls[slot], &calls,
                                                       calls | SLOT_CLOSING,
                                                       memory_order_acq_rel,
                                                       memory_order_acquire)) {
            nc->ext_ncid = slot << NC_ID_SHIFT;
            closing_slot = slot;
            atomic_store_explicit(&open_files[slot], nc, memory_order_release);
            n_open_files++;
            stat = NC_NOERR;
            break;
        }
    }
    NC_unlock();
    return stat;
}

void
NC_registry_publish(NC *nc)
{
    NC_close_end(nc, 0);
}

void
NC_registry_remove(NC *nc)
{
    NC_close_end(nc, 1);
}

int
NC_registry_count(void)
{
    int n;
    NC_lock();
    n = n_open_files;
    NC_unlock();
    return n;
}

int
NC_check_id(int ncid, NC **ncpp)
{
    int slot = (int)((unsigned)ncid >> NC_ID_SHIFT);
    NC *nc = NULL;
    if (ncid < 0 || slot == 0 || slot > NC_MAX_OPEN_FILES)
        return NC_EBADID;
    nc = atomic_load_explicit(&open_files[slot], memory_order_acquire);
    if (nc == NULL)
        return NC_EBADID;
    /* A classic file has one group: its ncid has no group bits (as upstream). */
    if (nc->model == NC_FORMATX_NC3 && (ncid & NC_GRP_MASK) != 0)
        return NC_EBADID;
    if (ncpp != NULL)
        *ncpp = nc;
    return NC_NOERR;
}

/* ---- calls in flight and closing ------------------------------------------ */

int
NC_hold(int ncid, NC **ncpp)
{
    int slot = (int)((unsigned)ncid >> NC_ID_SHIFT);
    unsigned before;
    NC *nc;
    *ncpp = NULL;
    if (ncid < 0 || slot == 0 || slot > NC_MAX_OPEN_FILES)
        return NC_EBADID;
    /* Count in first, then look: a closer that sets SLOT_CLOSING after this
     * increment waits for the call; one that set it before is seen here. */
    before = atomic_fetch_add_explicit(&slot_calls[slot], 1, memory_order_acq_rel);
    if ((before & SLOT_CLOSING) && closing_slot != slot) {
        atomic_fetch_sub_explicit(&slot_calls[slot], 1, memory_order_release);
        return NC_EBADID;
    }
    nc = atomic_load_explicit(&open_files[slot], memory_order_acquire);
    if (nc == NULL || (nc->model == NC_FORMATX_NC3 && (ncid & NC_GRP_MASK) != 0)) {
        atomic_fetch_sub_explicit(&slot_calls[slot], 1, memory_order_release);
        return NC_EBADID;
    }
    *ncpp = nc;
    return NC_NOERR;
}

void
NC_release(NC *nc)
{
    if (nc != NULL)
        atomic_fetch_sub_explicit(&slot_calls[nc->ext_ncid >> NC_ID_SHIFT], 1,
                                  memory_order_release);
}

void
NC_release_cleanup(NC **ncp)
{
    NC_release(*ncp);
}

int
NC_close_begin(int ncid, NC **ncpp)
{
    int slot = (int)((unsigned)ncid >> NC_ID_SHIFT);
    unsigned before;
    NC *nc;
    *ncpp = NULL;
    if (ncid < 0 || slot == 0 || slot > NC_MAX_OPEN_FILES)
        return NC_EBADID;
    /* Only one closer: a second one, or any later call, is NC_EBADID. */
    before = atomic_fetch_or_explicit(&slot_calls[slot], SLOT_CLOSING, memory_order_acq_rel);
    if (before & SLOT_CLOSING)
        return NC_EBADID;
    nc = atomic_load_explicit(&open_files[slot], memory_order_acquire);
    if (nc == NULL || (nc->model == NC_FORMATX_NC3 && (ncid & NC_GRP_MASK) != 0)) {
        atomic_fetch_and_explicit(&slot_calls[slot], ~SLOT_CLOSING, memory_order_release);
        return NC_EBADID;
    }
    /* Wait for the calls already running on the file; new ones are refused.
     * A call that is running cannot be stopped, and it ends in bounded time
     * (its nested calls on this file are refused too). */
    for (unsigned spins = 0;
         (atomic_load_explicit(&slot_calls[slot], memory_order_acquire) & ~SLOT_CLOSING) != 0;
         spins++) {
        if (spins < 64)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    closing_slot = slot;
    *ncpp = nc;
    return NC_NOERR;
}

void
NC_close_end(NC *nc, int remove)
{
    int slot = nc->ext_ncid >> NC_ID_SHIFT;
    closing_slot = 0;
    if (slot <= 0 || slot > NC_MAX_OPEN_FILES)
        return;
    /* Calls of this thread into the file (the format's own) are over; wait
     * for any other that slipped in through the opening window. */
    while ((atomic_load_explicit(&slot_calls[slot], memory_order_acquire) & ~SLOT_CLOSING) != 0)
        sched_yield();
    /* Emptied and reopened under the registry lock, so that no file is
     * registered in the slot before its closing mark is gone. */
    NC_lock();
    if (remove && atomic_load_explicit(&open_files[slot], memory_order_relaxed) == nc) {
        atomic_store_explicit(&open_files[slot], NULL, memory_order_release);
        n_open_files--;
    }
    atomic_fetch_and_explicit(&slot_calls[slot], ~SLOT_CLOSING, memory_order_release);
    NC_unlock();
    if (remove)
        NC_free(nc);
}

/* ---- default format ---------------------------------------------------------- */

int
nc_set_default_format(int format, int *old_formatp)
{
    /* As upstream: the old format is reported even when the new one is
     * refused; a known format that this build lacks is NC_ENOTBUILT (the
     * registry's create-by-mode rows: netCDF-4 is HDF5's, so a build with
     * NCZarr only cannot create it, as upstream's USE_HDF5 test). */
    int stat = NC_format_check_default(format);
    NC_lock();
    if (old_formatp != NULL)
        *old_formatp = default_format;
    if (stat == NC_NOERR)
        default_format = format;
    NC_unlock();
    return stat;
}

int
NC_get_default_format(void)
{
    int f;
    NC_lock();
    f = default_format;
    NC_unlock();
    return f;
}

/* ---- user-defined formats ---------------------------------------------------- */

static const int udf_flags[NC_MAX_UDF_FORMATS] = {
    NC_UDF0, NC_UDF1, NC_UDF2, NC_UDF3, NC_UDF4,
    NC_UDF5, NC_UDF6, NC_UDF7, NC_UDF8, NC_UDF9
};
static const int udf_formatx[NC_MAX_UDF_FORMATS] = {
    NC_FORMATX_UDF0, NC_FORMATX_UDF1, NC_FORMATX_UDF2, NC_FORMATX_UDF3, NC_FORMATX_UDF4,
    NC_FORMATX_UDF5, NC_FORMATX_UDF6, NC_FORMATX_UDF7, NC_FORMATX_UDF8, NC_FORMATX_UDF9
};

int
NC_udf_slot(int mode)
{
    int found = -1;
    for (int i = 0; i < NC_MAX_UDF_FORMATS; i++) {
        if (mode & udf_flags[i]) {
            if (found >= 0)
                return -1;  /* more than one UDF bit: ambiguous */
            found = i;
        }
    }
    return found;
}

int
NC_udf_formatx(int slot)
{
    return (slot >= 0 && slot < NC_MAX_UDF_FORMATS) ? udf_formatx[slot] : NC_FORMATX_UNDEFINED;
}

NC_UDF
NC_udf_get(int slot)
{
    NC_UDF u;
    NC_lock();
    u = udf_slots[slot];
    NC_unlock();
    return u;
}

int
nc_def_user_format(int mode_flag, NC_Dispatch *dispatch_table, char *magic_number)
{
    int slot = NC_udf_slot(mode_flag);
    if (slot < 0 || dispatch_table == NULL)
        return NC_EINVAL;
    if (dispatch_table->dispatch_version != NC_DISPATCH_VERSION)
        return NC_EINVAL;
    if (magic_number != NULL && strlen(magic_number) > NC_MAX_MAGIC_NUMBER_LEN)
        return NC_EINVAL;
    NC_lock();
    udf_slots[slot].table = dispatch_table;
    memset(udf_slots[slot].magic, 0, sizeof udf_slots[slot].magic);
    if (magic_number != NULL)
        strcpy(udf_slots[slot].magic, magic_number);
    NC_unlock();
    return NC_NOERR;
}

int
nc_inq_user_format(int mode_flag, NC_Dispatch **dispatch_table, char *magic_number)
{
    int slot = NC_udf_slot(mode_flag);
    NC_UDF u;
    if (slot < 0)
        return NC_EINVAL;
    u = NC_udf_get(slot);
    if (dispatch_table != NULL)
        *dispatch_table = u.table;
    if (magic_number != NULL)
        strcpy(magic_number, u.magic);
    return NC_NOERR;
}

/* ---- library-wide settings --------------------------------------------------- */

int
nc_set_chunk_cache(size_t size, size_t nelems, float preemption)
{
    if (preemption < 0.0f || preemption > 1.0f)
        return NC_EINVAL;
    NC_lock();
    cache_size = size;
    cache_nelems = nelems;
    cache_preemption = preemption;
    NC_unlock();
    return NC_NOERR;
}

int
nc_get_chunk_cache(size_t *sizep, size_t *nelemsp, float *preemptionp)
{
    NC_get_chunk_cache_defaults(sizep, nelemsp, preemptionp);
    return NC_NOERR;
}

void
NC_get_chunk_cache_defaults(size_t *sizep, size_t *nelemsp, float *preemptionp)
{
    NC_lock();
    if (sizep) *sizep = cache_size;
    if (nelemsp) *nelemsp = cache_nelems;
    if (preemptionp) *preemptionp = cache_preemption;
    NC_unlock();
}

/* Fortran wrappers: sizes in MiB and preemption in percent, as upstream. */
int
nc_set_chunk_cache_ints(int size, int nelems, int preemption)
{
    if (size <= 0 || nelems <= 0 || preemption < 0 || preemption > 100)
        return NC_EINVAL;
    return nc_set_chunk_cache((size_t)size, (size_t)nelems, (float)preemption / 100.0f);
}

int
nc_get_chunk_cache_ints(int *sizep, int *nelemsp, int *preemptionp)
{
    size_t size, nelems;
    float pre;
    NC_get_chunk_cache_defaults(&size, &nelems, &pre);
    if (sizep) *sizep = (int)size;
    if (nelemsp) *nelemsp = (int)nelems;
    if (preemptionp) *preemptionp = (int)(pre * 100.0f);
    return NC_NOERR;
}

int
nc_set_alignment(int threshold, int alignment)
{
    NC_lock();
    align_threshold = threshold;
    align_alignment = alignment;
    align_defined = 1;
    NC_unlock();
    return NC_NOERR;
}

int
NC_get_alignment_defaults(int *thresholdp, int *alignmentp)
{
    int defined;
    NC_lock();
    *thresholdp = align_threshold;
    *alignmentp = align_alignment;
    defined = align_defined;
    NC_unlock();
    return defined;
}

int
nc_get_alignment(int *thresholdp, int *alignmentp)
{
    NC_lock();
    if (thresholdp) *thresholdp = align_threshold;
    if (alignmentp) *alignmentp = align_alignment;
    NC_unlock();
    return NC_NOERR;
}

int
nc_set_meta_block_size(size_t size)
{
    NC_lock();
    meta_block_size = size;
    NC_unlock();
    return NC_NOERR;
}

int
nc_get_meta_block_size(size_t *sizep)
{
    if (sizep == NULL)
        return NC_EINVAL;
    NC_lock();
    *sizep = meta_block_size;
    NC_unlock();
    return NC_NOERR;
}

/* Logging is a build option upstream; when it is off the call succeeds and
 * returns NC_NOERR without printing anything, as upstream does. */
int
nc_set_log_level(int new_level)
{
    NC_lock();
    log_level = new_level;
    NC_unlock();
    return NC_NOERR;
}

int
NC_get_log_level(void)
{
    int level;
    NC_lock();
    level = log_level;
    NC_unlock();
    return level;
}

/* ---- version ---------------------------------------------------------------------- */

const char *
nc_inq_libvers(void)
{
    /* Starts with the version number, as clients parse it (e.g. "4.10.1"). */
    return NC_VERSION " of " __DATE__ " " __TIME__ " $";
}
