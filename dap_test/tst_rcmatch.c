/* tst_rcmatch.c: which "[url]key=value" settings apply to a URL (ncrc.h).
 *
 * An entry's [host:port] must equal the URL's host and port (a prefix of
 * the port, or a host without the URL's port, does not match); an entry
 * with a path applies to the URLs under that path; user:password in the
 * URL does not stop a match; the most specific entry wins over a plain one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nctst.h"
#include "ncrc.h"

static void
expect(const char *key, const char *url, const char *want)
{
    char *got = NC_rc_lookup(key, url);
    if (want == NULL)
        CHECK(got == NULL, "%s for %s: want nothing, got %s", key, url, got);
    else
        CHECK(got != NULL && strcmp(got, want) == 0, "%s for %s: want %s, got %s", key, url, want,
              got ? got : "(nothing)");
    free(got);
}

int
main(void)
{
    static const char rc[] = "[127.0.0.1:80]TST.A=port80\n"
                             "[127.0.0.1:8080]TST.B=port8080\n"
                             "[127.0.0.1]TST.C=hostonly\n"
                             "[http://127.0.0.1:8080/dap]TST.D=pathdap\n"
                             "TST.D=plain\n";
    char path[] = "/tmp/tst_rcmatch_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL || fputs(rc, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "tst_rcmatch: cannot write %s\n", path);
        return 1;
    }
    unsetenv("NCRCENV_IGNORE");
    setenv("NCRCENV_RC", path, 1);

    expect("TST.A", "http://127.0.0.1:80/x", "port80");
    expect("TST.A", "http://127.0.0.1:8080/x", NULL);
    expect("TST.A", "http://127.0.0.1:80", "port80");
    expect("TST.B", "http://127.0.0.1:8080/x.dds", "port8080");
    expect("TST.B", "https://127.0.0.1:80801/x", NULL);
    expect("TST.B", "http://user:pwd@127.0.0.1:8080/x", "port8080");
    expect("TST.C", "http://127.0.0.1/x", "hostonly");
    expect("TST.C", "http://127.0.0.1:8080/x", NULL);
    expect("TST.C", "http://127.0.0.10/x", NULL);
    expect("TST.D", "http://127.0.0.1:8080/dap/test.01", "pathdap");
    expect("TST.D", "http://127.0.0.1:8080/other/test.01", "plain");
    expect("TST.D", NULL, "plain");
    remove(path);
    NC_rc_finalize();
    return nct_summary("tst_rcmatch");
}
