/* zmap_file.c: the directory-tree store of zmap.h.
 *
 * Layout: the store is a directory; the object at key "/a/b/c" is the regular
 * file ROOT/a/b/c.  Directories are implicit: created on write, removed when
 * a delete empties them; a directory is never an object (exists() answers
 * NC_EEMPTY).  Writes go to a temporary file in the target's directory that
 * is renamed over the target, so a reader never sees half an object.  Reads
 * use pread straight into the caller's buffer.  errno is translated here:
 * ENOENT/ENOTDIR/EISDIR -> NC_EEMPTY (no object), EACCES/EPERM -> NC_EPERM
 * on writes and NC_EACCESS on reads, ENAMETOOLONG -> NC_EINVAL, ENOMEM ->
 * NC_ENOMEM, others -> NC_EIO. */
#define _XOPEN_SOURCE 700
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
#include <unistd.h>

#include <netcdf.h>

/* Temporary files are named TMP_PREFIX<pid>.<n>; listings skip them. */
#define TMP_PREFIX ".ncz-tmp."

typedef struct FileMap {
    NCZ_map head;   /* first: the zmap.h head */
    char *root;     /* store directory, no trailing '/' */
    size_t rootlen; /* strlen(root) */
} FileMap;

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

/* ROOT + key in a new string. */
static char *
key_path(const FileMap *fm, const char *key)
{
    return ncz_path_join(fm->root, fm->rootlen, key, 0);
}

/* Object at key: its stat (NC_EEMPTY unless a regular file). */
static int
stat_object(FileMap *fm, const char *key, struct stat *sb)
{
    int stat;
    if ((stat = ncz_key_check(key)))
        return stat;
    char *p = key_path(fm, key);
    if (!p)
        return NC_ENOMEM;
    if (lstat(p, sb) != 0)
        stat = errno_to_nc(errno, 0);
    else if (!S_ISREG(sb->st_mode))
        stat = NC_EEMPTY;
    free(p);
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

/* Open the object at key for reading; *sb its stat. */
static int
open_object(FileMap *fm, const char *key, int *fdp, struct stat *sb)
{
    int stat;
    if ((stat = ncz_key_check(key)))
        return stat;
    char *p = key_path(fm, key);
    if (!p)
        return NC_ENOMEM;
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    free(p);
    if (fd < 0)
        return errno == ELOOP ? NC_EEMPTY : errno_to_nc(errno, 0);
    if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
        close(fd);
        return NC_EEMPTY;
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

/* mkdir -p for the directories of path below the store root (path is
 * ROOT + key; the root exists). */
static int
make_parents(FileMap *fm, char *path)
{
    for (char *s = path + fm->rootlen + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        int rc = mkdir(path, 0777);
        int e = errno;
        *s = '/';
        if (rc != 0 && e != EEXIST)
            return e == ENOENT || e == ENOTDIR ? NC_EINVAL : errno_to_nc(e, 1);
    }
    return NC_NOERR;
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
 * final rename() is atomic and readers never see a partial object. */
typedef struct fwrite_h {
    int fd;
    char *path; /* the target */
    char *tmp;
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
    if (commit && stat == NC_NOERR && rename(h->tmp, h->path) != 0)
        stat = errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST ? NC_EINVAL : errno_to_nc(errno, 1);
    if (!commit || stat != NC_NOERR)
        unlink(h->tmp);
    free(h->tmp);
    free(h->path);
    free(h);
    return stat;
}

static int
file_wbegin(NCZ_map *map, const char *key, void **hp)
{
    static atomic_uint tmpcounter;
    FileMap *fm = (FileMap *)map;
    fwrite_h *h;
    int stat;

    *hp = NULL;
    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = ncz_key_check(key)))
        return stat;
    if ((h = calloc(1, sizeof(*h))) == NULL)
        return NC_ENOMEM;
    h->fd = -1;
    if (!(h->path = key_path(fm, key))) {
        stat = NC_ENOMEM;
        goto fail;
    }
    if ((stat = make_parents(fm, h->path)))
        goto fail;
    char *slash = strrchr(h->path, '/');
    size_t dirlen = (size_t)(slash - h->path);
    size_t tmpcap = dirlen + sizeof TMP_PREFIX + 48;
    if (!(h->tmp = malloc(tmpcap))) {
        stat = NC_ENOMEM;
        goto fail;
    }
    for (int attempt = 0; h->fd < 0; attempt++) {
        snprintf(h->tmp, tmpcap, "%.*s/" TMP_PREFIX "%ld.%u", (int)dirlen, h->path, (long)getpid(),
                 atomic_fetch_add(&tmpcounter, 1u));
        h->fd = open(h->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
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
    free(h->tmp);
    free(h->path);
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

static int
file_del(NCZ_map *map, const char *key)
{
    FileMap *fm = (FileMap *)map;
    struct stat sb;
    int stat;

    if (!(map->mode & NCZ_MAP_WRITE))
        return NC_EPERM;
    if ((stat = stat_object(fm, key, &sb)))
        return stat;
    char *path = key_path(fm, key);
    if (!path)
        return NC_ENOMEM;
    if (unlink(path) != 0) {
        stat = errno_to_nc(errno, 1);
    } else {
        /* drop directories the delete left empty, up to the root */
        for (char *s; (s = strrchr(path, '/')) && (size_t)(s - path) > fm->rootlen;) {
            *s = '\0';
            if (rmdir(path) != 0)
                break;
        }
    }
    free(path);
    return stat;
}

static int
is_tmp_name(const char *name)
{
    return strncmp(name, TMP_PREFIX, sizeof TMP_PREFIX - 1) == 0;
}

/* Depth-first walk of dir (whose key is key, "" for the root): every
 * regular file below it as a full key. */
static int
walk(const char *dir, const char *key, NCZ_keys *out, int depth)
{
    int stat = NC_NOERR;
    if (depth > 256)
        return NC_EINVAL; /* a symlink loop or an absurd tree */
    DIR *d = opendir(dir);
    if (!d) {
        stat = errno_to_nc(errno, 0);
        return stat == NC_EEMPTY ? NC_NOERR : stat;
    }
    struct dirent *de;
    while (!stat && (de = readdir(d))) {
        const char *n = de->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || is_tmp_name(n))
            continue;
        size_t dl = strlen(dir), kl = strlen(key), nl = strlen(n);
        char *sub = malloc(dl + nl + 2);
        struct stat sb;
        if (!sub) {
            stat = NC_ENOMEM;
            break;
        }
        sprintf(sub, "%s/%s", dir, n);
        if (lstat(sub, &sb) != 0)
            ; /* gone meanwhile */
        else if (S_ISREG(sb.st_mode))
            stat = ncz_keys_add_full(out, key, n, nl);
        else if (S_ISDIR(sb.st_mode)) {
            char *subkey = malloc(kl + nl + 2);
            if (subkey) {
                sprintf(subkey, "%s/%s", key, n);
                stat = walk(sub, subkey, out, depth + 1);
            } else {
                stat = NC_ENOMEM;
            }
            free(subkey);
        }
        free(sub);
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
    char *dir = key_path((FileMap *)map, k);
    if (!dir)
        return NC_ENOMEM;
    if (full) {
        int stat = walk(dir, k, out, 0);
        free(dir);
        return stat;
    }
    int stat = NC_NOERR;
    DIR *d = opendir(dir);
    free(dir);
    if (!d) {
        stat = errno_to_nc(errno, 0);
        return stat == NC_EEMPTY ? NC_NOERR : stat; /* nothing under prefix */
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
    *mapp = &fm->head;
    fm = NULL;
done:
    if (fm) {
        free(fm->root);
        free(fm->head.url);
        free(fm);
    }
    return st;
}
