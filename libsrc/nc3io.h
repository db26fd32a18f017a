/* nc3io.h: storage under the classic layer ("ncio").
 *
 * A file is a flat array of bytes addressed by offset.  Backends:
 *   nc3io_posix.c  a file descriptor, pread/pwrite, with a bounded read
 *                  buffer and write-behind buffer (neither under NC_SHARE);
 *   nc3io_remote.c a remote file (HTTP byte ranges), read-only;
 *   nc3io_mem.c    a memory image: NC_DISKLESS (optionally NC_PERSIST to the
 *                  path at close), NC_INMEMORY (nc_open_mem, nc_open_memio,
 *                  nc_create_mem; the final image handed back by close).
 *
 * Method duties:
 *   read_at   reads n bytes at off; bytes at or beyond the end of the file
 *             read as zero (a short file is not an error).
 *   write_at  writes n bytes at off, growing the file (with zeros in any gap).
 *   get_size  current size in bytes.
 *   set_size  grows (zero bytes) or shrinks the file to size.
 *   sync      pushes buffered state to the backing store (no fsync) and
 *             forgets cached reads, so others' writes become visible.
 *   close     releases everything and frees io; if delete_it, the file is
 *             removed (posix) or discarded; memio_out (may be NULL) receives
 *             an in-memory image, whose ownership passes to the caller unless
 *             the caller's buffer was locked (NC_MEMIO_LOCKED).
 * All return NC_NOERR or an NC_* / errno code.  Not thread-safe per file,
 * except peek_shared and read_at where peek_shared is set.
 */
#ifndef NC3IO_H
#define NC3IO_H

#include <stddef.h>
#include "netcdf.h"
#include "netcdf_mem.h"

typedef struct ncio ncio;
struct ncio {
    int (*read_at)(ncio *io, long long off, void *buf, size_t n);
    int (*write_at)(ncio *io, long long off, const void *buf, size_t n);
    int (*get_size)(ncio *io, long long *sizep);
    int (*set_size)(ncio *io, long long size);
    int (*sync)(ncio *io);
    int (*close)(ncio *io, int delete_it, NC_memio *memio_out);
    /* Optional (NULL if absent).  peek makes [off, off+n) readable in the
     * backend's own buffer (n <= peekmax) and points *pp at it; the pointer
     * is valid until the next call on io.  reserve points *pp at space for
     * the n bytes (n <= peekmax) that the caller will next write at off, or
     * sets *pp = NULL if it cannot; the caller fills the space and then
     * calls write_at(io, off, *pp, n), which commits it without a copy. */
    int (*peek)(ncio *io, long long off, size_t n, const unsigned char **pp);
    /* Optional (NULL if absent): as peek, but several threads may call it
     * at once, each getting its own buffer (the pointer is valid until the
     * same thread's next call).  Only on a handle nothing writes to: set on
     * read-only files without NC_SHARE, where read_at is thread-safe too. */
    int (*peek_shared)(ncio *io, long long off, size_t n, const unsigned char **pp);
    int (*reserve)(ncio *io, long long off, size_t n, unsigned char **pp);
    /* Optional.  NC_EINMEMORY if the file can never grow to size bytes (a
     * locked caller's buffer that is too small), so nc_enddef can fail
     * before it moves data; changes nothing. */
    int (*can_grow)(ncio *io, long long size);
    /* Optional (NULL for memory images).  Writes out what is buffered and
     * waits until everything written so far is on the disk (fdatasync):
     * the ordering point of crash-safe updates and nc_sync's durability. */
    int (*fsync)(ncio *io);
    size_t peekmax;
    size_t chunk;           /* preferred block size (>= 4096 for posix) */
    int writable;           /* opened or created for writing */
};

/* POSIX files.  create honours NC_NOCLOBBER (NC_EEXIST if present). */
int nc3io_posix_create(const char *path, int cmode, ncio **iop);
int nc3io_posix_open(const char *path, int mode, ncio **iop);

/* Memory images.  create: NC_DISKLESS or NC_INMEMORY, initialsz bytes reserved.
 * open: NC_INMEMORY with parameters an NC_memio*, else NC_DISKLESS reads path. */
int nc3io_mem_create(const char *path, int cmode, size_t initialsz, ncio **iop);
int nc3io_mem_open(const char *path, int mode, void *parameters, ncio **iop);

/* A remote file read by HTTP byte ranges (nc3io_remote.c), read-only:
 * NC_EPERM for NC_WRITE, NC_ENOTBUILT when the file is not classic. */
int nc3io_remote_open(const char *url, int mode, ncio **iop);

#endif /* NC3IO_H */
