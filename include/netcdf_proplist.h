/* netcdf_proplist.h: a small property list (NCproplist) mapping short
 * keys to uintptr_t values or owned memory, as netCDF-C passes to filter
 * plugins.
 *
 * A program or plugin that includes this header gets a private (static)
 * copy of the read functions, ncplistget and ncplistith, and links against
 * nothing; as in upstream, the functions that build or free a list are not
 * declared for it.  libnetcdf compiles every function with external linkage
 * (NETCDF_PROPLIST_EXPORT, libdispatch/dproplist.c) and exports them.
 *
 * Keys are copied, truncated to NCPROPSMAXKEY characters; look-up is linear
 * (lists are short) and finds the first property of a key.  Values:
 * ncplistadd stores a plain value (never freed); ncplistaddbytes and
 * ncplistaddstring store a pointer the list takes over and free()s in
 * ncplistfree; ncplistaddx stores a pointer that ncplistfree hands to the
 * caller's reclaim function (0 from it makes ncplistfree return NC_EINVAL).
 * Functions return NC_NOERR, NC_ENOMEM, NC_EINVAL, or (ncplistget, key not
 * found) NC_ENOOBJECT. */
#ifndef NETCDF_PROPLIST_H
#define NETCDF_PROPLIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "netcdf.h"

#define NCPROPSMAXKEY 31 /* characters in a key, without the nul */

/* Reclaims an ncplistaddx value; returns 0 on error, 1 on success. */
typedef int (*NCPreclaimfcn)(uintptr_t userdata, const char* key, void* value, uintptr_t size);

/* One property. */
typedef struct NCProperty {
    char key[NCPROPSMAXKEY+1]; /* the key, nul-terminated */
    uintptr_t flags;           /* how the value is reclaimed: */
#       define NCPF_SIMPLE  (1<<0) /* never */
#       define NCPF_BYTES   (1<<1) /* free() */
#       define NCPF_COMPLEX (1<<2) /* the reclaim function */
    uintptr_t value;           /* the value, or a pointer as an integer */
    uintptr_t size;            /* bytes at the pointer (strings: strlen) */
    uintptr_t userdata;        /* passed to reclaim */
    NCPreclaimfcn reclaim;     /* NCPF_COMPLEX only */
} NCProperty;

/* The list. */
typedef struct NCproplist {
    size_t alloc;              /* properties allocated */
    size_t count;              /* properties defined */
    NCProperty* properties;
} NCproplist;

/* Number of properties. */
#define ncplistlen(plist) ((plist)->count)

#if defined(__GNUC__)
#define NCP_LOCAL_ static __attribute__((unused))
#else
#define NCP_LOCAL_ static
#endif
#ifdef NETCDF_PROPLIST_EXPORT
#define NCP_FUNC
#else
#define NCP_FUNC NCP_LOCAL_
#endif

#if defined(__cplusplus)
extern "C" {
#endif

#ifdef NETCDF_PROPLIST_EXPORT
/* Building and freeing: libnetcdf only. */
NCP_FUNC NCproplist* ncplistnew(void);
NCP_FUNC int ncplistfree(NCproplist* plist);
NCP_FUNC int ncplistadd(NCproplist* plist, const char* key, uintptr_t value);
NCP_FUNC int ncplistaddstring(NCproplist* plist, const char* key, const char* str);
NCP_FUNC int ncplistaddbytes(NCproplist* plist, const char* key, void* value, uintptr_t size);
NCP_FUNC int ncplistaddx(NCproplist* plist, const char* key, void* value, uintptr_t size,
                         uintptr_t userdata, NCPreclaimfcn fcn);
#endif

/* The value and size of key: NC_NOERR, or NC_ENOOBJECT (outputs 0). */
NCP_FUNC int ncplistget(const NCproplist* plist, const char* key, uintptr_t* valuep, uintptr_t* sizep);
/* The i-th property's key (pointer into the list), value and size. */
NCP_FUNC int ncplistith(const NCproplist* plist, size_t i, char* const* keyp, uintptr_t const* valuep,
                        uintptr_t* sizep);

#if defined(__cplusplus)
}
#endif

/* ---- implementation ------------------------------------------------------ */

NCP_FUNC int
ncplistget(const NCproplist* plist, const char* key, uintptr_t* valuep, uintptr_t* sizep)
{
    size_t i;
    if (valuep) *valuep = 0;
    if (sizep) *sizep = 0;
    if (plist == NULL || key == NULL) return NC_ENOOBJECT;
    for (i = 0; i < plist->count; i++) {
        const NCProperty* p = &plist->properties[i];
        if (strcmp(p->key, key) == 0) {
            if (valuep) *valuep = p->value;
            if (sizep) *sizep = p->size;
            return NC_NOERR;
        }
    }
    return NC_ENOOBJECT;
}

NCP_FUNC int
ncplistith(const NCproplist* plist, size_t i, char* const* keyp, uintptr_t const* valuep, uintptr_t* sizep)
{
    const NCProperty* p;
    if (plist == NULL) return NC_NOERR;
    if (i >= plist->count) return NC_EINVAL;
    p = &plist->properties[i];
    if (keyp) *(char**)keyp = (char*)p->key;
    if (valuep) *(uintptr_t*)valuep = p->value;
    if (sizep) *sizep = p->size;
    return NC_NOERR;
}

#ifdef NETCDF_PROPLIST_EXPORT
/* A new property slot with key copied in, or NULL (NC_ENOMEM). */
NCP_LOCAL_ NCProperty*
ncp_slot_(NCproplist* plist, const char* key)
{
    NCProperty* p;
    size_t n;
    if (plist->count == plist->alloc) {
        size_t alloc = plist->alloc ? 2 * plist->alloc : 4;
        NCProperty* grown = (NCProperty*)realloc(plist->properties, alloc * sizeof(NCProperty));
        if (grown == NULL) return NULL;
        plist->properties = grown;
        plist->alloc = alloc;
    }
    p = &plist->properties[plist->count++];
    memset(p, 0, sizeof *p);
    n = strlen(key);
    if (n > NCPROPSMAXKEY) n = NCPROPSMAXKEY;
    memcpy(p->key, key, n);
    p->key[n] = '\0';
    return p;
}

NCP_FUNC NCproplist*
ncplistnew(void)
{
    return (NCproplist*)calloc(1, sizeof(NCproplist));
}

NCP_FUNC int
ncplistfree(NCproplist* plist)
{
    int stat = NC_NOERR;
    size_t i;
    if (plist == NULL) return NC_NOERR;
    for (i = 0; i < plist->count; i++) {
        NCProperty* p = &plist->properties[i];
        if (p->flags & NCPF_BYTES)
            free((void*)p->value);
        else if ((p->flags & NCPF_COMPLEX) && p->reclaim &&
                 !p->reclaim(p->userdata, p->key, (void*)p->value, p->size))
            stat = NC_EINVAL;
    }
    free(plist->properties);
    free(plist);
    return stat;
}

NCP_FUNC int
ncplistadd(NCproplist* plist, const char* key, uintptr_t value)
{
    NCProperty* p;
    if (plist == NULL) return NC_NOERR;
    if (key == NULL) return NC_EINVAL;
    if ((p = ncp_slot_(plist, key)) == NULL) return NC_ENOMEM;
    p->flags = NCPF_SIMPLE;
    p->value = value;
    return NC_NOERR;
}

NCP_FUNC int
ncplistaddbytes(NCproplist* plist, const char* key, void* value, uintptr_t size)
{
    NCProperty* p;
    if (plist == NULL) return NC_NOERR;
    if (key == NULL) return NC_EINVAL;
    if ((p = ncp_slot_(plist, key)) == NULL) return NC_ENOMEM;
    p->flags = NCPF_BYTES;
    p->value = (uintptr_t)value;
    p->size = size;
    return NC_NOERR;
}

NCP_FUNC int
ncplistaddstring(NCproplist* plist, const char* key, const char* str)
{
    return ncplistaddbytes(plist, key, (void*)str, str ? (uintptr_t)strlen(str) : 0);
}

NCP_FUNC int
ncplistaddx(NCproplist* plist, const char* key, void* value, uintptr_t size, uintptr_t userdata,
            NCPreclaimfcn fcn)
{
    NCProperty* p;
    if (plist == NULL) return NC_NOERR;
    if (key == NULL) return NC_EINVAL;
    if ((p = ncp_slot_(plist, key)) == NULL) return NC_ENOMEM;
    p->flags = NCPF_COMPLEX;
    p->value = (uintptr_t)value;
    p->size = size;
    p->userdata = userdata;
    p->reclaim = fcn;
    return NC_NOERR;
}
#endif /* NETCDF_PROPLIST_EXPORT */

#endif /* NETCDF_PROPLIST_H */
