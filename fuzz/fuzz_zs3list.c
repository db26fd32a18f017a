/* fuzz_zs3list.c: libFuzzer target for what an S3 server (or a URL) can hand
 * the S3 store: the ListObjectsV2 XML answer, the URL forms, keys.
 * The first byte picks the parser:
 *   0 (and anything else)  ncz_s3_parse_list on the rest, then every key and
 *                          prefix through ncz_key_check and ncz_s3_encode
 *   1                      ncz_s3_cfg_from_url on the rest (NUL-terminated)
 *   2                      ncz_key_check / ncz_prefix_check / ncz_s3_encode
 *   build-fuzz/fuzz/fuzz_zs3list -max_total_time=600 CORPUS_DIR fuzz/corpus_zs3list */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zmap_s3.h"

static void
check_keys(const NCZ_keys *k)
{
    for (size_t i = 0; i < k->n; i++) {
        char *enc = NULL;
        size_t n = strlen(k->keys[i]);
        char *key = malloc(n + 2);
        if (!key)
            return;
        key[0] = '/';
        memcpy(key + 1, k->keys[i], n + 1);
        (void)ncz_key_check(key);
        if (ncz_s3_encode(k->keys[i], 1, &enc) == 0)
            free(enc);
        free(key);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        /* URL parsing reads credentials: keep the fuzzer off real files */
        setenv("HOME", "/nonexistent", 1);
        setenv("AWS_PROFILE", "no", 1);
        unsetenv("AWS_CONFIG_FILE");
        unsetenv("AWS_SHARED_CREDENTIALS_FILE");
    }
    if (size < 1)
        return 0;
    int mode = data[0];
    data++;
    size--;
    if (mode == 1 || mode == 2) {
        char *s = malloc(size + 1);
        if (!s)
            return 0;
        memcpy(s, data, size);
        s[size] = '\0';
        if (mode == 1) {
            NCZ_s3_cfg cfg;
            if (ncz_s3_cfg_from_url(s, &cfg) == 0)
                ncz_s3_cfg_clear(&cfg);
        } else {
            char *enc = NULL;
            (void)ncz_key_check(s);
            (void)ncz_prefix_check(s);
            if (ncz_s3_encode(s, mode & 1, &enc) == 0)
                free(enc);
        }
        free(s);
        return 0;
    }
    NCZ_s3_listing l;
    if (ncz_s3_parse_list((const char *)data, size, &l) == 0) {
        check_keys(&l.keys);
        check_keys(&l.prefixes);
        ncz_s3_listing_clear(&l);
    }
    return 0;
}
