/* dplugin.c: the plugin search path and the ncaux_plugin_path_* list helpers.
 *
 * Contract: see ncplugins.h and netcdf_filter.h.  The global path is a
 * private NCPluginList guarded by plugin_lock; it is built from
 * HDF5_PLUGIN_PATH on first use.  Listeners are called outside the lock with
 * a private copy, so they may call back into this API.
 *
 * Sections: list helpers (ncaux_plugin_path_*); global path state; the
 * public nc_plugin_path_* calls; the Fortran-friendly string forms.
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strnlen */
#include "config.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "netcdf_filter.h"
#include "netcdf_aux.h"
#include "ncplugins.h"

#define PLUGIN_ENV "HDF5_PLUGIN_PATH"
#ifdef NETCDF_PLUGIN_SEARCH_PATH
#define PLUGIN_DEFAULT_PATH NETCDF_PLUGIN_SEARCH_PATH
#else
#define PLUGIN_DEFAULT_PATH "/usr/local/hdf5/lib/plugin" /* HDF5's own default */
#endif
#define PLATFORM_SEP ':'
#define MAX_LISTENERS 8

/* ---- list helpers -------------------------------------------------------- */

int
ncaux_plugin_path_parsen(size_t pathlen, const char *pathlist, char sep, NCPluginList *dirs)
{
    int stat = NC_NOERR;
    char **vec = NULL;
    size_t len, count, i, start;
    char sep1 = (sep == '\0' ? PLATFORM_SEP : sep);

    if (dirs == NULL)
        return NC_EINVAL;
    if (pathlen == 0 || pathlist == NULL) {
        dirs->ndirs = 0;
        return NC_NOERR;
    }
    /* A NUL inside the first pathlen bytes ends the list, as in upstream. */
    len = strnlen(pathlist, pathlen);
    for (count = 1, i = 0; i < len; i++)
        if (pathlist[i] == sep1 || pathlist[i] == ';')
            count++;
    /* Caller-supplied dirs->dirs must have room for every piece (upstream API). */
    if (dirs->dirs == NULL) {
        if ((vec = calloc(count, sizeof(char *))) == NULL)
            return NC_ENOMEM;
    } else {
        vec = dirs->dirs;
        memset(vec, 0, count * sizeof(char *));
    }
    for (count = 0, start = 0, i = 0; i <= len; i++) {
        if (i == len || pathlist[i] == sep1 || pathlist[i] == ';') {
            size_t n = i - start;
            char *piece = malloc(n + 1);
            if (piece == NULL) {
                stat = NC_ENOMEM;
                goto done;
            }
            memcpy(piece, pathlist + start, n);
            piece[n] = '\0';
            vec[count++] = piece;
            start = i + 1;
        }
    }
done:
    if (stat) {
        for (i = 0; i < count; i++)
            free(vec[i]);
        if (vec != dirs->dirs)
            free(vec);
        return stat;
    }
    dirs->dirs = vec;
    dirs->ndirs = count;
    return NC_NOERR;
}

int
ncaux_plugin_path_parse(const char *pathlist, char sep, NCPluginList *dirs)
{
    return ncaux_plugin_path_parsen(pathlist == NULL ? 0 : strlen(pathlist), pathlist, sep, dirs);
}

int
ncaux_plugin_path_tostring(const NCPluginList *dirs, char sep, char **catp)
{
    size_t i, total = 1;
    char *cat, *p;

    if (dirs == NULL || (dirs->ndirs > 0 && dirs->dirs == NULL))
        return NC_EINVAL;
    if (sep == '\0')
        sep = PLATFORM_SEP;
    for (i = 0; i < dirs->ndirs; i++)
        total += (dirs->dirs[i] ? strlen(dirs->dirs[i]) : 0) + 1;
    if ((cat = malloc(total)) == NULL)
        return NC_ENOMEM;
    for (p = cat, i = 0; i < dirs->ndirs; i++) {
        if (i > 0)
            *p++ = sep;
        if (dirs->dirs[i] != NULL) {
            size_t n = strlen(dirs->dirs[i]);
            memcpy(p, dirs->dirs[i], n);
            p += n;
        }
    }
    *p = '\0';
    if (catp)
        *catp = cat;
    else
        free(cat);
    return NC_NOERR;
}

int
ncaux_plugin_path_clear(NCPluginList *dirs)
{
    size_t i;
    if (dirs == NULL)
        return NC_NOERR;
    if (dirs->dirs != NULL) {
        for (i = 0; i < dirs->ndirs; i++)
            free(dirs->dirs[i]);
        free(dirs->dirs);
    }
    dirs->dirs = NULL;
    dirs->ndirs = 0;
    return NC_NOERR;
}

int
ncaux_plugin_path_reclaim(NCPluginList *dirs)
{
    int stat = ncaux_plugin_path_clear(dirs);
    free(dirs);
    return stat;
}

/* Insert a copy of dir at position 0 (prepend) or at the end. */
static int
list_insert(NCPluginList *dirs, const char *dir, int at_front)
{
    char **vec;
    char *copy;

    if (dirs == NULL || dir == NULL || (dirs->ndirs > 0 && dirs->dirs == NULL))
        return NC_EINVAL;
    if ((copy = strdup(dir)) == NULL)
        return NC_ENOMEM;
    if ((vec = calloc(dirs->ndirs + 1, sizeof(char *))) == NULL) {
        free(copy);
        return NC_ENOMEM;
    }
    if (dirs->ndirs > 0)
        memcpy(vec + (at_front ? 1 : 0), dirs->dirs, dirs->ndirs * sizeof(char *));
    vec[at_front ? 0 : dirs->ndirs] = copy;
    free(dirs->dirs);
    dirs->dirs = vec;
    dirs->ndirs++;
    return NC_NOERR;
}

int
ncaux_plugin_path_append(NCPluginList *dirs, const char *dir)
{
    return list_insert(dirs, dir, 0);
}

int
ncaux_plugin_path_prepend(NCPluginList *dirs, const char *dir)
{
    return list_insert(dirs, dir, 1);
}

/* Deep copy of src into *dst (dst starts empty). */
static int
list_copy(const NCPluginList *src, NCPluginList *dst)
{
    size_t i;
    dst->ndirs = 0;
    dst->dirs = NULL;
    if (src->ndirs == 0)
        return NC_NOERR;
    if ((dst->dirs = calloc(src->ndirs, sizeof(char *))) == NULL)
        return NC_ENOMEM;
    for (i = 0; i < src->ndirs; i++) {
        dst->ndirs = i + 1; /* so clear() frees what was copied so far */
        if (src->dirs[i] == NULL || (dst->dirs[i] = strdup(src->dirs[i])) == NULL) {
            ncaux_plugin_path_clear(dst);
            return src->dirs[i] == NULL ? NC_EINVAL : NC_ENOMEM;
        }
    }
    return NC_NOERR;
}

/* ---- global path state --------------------------------------------------- */

static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static int plugin_initialized;                      /* path built? */
static NCPluginList plugin_path;                    /* the global path */
static NC_plugin_path_listener listeners[MAX_LISTENERS];
static int nlisteners;

/* Build the path from the environment if not yet done.  Caller holds the lock. */
static int
ensure_initialized_locked(void)
{
    int stat;
    const char *env;

    if (plugin_initialized)
        return NC_NOERR;
    env = getenv(PLUGIN_ENV);
    if (env == NULL)
        env = PLUGIN_DEFAULT_PATH;
    plugin_path.ndirs = 0;
    plugin_path.dirs = NULL;
    if ((stat = ncaux_plugin_path_parse(env, '\0', &plugin_path)))
        return stat;
    plugin_initialized = 1;
    return NC_NOERR;
}

/* Copy of the current path (initialising it first). */
static int
snapshot(NCPluginList *copy)
{
    int stat;
    pthread_mutex_lock(&plugin_lock);
    if ((stat = ensure_initialized_locked()) == NC_NOERR)
        stat = list_copy(&plugin_path, copy);
    pthread_mutex_unlock(&plugin_lock);
    return stat;
}

int
NC_plugin_path_add_listener(NC_plugin_path_listener fn)
{
    int stat = NC_NOERR;
    NCPluginList now = {0, NULL};

    if (fn == NULL)
        return NC_EINVAL;
    pthread_mutex_lock(&plugin_lock);
    if (nlisteners >= MAX_LISTENERS)
        stat = NC_ENOMEM;
    else
        listeners[nlisteners++] = fn;
    pthread_mutex_unlock(&plugin_lock);
    if (stat == NC_NOERR && (stat = snapshot(&now)) == NC_NOERR)
        stat = fn(&now);
    ncaux_plugin_path_clear(&now);
    return stat;
}

int
NC_plugin_path_finalize(void)
{
    pthread_mutex_lock(&plugin_lock);
    ncaux_plugin_path_clear(&plugin_path);
    plugin_initialized = 0;
    nlisteners = 0;
    pthread_mutex_unlock(&plugin_lock);
    return NC_NOERR;
}

/* ---- public API ---------------------------------------------------------- */

int
nc_plugin_path_ndirs(size_t *ndirsp)
{
    int stat;
    size_t n = 0;
    pthread_mutex_lock(&plugin_lock);
    if ((stat = ensure_initialized_locked()) == NC_NOERR)
        n = plugin_path.ndirs;
    pthread_mutex_unlock(&plugin_lock);
    if (stat == NC_NOERR && ndirsp)
        *ndirsp = n;
    return stat;
}

int
nc_plugin_path_get(NCPluginList *dirs)
{
    int stat;
    size_t i;
    NCPluginList copy = {0, NULL};

    if (dirs == NULL)
        return NC_NOERR;
    if ((stat = snapshot(&copy)))
        return stat;
    if (dirs->dirs == NULL) {
        /* Hand over the copy: vector and strings now belong to the caller. */
        dirs->dirs = copy.dirs;
        dirs->ndirs = copy.ndirs;
        return NC_NOERR;
    }
    /* Caller-supplied vector, assumed large enough (upstream contract);
     * the strings are still ours to give. */
    for (i = 0; i < copy.ndirs; i++)
        dirs->dirs[i] = copy.dirs[i];
    dirs->ndirs = copy.ndirs;
    free(copy.dirs);
    return NC_NOERR;
}

int
nc_plugin_path_set(NCPluginList *dirs)
{
    int stat;
    int i, n;
    NCPluginList fresh = {0, NULL};
    NCPluginList old;
    NC_plugin_path_listener tocall[MAX_LISTENERS];

    if (dirs == NULL || (dirs->ndirs > 0 && dirs->dirs == NULL))
        return NC_EINVAL;
    if ((stat = list_copy(dirs, &fresh)))
        return stat;
    pthread_mutex_lock(&plugin_lock);
    old = plugin_path;
    plugin_path = fresh;
    plugin_initialized = 1;
    n = nlisteners;
    memcpy(tocall, listeners, sizeof(tocall));
    pthread_mutex_unlock(&plugin_lock);
    ncaux_plugin_path_clear(&old);

    /* Tell the layers that keep their own copy; first error wins. */
    for (i = 0; i < n; i++) {
        int lstat = tocall[i](dirs);
        if (lstat && stat == NC_NOERR)
            stat = lstat;
    }
    return stat;
}

/* ---- one-string forms (';' separated), for Fortran ----------------------- */

int
ncaux_plugin_path_stringlen(void)
{
    int len = -1;
    char *s = NULL;
    NCPluginList l = {0, NULL};

    if (nc_plugin_path_get(&l) == NC_NOERR && ncaux_plugin_path_tostring(&l, ';', &s) == NC_NOERR)
        len = (int)strlen(s);
    ncaux_plugin_path_clear(&l);
    free(s);
    return len;
}

int
ncaux_plugin_path_stringget(int pathlen, char *path)
{
    int stat;
    char *s = NULL;
    NCPluginList l = {0, NULL};

    if (pathlen <= 0 || path == NULL)
        return NC_EINVAL;
    if ((stat = nc_plugin_path_get(&l)) == NC_NOERR
        && (stat = ncaux_plugin_path_tostring(&l, ';', &s)) == NC_NOERR)
        strncpy(path, s, (size_t)pathlen); /* as upstream: NUL only if room */
    ncaux_plugin_path_clear(&l);
    free(s);
    return stat;
}

int
ncaux_plugin_path_stringset(int pathlen, const char *path)
{
    int stat;
    NCPluginList l = {0, NULL};

    if (pathlen <= 0 || path == NULL)
        return NC_EINVAL;
    if ((stat = ncaux_plugin_path_parsen((size_t)pathlen, path, ';', &l)) == NC_NOERR)
        stat = nc_plugin_path_set(&l);
    ncaux_plugin_path_clear(&l);
    return stat;
}
