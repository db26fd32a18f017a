/* drc.c: the .rc key/value table behind nc_rc_get()/nc_rc_set().
 *
 * Contract: ncrc.h.  The table is a small array of entries (url prefix or
 * NULL, key, value) guarded by rc_lock and loaded on first use.  Lookups
 * are linear: the table holds a handful of entries.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "config.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"
#include "ncrc.h"

typedef struct RCEntry {
    char *url;    /* "[...]" prefix without scheme, or NULL */
    char *key;    /* never NULL */
    char *value;  /* never NULL */
} RCEntry;

static pthread_mutex_t rc_lock = PTHREAD_MUTEX_INITIALIZER;
static int rc_loaded;       /* files read? */
static int rc_ignore;       /* NCRCENV_IGNORE was set */
static RCEntry *rc_entries; /* the table */
static size_t rc_count, rc_cap;

static const char *const rc_names[] = {".ncrc", ".daprc", ".dodsrc"};

static int
same(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Insert or overwrite (url, key).  Takes copies.  Caller holds the lock. */
static int
rc_put(const char *url, const char *key, const char *value)
{
    size_t i;
    char *v, *k = NULL, *u = NULL;

    if ((v = strdup(value)) == NULL)
        return NC_ENOMEM;
    for (i = 0; i < rc_count; i++) {
        if (same(rc_entries[i].url, url) && strcmp(rc_entries[i].key, key) == 0) {
            free(rc_entries[i].value);
            rc_entries[i].value = v;
            return NC_NOERR;
        }
    }
    if (rc_count == rc_cap) {
        size_t ncap = rc_cap ? 2 * rc_cap : 16;
        RCEntry *ne = realloc(rc_entries, ncap * sizeof(RCEntry));
        if (ne == NULL)
            goto nomem;
        rc_entries = ne;
        rc_cap = ncap;
    }
    if ((k = strdup(key)) == NULL || (url != NULL && (u = strdup(url)) == NULL))
        goto nomem;
    rc_entries[rc_count].url = u;
    rc_entries[rc_count].key = k;
    rc_entries[rc_count].value = v;
    rc_count++;
    return NC_NOERR;
nomem:
    free(v);
    free(k);
    free(u);
    return NC_ENOMEM;
}

static char *
trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

/* Drop a "scheme://" prefix so patterns and URLs compare host/port/path. */
static const char *
skip_scheme(const char *url)
{
    const char *p = strstr(url, "://");
    return p ? p + 3 : url;
}

/* target ("host[:port]/path...", scheme already dropped) without its
 * "user[:password]@" part. */
static const char *
skip_userinfo(const char *target)
{
    size_t alen = strcspn(target, "/?#");
    const char *at = NULL, *p;
    for (p = target; p < target + alen; p++)
        if (*p == '@')
            at = p;
    return at ? at + 1 : target;
}

/* Does the entry pattern "host[:port][/path]" apply to target?  Host and
 * port compare whole (an entry for port 80 is not one for 8080, an entry
 * without a port is not one for a URL with a port); a path compares as a
 * prefix. */
static int
rc_match(const char *target, const char *pattern)
{
    size_t n = strlen(pattern);
    if (strncmp(target, pattern, n) != 0)
        return 0;
    if (strchr(pattern, '/') != NULL)
        return 1;
    return target[n] == '\0' || target[n] == '/' || target[n] == '?' || target[n] == '#';
}

/* Read one file if it exists; malformed lines are skipped. */
static void
rc_load_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4096];

    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *s = trim(line), *url = NULL, *eq;
        if (*s == '\0' || *s == '#')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (close == NULL)
                continue;
            *close = '\0';
            url = trim(s + 1);
            url = (char *)skip_scheme(url);
            s = trim(close + 1);
        }
        eq = strchr(s, '=');
        if (eq != NULL)
            *eq = '\0';
        s = trim(s);
        if (*s == '\0')
            continue;
        (void)rc_put(url != NULL && *url ? url : NULL, s, eq ? trim(eq + 1) : "");
    }
    fclose(f);
}

static void
rc_load_dir(const char *dir)
{
    size_t i;
    for (i = 0; i < sizeof(rc_names) / sizeof(rc_names[0]); i++) {
        size_t n = strlen(dir) + strlen(rc_names[i]) + 2;
        char *path = malloc(n);
        if (path == NULL)
            return;
        snprintf(path, n, "%s/%s", dir, rc_names[i]);
        rc_load_file(path);
        free(path);
    }
}

/* Caller holds the lock. */
static void
rc_ensure_loaded(void)
{
    const char *home, *rcfile;
    if (rc_loaded)
        return;
    rc_loaded = 1;
    if (getenv("NCRCENV_IGNORE") != NULL) {
        rc_ignore = 1;
        return;
    }
    if ((rcfile = getenv("NCRCENV_RC")) != NULL && *rcfile) {
        rc_load_file(rcfile);
        return;
    }
    home = getenv("NCRCENV_HOME");
    if (home == NULL || *home == '\0')
        home = getenv("HOME");
    if (home != NULL && *home)
        rc_load_dir(home);
    rc_load_dir(".");
}

char *
NC_rc_lookup(const char *key, const char *url)
{
    size_t i, bestlen = 0;
    const char *found = NULL;
    const char *target = url ? skip_userinfo(skip_scheme(url)) : NULL;
    char *copy = NULL;

    if (key == NULL)
        return NULL;
    pthread_mutex_lock(&rc_lock);
    rc_ensure_loaded();
    for (i = 0; !rc_ignore && i < rc_count; i++) {
        const RCEntry *e = &rc_entries[i];
        if (strcmp(e->key, key) != 0)
            continue;
        if (e->url == NULL) {
            if (found == NULL)
                found = e->value;
        } else if (target != NULL && rc_match(target, e->url) && strlen(e->url) + 1 > bestlen) {
            /* The longest matching prefix is the most specific entry. */
            found = e->value;
            bestlen = strlen(e->url) + 1;
        }
    }
    if (found != NULL)
        copy = strdup(found);
    pthread_mutex_unlock(&rc_lock);
    return copy;
}

char *
nc_rc_get(const char *key)
{
    return NC_rc_lookup(key, NULL);
}

int
nc_rc_set(const char *key, const char *value)
{
    int stat = NC_NOERR;
    if (key == NULL || *key == '\0' || value == NULL)
        return NC_EINVAL;
    pthread_mutex_lock(&rc_lock);
    rc_ensure_loaded();
    if (!rc_ignore)
        stat = rc_put(NULL, key, value);
    pthread_mutex_unlock(&rc_lock);
    return stat;
}

int
NC_rc_finalize(void)
{
    size_t i;
    pthread_mutex_lock(&rc_lock);
    for (i = 0; i < rc_count; i++) {
        free(rc_entries[i].url);
        free(rc_entries[i].key);
        free(rc_entries[i].value);
    }
    free(rc_entries);
    rc_entries = NULL;
    rc_count = rc_cap = 0;
    rc_loaded = rc_ignore = 0;
    pthread_mutex_unlock(&rc_lock);
    return NC_NOERR;
}
