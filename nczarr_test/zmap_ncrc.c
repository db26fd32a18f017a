/* zmap_ncrc.c: AWS settings from .ncrc for the S3 store, as upstream 4.10.1
 * reads them: the keys AWS.PROFILE, AWS.CONFIG_FILE, AWS.REGION,
 * AWS.DEFAULT_REGION, AWS.ACCESS_KEY_ID, AWS.SECRET_ACCESS_KEY,
 * AWS.SESSION_TOKEN, plain or under a [url] prefix (the longest matching
 * prefix wins), each below its AWS_* environment variable.
 * Usage: zmap_ncrc EMPTYDIR (used as HOME; files are written there). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncrc.h"
#include "nctst.h"
#include "zmap_s3.h"

static char home[4096];

static void
write_file(const char *name, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", home, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    CHECK(f != NULL, "cannot write %s", p);
}

/* Load a new .ncrc (the table is read once per process until finalized). */
static void
ncrc(const char *text)
{
    write_file(".ncrc", text);
    NC_rc_finalize();
}

static int
eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static void
cfg_is(const char *url, const char *key, const char *secret, const char *token,
       const char *region)
{
    NCZ_s3_cfg c;
    int stat = ncz_s3_cfg_from_url(url, &c);
    CHECK(stat == 0, "%s: %s", url, nc_strerror(stat));
    if (stat)
        return;
    CHECK(eq(c.access_key, key), "%s: access key %s, want %s", url, c.access_key, key);
    CHECK(eq(c.secret_key, secret), "%s: secret %s, want %s", url, c.secret_key, secret);
    CHECK(eq(c.session_token, token), "%s: token %s, want %s", url, c.session_token, token);
    CHECK(eq(c.region, region), "%s: region %s, want %s", url, c.region, region);
    ncz_s3_cfg_clear(&c);
}

int
main(int argc, char **argv)
{
    static const char *const vars[] = {
        "AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_REGION",
        "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "NCRCENV_IGNORE", "NCRCENV_RC",
        "NCRCENV_HOME"};
    if (argc < 2) {
        fprintf(stderr, "usage: zmap_ncrc EMPTYDIR\n");
        return 2;
    }
    snprintf(home, sizeof home, "%s", argv[1]);
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    setenv("HOME", home, 1);
    const char *other = "http://127.0.0.1:9/other/p", *scoped = "http://127.0.0.1:9/bkt/p";

    /* plain keys everywhere, scoped keys for one bucket (and a longer,
     * more specific prefix for one store in it) */
    ncrc("AWS.ACCESS_KEY_ID=rckey\n"
         "AWS.SECRET_ACCESS_KEY=rcsecret\n"
         "AWS.REGION=eu-west-3\n"
         "[http://127.0.0.1:9/bkt]AWS.ACCESS_KEY_ID=scopedkey\n"
         "[http://127.0.0.1:9/bkt]AWS.SESSION_TOKEN=scopedtoken\n"
         "[http://127.0.0.1:9/bkt/deep]AWS.ACCESS_KEY_ID=deepkey\n"
         "[http://127.0.0.1:9/bkt]AWS.DEFAULT_REGION=ap-south-1\n");
    cfg_is(other, "rckey", "rcsecret", NULL, "eu-west-3");
    cfg_is(scoped, "scopedkey", "rcsecret", "scopedtoken", "eu-west-3");
    cfg_is("http://127.0.0.1:9/bkt/deep/x", "deepkey", "rcsecret", "scopedtoken", "eu-west-3");
    /* a region in the host name wins over every setting */
    cfg_is("https://b.s3.us-west-1.amazonaws.com/x", "rckey", "rcsecret", NULL, "us-west-1");

    /* the environment wins over .ncrc, key by key */
    setenv("AWS_ACCESS_KEY_ID", "envkey", 1);
    setenv("AWS_REGION", "ca-central-1", 1);
    cfg_is(scoped, "envkey", "rcsecret", "scopedtoken", "ca-central-1");
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_REGION");

    /* AWS.DEFAULT_REGION when no AWS.REGION */
    ncrc("[http://127.0.0.1:9/bkt]AWS.DEFAULT_REGION=ap-south-1\n");
    cfg_is(scoped, NULL, NULL, NULL, "ap-south-1");
    cfg_is(other, NULL, NULL, NULL, "us-east-1");

    /* AWS.PROFILE and AWS.CONFIG_FILE choose the ~/.aws profile */
    write_file("creds", "[default]\naws_access_key_id = defkey\naws_secret_access_key = defsecret\n"
                        "[named]\naws_access_key_id = namedkey\naws_secret_access_key = namedsecret\n");
    write_file("conf", "[profile named]\nregion = sa-east-1\n");
    char creds[4200], conf[4200], rc[9000];
    snprintf(creds, sizeof creds, "%s/creds", home);
    snprintf(conf, sizeof conf, "%s/conf", home);
    setenv("AWS_SHARED_CREDENTIALS_FILE", creds, 1);
    snprintf(rc, sizeof rc, "AWS.CONFIG_FILE=%s\n[http://127.0.0.1:9/bkt]AWS.PROFILE=named\n", conf);
    ncrc(rc);
    cfg_is(other, "defkey", "defsecret", NULL, "us-east-1");
    cfg_is(scoped, "namedkey", "namedsecret", NULL, "sa-east-1");
    setenv("AWS_PROFILE", "default", 1); /* the environment's profile wins */
    cfg_is(scoped, "defkey", "defsecret", NULL, "us-east-1");
    unsetenv("AWS_PROFILE");

    /* AWS.PROFILE=no: anonymous, whatever the files hold */
    ncrc("AWS.PROFILE=no\n");
    cfg_is(other, NULL, NULL, NULL, "us-east-1");
    /* an empty value is no setting */
    ncrc("AWS.PROFILE=\n");
    cfg_is(other, "defkey", "defsecret", NULL, "us-east-1");
    /* NCRCENV_IGNORE: no .ncrc at all */
    ncrc("AWS.PROFILE=no\n");
    setenv("NCRCENV_IGNORE", "1", 1);
    NC_rc_finalize();
    cfg_is(other, "defkey", "defsecret", NULL, "us-east-1");
    NC_rc_finalize();
    return nct_summary("zmap_ncrc");
}
