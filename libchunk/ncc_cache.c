/* ncc_cache.c: the index and LRU order of a write-back cache of decoded
 * chunks (see ncchunk.h).  Entries are found by their grid index. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "ncchunk.h"

int
ncc_cache_init(ncc_cache *c, int rank, size_t max)
{
    memset(c, 0, sizeof(*c));
    c->rank = rank;
    c->max = max;
    c->nbuckets = 64;
    if ((c->buckets = calloc(c->nbuckets, sizeof(ncc_entry *))) == NULL)
        return NC_ENOMEM;
    return NC_NOERR;
}

static size_t
hash_idx(const ncc_cache *c, const uint64_t *idx)
{
    uint64_t h = 1469598103934665603ull;
    for (int k = 0; k < c->rank; k++)
        h = (h ^ idx[k]) * 1099511628211ull;
    h ^= h >> 29;
    return (size_t)(h % c->nbuckets);
}

ncc_entry *
ncc_cache_find(const ncc_cache *c, const uint64_t *idx)
{
    if (c->n == 0)
        return NULL;
    for (ncc_entry *e = c->buckets[hash_idx(c, idx)]; e; e = e->hnext)
        if (memcmp(e->idx, idx, (size_t)c->rank * sizeof(uint64_t)) == 0)
            return e;
    return NULL;
}

static void
lru_unlink(ncc_cache *c, ncc_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void
lru_front(ncc_cache *c, ncc_entry *e)
{
    e->next = c->head;
    e->prev = NULL;
    if (c->head)
        c->head->prev = e;
    c->head = e;
    if (c->tail == NULL)
        c->tail = e;
}

void
ncc_cache_touch(ncc_cache *c, ncc_entry *e)
{
    lru_unlink(c, e);
    lru_front(c, e);
}

/* Twice the buckets when entries outnumber them (chains stay short). */
static void
grow(ncc_cache *c)
{
    size_t nb = c->nbuckets * 2;
    ncc_entry **b = calloc(nb, sizeof(*b));
    if (b == NULL)
        return; /* longer chains, still correct */
    ncc_entry **old = c->buckets;
    size_t oldn = c->nbuckets;
    c->buckets = b;
    c->nbuckets = nb;
    for (size_t i = 0; i < oldn; i++)
        for (ncc_entry *e = old[i], *nx; e; e = nx) {
            size_t h = hash_idx(c, e->idx);
            nx = e->hnext;
            e->hnext = b[h];
            b[h] = e;
        }
    free(old);
}

int
ncc_cache_insert(ncc_cache *c, const uint64_t *idx, unsigned char *data, ncc_entry **ep)
{
    size_t r = c->rank > 0 ? (size_t)c->rank : 1;
    ncc_entry *e = calloc(1, sizeof(*e) + r * sizeof(uint64_t));
    size_t b;
    if (e == NULL)
        return NC_ENOMEM;
    e->idx = (uint64_t *)(void *)(e + 1);
    memcpy(e->idx, idx, (size_t)c->rank * sizeof(uint64_t));
    e->data = data;
    if (c->n >= c->nbuckets)
        grow(c);
    b = hash_idx(c, idx);
    e->hnext = c->buckets[b];
    c->buckets[b] = e;
    lru_front(c, e);
    c->n++;
    *ep = e;
    return NC_NOERR;
}

void
ncc_cache_detach(ncc_cache *c, ncc_entry *e)
{
    ncc_entry **pp = &c->buckets[hash_idx(c, e->idx)];
    while (*pp && *pp != e)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = e->hnext;
    e->hnext = NULL;
    lru_unlink(c, e);
    c->n--;
}

unsigned char *
ncc_cache_unlink(ncc_cache *c, ncc_entry *e)
{
    unsigned char *data = e->data;
    ncc_cache_detach(c, e);
    free(e);
    return data;
}

size_t
ncc_cache_budget(size_t size, size_t chunkbytes)
{
    size_t n = chunkbytes ? size / chunkbytes : 1;
    /* At least a few chunks, so a flush encodes in parallel, unless chunks
     * (shards) are so big that one is all memory should hold. */
    if (n < 4)
        n = chunkbytes <= ((size_t)64 << 20) ? 4 : 1;
    return n;
}
