/* dutf8.c: name validation and Unicode normalisation shared by all formats.
 *
 * Names are UTF-8; objects are stored and looked up under their NFC form so
 * that differently composed spellings name the same object (upstream's rule).
 * ASCII names, the common case, skip libutf8proc entirely.
 */
#include "config.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "ncdispatch.h"

/* Length of the UTF-8 sequence starting at p, or -1 if it is malformed
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static int
utf8_seqlen(const unsigned char *p)
{
    utf8proc_int32_t cp;
    utf8proc_ssize_t n = utf8proc_iterate(p, -1, &cp);
    return (n <= 0 || cp < 0) ? -1 : (int)n;
}

int
NC_check_name(const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    unsigned char last = 0;

    if (name == NULL || *p == '\0')
        return NC_EBADNAME;
    /* First character: ASCII letter, digit or '_', or any valid multibyte character. */
    if (*p < 0x80) {
        if (!isalnum(*p) && *p != '_')
            return NC_EBADNAME;
    }
    while (*p) {
        if (*p < 0x80) {
            if (*p < 0x20 || *p == 0x7f || *p == '/')
                return NC_EBADNAME;
            last = *p;
            p++;
        } else {
            int n = utf8_seqlen(p);
            if (n < 0)
                return NC_EBADNAME;
            last = 0x80;
            p += n;
        }
    }
    if (last < 0x80 && isspace(last))
        return NC_EBADNAME;  /* trailing white space is not allowed */
    if ((size_t)(p - (const unsigned char *)name) > NC_MAX_NAME)
        return NC_EMAXNAME;
    return NC_NOERR;
}

int
NC_normalize_name(const char *name, char **normp)
{
    const unsigned char *p = (const unsigned char *)name;
    utf8proc_uint8_t *out = NULL;
    int ascii = 1;

    if (name == NULL)
        return NC_EBADNAME;
    for (; *p; p++) {
        if (*p >= 0x80) {
            ascii = 0;
            break;
        }
    }
    if (ascii) {
        *normp = NULL;
        return NC_NOERR;
    }
    if (utf8proc_map((const utf8proc_uint8_t *)name, 0, &out,
                     UTF8PROC_NULLTERM | UTF8PROC_STABLE | UTF8PROC_COMPOSE) < 0)
        return NC_EBADNAME;
    *normp = (char *)out;
    return NC_NOERR;
}
