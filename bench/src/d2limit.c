/* The floor of the D2 reads: what the requests alone cost, with libcurl
 * and nothing else (no netCDF, no parsing, no decoding, bodies dropped).
 *   d2limit -u URL -v VAR -z NZ -y NY -x NX -k stride|full [-s S]
 * makes the requests a DAP2 client cannot avoid for nc_dap2's read of the
 * same arguments: URL.dds and URL.das (the open), then URL.dods with the
 * projection of the read (VAR[0:S:last]... for stride, VAR for full), on
 * one curl handle, so one connection, as a client that keeps its
 * connection does.  The time runs from curl_global_init (which every
 * libcurl client pays once per process, like the open of nc_dap2's phase)
 * to the end of the last body.
 * Prints workload=LIMIT phase=d2_http_stride|d2_http_full with bytes =
 * the values the read delivers (4 per float), so that the summary's %L
 * of D2_stride / D2_read is floor time / measured time.  Exit 2 when a
 * request fails or answers other than 200. */
#include "bench_common.h"
#include <curl/curl.h>

static void usage(void)
{
    fprintf(stderr, "usage: d2limit -u URL -v VAR -z NZ -y NY -x NX -k stride|full [-s STRIDE]\n");
    exit(1);
}

static size_t drop(char *p, size_t size, size_t n, void *arg)
{
    (void)p;
    *(size_t *)arg += size * n;
    return size * n;
}

/* GET url on h; the body's length in *got.  0 on a 200 answer. */
static int get(CURL *h, const char *url, size_t *got)
{
    long code = 0;
    *got = 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, got);
    CURLcode rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if (rc != CURLE_OK || code != 200) {
        fprintf(stderr, "d2limit: %s: %s, HTTP %ld\n", url, curl_easy_strerror(rc), code);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *url = NULL, *var = NULL, *kind = NULL;
    size_t n[3] = {0, 0, 0};
    long s = 4;
    int c;
    while ((c = getopt(argc, argv, "u:v:z:y:x:k:s:")) != -1) {
        switch (c) {
        case 'u': url = optarg; break;
        case 'v': var = optarg; break;
        case 'z': n[0] = strtoul(optarg, NULL, 10); break;
        case 'y': n[1] = strtoul(optarg, NULL, 10); break;
        case 'x': n[2] = strtoul(optarg, NULL, 10); break;
        case 'k': kind = optarg; break;
        case 's': s = strtol(optarg, NULL, 10); break;
        default: usage();
        }
    }
    if (!url || !var || !kind || !n[0] || !n[1] || !n[2] || s < 1) usage();
    int strided = !strcmp(kind, "stride");
    if (!strided && strcmp(kind, "full")) usage();
    if (!strided) s = 1;

    size_t total = 1, ul = strlen(url) + strlen(var) + 256;
    char *dds = malloc(ul), *das = malloc(ul), *dods = malloc(ul);
    if (!dds || !das || !dods) return 2;
    snprintf(dds, ul, "%s.dds", url);
    snprintf(das, ul, "%s.das", url);
    int len = snprintf(dods, ul, "%s.dods?%s", url, var);
    for (int d = 0; d < 3; d++) {
        size_t cnt = (n[d] + (size_t)s - 1) / (size_t)s;
        total *= cnt;
        if (strided)  /* [first:stride:last], brackets %-encoded as clients send them */
            len += snprintf(dods + len, ul - (size_t)len, "%%5B0:%ld:%zu%%5D", s, (cnt - 1) * (size_t)s);
    }

    bench_phase ph;
    size_t got[3];
    phase_begin(&ph);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 2;
    CURL *h = curl_easy_init();
    if (h == NULL) return 2;
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, drop);
    int bad = get(h, dds, &got[0]) || get(h, das, &got[1]) || get(h, dods, &got[2]);
    curl_easy_cleanup(h);
    if (bad) return 2;
    phase_end(&ph, "LIMIT", strided ? "d2_http_stride" : "d2_http_full",
              (double)(total * sizeof(float)), " dods_bytes=%zu", got[2]);
    curl_global_cleanup();
    free(dds);
    free(das);
    free(dods);
    return 0;
}
