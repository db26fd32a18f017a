/* fuzz_lib_common.h: what the library fuzz targets (fuzz_ops, fuzz_v2,
 * fuzz_posix_io) share: the check that traps, the input reader, the
 * pseudo-random choices, whole-file helpers and the scratch directory with
 * its file-size cap.  Header-only, one copy per target. */
#ifndef FUZZ_LIB_COMMON_H
#define FUZZ_LIB_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_LIMIT (64L << 20) /* bytes of any file written */

/* A broken expectation is a finding: trap so libFuzzer keeps the input. */
#define CHECK(c)                                                           \
    do {                                                                   \
        if (!(c)) {                                                        \
            fprintf(stderr, "CHECK failed: %s:%d: %s\n", __FILE__, __LINE__, #c); \
            __builtin_trap();                                              \
        }                                                                  \
    } while (0)

/* The fuzzer's bytes, read front to back; zeros once they run out. */
typedef struct {
    const uint8_t *p;
    size_t n, i;
} Rd;

static inline unsigned
u8(Rd *r)
{
    return r->i < r->n ? r->p[r->i++] : 0;
}

static inline unsigned
u16(Rd *r)
{
    unsigned a = u8(r);
    return a | (u8(r) << 8);
}

/* xorshift64: choices derived from the input, reproducible per seed. */
static uint64_t rng;

static inline uint64_t
rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static inline int
write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t w = n ? fwrite(p, 1, n, f) : 0;
    fclose(f);
    return w == n ? 0 : -1;
}

/* The whole file in a malloc'd buffer (caller frees), or NULL if it is
 * empty, larger than max bytes or unreadable. */
static inline void *
read_file(const char *path, size_t *n, long max)
{
    struct stat sb;
    FILE *f;
    void *p = NULL;
    if (stat(path, &sb) != 0 || sb.st_size <= 0 || sb.st_size > max)
        return NULL;
    if ((f = fopen(path, "rb")) == NULL)
        return NULL;
    p = malloc((size_t)sb.st_size);
    if (p && fread(p, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
        free(p);
        p = NULL;
    }
    *n = (size_t)sb.st_size;
    fclose(f);
    return p;
}

/* Where scratch files go ($TMPDIR, else /dev/shm, else /tmp).  A hostile
 * header can ask for terabytes of writes (fill, data moves): every file is
 * capped at FILE_LIMIT, so such a write fails with EFBIG instead of filling
 * the tmpfs (RAM). */
static inline const char *
fuzz_scratch_dir(void)
{
    struct rlimit rl = {FILE_LIMIT, FILE_LIMIT};
    const char *dir = getenv("TMPDIR");
    signal(SIGXFSZ, SIG_IGN);
    (void)setrlimit(RLIMIT_FSIZE, &rl);
    if (dir == NULL || access(dir, W_OK) != 0)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return dir;
}

#endif /* FUZZ_LIB_COMMON_H */
