/* zmap_zip.c: the zip-archive store of zmap.h (libzip).
 *
 * Layout: the object at key "/a/b" is the entry "<P>a/b", where P is "" (keys
 * at the archive's root, as zarr-python's ZipStore writes) or "<name>/" with
 * name the archive's file name less its extension (upstream NCZarr's layout,
 * which also stores a directory entry "<name>/").  On open the layout is
 * read from the archive: root Zarr metadata means P = "", otherwise the first
 * entry's top directory.  Entries are written uncompressed (chunks carry
 * their own codecs), so a ranged read seeks instead of decoding.
 *
 * Writes: libzip writes the archive at zip_close, from sources that must
 * live until then.  Objects written this session (pending) are kept in
 * memory up to ZIP_MEM_BUDGET bytes in all, which keeps small stores as fast
 * as before; past it, each object is appended to one spill file next to the
 * archive ("<archive>.nczspill.XXXXXX", unlinked as soon as it is made, so
 * no crash leaves it behind) and handed to libzip as a source that reads
 * its range, so memory stays bounded whatever the size of the archive.  A
 * replaced spilled object leaves its old bytes in the spill file until the
 * archive is next written.
 *
 * Durability: libzip writes the archive to a temporary file renamed over
 * it, so a failed write (a full disk) leaves the archive as it was.  A
 * sync (nc_sync) writes the archive that way, fsyncs it and its directory,
 * and reopens it: after a sync a crash keeps everything synced.  Each sync
 * rewrites the whole archive.  A create over an existing archive
 * (NC_CLOBBER) replaces it only when the new one is first written.
 *
 * Threads: libzip serves one archive (zip_t) from one thread at a time, and
 * the pending list and spill file change on writes; every operation of the
 * store holds the store's mutex (reads of different chunks take turns
 * here; their decoding runs outside, on libfilter's pool).  Close runs
 * alone (the handle's last call).
 *
 * libzip errors are translated once, in zip_to_nc(). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "zmap_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <netcdf.h>

#define ZIP_MEM_BUDGET ((uint64_t)32 << 20) /* bytes of pending objects kept in memory */

typedef struct Pending {
    char *name;          /* entry name (with the layout prefix) */
    unsigned char *data; /* its bytes in memory (alive for libzip until close), or NULL: */
    uint64_t off;        /* where its bytes are in the spill file */
    uint64_t len;
} Pending;

typedef struct ZipMap {
    NCZ_map head;   /* first: the zmap.h head */
    zip_t *za;      /* the open archive */
    char *path;     /* local path of the archive */
    char *prefix;   /* layout prefix P: "" or "name/" */
    size_t plen;    /* strlen(prefix) */
    Pending *pend;  /* objects written since the archive was last written */
    size_t npend, cappend;
    int spillfd;     /* the spill file (unlinked; see the file comment), -1 until a write */
    uint64_t spillend; /* bytes in it */
    uint64_t inmem;    /* bytes of pending objects held in memory */
    pthread_mutex_t lock; /* held by every operation (file comment) */
} ZipMap;

static int
zip_to_nc(int ze)
{
    switch (ze) {
    case ZIP_ER_OK:
        return NC_NOERR;
    case ZIP_ER_NOENT:
    case ZIP_ER_DELETED:
        return NC_EEMPTY;
    case ZIP_ER_MEMORY:
        return NC_ENOMEM;
    case ZIP_ER_NOZIP:
    case ZIP_ER_INCONS:
    case ZIP_ER_COMPNOTSUPP:
    case ZIP_ER_ENCRNOTSUPP:
    case ZIP_ER_CRC:
    case ZIP_ER_ZLIB:
        return NC_ENOTNC;
    case ZIP_ER_RDONLY:
    case ZIP_ER_OPEN:
        return NC_EPERM;
    case ZIP_ER_EXISTS:
        return NC_EEXIST;
    case ZIP_ER_INVAL:
        return NC_EINVAL;
    default:
        return NC_EIO;
    }
}

static int
archive_err(ZipMap *zm)
{
    return zip_to_nc(zip_error_code_zip(zip_get_error(zm->za)));
}

/* Entry name of key in a new string. */
static char *
entry_name(const ZipMap *zm, const char *key)
{
    return ncz_path_join(zm->prefix, zm->plen, key + 1, 0);
}

static Pending *
find_pending(ZipMap *zm, const char *name)
{
    for (size_t i = zm->npend; i-- > 0;)
        if (strcmp(zm->pend[i].name, name) == 0)
            return &zm->pend[i];
    return NULL;
}

/* Where the object of a key is: written this session (p, its bytes in the
 * spill file) or only in the archive; idx its archive entry, size its size. */
typedef struct Where {
    Pending *p;
    zip_int64_t idx;
    uint64_t size;
} Where;

/* The one lookup of a key every op does: NC_EEMPTY if nothing is there. */
static int
locate(ZipMap *zm, const char *key, Where *w)
{
    int stat;
    *w = (Where){.p = NULL, .idx = -1, .size = 0};
    if ((stat = ncz_key_check(key)))
        return stat;
    if (!zm->za)
        return NC_EIO; /* a sync could not reopen the archive */
    char *name = entry_name(zm, key);
    if (!name)
        return NC_ENOMEM;
    w->p = find_pending(zm, name);
    w->idx = zip_name_locate(zm->za, name, 0);
    free(name);
    if (w->idx < 0)
        return NC_EEMPTY;
    if (w->p) {
        w->size = w->p->len;
        return NC_NOERR;
    }
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zm->za, (zip_uint64_t)w->idx, 0, &st) != 0)
        return archive_err(zm);
    if (!(st.valid & ZIP_STAT_SIZE))
        return NC_ENOTNC;
    w->size = st.size;
    return NC_NOERR;
}

static int
zipm_exists_unlocked(NCZ_map *map, const char *key)
{
    Where w;
    return locate((ZipMap *)map, key, &w);
}

static int
zipm_len_unlocked(NCZ_map *map, const char *key, uint64_t *lenp)
{
    Where w;
    int stat = locate((ZipMap *)map, key, &w);
    if (!stat)
        *lenp = w.size;
    return stat;
}

/* Read count bytes at start of entry idx into buf. */
static int
read_entry(ZipMap *zm, zip_int64_t idx, uint64_t start, uint64_t count, void *buf)
{
    int stat = NC_NOERR;
    zip_file_t *zf = zip_fopen_index(zm->za, (zip_uint64_t)idx, 0);
    if (!zf)
        return archive_err(zm);
    if (start > 0 && zip_fseek(zf, (zip_int64_t)start, SEEK_SET) != 0) {
        /* a compressed entry cannot seek: read and drop the head */
        zip_fclose(zf);
        if (!(zf = zip_fopen_index(zm->za, (zip_uint64_t)idx, 0)))
            return archive_err(zm);
        char sink[16384];
        for (uint64_t left = start; left > 0;) {
            zip_int64_t got = zip_fread(zf, sink, left < sizeof sink ? left : sizeof sink);
            if (got <= 0) {
                stat = got < 0 ? NC_ENOTNC : NC_EIO;
                goto done;
            }
            left -= (uint64_t)got;
        }
    }
    for (char *p = buf; count > 0;) {
        zip_int64_t got = zip_fread(zf, p, count);
        if (got <= 0) {
            stat = got < 0 ? NC_ENOTNC : NC_EIO; /* corrupt or truncated entry */
            goto done;
        }
        p += got;
        count -= (uint64_t)got;
    }
done:
    zip_fclose(zf);
    return stat;
}

/* pread/pwrite of the whole range (they may move fewer bytes). */
static int
spill_read(ZipMap *zm, uint64_t off, uint64_t count, void *buf)
{
    for (char *p = buf; count > 0;) {
        ssize_t got = pread(zm->spillfd, p, count > (1u << 30) ? (1u << 30) : (size_t)count,
                            (off_t)off);
        if (got <= 0) {
            if (got < 0 && errno == EINTR)
                continue;
            return NC_EIO;
        }
        p += got;
        off += (uint64_t)got;
        count -= (uint64_t)got;
    }
    return NC_NOERR;
}

static int
spill_append(ZipMap *zm, const void *content, uint64_t count, uint64_t *offp)
{
    if (zm->spillfd < 0) {
        size_t n = strlen(zm->path) + 32;
        char *spillpath = malloc(n);
        if (!spillpath)
            return NC_ENOMEM;
        snprintf(spillpath, n, "%s.nczspill.XXXXXX", zm->path);
        zm->spillfd = mkstemp(spillpath);
        int e = errno;
        if (zm->spillfd >= 0)
            unlink(spillpath); /* ours through the descriptor only */
        free(spillpath);
        if (zm->spillfd < 0)
            return e == EACCES ? NC_EPERM : NC_EIO;
    }
    *offp = zm->spillend;
    uint64_t off = zm->spillend;
    for (const char *p = content; count > 0;) {
        ssize_t put = pwrite(zm->spillfd, p, count > (1u << 30) ? (1u << 30) : (size_t)count,
                             (off_t)off);
        if (put <= 0) {
            if (put < 0 && errno == EINTR)
                continue;
            return NC_EIO; /* disk full: nothing recorded, the object is not written */
        }
        p += put;
        off += (uint64_t)put;
        count -= (uint64_t)put;
    }
    zm->spillend = off;
    return NC_NOERR;
}

/* A libzip source reading bytes [off, off+len) of the spill file. */
typedef struct SpillSrc {
    ZipMap *zm;
    uint64_t off, len, pos;
    zip_error_t err;
} SpillSrc;

static zip_int64_t
spill_src_cb(void *ud, void *data, zip_uint64_t n, zip_source_cmd_t cmd)
{
    SpillSrc *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        s->pos = 0;
        return 0;
    case ZIP_SOURCE_READ: {
        uint64_t k = s->len - s->pos < n ? s->len - s->pos : n;
        if (k > 0 && spill_read(s->zm, s->off + s->pos, k, data) != NC_NOERR) {
            zip_error_set(&s->err, ZIP_ER_READ, EIO);
            return -1;
        }
        s->pos += k;
        return (zip_int64_t)k;
    }
    case ZIP_SOURCE_CLOSE:
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        if (n < sizeof(*st)) {
            zip_error_set(&s->err, ZIP_ER_INVAL, 0);
            return -1;
        }
        zip_stat_init(st);
        st->size = s->len;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof(*st);
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&s->err, data, n);
    case ZIP_SOURCE_FREE:
        zip_error_fini(&s->err);
        free(s);
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                              ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SUPPORTS, -1);
    default:
        zip_error_set(&s->err, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

static zip_source_t *
spill_source(ZipMap *zm, uint64_t off, uint64_t len)
{
    SpillSrc *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->zm = zm;
    s->off = off;
    s->len = len;
    zip_error_init(&s->err);
    zip_source_t *src = zip_source_function(zm->za, spill_src_cb, s);
    if (!src) {
        zip_error_fini(&s->err);
        free(s);
    }
    return src;
}

static int
zipm_read_unlocked(NCZ_map *map, const char *key, uint64_t start, uint64_t count, void *buf)
{
    ZipMap *zm = (ZipMap *)map;
    Where w;
    int stat = locate(zm, key, &w);
    if (stat)
        return stat;
    if (start > w.size || count > w.size - start)
        return NC_EINVAL;
    if (count == 0)
        return NC_NOERR;
    if (w.p && w.p->data) {
        memcpy(buf, w.p->data + start, (size_t)count);
        return NC_NOERR;
    }
    if (w.p)
        return spill_read(zm, w.p->off + start, count, buf);
    return read_entry(zm, w.idx, start, count, buf);
}

static int
zipm_read_all_unlocked(NCZ_map *map, const char *key, void **datap, size_t *lenp)
{
    ZipMap *zm = (ZipMap *)map;
    Where w;
    int stat = locate(zm, key, &w);
    if (stat)
        return stat;
    if (w.size > SIZE_MAX - 1)
        return NC_ENOMEM;
    void *data = malloc(w.size ? (size_t)w.size : 1);
    if (!data)
        return NC_ENOMEM;
    if (w.p && w.p->data)
        memcpy(data, w.p->data, (size_t)w.size);
    else if (w.size && (stat = w.p ? spill_read(zm, w.p->off, w.size, data)
                                   : read_entry(zm, w.idx, 0, w.size, data))) {
        free(data);
        return stat;
    }
    *datap = data;
    *lenp = (size_t)w.size;
    return NC_NOERR;
}

static int
zipm_write_unlocked(NCZ_map *map, const char *key, uint64_t count, const void *content)
{
    ZipMap *zm = (ZipMap *)map;
    int stat;
    char *name = NULL;
    unsigned char *copy = NULL;
    uint64_t off = 0;

    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = ncz_key_check(key)))
        return stat;
    if (count > INT64_MAX || (count > 0 && !content))
        return NC_EINVAL;
    if (!zm->za)
        return NC_EIO; /* a sync could not reopen the archive */
    if (!(name = entry_name(zm, key))) {
        stat = NC_ENOMEM;
        goto fail;
    }
    if (zm->npend == zm->cappend) {
        size_t ncap = zm->cappend ? 2 * zm->cappend : 64;
        Pending *np = realloc(zm->pend, ncap * sizeof *np);
        if (!np) {
            stat = NC_ENOMEM;
            goto fail;
        }
        zm->pend = np;
        zm->cappend = ncap;
    }
    Pending *old = find_pending(zm, name);
    uint64_t held = zm->inmem - (old && old->data ? old->len : 0);
    if (count && held + count <= ZIP_MEM_BUDGET) {
        if (!(copy = malloc((size_t)count))) {
            stat = NC_ENOMEM;
            goto fail;
        }
        memcpy(copy, content, (size_t)count);
    } else if (count && (stat = spill_append(zm, content, count, &off))) {
        goto fail;
    }
    zip_source_t *src = count && !copy ? spill_source(zm, off, count) : zip_source_buffer(zm->za, copy, count, 0);
    if (!src) {
        stat = archive_err(zm);
        goto fail;
    }
    zip_int64_t idx = zip_file_add(zm->za, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
        stat = archive_err(zm);
        zip_source_free(src);
        goto fail;
    }
    zip_set_file_compression(zm->za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
    if (old) {
        /* libzip dropped the old source on replace: its buffer can go (a
         * spilled one's bytes stay unused in the spill file) */
        if (old->data)
            zm->inmem -= old->len;
        free(old->data);
        old->data = copy;
        old->off = off;
        old->len = count;
        free(name);
    } else {
        zm->pend[zm->npend++] = (Pending){.name = name, .data = copy, .off = off, .len = count};
    }
    if (copy)
        zm->inmem += count;
    return NC_NOERR;
fail:
    free(name);
    free(copy);
    return stat;
}

static int
zipm_del_unlocked(NCZ_map *map, const char *key)
{
    ZipMap *zm = (ZipMap *)map;
    Where w;
    int stat;
    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = locate(zm, key, &w)))
        return stat;
    if (zip_delete(zm->za, (zip_uint64_t)w.idx) != 0)
        return archive_err(zm);
    if (w.p) {
        /* libzip no longer references the buffer of a deleted entry */
        if (w.p->data)
            zm->inmem -= w.p->len;
        free(w.p->data);
        free(w.p->name);
        *w.p = zm->pend[--zm->npend];
    }
    return NC_NOERR;
}

/* The lister of zmap_impl.h: every entry under the archive directory of
 * prefix (P + prefix[1:] + "/"), as a child name or a full key. */
static int
zip_lister_unlocked(NCZ_map *map, const char *prefix, int full, NCZ_keys *out)
{
    ZipMap *zm = (ZipMap *)map;
    int stat = NC_NOERR;
    int root = strcmp(prefix, "/") == 0;
    if (!zm->za)
        return NC_EIO; /* a sync could not reopen the archive */
    char *dir = ncz_path_join(zm->prefix, zm->plen, root ? "" : prefix + 1, !root);
    if (!dir)
        return NC_ENOMEM;
    size_t dl = strlen(dir);
    zip_int64_t n = zip_get_num_entries(zm->za, 0);
    for (zip_int64_t i = 0; i < n && !stat; i++) {
        const char *name = zip_get_name(zm->za, (zip_uint64_t)i, 0);
        if (!name || strncmp(name, dir, dl) != 0 || !name[dl])
            continue; /* deleted, or not under prefix */
        const char *rest = name + dl;
        if (full) {
            stat = ncz_keys_add_full(out, root ? "" : prefix, rest, strlen(rest));
        } else {
            const char *slash = strchr(rest, '/');
            stat = ncz_keys_add_child(out, rest, slash ? (size_t)(slash - rest) : strlen(rest));
        }
    }
    free(dir);
    return stat;
}

static int zipm_sync_unlocked(NCZ_map *map);
/* ---- the store's operations, each under the store's mutex -------------------- */

#define ZIP_LOCKED(name, params, args)                             \
    static int name params                                         \
    {                                                              \
        ZipMap *zm_ = (ZipMap *)map;                               \
        int st_;                                                   \
        pthread_mutex_lock(&zm_->lock);                            \
        st_ = name##_unlocked args;                                \
        pthread_mutex_unlock(&zm_->lock);                          \
        return st_;                                                \
    }
ZIP_LOCKED(zipm_exists, (NCZ_map *map, const char *key), (map, key))
ZIP_LOCKED(zipm_len, (NCZ_map *map, const char *key, uint64_t *lenp), (map, key, lenp))
ZIP_LOCKED(zipm_read, (NCZ_map *map, const char *key, uint64_t start, uint64_t count, void *buf),
           (map, key, start, count, buf))
ZIP_LOCKED(zipm_read_all, (NCZ_map *map, const char *key, void **datap, size_t *lenp),
           (map, key, datap, lenp))
ZIP_LOCKED(zipm_write, (NCZ_map *map, const char *key, uint64_t count, const void *content),
           (map, key, count, content))
ZIP_LOCKED(zipm_del, (NCZ_map *map, const char *key), (map, key))
ZIP_LOCKED(zip_lister, (NCZ_map *map, const char *prefix, int full, NCZ_keys *out),
           (map, prefix, full, out))
ZIP_LOCKED(zipm_sync, (NCZ_map *map), (map))

static int
zipm_list(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 0, out, zip_lister);
}

static int
zipm_list_all(NCZ_map *map, const char *prefix, NCZ_keys *out)
{
    return ncz_list_frame(map, prefix, 1, out, zip_lister);
}

static void
free_zipmap(ZipMap *zm)
{
    for (size_t i = 0; i < zm->npend; i++) {
        free(zm->pend[i].name);
        free(zm->pend[i].data);
    }
    free(zm->pend);
    if (zm->spillfd >= 0)
        close(zm->spillfd);
    free(zm->path);
    free(zm->prefix);
    free(zm->head.url);
    pthread_mutex_destroy(&zm->lock);
    free(zm);
}

/* fsync path, then its directory (so the rename libzip made is kept). */
static int
sync_path(const char *path)
{
    int stat = NC_NOERR;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? NC_NOERR : NC_EIO; /* libzip writes no empty archive */
    if (fsync(fd) != 0)
        stat = NC_EIO;
    close(fd);
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return NC_ENOMEM;
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        if (fsync(fd) != 0 && errno != EINVAL && stat == NC_NOERR)
            stat = NC_EIO;
        close(fd);
    }
    free(dir);
    return stat;
}

/* Write the archive (libzip: temporary file + rename), make it durable,
 * and forget what libzip has now written.  On failure the archive on disk
 * is as it was and za still holds every change. */
static int
write_archive(ZipMap *zm)
{
    if (zip_close(zm->za) != 0)
        return archive_err(zm) == NC_NOERR ? NC_EIO : archive_err(zm);
    zm->za = NULL;
    for (size_t i = 0; i < zm->npend; i++) {
        free(zm->pend[i].name);
        free(zm->pend[i].data);
    }
    zm->npend = 0;
    zm->inmem = 0;
    if (zm->spillfd >= 0 && ftruncate(zm->spillfd, 0) == 0)
        zm->spillend = 0;
    return sync_path(zm->path);
}

static int
zipm_sync_unlocked(NCZ_map *map)
{
    ZipMap *zm = (ZipMap *)map;
    int ze = 0, stat;
    if (!zm || !zm->za || !(map->mode & NCZ_MAP_WRITE))
        return NC_NOERR;
    if ((stat = write_archive(zm)))
        return stat;
    /* Go on from the archive just written. */
    if (!(zm->za = zip_open(zm->path, 0, &ze)) && !(zm->za = zip_open(zm->path, ZIP_CREATE, &ze)))
        return zip_to_nc(ze) == NC_NOERR ? NC_EIO : zip_to_nc(ze);
    return NC_NOERR;
}

static int
zipm_close(NCZ_map *map, int deleteit)
{
    ZipMap *zm = (ZipMap *)map;
    int stat = NC_NOERR;
    if (!zm)
        return NC_NOERR;
    if (zm->za) {
        if (deleteit || !(map->mode & NCZ_MAP_WRITE)) {
            zip_discard(zm->za);
        } else if ((stat = write_archive(zm)) != NC_NOERR && zm->za) {
            zip_discard(zm->za); /* the archive on disk stays as last written */
        }
        zm->za = NULL;
    } else if (map->mode & NCZ_MAP_WRITE) {
        stat = NC_EIO; /* a sync could not reopen the archive */
    }
    if (deleteit && unlink(zm->path) != 0 && errno != ENOENT)
        stat = NC_EIO;
    free_zipmap(zm);
    return stat;
}

static const NCZ_map_ops zip_ops = {
    .version = NCZ_MAP_VERSION,
    .close = zipm_close,
    .exists = zipm_exists,
    .len = zipm_len,
    .read = zipm_read,
    .read_all = zipm_read_all,
    .write = zipm_write,
    .del = zipm_del,
    .list = zipm_list,
    .list_all = zipm_list_all,
    .read_many = ncz_read_many_serial,
    .write_many = ncz_write_many_serial,
    .nrequests = ncz_nrequests_none,
    .sync = zipm_sync,
};

/* Upstream's dataset directory: the file name less one extension, + "/". */
static char *
dataset_prefix(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t l = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (l == 0)
        return strdup("");
    char *p = malloc(l + 2);
    if (p) {
        memcpy(p, base, l);
        p[l] = '/';
        p[l + 1] = '\0';
    }
    return p;
}

/* The layout of an existing archive (see the file comment). */
static char *
found_prefix(zip_t *za, int rootlayout, const char *path)
{
    static const char *const marks[] = {".zgroup", ".zarray", "zarr.json", ".zmetadata",
                                        ".nczarr"};
    zip_int64_t n = zip_get_num_entries(za, 0);
    if (n <= 0)
        return rootlayout ? strdup("") : dataset_prefix(path);
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
        if (zip_name_locate(za, marks[i], 0) >= 0)
            return strdup("");
    const char *first = zip_get_name(za, 0, 0);
    const char *slash = first ? strchr(first, '/') : NULL;
    if (!slash || slash == first)
        return strdup("");
    size_t l = (size_t)(slash - first) + 1;
    char *p = malloc(l + 1);
    if (p) {
        memcpy(p, first, l);
        p[l] = '\0';
    }
    return p;
}

int
ncz_map_zip_open(const char *path, const char *url, int mode, int rootlayout, NCZ_map **mapp)
{
    int st = NC_NOERR, ze = 0;
    struct stat sb;
    ZipMap *zm = calloc(1, sizeof *zm);

    if (!zm)
        return NC_ENOMEM;
    zm->head.ops = &zip_ops;
    zm->head.impl = NCZ_MAP_ZIP;
    zm->spillfd = -1;
    if (pthread_mutex_init(&zm->lock, NULL) != 0) {
        free(zm);
        return NC_ENOMEM;
    }
    zm->head.mode = mode;
    if (!(zm->path = strdup(path)) || !(zm->head.url = strdup(url))) {
        st = NC_ENOMEM;
        goto done;
    }
    int exists = stat(path, &sb) == 0;
    if (mode & NCZ_MAP_CREATE) {
        if (exists) {
            if (!(mode & NCZ_MAP_CLOBBER)) {
                st = NC_EEXIST;
                goto done;
            }
            if (!S_ISREG(sb.st_mode)) {
                st = NC_EEXIST; /* never replace a directory by an archive */
                goto done;
            }
            if (access(path, W_OK) != 0) {
                st = NC_EPERM;
                goto done;
            }
        }
        /* An existing archive is replaced when the new one is written (a
         * failed write keeps it). */
        if (!(zm->za = zip_open(path, exists ? ZIP_CREATE | ZIP_TRUNCATE : ZIP_CREATE | ZIP_EXCL, &ze))) {
            st = ze == ZIP_ER_EXISTS ? NC_EEXIST : zip_to_nc(ze);
            goto done;
        }
        if (!(zm->prefix = rootlayout ? strdup("") : dataset_prefix(path))) {
            st = NC_ENOMEM;
            goto done;
        }
        zm->plen = strlen(zm->prefix);
        /* upstream's layout names its dataset directory first */
        if (zm->plen && zip_dir_add(zm->za, zm->prefix, ZIP_FL_ENC_UTF_8) < 0) {
            st = archive_err(zm);
            goto done;
        }
    } else {
        if (!exists) {
            st = NC_ENOOBJECT;
            goto done;
        }
        int flags = (mode & NCZ_MAP_WRITE) ? 0 : ZIP_RDONLY;
        if (!(zm->za = zip_open(path, flags | ZIP_CHECKCONS, &ze))) {
            st = ze == ZIP_ER_NOENT ? NC_ENOOBJECT : zip_to_nc(ze);
            goto done;
        }
        if (!(zm->prefix = found_prefix(zm->za, rootlayout, path))) {
            st = NC_ENOMEM;
            goto done;
        }
        zm->plen = strlen(zm->prefix);
    }
    *mapp = &zm->head;
    zm = NULL;
done:
    if (zm) {
        if (zm->za)
            zip_discard(zm->za);
        free_zipmap(zm);
    }
    return st;
}
