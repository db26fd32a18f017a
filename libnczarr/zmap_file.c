/* zmap_file.c: the directory-tree store of zmap.h.
 *
 * Layout: the store is a directory; the object at key "/a/b/c" is the regular
 * file ROOT/a/b/c.  Directories are implicit: created on write, removed when
 * a delete empties them; a directory is never an object (exists() answers
 * NC_EEMPTY).  Writes go to a temporary file in the target's directory that
 * is renamed over the target, so a reader never sees half an object; a
 * chunk written in part (write_runs) is updated in its file in place, or
 * made beside it (its blocks allocated at once) and renamed when new.  Reads
 * use pread straight into the caller's buffer.  errno is translated here:
 * ENOENT/ENOTDIR/EISDIR -> NC_EEMPTY (no object), EACCES/EPERM -> NC_EPERM
 * on writes and NC_EACCESS on reads, ENAMETOOLONG -> NC_EINVAL, ENOMEM ->
 * NC_ENOMEM, others -> NC_EIO.
 *
 * Keys resolve inside the store: every path below the root is opened
 * relative to a descriptor of the root without following any symbolic link
 * (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else one component
 * at a time with O_NOFOLLOW), so no key reaches a file outside the store,
 * even through a symlinked directory, and writes create their temporary and
 * rename it through a descriptor of the directory so resolved.  A symbolic
 * link (even one pointing inside the store) or a special file (FIFO, device,
 * socket) where an object or its directory should be is an error:
 * NC_EACCESS on reads, NC_EPERM on writes; listings leave them out.  Object
 * files are opened with O_NONBLOCK, so a FIFO never blocks. */
#define _XOPEN_SOURCE 700
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH */
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "zmap_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <limits.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include <netcdf.h>

/* Temporary files are named TMP_PREFIX<pid>.<n>; listings skip them. */
#define TMP_PREFIX ".ncz-tmp."

typedef struct FileMap {
    NCZ_map head;   /* first: the zmap.h head */
    char *root;     /* store directory, no trailing '/' */
    size_t rootlen; /* strlen(root) */
    int rootfd;     /* the root directory; every key resolves below it */
} FileMap;

#ifndef O_PATH
#define O_PATH (O_RDONLY | O_NONBLOCK)
#endif

static const NCZ_map_ops file_ops;

static int
errno_to_nc(int e, int writing)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
        return NC_EEMPTY;
    case EACCES:
    case EPERM:
    case EROFS:
        return writing ? NC_EPERM : NC_EACCESS;
    case ENAMETOOLONG:
        return NC_EINVAL;
    case ENOMEM:
        return NC_ENOMEM;
    default:
        return NC_EIO;
    }
}

/* The store-relative path of a key ("/a/b" -> "a/b"; "" or "/" -> "."). */
static const char *
rel_of(const char *key)
{
    while (*key == '/')
        key++;
    return *key ? key : ".";
}

/* openat(rootfd, rel, flags) that never leaves the store and follows no
 * symbolic link on the way (ELOOP when one is met; a trailing one is
 * opened itself with O_PATH | O_NOFOLLOW).  -1 with errno on failure. */
static int
open_beneath(const FileMap *fm, const char *rel, int flags, mode_t mode)
{
    flags |= O_CLOEXEC | O_NOFOLLOW;
#ifdef SYS_openat2
    static atomic_int no_openat2;
    if (!atomic_load(&no_openat2)) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (unsigned long long)flags;
        how.mode = (flags & O_CREAT) ? mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        long fd = syscall(SYS_openat2, fm->rootfd, rel, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        if (errno != ENOSYS && errno != EPERM)
            return errno == EXDEV ? (errno = ELOOP, -1) : -1;
        if (errno == ENOSYS)
            atomic_store(&no_openat2, 1);
    }
#endif
    /* One component at a time, each a directory opened without following. */
    int dfd = fm->rootfd;
    const char *p = rel;
    for (;;) {
        const char *slash = strchr(p, '/');
        if (slash == NULL)
            break;
        size_t n = (size_t)(slash - p);
        char comp[256];
        if (n == 0 || n >= sizeof comp) {
            if (dfd != fm->rootfd)
                close(dfd);
            errno = n ? ENAMETOOLONG : ENOENT;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        int nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        struct stat sb;
        if (nfd < 0 && e == ENOTDIR && fstatat(dfd, comp, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
            e = ELOOP; /* a symbolic link on the way, as openat2 says it */
        if (dfd != fm->rootfd)
            close(dfd);
        if (nfd < 0) {
            errno = e;
            return -1;
        }
        dfd = nfd;
        p = slash + 1;
    }
    int fd = openat(dfd, p, flags, mode);
    int e = errno;
    if (dfd != fm->rootfd)
        close(dfd);
    errno = e;
    return fd;
}

/* What a file that is not a regular one is where an object should be: a
 * directory is no object (NC_EEMPTY); a symbolic link or a special file is
 * refused. */
static int
not_regular(const struct stat *sb, int writing)
{
    if (S_ISDIR(sb->st_mode))
        return NC_EEMPTY;
    return writing ? NC_EPERM : NC_EACCESS;
}

/* errno of a failed open_beneath: a symbolic link on the way is refused. */
static int
open_errno(int e, int writing)
{
    if (e == ELOOP || e == ENXIO || e == EXDEV)
        return writing ? NC_EPERM : NC_EACCESS;
    return errno_to_nc(e, writing);
}

/* Object at key: its stat (NC_EEMPTY when none; a link or a special file
 * is refused). */
static int
stat_object(FileMap *fm, const char *key, struct stat *sb)
{
    int stat;
    if ((stat = ncz_key_check(key)))
        return stat;
    int fd = open_beneath(fm, rel_of(key), O_PATH, 0);
    if (fd < 0)
        return open_errno(errno, 0);
    if (fstat(fd, sb) != 0)
        stat = errno_to_nc(errno, 0);
    else if (!S_ISREG(sb->st_mode))
        stat = not_regular(sb, 0);
    close(fd);
    return stat;
}

static int
file_exists(NCZ_map *map, const char *key)
{
    struct stat sb;
    return stat_object((FileMap *)map, key, &sb);
}

static int
file_len(NCZ_map *map, const char *key, uint64_t *lenp)
{
    struct stat sb;
    int stat = stat_object((FileMap *)map, key, &sb);
    if (!stat)
        *lenp = (uint64_t)sb.st_size;
    return stat;
}

/* Read exactly count bytes at off; a short file is NC_EIO (it changed
 * under us or the filesystem lied). */
static int
pread_all(int fd, void *buf, size_t count, off_t off)
{
    char *p = buf;
    while (count > 0) {
        ssize_t got = pread(fd, p, count, off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno_to_nc(errno, 0) == NC_EEMPTY ? NC_EIO : errno_to_nc(errno, 0);
        }
        if (got == 0)
            return NC_EIO;
        p += got;
        off += got;
        count -= (size_t)got;
    }
    return NC_NOERR;
}

/* Open the object at key for reading; *sb its stat.  O_NONBLOCK: a FIFO
 * opens at once (and is refused below) instead of waiting for a writer. */
static int
open_object(FileMap *fm, const char *key, int *fdp, struct stat *sb)
{
    int stat;
    if ((stat = ncz_key_check(key)))
        return stat;
    int fd = open_beneath(fm, rel_of(key), O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0)
        return open_errno(errno, 0);
    if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
        stat = fstat(fd, sb) != 0 ? NC_EIO : not_regular(sb, 0);
        close(fd);
        return stat;
    }
    *fdp = fd;
    return NC_NOERR;
}

static int
file_read(NCZ_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    int fd, stat;
    struct stat sb;
    if ((stat = open_object((FileMap *)map, key, &fd, &sb)))
        return stat;
    uint64_t size = (uint64_t)sb.st_size;
    if (start > size || count > size - start)
        stat = NC_EINVAL;
    else if (count > SIZE_MAX)
        stat = NC_ENOMEM;
    else
        stat = pread_all(fd, buf, (size_t)count, (off_t)start);
    close(fd);
    return stat;
}

static int
file_read_all(NCZ_map *map, const char *key, void **datap, size_t *lenp)
{
    int fd, stat;
    struct stat sb;
    void *data = NULL;
    if ((stat = open_object((FileMap *)map, key, &fd, &sb)))
        return stat;
    if ((uint64_t)sb.st_size > SIZE_MAX - 1) {
        stat = NC_ENOMEM;
        goto done;
    }
    size_t size = (size_t)sb.st_size;
    if (!(data = malloc(size ? size : 1))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if ((stat = pread_all(fd, data, size, 0)))
        goto done;
    *datap = data;
    *lenp = size;
    data = NULL;
done:
    free(data);
    close(fd);
    return stat;
}

/* A descriptor (O_PATH) of the directory rel (store-relative, "." the
 * root), made with its parents when missing; no symbolic link is followed
 * and none is made.  -1 with *statp set on failure. */
static int
open_parent_dir(FileMap *fm, const char *rel, int *statp)
{
    int fd = open_beneath(fm, rel, O_PATH | O_DIRECTORY, 0);
    if (fd >= 0)
        return fd;
    if (errno == ENOTDIR) {
        /* A file where a directory should be; a trailing symbolic link opened
         * with O_NOFOLLOW also says ENOTDIR: that one is refused. */
        struct stat sb;
        int lfd = open_beneath(fm, rel, O_PATH, 0);
        *statp = lfd >= 0 && fstat(lfd, &sb) == 0 && S_ISLNK(sb.st_mode) ? NC_EPERM : NC_EINVAL;
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    if (errno != ENOENT) {
        *statp = open_errno(errno, 1);
        return -1;
    }
    /* Some directory is missing: make each, one component at a time. */
    int dfd = dup(fm->rootfd);
    for (const char *p = rel; dfd >= 0 && *p;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char comp[256];
        if (n == 0 || n >= sizeof comp) {
            close(dfd);
            *statp = NC_EINVAL;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        if (mkdirat(dfd, comp, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            close(dfd);
            *statp = e == ENOENT || e == ENOTDIR ? NC_EINVAL : errno_to_nc(e, 1);
            return -1;
        }
        int nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(dfd);
        if (nfd < 0) {
            *statp = e == ENOTDIR ? NC_EINVAL : open_errno(e, 1);
            return -1;
        }
        dfd = nfd;
        p = slash ? slash + 1 : p + n;
    }
    if (dfd < 0)
        *statp = errno_to_nc(errno, 1);
    return dfd;
}

/* Split the store-relative path of key at its last '/': dir (malloc'ed,
 * "." for the root) and the name (in key).  NULL: no memory. */
static char *
split_key(const char *key, const char **namep)
{
    const char *rel = rel_of(key), *slash = strrchr(rel, '/');
    *namep = slash ? slash + 1 : rel;
    return slash ? strndup(rel, (size_t)(slash - rel)) : strdup(".");
}

/* count bytes at offset off (off < 0: at the file position). */
static int
write_all(int fd, const void *buf, size_t count, int64_t off)
{
    const char *p = buf;
    while (count > 0) {
        ssize_t put = off < 0 ? write(fd, p, count) : pwrite(fd, p, count, (off_t)off);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return errno == ENOSPC || errno == EDQUOT ? NC_EIO : errno_to_nc(errno, 1);
        }
        p += put;
        count -= (size_t)put;
        if (off >= 0)
            off += put;
    }
    return NC_NOERR;
}

/* An object being written: a temporary beside its target, so that the
 * final rename is atomic and readers never see a partial object.  Both
 * are named relative to a descriptor of their directory, resolved once
 * inside the store. */
typedef struct fwrite_h {
    int fd;
    int dirfd;
    char *name; /* the target, in dirfd */
    char tmp[sizeof TMP_PREFIX + 48];
} fwrite_h;

static int
file_wend(NCZ_map *map, void *hv, int commit)
{
    fwrite_h *h = hv;
    int stat = NC_NOERR;
    (void)map;
    if (h == NULL)
        return NC_EINVAL;
    if (close(h->fd) != 0 && commit)
        stat = NC_EIO;
    if (commit && stat == NC_NOERR && renameat(h->dirfd, h->tmp, h->dirfd, h->name) != 0)
        stat = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST ? NC_EINVAL : errno_to_nc(errno, 1);
    if (!commit || stat != NC_NOERR)
        unlinkat(h->dirfd, h->tmp, 0);
    close(h->dirfd);
    free(h->name);
    free(h);
    return stat;
}

static int
file_wbegin(NCZ_map *map, const char *key, void **hp)
{
    static atomic_uint tmpcounter;
    FileMap *fm = (FileMap *)map;
    fwrite_h *h;
    const char *name;
    int stat = NC_NOERR;

    *hp = NULL;
    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = ncz_key_check(key)))
        return stat;
    if ((h = calloc(1, sizeof(*h))) == NULL)
        return NC_ENOMEM;
    h->fd = h->dirfd = -1;
    char *dir = split_key(key, &name);
    if (!dir || !(h->name = strdup(name))) {
        free(dir);
        stat = NC_ENOMEM;
        goto fail;
    }
    h->dirfd = open_parent_dir(fm, dir, &stat);
    free(dir);
    if (h->dirfd < 0)
        goto fail;
    for (int attempt = 0; h->fd < 0; attempt++) {
        snprintf(h->tmp, sizeof h->tmp, TMP_PREFIX "%ld.%u", (long)getpid(), atomic_fetch_add(&tmpcounter, 1u));
        h->fd = openat(h->dirfd, h->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (h->fd < 0 && (errno != EEXIST || attempt > 100)) {
            stat = errno_to_nc(errno, 1);
            if (stat == NC_EEMPTY)
                stat = NC_EINVAL; /* a parent is a file */
            goto fail;
        }
    }
    *hp = h;
    return NC_NOERR;
fail:
    if (h->dirfd >= 0)
        close(h->dirfd);
    free(h->name);
    free(h);
    return stat;
}

static int
file_wpart(NCZ_map *map, void *hv, uint64_t off, const void *buf, size_t n)
{
    fwrite_h *h = hv;
    (void)map;
    if (h == NULL || (n > 0 && buf == NULL) || off > (uint64_t)INT64_MAX - n)
        return NC_EINVAL;
    return write_all(h->fd, buf, n, (int64_t)off);
}

static int
file_write(NCZ_map *map, const char *key, uint64_t count, const void *content)
{
    void *h;
    int stat;
    if (count > SIZE_MAX || (count > 0 && !content))
        return NC_EINVAL;
    if ((stat = file_wbegin(map, key, &h)))
        return stat;
    stat = write_all(((fwrite_h *)h)->fd, content, (size_t)count, -1);
    int end = file_wend(map, h, stat == NC_NOERR);
    return stat ? stat : end;
}

/* iovecs per pwritev call */
#if defined(IOV_MAX) && IOV_MAX < 1024
#define NCZ_IOV IOV_MAX
#else
#define NCZ_IOV 1024
#endif

/* All of iov[0..cnt) at off (cnt > 0), resumed after short writes. */
static int
pwritev_all(int fd, struct iovec *iov, int cnt, off_t off)
{
    while (cnt > 0) {
        ssize_t put = pwritev(fd, iov, cnt, off);
        if (put < 0) {
            if (errno == EINTR)
                continue;
            return errno == ENOSPC || errno == EDQUOT ? NC_EIO : errno_to_nc(errno, 1);
        }
        off += put;
        for (; cnt > 0 && (size_t)put >= iov->iov_len; iov++, cnt--)
            put -= (ssize_t)iov->iov_len;
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + put;
            iov->iov_len -= (size_t)put;
        }
    }
    return NC_NOERR;
}

/* A gap of at most GAP_MAX bytes between two runs of at most RUN_SHORT
 * bytes is written too, with the bytes it holds: a row of a chunk's edge,
 * say, then shares its pages with its neighbours in one write instead of
 * one write each, which costs the kernel far more than finding the few
 * bytes between them.  Those are zeros in a new file or where the file
 * has a hole (SEEK_DATA: holes read as zeros), else read from it. */
#define GAP_MAX 4096
#define RUN_SHORT 65536
#define MAX_SEGS 8  /* stretches of data looked up in a range */
#define MAX_PREADS 16 /* gaps read one by one; more: the range at once */

/* All of the range iov[0..cnt) covers at off, read (cnt > 0). */
static int
preadv_all(int fd, struct iovec *iov, int cnt, off_t off)
{
    while (cnt > 0) {
        ssize_t got = preadv(fd, iov, cnt, off);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno_to_nc(errno, 0) == NC_EEMPTY ? NC_EIO : errno_to_nc(errno, 0);
        }
        if (got == 0)
            return NC_EIO; /* the file shrank under us */
        off += got;
        for (; cnt > 0 && (size_t)got >= iov->iov_len; iov++, cnt--)
            got -= (ssize_t)iov->iov_len;
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + got;
            iov->iov_len -= (size_t)got;
        }
    }
    return NC_NOERR;
}

/* The stretches of data (not holes) of the file in [off, end): their
 * number, or -1 when there are more than max or the file system cannot
 * tell (then every byte counts as data). */
static int
data_segments(int fd, uint64_t off, uint64_t end, uint64_t (*seg)[2], int max)
{
    int n = 0;
    for (uint64_t pos = off; pos < end;) {
        off_t d = lseek(fd, (off_t)pos, SEEK_DATA), h;
        if (d < 0)
            return errno == ENXIO ? n : -1; /* ENXIO: no data past pos */
        if ((uint64_t)d >= end)
            break;
        if (n == max || (h = lseek(fd, d, SEEK_HOLE)) < 0 || h <= d)
            return -1;
        seg[n][0] = (uint64_t)d;
        seg[n][1] = (uint64_t)h;
        n++;
        pos = (uint64_t)h;
    }
    return n;
}

/* The bytes of the gaps of runs[i..j) (range off..end) into gapbuf, in
 * order: zeros where the file has a hole, else read (one by one when few,
 * else the whole range with the runs' own bytes thrown away). */
static int
read_gaps(int fd, const NCZ_run *runs, size_t i, size_t j, uint64_t off, uint64_t end, unsigned char *gapbuf,
          unsigned char *discard, struct iovec *iov)
{
    uint64_t seg[MAX_SEGS][2];
    int nseg = data_segments(fd, off, end, seg, MAX_SEGS), nread = 0, k = 0, stat;
    size_t g = 0;
    for (size_t r = i + 1; r < j && nseg != 0; r++) {
        uint64_t lo = runs[r - 1].off + runs[r - 1].len, hi = runs[r].off;
        for (int q = 0; q < nseg && lo < hi; q++)
            if (nseg < 0 || (seg[q][0] < hi && seg[q][1] > lo)) {
                nread++;
                break;
            }
    }
    if (nread == 0 || nread > MAX_PREADS || nseg < 0) {
        if (nread == 0) {
            /* All in holes: zeros. */
            for (size_t r = i + 1; r < j; r++)
                g += (size_t)(runs[r].off - runs[r - 1].off - runs[r - 1].len);
            memset(gapbuf, 0, g);
            return NC_NOERR;
        }
        for (size_t r = i; r < j; r++) {
            if (r > i && runs[r].off > runs[r - 1].off + runs[r - 1].len) {
                size_t gap = (size_t)(runs[r].off - runs[r - 1].off - runs[r - 1].len);
                iov[k++] = (struct iovec){gapbuf + g, gap};
                g += gap;
            }
            iov[k++] = (struct iovec){discard, runs[r].len};
        }
        return preadv_all(fd, iov, k, (off_t)off);
    }
    for (size_t r = i + 1; r < j; r++) {
        uint64_t lo = runs[r - 1].off + runs[r - 1].len, hi = runs[r].off;
        int data = 0;
        for (int q = 0; q < nseg && !data && lo < hi; q++)
            data = seg[q][0] < hi && seg[q][1] > lo;
        if (data && (stat = pread_all(fd, gapbuf + g, (size_t)(hi - lo), (off_t)lo)))
            return stat;
        if (!data)
            memset(gapbuf + g, 0, (size_t)(hi - lo));
        g += (size_t)(hi - lo);
    }
    return NC_NOERR;
}

/* The runs at their offsets (fresh: the file is all zeros): runs that
 * follow each other, or are only a small gap apart, go out in one
 * pwritev. */
static int
pwrite_runs(int fd, size_t n, const NCZ_run *runs, int fresh)
{
    static const unsigned char zeros[GAP_MAX];
    struct iovec iov[NCZ_IOV];
    unsigned char *gapbuf = NULL, *discard = NULL;
    size_t gapcap = 0;
    int stat = NC_NOERR;
    for (size_t i = 0; i < n && stat == NC_NOERR;) {
        uint64_t off = runs[i].off, end = off + runs[i].len;
        size_t j = i + 1, gaps = 0, g = 0;
        int cnt = 1, k = 0;
        /* The range: runs while they touch or a small gap lies between
         * short ones, and the iovecs last. */
        while (j < n && cnt < NCZ_IOV) {
            uint64_t gap = runs[j].off - end;
            if (gap > 0 && (gap > GAP_MAX || cnt + 1 >= NCZ_IOV || runs[j - 1].len > RUN_SHORT ||
                            runs[j].len > RUN_SHORT))
                break;
            cnt += gap > 0 ? 2 : 1;
            gaps += (size_t)gap;
            end = runs[j].off + runs[j].len;
            j++;
        }
        if (gaps > 0 && !fresh) {
            if (gaps > gapcap) {
                unsigned char *b = realloc(gapbuf, gaps);
                if (b == NULL) {
                    stat = NC_ENOMEM;
                    break;
                }
                gapbuf = b;
                gapcap = gaps;
            }
            if (discard == NULL && (discard = malloc(RUN_SHORT)) == NULL) {
                stat = NC_ENOMEM;
                break;
            }
            if ((stat = read_gaps(fd, runs, i, j, off, end, gapbuf, discard, iov)))
                break;
        }
        for (size_t r = i; r < j; r++) {
            if (r > i && runs[r].off > runs[r - 1].off + runs[r - 1].len) {
                size_t gap = (size_t)(runs[r].off - runs[r - 1].off - runs[r - 1].len);
                iov[k++] = (struct iovec){fresh ? (void *)zeros : gapbuf + g, gap};
                g += gap;
            }
            iov[k++] = (struct iovec){(void *)runs[r].buf, runs[r].len};
        }
        stat = pwritev_all(fd, iov, k, (off_t)off);
        i = j;
    }
    free(gapbuf);
    free(discard);
    return stat;
}

/* A new file of size zero bytes: its blocks allocated at once where the
 * file system can (the runs then fill them without a reservation per
 * block, as the whole write of the chunk would have filled them), else a
 * hole.  -1 with errno on failure. */
static int
presize(int fd, uint64_t size)
{
#ifdef __linux__
    if (size > 0 && fallocate(fd, 0, 0, (off_t)size) == 0)
        return 0;
#endif
    return ftruncate(fd, (off_t)size);
}

/* In place: the object's own file when it is a regular file of size
 * bytes with no other name (a hard link elsewhere keeps its bytes, as a
 * whole write would leave them); else a temporary of size zero bytes with
 * the runs in it, renamed into place. */
static int
file_write_runs(NCZ_map *map, const char *key, uint64_t size, size_t n, const NCZ_run *runs)
{
    FileMap *fm = (FileMap *)map;
    struct stat sb;
    void *h;
    int fd, stat;
    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = ncz_key_check(key)))
        return stat;
    if (size > (uint64_t)INT64_MAX || (n > 0 && runs == NULL))
        return NC_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (runs[i].len > size || runs[i].off > size - runs[i].len || (runs[i].len > 0 && runs[i].buf == NULL))
            return NC_EINVAL;
    fd = open_beneath(fm, rel_of(key), O_RDWR | O_NONBLOCK, 0);
    if (fd >= 0) {
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size != size || sb.st_nlink != 1)
            stat = NC_EEXIST;
        else
            stat = pwrite_runs(fd, n, runs, 0);
        if (close(fd) != 0 && stat == NC_NOERR)
            stat = NC_EIO;
        return stat;
    }
    /* A link, a special file, no permission...: the whole write decides. */
    if (errno != ENOENT || file_wbegin(map, key, &h) != NC_NOERR)
        return NC_EEXIST;
    if (presize(((fwrite_h *)h)->fd, size) != 0)
        stat = errno == EFBIG || errno == ENOSPC || errno == EDQUOT ? NC_EIO : errno_to_nc(errno, 1);
    else
        stat = pwrite_runs(((fwrite_h *)h)->fd, n, runs, 1);
    int end = file_wend(map, h, stat == NC_NOERR);
    return stat ? stat : end;
}

static int
file_del(NCZ_map *map, const char *key)
{
    FileMap *fm = (FileMap *)map;
    struct stat sb;
    const char *name;
    int stat;

    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = stat_object(fm, key, &sb)))
        return stat == NC_EACCESS ? NC_EPERM : stat;
    char *dir = split_key(key, &name);
    if (!dir)
        return NC_ENOMEM;
    int dfd = open_beneath(fm, dir, O_PATH | O_DIRECTORY, 0);
    if (dfd < 0) {
        stat = open_errno(errno, 1);
    } else {
        if (unlinkat(dfd, name, 0) != 0)
            stat = errno_to_nc(errno, 1);
        close(dfd);
    }
    /* Drop directories the delete left empty, up to the root: each removed
     * through a descriptor of its parent, resolved inside the store. */
    for (char *s; stat == NC_NOERR && strcmp(dir, ".") != 0;) {
        const char *last = dir;
        s = strrchr(dir, '/');
        if (s) {
            *s = '\0';
            last = s + 1;
        }
        int pfd = open_beneath(fm, s ? dir : ".", O_PATH | O_DIRECTORY, 0);
        int gone = pfd >= 0 && unlinkat(pfd, last, AT_REMOVEDIR) == 0;
        if (pfd >= 0)
            close(pfd);
        if (!gone || !s)
            break;
    }
    free(dir);
    return stat;
}

static int
is_tmp_name(const char *name)
{
    return strncmp(name, TMP_PREFIX, sizeof TMP_PREFIX - 1) == 0;
}

/* Depth-first walk of the directory dfd (whose key is key, "" for the
 * root; dfd is consumed): every regular file below it as a full key.
 * Symbolic links and special files are left out, never followed. */
static int
walk(int dfd, const char *key, NCZ_keys *out, int depth)
{
    int stat = NC_NOERR;
    if (depth > 256) {
        close(dfd);
        return NC_EINVAL; /* an absurd tree */
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return errno_to_nc(errno, 0);
    }
    struct dirent *de;
    while (!stat && (de = readdir(d))) {
        const char *n = de->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || is_tmp_name(n))
            continue;
        size_t kl = strlen(key), nl = strlen(n);
        struct stat sb;
        if (fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            ; /* gone meanwhile */
        else if (S_ISREG(sb.st_mode))
            stat = ncz_keys_add_full(out, key, n, nl);
        else if (S_ISDIR(sb.st_mode)) {
            int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            char *subkey = malloc(kl + nl + 2);
            if (sub < 0) {
                ; /* replaced meanwhile */
            } else if (subkey) {
                sprintf(subkey, "%s/%s", key, n);
                stat = walk(sub, subkey, out, depth + 1);
            } else {
                close(sub);
                stat = NC_ENOMEM;
            }
            free(subkey);
        }
    }
    closedir(d);
    return stat;
}

/* The lister of zmap_impl.h: the directory of prefix, read (children) or
 * walked (full keys). */
static int
file_lister(NCZ_map *map, const char *prefix, int full, NCZ_keys *out)
{
    const char *k = strcmp(prefix, "/") == 0 ? "" : prefix;
    int dfd = open_beneath((FileMap *)map, rel_of(k), O_RDONLY | O_DIRECTORY, 0);
    int stat = NC_NOERR;
    if (dfd < 0) {
        stat = errno == ELOOP ? NC_EACCESS : errno_to_nc(errno, 0);
        return stat == NC_EEMPTY ? NC_NOERR : stat; /* nothing under prefix */
    }
    if (full)
        return walk(dfd, k, out, 0);
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return errno_to_nc(errno, 0);
    }
    struct dirent *de;
    while (!stat && (de = readdir(d)))
        if (!is_tmp_name(de->d_name))
            stat = ncz_keys_add_child(out, de->d_name, strlen(de->d_name));
    closedir(d);
    return stat;
}

static int
file_list(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 0, out, file_lister);
}

static int
file_list_all(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 1, out, file_lister);
}

static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) != 0 && errno != ENOENT ? -1 : 0;
}

/* rm -rf path (does not follow symlinks). */
static int
remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? NC_NOERR : errno_to_nc(errno, 1);
    if (!S_ISDIR(sb.st_mode))
        return unlink(path) == 0 ? NC_NOERR : errno_to_nc(errno, 1);
    return nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS) == 0 ? NC_NOERR : NC_EIO;
}

static int
file_close(NCZ_map *map, int deleteit)
{
    FileMap *fm = (FileMap *)map;
    int stat = NC_NOERR;
    if (!fm)
        return NC_NOERR;
    if (fm->rootfd >= 0)
        close(fm->rootfd);
    if (deleteit)
        stat = remove_tree(fm->root);
    free(fm->root);
    free(fm->head.url);
    free(fm);
    return stat;
}

static const NCZ_map_ops file_ops = {
    .version = NCZ_MAP_VERSION,
    .close = file_close,
    .exists = file_exists,
    .len = file_len,
    .read = file_read,
    .read_all = file_read_all,
    .write = file_write,
    .wbegin = file_wbegin,
    .wpart = file_wpart,
    .wend = file_wend,
    .write_runs = file_write_runs,
    .del = file_del,
    .list = file_list,
    .list_all = file_list_all,
    .read_many = ncz_read_many_serial,
    .write_many = ncz_write_many_serial,
    .nrequests = ncz_nrequests_none,
};

/* Would deleting the directory at path destroy something that is not a
 * store?  A clobbering create removes only empty directories and ones
 * holding Zarr metadata at their top. */
static int
looks_like_store(const char *path)
{
    static const char *const marks[] = {".zgroup", ".zarray", "zarr.json", ".zmetadata",
                                        ".nczarr", ".zattrs"};
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int empty = 1, marked = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        empty = 0;
        for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
            marked |= strcmp(de->d_name, marks[i]) == 0;
    }
    closedir(d);
    return empty || marked;
}

/* mkdir -p path */
static int
make_dirs(char *path)
{
    for (char *s = path + 1;; s++) {
        s = strchr(s, '/');
        if (s)
            *s = '\0';
        int rc = mkdir(path, 0777), e = errno;
        if (s)
            *s = '/';
        if (rc != 0 && e != EEXIST)
            return e == ENOTDIR ? NC_EINVAL : errno_to_nc(e, 1);
        if (!s)
            return NC_NOERR;
    }
}

int
ncz_map_file_open(const char *path, const char *url, int mode, NCZ_map **mapp)
{
    int st = NC_NOERR;
    FileMap *fm = NULL;
    struct stat sb;

    if (!path || !*path)
        return NC_EINVAL;
    if (!(fm = calloc(1, sizeof *fm)))
        return NC_ENOMEM;
    fm->head.ops = &file_ops;
    fm->head.impl = NCZ_MAP_FILE;
    fm->head.mode = mode;
    fm->rootfd = -1;
    if (!(fm->root = strdup(path)) || !(fm->head.url = strdup(url))) {
        st = NC_ENOMEM;
        goto done;
    }
    fm->rootlen = strlen(fm->root);

    int exists = stat(path, &sb) == 0;
    if (mode & NCZ_MAP_CREATE) {
        if (exists) {
            if (!(mode & NCZ_MAP_CLOBBER)) {
                st = NC_EEXIST;
                goto done;
            }
            if (S_ISDIR(sb.st_mode) && !looks_like_store(path)) {
                st = NC_EEXIST; /* never rm -rf a directory that is not a store */
                goto done;
            }
            if ((st = remove_tree(path)))
                goto done;
        }
        if ((st = make_dirs(fm->root)))
            goto done;
    } else {
        if (!exists) {
            st = errno == EACCES ? NC_EACCESS : NC_ENOOBJECT;
            goto done;
        }
        if (!S_ISDIR(sb.st_mode)) {
            st = NC_ENOTNC;
            goto done;
        }
        if ((mode & NCZ_MAP_WRITE) && access(path, W_OK) != 0) {
            st = NC_EPERM;
            goto done;
        }
    }
    if ((fm->rootfd = open(fm->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        st = errno_to_nc(errno, 0) == NC_EEMPTY ? NC_ENOTNC : errno_to_nc(errno, 0);
        goto done;
    }
    *mapp = &fm->head;
    fm = NULL;
done:
    if (fm) {
        if (fm->rootfd >= 0)
            close(fm->rootfd);
        free(fm->root);
        free(fm->head.url);
        free(fm);
    }
    return st;
}
