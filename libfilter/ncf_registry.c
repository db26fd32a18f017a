/* ncf_registry.c: which filters this process can run, by HDF5 id or codec
 * name (see ncfilter.h).
 *
 * Built-in codecs always win for their ids.  Other ids come from HDF5
 * filter plugins: every "lib*.so*" in the plugin path (nc_plugin_path_get,
 * i.e. HDF5_PLUGIN_PATH or HDF5's default) and then in our installed plugin
 * directory NCF_PLUGIN_DIR, the first library found for an id winning as in
 * HDF5.  Libraries exporting NCZ_get_codec_info / NCZ_codec_info_defaults
 * name the Zarr codec of an id.  The scan is lazy (first look-up of a
 * non-built-in id) and is redone when the plugin path has changed; codecs
 * from an earlier scan stay loaded (chains may still point at them) until
 * ncf_finalize().  One mutex guards the tables; no codec runs under it.
 */
#define _GNU_SOURCE /* strdup */
#include "config.h"
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "netcdf.h"
#include "netcdf_filter.h"
#include "netcdf_aux.h"
#define NC_FILTER_BUILD_NO_HDF5 1 /* only the struct layouts */
#include "netcdf_filter_build.h"
#include "ncfilter.h"
#include "ncf_codecs.h"

#ifndef NCF_PLUGIN_DIR
#define NCF_PLUGIN_DIR "/usr/local/hdf5/lib/plugin"
#endif

void ncf_pool_shutdown_default(void); /* ncf_pool.c */

#define BUILTIN(id, name, codec, fn, verify) \
    {id, name, codec, ncf_##fn##_filter, ncf_##fn##_into, ncf_##fn##_bound, 1, 1, 1, "builtin", verify}
static const ncf_codec builtins[] = {
    BUILTIN(NCF_ID_DEFLATE, "deflate", "zlib", deflate, NULL),
    BUILTIN(NCF_ID_SHUFFLE, "shuffle", "shuffle", shuffle, NULL),
    BUILTIN(NCF_ID_FLETCHER32, "fletcher32", "fletcher32", fletcher32, ncf_fletcher32_verify),
    BUILTIN(NCF_ID_SZIP, "szip", "szip", szip, NULL),
    BUILTIN(NCF_ID_BZIP2, "bzip2", "bz2", bzip2, NULL),
    BUILTIN(NCF_ID_ZSTD, "zstd", "zstd", zstd, NULL),
    BUILTIN(NCF_ID_BLOSC, "blosc", "blosc", blosc, NULL),
    /* Zarr codecs with no HDF5 filter id. */
    BUILTIN(NCF_ID_GZIP, "gzip", "gzip", gzip, NULL),
    BUILTIN(NCF_ID_CRC32C, "crc32c", "crc32c", crc32c, ncf_crc32c_verify),
};
#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

/* A loaded plugin filter. */
typedef struct plugin {
    ncf_codec codec;   /* codec.source and codec.codec owned here */
    int current;       /* found by the latest scan */
} plugin;

/* A (hdf5 id, codec name) pair from a codec library. */
typedef struct codecname {
    unsigned int id;
    char *name;
} codecname;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static plugin *plugins = NULL;
static size_t nplugins = 0, capplugins = 0;
static codecname *names = NULL;
static size_t nnames = 0, capnames = 0;
static void **libs = NULL;   /* every dlopen handle kept, closed at finalize */
static size_t nlibs = 0, caplibs = 0;
static char *scanned = NULL; /* the directory list of the latest scan */

static int
grow(void **vec, size_t *cap, size_t need, size_t elem)
{
    void *v;
    size_t ncap;
    if (need <= *cap)
        return 1;
    ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    if ((v = realloc(*vec, ncap * elem)) == NULL)
        return 0;
    *vec = v;
    *cap = ncap;
    return 1;
}

/* The directories to search, ':'-joined (caller frees). */
static char *
current_dirs(void)
{
    NCPluginList dirs = {0, NULL};
    size_t i, len = strlen(NCF_PLUGIN_DIR) + 1;
    char *s;
    int have_ours = 0;
    if (nc_plugin_path_get(&dirs) != NC_NOERR) {
        dirs.ndirs = 0;
        dirs.dirs = NULL;
    }
    for (i = 0; i < dirs.ndirs; i++)
        if (dirs.dirs[i]) {
            len += strlen(dirs.dirs[i]) + 1;
            if (strcmp(dirs.dirs[i], NCF_PLUGIN_DIR) == 0)
                have_ours = 1;
        }
    if ((s = malloc(len + 1)) == NULL) {
        ncaux_plugin_path_clear(&dirs);
        return NULL;
    }
    s[0] = '\0';
    for (i = 0; i < dirs.ndirs; i++) {
        if (dirs.dirs[i] == NULL || dirs.dirs[i][0] == '\0')
            continue;
        if (s[0])
            strcat(s, ":");
        strcat(s, dirs.dirs[i]);
    }
    if (!have_ours) {
        if (s[0])
            strcat(s, ":");
        strcat(s, NCF_PLUGIN_DIR);
    }
    ncaux_plugin_path_clear(&dirs);
    return s;
}

static plugin *
find_plugin_locked(unsigned int id)
{
    size_t i;
    for (i = 0; i < nplugins; i++)
        if (plugins[i].current && plugins[i].codec.id == id)
            return &plugins[i];
    return NULL;
}

static const char *
find_name_locked(unsigned int id)
{
    size_t i;
    for (i = 0; i < nnames; i++)
        if (names[i].id == id)
            return names[i].name;
    return NULL;
}

static void
add_name_locked(const NCZ_codec_t *c)
{
    size_t i;
    if (c == NULL || c->version != NCZ_CODEC_CLASS_VER || c->sort != NCZ_CODEC_HDF5 || c->codecid == NULL)
        return;
    for (i = 0; i < nnames; i++)
        if (names[i].id == c->hdf5id)
            return; /* first one wins */
    if (!grow((void **)&names, &capnames, nnames + 1, sizeof(codecname)))
        return;
    if ((names[nnames].name = strdup(c->codecid)) == NULL)
        return;
    names[nnames].id = c->hdf5id;
    nnames++;
}

/* Look at one shared library; keep it open if it gave us anything. */
static void
probe_locked(const char *path)
{
    void *lib, *sym;
    int used = 0;
    if ((lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL)
        return;
    if ((sym = dlsym(lib, "H5PLget_plugin_type")) != NULL) {
        H5PL_get_plugin_type_proto gettype;
        H5PL_get_plugin_info_proto getinfo;
        void *isym = dlsym(lib, "H5PLget_plugin_info");
        memcpy(&gettype, &sym, sizeof(gettype));
        memcpy(&getinfo, &isym, sizeof(getinfo));
        if (isym != NULL && gettype() == H5PL_TYPE_FILTER) {
            const H5Z_class2_t *cls = getinfo();
            if (cls != NULL && cls->version == H5Z_CLASS_T_VERS && cls->id > 0 && cls->id <= H5Z_FILTER_MAX
                && cls->filter != NULL && find_plugin_locked((unsigned)cls->id) == NULL
                && grow((void **)&plugins, &capplugins, nplugins + 1, sizeof(plugin))) {
                plugin *p = &plugins[nplugins];
                memset(p, 0, sizeof(*p));
                p->codec.id = (unsigned)cls->id;
                p->codec.name = cls->name;
                memcpy(&p->codec.filter, &cls->filter, sizeof(p->codec.filter));
                p->codec.can_encode = cls->encoder_present != 0;
                p->codec.can_decode = cls->decoder_present != 0;
                p->codec.source = strdup(path);
                p->current = 1;
                if (p->codec.source != NULL) {
                    nplugins++;
                    used = 1;
                }
            }
        }
    }
    if ((sym = dlsym(lib, "NCZ_get_codec_info")) != NULL) {
        NCZ_get_codec_info_proto get;
        memcpy(&get, &sym, sizeof(get));
        add_name_locked(get());
        used = 1;
    }
    if ((sym = dlsym(lib, "NCZ_codec_info_defaults")) != NULL) {
        NCZ_codec_info_defaults_proto get;
        const NCZ_codec_t *const *vec;
        memcpy(&get, &sym, sizeof(get));
        vec = get();
        for (; vec && *vec; vec++)
            add_name_locked(*vec);
        used = 1;
    }
    if (!used || !grow((void **)&libs, &caplibs, nlibs + 1, sizeof(void *))) {
        dlclose(lib);
        return;
    }
    libs[nlibs++] = lib;
}

/* HDF5's rule for plugin file names on this platform. */
static int
plugin_name(const char *n)
{
    return strncmp(n, "lib", 3) == 0 && strstr(n, ".so") != NULL;
}

static void
scan_dir_locked(const char *dir)
{
    DIR *d;
    struct dirent *e;
    char **files = NULL;
    size_t nfiles = 0, cap = 0, i;
    if ((d = opendir(dir)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (!plugin_name(e->d_name))
            continue;
        if (!grow((void **)&files, &cap, nfiles + 1, sizeof(char *)))
            break;
        if ((files[nfiles] = malloc(strlen(dir) + strlen(e->d_name) + 2)) == NULL)
            break;
        sprintf(files[nfiles], "%s/%s", dir, e->d_name);
        nfiles++;
    }
    closedir(d);
    /* A stable order: readdir's is arbitrary. */
    for (i = 1; i < nfiles; i++) {
        size_t j = i;
        char *t = files[i];
        while (j > 0 && strcmp(files[j - 1], t) > 0) {
            files[j] = files[j - 1];
            j--;
        }
        files[j] = t;
    }
    for (i = 0; i < nfiles; i++) {
        struct stat st;
        if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode))
            probe_locked(files[i]);
        free(files[i]);
    }
    free(files);
}

/* Rescan when the directory list differs from the last scan's. */
static void
ensure_scanned_locked(void)
{
    char *dirs = current_dirs(), *p, *save = NULL, *copy;
    size_t i;
    if (dirs == NULL)
        return;
    if (scanned != NULL && strcmp(scanned, dirs) == 0) {
        free(dirs);
        return;
    }
    for (i = 0; i < nplugins; i++)
        plugins[i].current = 0;
    for (i = 0; i < nnames; i++)
        free(names[i].name);
    nnames = 0;
    if ((copy = strdup(dirs)) != NULL) {
        for (p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
            scan_dir_locked(p);
        free(copy);
    }
    /* Names for the plugins found. */
    for (i = 0; i < nplugins; i++)
        if (plugins[i].current)
            plugins[i].codec.codec = find_name_locked(plugins[i].codec.id);
    free(scanned);
    scanned = dirs;
}

static const ncf_codec *
find_builtin(unsigned int id)
{
    size_t i;
    for (i = 0; i < NBUILTINS; i++)
        if (builtins[i].id == id)
            return &builtins[i];
    return NULL;
}

int
ncf_codec_lookup(unsigned int id, const ncf_codec **codecp)
{
    const ncf_codec *c = find_builtin(id);
    plugin *p;
    if (c == NULL && id <= H5Z_FILTER_MAX) {
        pthread_mutex_lock(&reg_lock);
        ensure_scanned_locked();
        p = find_plugin_locked(id);
        c = p ? &p->codec : NULL;
        pthread_mutex_unlock(&reg_lock);
    }
    if (c == NULL)
        return NC_ENOFILTER;
    if (codecp)
        *codecp = c;
    return NC_NOERR;
}

int
ncf_codec_find(unsigned int id, const ncf_codec **codecp)
{
    if (id > H5Z_FILTER_MAX)
        return NC_ENOFILTER; /* not an HDF5 filter id */
    return ncf_codec_lookup(id, codecp);
}

int
ncf_codec_find_name(const char *name, const ncf_codec **codecp)
{
    size_t i;
    const ncf_codec *c = NULL;
    if (name == NULL)
        return NC_EINVAL;
    for (i = 0; i < NBUILTINS && c == NULL; i++)
        if (strcasecmp(builtins[i].codec, name) == 0 || strcasecmp(builtins[i].name, name) == 0)
            c = &builtins[i];
    if (c == NULL) {
        pthread_mutex_lock(&reg_lock);
        ensure_scanned_locked();
        for (i = 0; i < nplugins && c == NULL; i++) {
            ncf_codec *pc = &plugins[i].codec;
            if (!plugins[i].current)
                continue;
            if ((pc->codec && strcasecmp(pc->codec, name) == 0) || (pc->name && strcasecmp(pc->name, name) == 0))
                c = pc;
        }
        pthread_mutex_unlock(&reg_lock);
    }
    if (c == NULL)
        return NC_ENOFILTER;
    if (codecp)
        *codecp = c;
    return NC_NOERR;
}

int
ncf_filter_avail(unsigned int id)
{
    return ncf_codec_find(id, NULL);
}

int
ncf_plugin_dirs(char **dirsp)
{
    if (dirsp == NULL)
        return NC_EINVAL;
    if ((*dirsp = current_dirs()) == NULL)
        return NC_ENOMEM;
    return NC_NOERR;
}

void
ncf_finalize(void)
{
    size_t i;
    ncf_pool_shutdown_default();
    pthread_mutex_lock(&reg_lock);
    for (i = 0; i < nplugins; i++)
        free((char *)plugins[i].codec.source);
    free(plugins);
    plugins = NULL;
    nplugins = capplugins = 0;
    for (i = 0; i < nnames; i++)
        free(names[i].name);
    free(names);
    names = NULL;
    nnames = capnames = 0;
    for (i = 0; i < nlibs; i++)
        dlclose(libs[i]);
    free(libs);
    libs = NULL;
    nlibs = caplibs = 0;
    free(scanned);
    scanned = NULL;
    pthread_mutex_unlock(&reg_lock);
}
