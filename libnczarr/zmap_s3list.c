/* zmap_s3list.c: the ListObjectsV2 answer of S3 (libxml2), and the
 * percent-encoding S3 keys and SigV4 need.
 *
 * The answer is untrusted input: it is parsed without network access,
 * without entity substitution or DTD loading, and anything that is not a
 * ListBucketResult is NC_ES3.  Element names are matched without their
 * namespace (servers differ on it). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include "zmap_s3.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <netcdf.h>

void
ncz_s3_listing_clear(NCZ_s3_listing *l)
{
    ncz_keys_free(&l->keys);
    ncz_keys_free(&l->prefixes);
    free(l->next_token);
    l->next_token = NULL;
    l->truncated = 0;
}

static int
named(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Text of the first child element called name, or NULL (xmlFree it). */
static xmlChar *
child_text(const xmlNode *parent, const char *name)
{
    for (const xmlNode *c = parent->children; c; c = c->next)
        if (named(c, name))
            return xmlNodeGetContent(c);
    return NULL;
}

int
ncz_s3_parse_list(const char *xml, size_t len, NCZ_s3_listing *out)
{
    int stat = NC_NOERR;
    xmlDoc *doc = NULL;

    memset(out, 0, sizeof *out);
    if (!xml || len == 0 || len > INT_MAX)
        return NC_ES3;
    doc = xmlReadMemory(xml, (int)len, "list.xml", NULL,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!root || !named(root, "ListBucketResult")) {
        stat = NC_ES3;
        goto done;
    }
    for (const xmlNode *c = root->children; c && !stat; c = c->next) {
        xmlChar *t = NULL;
        if (named(c, "Contents")) {
            if ((t = child_text(c, "Key")))
                stat = ncz_keys_add(&out->keys, (const char *)t);
        } else if (named(c, "CommonPrefixes")) {
            if ((t = child_text(c, "Prefix")))
                stat = ncz_keys_add(&out->prefixes, (const char *)t);
        } else if (named(c, "IsTruncated")) {
            t = xmlNodeGetContent(c);
            out->truncated = t && strcmp((const char *)t, "true") == 0;
        } else if (named(c, "NextContinuationToken")) {
            t = xmlNodeGetContent(c);
            free(out->next_token);
            out->next_token = NULL;
            if (t && *t && !(out->next_token = strdup((const char *)t)))
                stat = NC_ENOMEM;
        }
        xmlFree(t);
    }
    /* a truncated page without a token would make the caller loop forever */
    if (!stat && out->truncated && !out->next_token)
        stat = NC_ES3;
done:
    if (stat)
        ncz_s3_listing_clear(out);
    xmlFreeDoc(doc);
    return stat;
}

int
ncz_s3_encode(const char *s, int keep_slash, char **outp)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    if (n > (SIZE_MAX - 1) / 3)
        return NC_ENOMEM;
    char *o = malloc(3 * n + 1), *w = o;
    if (!o)
        return NC_ENOMEM;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
            *w++ = (char)c;
        } else {
            *w++ = '%';
            *w++ = hex[c >> 4];
            *w++ = hex[c & 15];
        }
    }
    *w = '\0';
    *outp = o;
    return NC_NOERR;
}
