/* ncstate.h: the library's global state, kept in one module (dglobal.c).
 *
 * Everything mutable that outlives one call lives here: the registry of open
 * files, the default create format, user-defined formats, chunk-cache and
 * alignment defaults, the log level.  One mutex guards it; callers never
 * hold it across a call into a format layer.
 */
#ifndef NCSTATE_H
#define NCSTATE_H

#include "ncdispatch.h"

/* Run nc_initialize() once, lazily; returns its status. */
int NC_ensure_initialized(void);

void NC_lock(void);
void NC_unlock(void);

/* Registry.  NC_registry_add assigns ext_ncid (lowest free slot, from 1) and
 * takes ownership of nc; NC_EMFILE-like exhaustion is NC_ENFILE. */
int NC_registry_add(NC *nc);
/* After the format opened or created the file: other threads may use it. */
void NC_registry_publish(NC *nc);
/* Takes the record out of the registry and frees it (waiting for calls
 * that slipped in, which are refused). */
void NC_registry_remove(NC *nc);

/* Closing (nc_close, nc_abort): marks ncid's slot closing, so that every
 * call that starts on it from now on is NC_EBADID (a second closer too),
 * and waits for the calls in flight (NC_hold) to end.  The calling thread
 * may still call the API on the file (the format's close does).
 * NC_close_end(nc, 1) removes and frees the record; NC_close_end(nc, 0)
 * keeps the file open (a format that refused to close). */
int NC_close_begin(int ncid, NC **ncpp);
void NC_close_end(NC *nc, int remove);
/* Number of files open (for nc_finalize and tests). */
int NC_registry_count(void);

/* A new NC record for path (copied) with the given table and mode. */
int NC_new(const char *path, int mode, int model, const NC_Dispatch *table, NC **ncpp);
void NC_free(NC *nc);

/* User-defined format slots 0..NC_MAX_UDF_FORMATS-1: table and magic number
 * ("" when none). */
typedef struct NC_UDF {
    NC_Dispatch *table;                         /* NULL: slot unused */
    char magic[NC_MAX_MAGIC_NUMBER_LEN + 1];    /* NUL-terminated; may be empty */
} NC_UDF;
/* Slot index of a mode flag containing exactly one NC_UDFn bit, else -1. */
int NC_udf_slot(int mode);
/* NC_FORMATX_UDFn of slot i. */
int NC_udf_formatx(int slot);
/* Copy of slot i (taken under the lock). */
NC_UDF NC_udf_get(int slot);

/* Chunk-cache defaults used by netCDF-4 layers. */
void NC_get_chunk_cache_defaults(size_t *size, size_t *nelems, float *preemption);
/* The nc_set_alignment settings; returns 0 (and the zeros) when it was never
 * called, so that HDF5 keeps its own default. */
int NC_get_alignment_defaults(int *threshold, int *alignment);
/* The level nc_set_log_level set (-1: logging off). */
int NC_get_log_level(void);

#endif /* NCSTATE_H */
