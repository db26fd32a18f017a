/* netcdf_vutils.h: a growable pointer list (VList) and a growable string
 * (VString), header-only, for filter plugins and other code that must not
 * depend on libnetcdf.  Every function is private (static) to the file that
 * includes this header; libnetcdf exports none of them.
 *
 * As upstream's: a failed allocation is an assert; vlistget of an index
 * beyond the length asserts; a VString given fixed contents with
 * vssetcontents is "nonextendible" and asserts if it would have to grow;
 * an extendible VString is always nul-terminated.  vlistfreeall free()s the
 * elements and the list; vsextract hands the string to the caller (never
 * NULL) and leaves the VString empty. */
#ifndef NCVUTILS_H
#define NCVUTILS_H 1

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct VList {
    unsigned alloc;            /* slots allocated */
    unsigned length;           /* slots used */
    void** content;
} VList;

typedef struct VString {
    int nonextendible;         /* 1: contents set by vssetcontents, may not grow */
    unsigned alloc;            /* bytes allocated, not counting the nul */
    unsigned length;
    char* content;
} VString;

/* VString grows by this many bytes at a time. */
#define VSTRALLOC 64

#if defined(_CPLUSPLUS_) || defined(__CPLUSPLUS__)
#define EXTERNC extern "C"
#else
#define EXTERNC extern
#endif

#if defined(__GNUC__)
#define VU_LOCAL_ static __attribute__((unused))
#else
#define VU_LOCAL_ static
#endif

/* Set by the first vlistnew/vsnew (kept for upstream's name). */
VU_LOCAL_ int util_initialized = 0;

VU_LOCAL_ void
util_initialize(void)
{
    util_initialized = 1;
}

VU_LOCAL_ VList*
vlistnew(void)
{
    VList* l;
    if (!util_initialized) util_initialize();
    l = (VList*)calloc(1, sizeof(VList));
    assert(l != NULL);
    return l;
}

VU_LOCAL_ void
vlistfree(VList* l)
{
    if (l == NULL) return;
    free(l->content);
    free(l);
}

/* Room for about twice the current length. */
VU_LOCAL_ void
vlistexpand(VList* l)
{
    void** grown;
    unsigned n;
    if (l == NULL) return;
    n = l->length * 2 + 1;
    if (l->alloc >= n) return;
    grown = (void**)realloc(l->content, n * sizeof(void*));
    assert(grown != NULL);
    memset(grown + l->alloc, 0, (n - l->alloc) * sizeof(void*));
    l->content = grown;
    l->alloc = n;
}

VU_LOCAL_ void*
vlistget(VList* l, unsigned index)
{
    if (l == NULL || l->length == 0) return NULL;
    assert(index < l->length);
    return l->content[index];
}

VU_LOCAL_ void
vlistpush(VList* l, void* elem)
{
    if (l == NULL) return;
    while (l->length >= l->alloc) vlistexpand(l);
    l->content[l->length++] = elem;
}

/* Remove and return the first element. */
VU_LOCAL_ void*
vlistfirst(VList* l)
{
    void* first;
    if (l == NULL || l->length == 0) return NULL;
    first = l->content[0];
    memmove(l->content, l->content + 1, (l->length - 1) * sizeof(void*));
    l->length--;
    return first;
}

/* free() every element, then the list. */
VU_LOCAL_ void
vlistfreeall(VList* l)
{
    unsigned i;
    if (l == NULL) return;
    for (i = 0; i < l->length; i++) free(l->content[i]);
    vlistfree(l);
}

VU_LOCAL_ VString*
vsnew(void)
{
    VString* vs;
    if (!util_initialized) util_initialize();
    vs = (VString*)calloc(1, sizeof(VString));
    assert(vs != NULL);
    return vs;
}

VU_LOCAL_ void
vsfree(VString* vs)
{
    if (vs == NULL) return;
    free(vs->content);
    free(vs);
}

/* VSTRALLOC more bytes (and the nul). */
VU_LOCAL_ void
vsexpand(VString* vs)
{
    char* grown;
    unsigned n;
    if (vs == NULL) return;
    assert(vs->nonextendible == 0);
    n = vs->alloc + VSTRALLOC;
    grown = (char*)realloc(vs->content, (size_t)n + 1);
    assert(grown != NULL);
    grown[vs->length] = '\0';
    vs->content = grown;
    vs->alloc = n;
}

/* Append n bytes of elem (n == 0: all of the string elem). */
VU_LOCAL_ void
vsappendn(VString* vs, const char* elem, unsigned n)
{
    assert(vs != NULL && elem != NULL);
    if (n == 0) n = (unsigned)strlen(elem);
    if (vs->nonextendible)
        assert(vs->alloc >= vs->length + n);
    else
        while (vs->alloc < vs->length + n) vsexpand(vs);
    memcpy(vs->content + vs->length, elem, n);
    vs->length += n;
    if (!vs->nonextendible) vs->content[vs->length] = '\0';
}

VU_LOCAL_ void
vsappend(VString* vs, char elem)
{
    vsappendn(vs, &elem, 1);
}

/* Use the caller's buffer of alloc bytes as the (full, fixed) contents. */
VU_LOCAL_ void
vssetcontents(VString* vs, char* contents, unsigned alloc)
{
    assert(vs != NULL && contents != NULL);
    if (!vs->nonextendible) free(vs->content);
    vs->content = contents;
    vs->length = alloc;
    vs->alloc = alloc;
    vs->nonextendible = 1;
}

/* Take the contents (an empty string when there were none). */
VU_LOCAL_ char*
vsextract(VString* vs)
{
    char* s;
    if (vs == NULL) return NULL;
    if (vs->content == NULL) {
        if ((vs->content = (char*)calloc(1, 1)) == NULL) return NULL;
    }
    s = vs->content;
    vs->content = NULL;
    vs->length = vs->alloc = 0;
    return s;
}

#define vlistcontents(l)  ((l)==NULL?NULL:(l)->content)
#define vlistlength(l)  ((l)==NULL?0:(int)(l)->length)
#define vlistclear(l)  vlistsetlength(l,0)
#define vlistsetlength(l,len)  do{if((l)!=NULL) (l)->length=(len);} while(0)

#define vscontents(vs)  ((vs)==NULL?NULL:(vs)->content)
#define vslength(vs)  ((vs)==NULL?0:(int)(vs)->length)
#define vscat(vs,s)  vsappendn(vs,s,0)
#define vsclear(vs)  vssetlength(vs,0)
#define vssetlength(vs,len)  do{if((vs)!=NULL) (vs)->length=(len);} while(0)

#endif /* NCVUTILS_H */
