/* crash_shim.c: an LD_PRELOAD library that kills its process with SIGKILL
 * at a chosen write, to stop a writer at every point of its I/O.
 *
 * Calls that change files (write, pwrite, writev, pwritev, fwrite, rename,
 * ftruncate, unlink...) and sends on sockets (send, sendto, sendmsg: the
 * requests to an S3 server) are counted in program order.  With CRASH_AT=N the
 * N-th such call is not made (or, with CRASH_TEAR=1 and a write of more
 * than one page, only a page-aligned prefix of it is made, as a kill in the
 * middle of a long write leaves it) and the process kills itself.  With
 * CRASH_COUNT=path the number of calls made is written to path at exit, so
 * a driver knows how many points a run has.
 *
 * While the environment variable CRASH_DISK_FULL is set (a test sets it
 * itself, part way), a write that would make a regular file longer fails
 * with ENOSPC, as on a full disk: writes inside a file and ftruncate (which
 * makes holes, no blocks) still work. */
/* both the plain and the 64-bit entry points are defined here */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static long crash_at = -1;
static int tear;
static long ncalls;
static const char *count_path;

__attribute__((constructor)) static void
shim_init(void)
{
    const char *s = getenv("CRASH_AT");
    if (s != NULL && *s)
        crash_at = atol(s);
    s = getenv("CRASH_TEAR");
    tear = s != NULL && *s == '1';
    count_path = getenv("CRASH_COUNT");
}

__attribute__((destructor)) static void
shim_fini(void)
{
    char b[32];
    int fd, n;
    if (count_path == NULL)
        return;
    fd = (int)syscall(SYS_openat, AT_FDCWD, count_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    n = snprintf(b, sizeof b, "%ld\n", ncalls);
    (void)syscall(SYS_write, fd, b, (size_t)n);
    (void)syscall(SYS_close, fd);
}

static void
die(void)
{
    (void)syscall(SYS_kill, (long)getpid(), (long)SIGKILL);
    for (;;)
        pause();
}

/* Count one call; returns how many bytes of an n-byte write to make before
 * dying (0: die at once), or -1 to make the call normally. */
static long
point(size_t n)
{
    ncalls++;
    if (crash_at < 0 || ncalls != crash_at)
        return -1;
    if (tear && n > 4096) {
        /* a prefix of whole pages, at least one, never the whole write */
        size_t pages = (n - 1) / 4096;
        return (long)(4096 * (1 + (size_t)rand() % pages));
    }
    die();
    return 0;
}

/* A full disk refuses a write of n bytes at off (off < 0: the file
 * position) that would make fd's file longer. */
static int
disk_full(int fd, long long off, size_t n)
{
    struct stat sb;
    if (n == 0 || getenv("CRASH_DISK_FULL") == NULL)
        return 0;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    if (off < 0)
        off = (long long)lseek(fd, 0, SEEK_CUR);
    if (off < 0 || off + (long long)n <= (long long)sb.st_size)
        return 0;
    errno = ENOSPC;
    return 1;
}

#define NEXT(name) static __typeof__(name) *real_##name; \
    if (real_##name == NULL) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t
write(int fd, const void *b, size_t n)
{
    long k;
    NEXT(write);
    if (disk_full(fd, -1, n))
        return -1;
    if ((k = point(n)) >= 0) {
        (void)real_write(fd, b, (size_t)k);
        die();
    }
    return real_write(fd, b, n);
}

ssize_t
pwrite(int fd, const void *b, size_t n, off_t off)
{
    long k;
    NEXT(pwrite);
    if (disk_full(fd, off, n))
        return -1;
    if ((k = point(n)) >= 0) {
        (void)real_pwrite(fd, b, (size_t)k, off);
        die();
    }
    return real_pwrite(fd, b, n, off);
}

ssize_t
pwrite64(int fd, const void *b, size_t n, off_t off)
{
    long k;
    NEXT(pwrite64);
    if (disk_full(fd, off, n))
        return -1;
    if ((k = point(n)) >= 0) {
        (void)real_pwrite64(fd, b, (size_t)k, off);
        die();
    }
    return real_pwrite64(fd, b, n, off);
}

static size_t
iov_bytes(const struct iovec *iov, int cnt)
{
    size_t n = 0;
    int i;
    for (i = 0; i < cnt; i++)
        n += iov[i].iov_len;
    return n;
}

/* A torn vector write: its first k bytes. */
static void
iov_prefix(int fd, const struct iovec *iov, int cnt, size_t k, off_t off, int positioned)
{
    int i;
    for (i = 0; i < cnt && k > 0; i++) {
        size_t m = iov[i].iov_len < k ? iov[i].iov_len : k;
        if (positioned)
            (void)syscall(SYS_pwrite64, fd, iov[i].iov_base, m, off);
        else
            (void)syscall(SYS_write, fd, iov[i].iov_base, m);
        off += (off_t)m;
        k -= m;
    }
}

ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
    long k;
    NEXT(writev);
    if (disk_full(fd, -1, iov_bytes(iov, cnt)))
        return -1;
    if ((k = point(iov_bytes(iov, cnt))) >= 0) {
        iov_prefix(fd, iov, cnt, (size_t)k, 0, 0);
        die();
    }
    return real_writev(fd, iov, cnt);
}

ssize_t
pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    long k;
    NEXT(pwritev);
    if (disk_full(fd, off, iov_bytes(iov, cnt)))
        return -1;
    if ((k = point(iov_bytes(iov, cnt))) >= 0) {
        iov_prefix(fd, iov, cnt, (size_t)k, off, 1);
        die();
    }
    return real_pwritev(fd, iov, cnt, off);
}

ssize_t
pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    long k;
    NEXT(pwritev64);
    if (disk_full(fd, off, iov_bytes(iov, cnt)))
        return -1;
    if ((k = point(iov_bytes(iov, cnt))) >= 0) {
        iov_prefix(fd, iov, cnt, (size_t)k, off, 1);
        die();
    }
    return real_pwritev64(fd, iov, cnt, off);
}

size_t
fwrite(const void *b, size_t sz, size_t cnt, FILE *f)
{
    NEXT(fwrite);
    if (point(0) >= 0)
        die();
    return real_fwrite(b, sz, cnt, f);
}

int
fflush(FILE *f)
{
    NEXT(fflush);
    if (f != NULL && point(0) >= 0)
        die();
    return real_fflush(f);
}

int
rename(const char *a, const char *b)
{
    NEXT(rename);
    if (point(0) >= 0)
        die();
    return real_rename(a, b);
}

int
renameat(int da, const char *a, int db, const char *b)
{
    NEXT(renameat);
    if (point(0) >= 0)
        die();
    return real_renameat(da, a, db, b);
}

int
renameat2(int da, const char *a, int db, const char *b, unsigned int flags)
{
    NEXT(renameat2);
    if (point(0) >= 0)
        die();
    return real_renameat2(da, a, db, b, flags);
}

int
ftruncate(int fd, off_t len)
{
    NEXT(ftruncate);
    if (point(0) >= 0)
        die();
    return real_ftruncate(fd, len);
}

int
ftruncate64(int fd, off_t len)
{
    NEXT(ftruncate64);
    if (point(0) >= 0)
        die();
    return real_ftruncate64(fd, len);
}

int
unlink(const char *p)
{
    NEXT(unlink);
    if (point(0) >= 0)
        die();
    return real_unlink(p);
}

/* fsync and fdatasync matter for power cuts, not for a killed process
 * (the page cache survives it): skipped unless CRASH_FSYNC=1, so that many
 * runs stay fast. */
static int
keep_fsync(void)
{
    const char *s = getenv("CRASH_FSYNC");
    return s != NULL && *s == '1';
}

/* fsync and fdatasync calls so far (tst_sync_durable asks by dlsym) */
long crash_shim_fsyncs;

int
fsync(int fd)
{
    NEXT(fsync);
    crash_shim_fsyncs++;
    return keep_fsync() ? real_fsync(fd) : 0;
}

int
fdatasync(int fd)
{
    NEXT(fdatasync);
    crash_shim_fsyncs++;
    return keep_fsync() ? real_fdatasync(fd) : 0;
}

int
unlinkat(int d, const char *p, int flags)
{
    NEXT(unlinkat);
    if (point(0) >= 0)
        die();
    return real_unlinkat(d, p, flags);
}

/* Sends: a request to a server is cut where the process dies (the part
 * sent before reaches the server, then the connection closes). */
ssize_t
send(int fd, const void *b, size_t n, int flags)
{
    long k;
    NEXT(send);
    if ((k = point(n)) >= 0) {
        (void)real_send(fd, b, (size_t)k, flags);
        die();
    }
    return real_send(fd, b, n, flags);
}

ssize_t
sendto(int fd, const void *b, size_t n, int flags, const struct sockaddr *to, socklen_t tolen)
{
    long k;
    NEXT(sendto);
    if ((k = point(n)) >= 0) {
        (void)real_sendto(fd, b, (size_t)k, flags, to, tolen);
        die();
    }
    return real_sendto(fd, b, n, flags, to, tolen);
}

ssize_t
sendmsg(int fd, const struct msghdr *m, int flags)
{
    NEXT(sendmsg);
    if (point(0) >= 0)
        die();
    return real_sendmsg(fd, m, flags);
}
