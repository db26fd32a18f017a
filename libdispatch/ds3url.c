/* ds3url.c: which bucket and key (prefix) an S3 URL names, which region
 * signs for it, and whose credentials (see NC_s3_cfg_from_url in ncs3.h for
 * the precedence, which follows upstream netCDF-C's: environment over the
 * ~/.aws profile, "us-east-1" when nothing says otherwise, anonymous when no
 * key is found).  Shared by the Zarr S3 store (libnczarr/zmap_s3.c) and the
 * byte-range reader (dremote.c). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "ncs3.h"
#include "ncrc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <netcdf.h>

#define DEFAULT_REGION "us-east-1"

/* Free and clear the credentials (none: requests go unsigned). */
static void
drop_credentials(NC_s3_cfg *c)
{
    free(c->access_key);
    free(c->secret_key);
    free(c->session_token);
    c->access_key = c->secret_key = c->session_token = NULL;
}

void
NC_s3_cfg_clear(NC_s3_cfg *c)
{
    drop_credentials(c);
    free(c->endpoint);
    free(c->bucket);
    free(c->prefix);
    free(c->region);
    memset(c, 0, sizeof *c);
}

static char *
dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *
env_dup(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? strdup(v) : NULL;
}

/* One AWS setting as upstream 4.10.1 merges them: the environment variable
 * AWS_<name>, else the .ncrc key AWS.<name> for this store's URL (an entry
 * under a matching [url] prefix wins over a plain one), else NULL. */
static char *
aws_setting(const char *name, const char *url)
{
    char key[64];
    snprintf(key, sizeof key, "AWS_%s", name);
    char *v = env_dup(key);
    if (v)
        return v;
    snprintf(key, sizeof key, "AWS.%s", name);
    if (!(v = NC_rc_lookup(key, url)) || *v)
        return v;
    free(v);
    return NULL;
}

/* ---- ~/.aws files ---------------------------------------------------------- */

static char *
trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

int
NC_s3_ini_lookup(const char *file, const char *section, const char *key, char **valp)
{
    *valp = NULL;
    FILE *f = fopen(file, "r");
    if (!f)
        return NC_NOERR; /* no file: nothing configured */
    char line[4096];
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = trim(line);
        if (*s == '#' || *s == ';' || *s == '\0')
            continue;
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e)
                continue;
            *e = '\0';
            in = strcmp(trim(s + 1), section) == 0;
            continue;
        }
        if (!in)
            continue;
        char *eq = strchr(s, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (strcasecmp(trim(s), key) == 0) {
            fclose(f);
            if (!(*valp = strdup(trim(eq + 1))))
                return NC_ENOMEM;
            return NC_NOERR;
        }
    }
    fclose(f);
    return NC_NOERR;
}

/* ~/.aws/NAME, or the file an environment variable (or .ncrc key) names. */
static char *
aws_file(const char *setting, const char *name, const char *url)
{
    char *v = aws_setting(setting, url);
    if (v)
        return v;
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + strlen(name) + 8;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.aws/%s", home, name);
    return p;
}

/* Look key up for profile in the credentials file, then the config file. */
static int
profile_value(const char *creds, const char *config, const char *profile, const char *key,
              char **valp)
{
    int stat = NC_NOERR;
    *valp = NULL;
    if (creds && (stat = NC_s3_ini_lookup(creds, profile, key, valp)))
        return stat;
    if (!*valp && config) {
        char sect[512];
        if (strcmp(profile, "default") == 0)
            snprintf(sect, sizeof sect, "default");
        else
            snprintf(sect, sizeof sect, "profile %s", profile);
        if ((stat = NC_s3_ini_lookup(config, sect, key, valp)))
            return stat;
        if (!*valp) /* some tools write [NAME] in config too */
            stat = NC_s3_ini_lookup(config, profile, key, valp);
    }
    return stat;
}

/* url: the store's URL, for URL-scoped .ncrc entries. */
static int
load_identity(NC_s3_cfg *c, const char *hostregion, const char *url)
{
    int stat = NC_NOERR;
    char *creds = aws_file("SHARED_CREDENTIALS_FILE", "credentials", url);
    char *config = aws_file("CONFIG_FILE", "config", url);
    char *profile = aws_setting("PROFILE", url);
    char *pregion = NULL;
    const char *prof = profile ? profile : "default";
    int anonymous = strcmp(prof, "no") == 0;

    if (!anonymous) {
        c->access_key = aws_setting("ACCESS_KEY_ID", url);
        c->secret_key = aws_setting("SECRET_ACCESS_KEY", url);
        c->session_token = aws_setting("SESSION_TOKEN", url);
        if (!c->access_key || !c->secret_key) {
            drop_credentials(c);
            if ((stat = profile_value(creds, config, prof, "aws_access_key_id", &c->access_key)) ||
                (stat = profile_value(creds, config, prof, "aws_secret_access_key",
                                      &c->secret_key)) ||
                (stat = profile_value(creds, config, prof, "aws_session_token",
                                      &c->session_token)))
                goto done;
        }
        if (!c->access_key || !c->secret_key || !*c->access_key || !*c->secret_key)
            drop_credentials(c);
        if ((stat = profile_value(creds, config, prof, "region", &pregion)))
            goto done;
    }
    if (hostregion)
        c->region = strdup(hostregion);
    else if (!(c->region = aws_setting("REGION", url)) &&
             !(c->region = aws_setting("DEFAULT_REGION", url)))
        c->region = strdup(pregion && *pregion ? pregion : DEFAULT_REGION);
    if (!c->region)
        stat = NC_ENOMEM;
done:
    free(creds);
    free(config);
    free(profile);
    free(pregion);
    return stat;
}

/* ---- URL forms --------------------------------------------------------------- */

/* host "B.s3.R.amazonaws.com", "B.s3-R.amazonaws.com", "B.s3.amazonaws.com",
 * "s3.R.amazonaws.com", "s3.amazonaws.com": *bucketp (virtual host) and
 * *regionp from it.  0 if host is not an AWS S3 host. */
static int
aws_host(const char *host, char **bucketp, char **regionp)
{
    static const char tail[] = ".amazonaws.com";
    size_t hl = strlen(host), tl = sizeof tail - 1;
    *bucketp = *regionp = NULL;
    if (hl <= tl || strcasecmp(host + hl - tl, tail) != 0)
        return 0;
    size_t rest = hl - tl; /* host[0..rest) = "[B.]s3[.R|-R]" */
    const char *s3 = NULL;
    if (rest >= 2 && strncasecmp(host, "s3", 2) == 0 && (rest == 2 || host[2] == '.' || host[2] == '-'))
        s3 = host;
    else {
        /* the last ".s3" label start inside rest */
        for (size_t i = rest; i-- > 0;)
            if (host[i] == '.' && i + 3 <= rest && strncasecmp(host + i + 1, "s3", 2) == 0 &&
                (i + 3 == rest || host[i + 3] == '.' || host[i + 3] == '-')) {
                s3 = host + i + 1;
                if (!(*bucketp = dupn(host, i)))
                    return -1;
                break;
            }
    }
    if (!s3)
        return 0;
    const char *after = s3 + 2, *end = host + rest;
    if (after < end) {
        after++; /* '.' or '-' */
        /* "s3.dualstack.R" and similar: the region is the last label */
        const char *dot = NULL;
        for (const char *p = after; p < end; p++)
            if (*p == '.')
                dot = p;
        if (dot)
            after = dot + 1;
        if (after < end && !(*regionp = dupn(after, (size_t)(end - after))))
            return -1;
    }
    return 1;
}

/* Is key ("/a/b") unusable as an object key: too long, an empty, "." or
 * ".." component, or a control character? */
static int
key_bad(const char *key)
{
    const char *p = key;
    if (strnlen(key, NC_S3_MAX_KEY + 1) > NC_S3_MAX_KEY)
        return 1;
    while (*p == '/') {
        const char *c = ++p;
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 1;
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)c[i] < 0x20 || c[i] == 0x7f)
                return 1;
        p = c + n;
    }
    return *p != '\0';
}

/* Drop '/' at both ends; reject "." and ".." components and empty ones. */
static int
clean_prefix(const char *p, size_t n, char **outp)
{
    while (n && *p == '/')
        p++, n--;
    while (n && p[n - 1] == '/')
        n--;
    if (!(*outp = dupn(p, n)))
        return NC_ENOMEM;
    if (n) {
        char *k = malloc(n + 2);
        if (!k)
            return NC_ENOMEM;
        k[0] = '/';
        memcpy(k + 1, p, n);
        k[n + 1] = '\0';
        int bad = key_bad(k);
        free(k);
        if (bad)
            return NC_EURL;
    }
    return NC_NOERR;
}

int
NC_s3_cfg_from_url(const char *url, NC_s3_cfg *c)
{
    int stat = NC_NOERR;
    char *host = NULL, *hbucket = NULL, *hregion = NULL;
    memset(c, 0, sizeof *c);

    if (strpbrk(url, "?# \t\r\n")) {
        stat = NC_EURL;
        goto done;
    }
    if (strncasecmp(url, "s3://", 5) == 0) {
        const char *b = url + 5, *slash = strchr(b, '/');
        size_t bl = slash ? (size_t)(slash - b) : strlen(b);
        if (bl == 0 || memchr(b, '@', bl) || memchr(b, ':', bl)) {
            stat = NC_EURL;
            goto done;
        }
        if (!(c->bucket = dupn(b, bl))) {
            stat = NC_ENOMEM;
            goto done;
        }
        if ((stat = clean_prefix(slash ? slash : "", slash ? strlen(slash) : 0, &c->prefix)))
            goto done;
        if ((stat = load_identity(c, NULL, url)))
            goto done;
        char *ep = env_dup("AWS_ENDPOINT_URL");
        if (ep) {
            for (size_t l = strlen(ep); l && ep[l - 1] == '/'; l--)
                ep[l - 1] = '\0';
            c->endpoint = ep;
        } else {
            size_t n = strlen(c->region) + 32;
            if ((c->endpoint = malloc(n)))
                snprintf(c->endpoint, n, "https://s3.%s.amazonaws.com", c->region);
        }
        if (!c->endpoint)
            stat = NC_ENOMEM;
        goto done;
    }

    /* http(s)://host[:port]/... */
    const char *hs = strstr(url, "://");
    if (!hs) {
        stat = NC_EURL;
        goto done;
    }
    hs += 3;
    const char *pathp = strchr(hs, '/');
    size_t hl = pathp ? (size_t)(pathp - hs) : strlen(hs);
    if (hl == 0 || memchr(hs, '@', hl)) {
        stat = NC_EURL;
        goto done;
    }
    if (!(c->endpoint = dupn(url, (size_t)(hs - url) + hl))) {
        stat = NC_ENOMEM;
        goto done;
    }
    const char *colon = memchr(hs, ':', hl);
    if (!(host = dupn(hs, colon ? (size_t)(colon - hs) : hl))) {
        stat = NC_ENOMEM;
        goto done;
    }
    if (aws_host(host, &hbucket, &hregion) < 0) {
        stat = NC_ENOMEM;
        goto done;
    }
    const char *path = pathp ? pathp : "";
    if (hbucket) {
        c->vhost = 1;
        c->bucket = hbucket;
        hbucket = NULL;
        stat = clean_prefix(path, strlen(path), &c->prefix);
    } else {
        while (*path == '/')
            path++;
        const char *slash = strchr(path, '/');
        size_t bl = slash ? (size_t)(slash - path) : strlen(path);
        if (bl == 0) {
            stat = NC_EURL; /* no bucket */
            goto done;
        }
        if (!(c->bucket = dupn(path, bl))) {
            stat = NC_ENOMEM;
            goto done;
        }
        stat = clean_prefix(slash ? slash : "", slash ? strlen(slash) : 0, &c->prefix);
    }
    if (!stat)
        stat = load_identity(c, hregion, url);
done:
    free(host);
    free(hbucket);
    free(hregion);
    if (stat)
        NC_s3_cfg_clear(c);
    return stat;
}
