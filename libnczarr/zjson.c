/* zjson.c: JSON text <-> json-c objects for the Zarr metadata, with the
 * range checks the metadata parsers need (metadata may be hostile). */
#include "config.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "zinternal.h"
#include "zmeta.h"

/* Deeper nesting than this is refused: nothing Zarr writes nests beyond a
 * few levels, and json-c's recursion must stay bounded on hostile input. */
#define NCZ_JSON_DEPTH 64

int
ncz_json_parse(const char *text, size_t len, json_object **objp)
{
    json_tokener *tok;
    json_object *obj;
    enum json_tokener_error jerr;

    *objp = NULL;
    if (text == NULL || len > (size_t)INT_MAX)
        return NC_ENCZARR;
    if ((tok = json_tokener_new_ex(NCZ_JSON_DEPTH)) == NULL)
        return NC_ENOMEM;
    obj = json_tokener_parse_ex(tok, text, (int)len);
    jerr = json_tokener_get_error(tok);
    if (jerr == json_tokener_continue) {
        /* Text ended inside a value, or a lone number: finish it. */
        obj = json_tokener_parse_ex(tok, "", 1);
        jerr = json_tokener_get_error(tok);
    }
    if (jerr == json_tokener_success) {
        /* Only white space may follow the value. */
        size_t off = json_tokener_get_parse_end(tok);
        for (; off < len; off++) {
            char c = text[off];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\0') {
                jerr = json_tokener_error_parse_unexpected;
                break;
            }
        }
    }
    json_tokener_free(tok);
    if (jerr != json_tokener_success) {
        json_object_put(obj);
        return NC_ENCZARR;
    }
    *objp = obj; /* NULL for the JSON literal null */
    return NC_NOERR;
}

int
ncz_json_read(NCZ_map *map, const char *key, json_object **objp)
{
    void *data = NULL;
    size_t len = 0;
    int stat;

    *objp = NULL;
    if ((stat = map->ops->read_all(map, key, &data, &len)))
        return stat;
    stat = ncz_json_parse(data, len, objp);
    free(data);
    return stat;
}

const char *
ncz_json_text(json_object *obj)
{
    /* Zarr-python writes sorted, indented JSON; any layout is valid.  Compact
     * with spaces as upstream, slashes unescaped (dimension references). */
    return json_object_to_json_string_ext(obj, JSON_C_TO_STRING_SPACED |
                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A growing text buffer for ncz_json_attr_text. */
struct jbuf {
    char *p;
    size_t n, cap;
    int err;
};

static void
jb_add(struct jbuf *b, const char *s, size_t l)
{
    if (b->err)
        return;
    if (b->cap - b->n <= l) {
        size_t ncap = b->cap ? b->cap : 64;
        while (ncap - b->n <= l) {
            if (ncap > SIZE_MAX / 2) {
                b->err = 1;
                return;
            }
            ncap *= 2;
        }
        char *np = realloc(b->p, ncap);
        if (np == NULL) {
            b->err = 1;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->n, s, l);
    b->n += l;
    b->p[b->n] = '\0';
}

static void
jb_str(struct jbuf *b, const char *s)
{
    jb_add(b, s, strlen(s));
}

/* A quoted string; only the escapes upstream's writer uses. */
static void
jb_quoted(struct jbuf *b, const char *s, size_t len)
{
    size_t run = 0;
    jb_add(b, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        char esc = 0;
        switch (s[i]) {
        case '\b': esc = 'b'; break;
        case '\f': esc = 'f'; break;
        case '\n': esc = 'n'; break;
        case '\r': esc = 'r'; break;
        case '\t': esc = 't'; break;
        case '"': esc = '"'; break;
        case '\\': esc = '\\'; break;
        default: break;
        }
        if (esc) {
            char e[2] = {'\\', esc};
            jb_add(b, s + run, i - run);
            jb_add(b, e, 2);
            run = i + 1;
        }
    }
    jb_add(b, s + run, len - run);
    jb_add(b, "\"", 1);
}

static void
jb_value(struct jbuf *b, json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null:
        jb_str(b, "null");
        break;
    case json_type_string:
        jb_quoted(b, json_object_get_string(o), (size_t)json_object_get_string_len(o));
        break;
    case json_type_array: {
        size_t n = json_object_array_length(o);
        jb_add(b, "[", 1);
        for (size_t i = 0; i < n; i++) {
            if (i)
                jb_add(b, ",", 1);
            jb_value(b, json_object_array_get_idx(o, i));
        }
        jb_add(b, "]", 1);
        break;
    }
    case json_type_object: {
        int first = 1;
        jb_add(b, "{", 1);
        json_object_object_foreach(o, k, v) {
            if (!first)
                jb_add(b, ", ", 2);
            first = 0;
            jb_quoted(b, k, strlen(k));
            jb_add(b, ": ", 2);
            jb_value(b, v);
        }
        jb_add(b, "}", 1);
        break;
    }
    default: {
        /* numbers and booleans: json-c keeps a parsed double's own text */
        const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        if (t == NULL)
            b->err = 1;
        else
            jb_str(b, t);
        break;
    }
    }
}

int
ncz_json_attr_text(json_object *obj, char **textp)
{
    struct jbuf b = {NULL, 0, 0, 0};
    *textp = NULL;
    jb_value(&b, obj);
    if (b.err || b.p == NULL) {
        free(b.p);
        return NC_ENOMEM;
    }
    *textp = b.p;
    return NC_NOERR;
}

int
ncz_json_write(NCZ_map *map, const char *key, json_object *obj)
{
    const char *text = ncz_json_text(obj);
    if (text == NULL)
        return NC_ENOMEM;
    return map->ops->write(map, key, strlen(text), text);
}

int
ncz_json_int64(json_object *obj, long long *vp)
{
    if (obj == NULL || !json_object_is_type(obj, json_type_int))
        return NC_ENCZARR;
    /* json-c keeps values above INT64_MAX as uint64. */
    if (json_object_get_uint64(obj) > (uint64_t)INT64_MAX && json_object_get_int64(obj) >= 0)
        return NC_ENCZARR;
    *vp = (long long)json_object_get_int64(obj);
    return NC_NOERR;
}

int
ncz_json_size(json_object *obj, size_t *vp)
{
    long long v;
    if (ncz_json_int64(obj, &v) || v < 0 || (unsigned long long)v > (unsigned long long)SIZE_MAX)
        return NC_ENCZARR;
    *vp = (size_t)v;
    return NC_NOERR;
}

int
ncz_json_uint(json_object *obj, unsigned int *vp)
{
    long long v;
    if (ncz_json_int64(obj, &v) || v < 0 || v > (long long)UINT_MAX)
        return NC_ENCZARR;
    *vp = (unsigned int)v;
    return NC_NOERR;
}

json_object *
ncz_json_get(json_object *dict, const char *key)
{
    json_object *v = NULL;
    if (dict == NULL || !json_object_is_type(dict, json_type_object))
        return NULL;
    if (!json_object_object_get_ex(dict, key, &v))
        return NULL;
    return v;
}

const char *
ncz_json_string(json_object *dict, const char *key)
{
    json_object *v = ncz_json_get(dict, key);
    if (v == NULL || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

int
ncz_json_add(json_object *dict, const char *key, json_object *val)
{
    if (val == NULL && dict == NULL)
        return NC_ENOMEM;
    if (json_object_object_add(dict, key, val) != 0) {
        json_object_put(val);
        return NC_ENOMEM;
    }
    return NC_NOERR;
}

int
ncz_json_append(json_object *arr, json_object *val)
{
    if (json_object_array_add(arr, val) != 0) {
        json_object_put(val);
        return NC_ENOMEM;
    }
    return NC_NOERR;
}
