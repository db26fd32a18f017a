/* ncapi.h: small macros shared by the API entry-point files of libdispatch.
 * Not for format layers. */
#ifndef NCAPI_H
#define NCAPI_H

#include <stdlib.h>
#include "ncdispatch.h"

/* Bind `nc` to ncid's record, held until the function returns (NC_hold),
 * or return its error. */
#define WITH_NC(ncid) \
    NC_HELD nc = NULL; do { int st_ = NC_hold((ncid), &nc); if (st_) return st_; } while (0)

/* The handle lock of a record (ncdispatch.h, Threading) taken by this
 * thread, released at the end of the enclosing block.  nc is NULL when
 * nothing was taken: a format without the lock, or a nested call of the
 * thread that holds it already. */
typedef struct NC_handle_guard {
    NC *nc;   /* whose lock is held */
    NC *prev; /* the lock this thread held before (another file), or NULL */
    int excl; /* held exclusive */
} NC_handle_guard;
void NC_handle_lock(NC *nc, int exclusive, NC_handle_guard *g);
void NC_handle_unlock(NC_handle_guard *g);
/* The lock of a data call: exclusive for a write, or while the file may be
 * in define mode (NC->maybe_indef), else shared. */
void NC_handle_lock_data(NC *nc, int isput, NC_handle_guard *g);
/* After a call that succeeded under g: the file is in data mode now (an
 * enddef, or a data call, which leaves define mode or fails). */
void NC_handle_data_mode(NC_handle_guard *g);
#define NC_GUARD NC_handle_guard __attribute__((cleanup(NC_handle_unlock)))

/* Take nc's handle lock (shared unless exclusive) until the end of the
 * enclosing block; declared after `nc`, so it is released before it. */
#define NC_LOCK_HANDLE(nc, exclusive)                                  \
    NC_GUARD guard_ = {NULL, NULL, 0};                                   \
    do { if ((nc)->locking) NC_handle_lock((nc), (exclusive), &guard_); } while (0)

/* WITH_NC, then the handle lock: shared for inquiries and reads, exclusive
 * for calls that change the file. */
#define WITH_NC_SHARED(ncid) WITH_NC(ncid); NC_LOCK_HANDLE(nc, 0)
#define WITH_NC_EXCL(ncid) WITH_NC(ncid); NC_LOCK_HANDLE(nc, 1)

/* Return the value of expr evaluated with `nm` bound to the NFC form of name.
 * A name that is not valid UTF-8 is looked up as given: legacy files hold
 * such names (Latin-1 bytes), and the rules for names apply only to names
 * being created (RETURN_WITH_NEW_NAME). */
#define RETURN_WITH_NAME(name, nm, expr) do {                     \
        char *norm_ = NULL;                                       \
        int st_;                                                  \
        if (NC_normalize_name((name), &norm_) != NC_NOERR)        \
            norm_ = NULL;                                         \
        {   const char *nm = norm_ ? norm_ : (name);              \
            st_ = (expr); }                                       \
        free(norm_);                                              \
        return st_;                                               \
    } while (0)

/* Whether the format of record nc checks new names itself: the enhanced
 * model (libsrc4) does, in upstream's order among its other checks (a NULL
 * name is NC_EINVAL there, a bad one NC_EBADNAME after the read-only and
 * define-mode checks); the classic layer relies on libdispatch. */
#define NC_LAYER_CHECKS_NAMES(nc) \
    ((nc)->model == NC_FORMATX_NC_HDF5 || (nc)->model == NC_FORMATX_NCZARR)

/* As RETURN_WITH_NAME, after checking the name is valid for a new object
 * (unless the format does it: NC_LAYER_CHECKS_NAMES).  Needs `nc` (WITH_NC). */
#define RETURN_WITH_NEW_NAME(name, nm, expr) do {                 \
        if (!NC_LAYER_CHECKS_NAMES(nc)) {                         \
            int chk_ = NC_check_name(name);                       \
            if (chk_) return chk_;                                \
        }                                                         \
        RETURN_WITH_NAME(name, nm, expr);                         \
    } while (0)

#endif /* NCAPI_H */
