/* nc4index.c: NC4_index, an ordered list of named objects with a hash of
 * their names (nc4model.h).
 *
 * Items keep creation (id) order in `items`; `slots` is an open-addressing
 * table (linear probing) holding item position + 1, sized to a power of two
 * at least twice the count, so a look-up touches a few slots whatever the
 * number of items.  Appending and renaming are O(1); removing closes up the
 * order and so rebuilds the table (O(n)), which only attributes do. */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "nc4model.h"

/* FNV-1a over the name's bytes. */
static uint32_t
hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 16777619u;
    }
    return h;
}

void
nc4_index_init(NC4_index *ix)
{
    memset(ix, 0, sizeof(*ix));
}

/* Put position pos into the table (the table has a free slot). */
static void
slot_insert(NC4_index *ix, size_t pos)
{
    size_t mask = ix->nslots - 1;
    size_t i = ix->items[pos]->hash & mask;
    while (ix->slots[i])
        i = (i + 1) & mask;
    ix->slots[i] = (uint32_t)(pos + 1);
}

/* Rebuild the table with nslots slots (a power of two > 2n). */
static int
rebuild(NC4_index *ix, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof(uint32_t));
    if (slots == NULL)
        return NC_ENOMEM;
    free(ix->slots);
    ix->slots = slots;
    ix->nslots = nslots;
    for (size_t i = 0; i < ix->n; i++)
        slot_insert(ix, i);
    return NC_NOERR;
}

int
nc4_index_add(NC4_index *ix, NC4_obj *obj)
{
    int stat;
    if (ix->n >= UINT32_MAX - 1)
        return NC_ENOMEM;
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 8;
        NC4_obj **items = realloc(ix->items, cap * sizeof(*items));
        if (items == NULL)
            return NC_ENOMEM;
        ix->items = items;
        ix->cap = cap;
    }
    obj->hash = hash_name(obj->name);
    if (2 * (ix->n + 1) > ix->nslots) {
        size_t nslots = ix->nslots ? ix->nslots * 2 : 16;
        while (2 * (ix->n + 1) > nslots)
            nslots *= 2;
        ix->items[ix->n] = obj; /* not yet counted: rebuild skips it */
        if ((stat = rebuild(ix, nslots)))
            return stat;
    }
    ix->items[ix->n] = obj;
    slot_insert(ix, ix->n);
    ix->n++;
    return NC_NOERR;
}

/* Slot index holding position pos, or nslots if none. */
static size_t
find_slot_of(const NC4_index *ix, size_t pos)
{
    size_t mask = ix->nslots - 1;
    size_t i = ix->items[pos]->hash & mask;
    while (ix->slots[i]) {
        if (ix->slots[i] == pos + 1)
            return i;
        i = (i + 1) & mask;
    }
    return ix->nslots;
}

/* Remove slot i and shift later members of its cluster back so that every
 * probe sequence stays unbroken (deletion without tombstones). */
static void
slot_delete(NC4_index *ix, size_t i)
{
    size_t mask = ix->nslots - 1;
    size_t j = i;
    ix->slots[i] = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!ix->slots[j])
            return;
        size_t home = ix->items[ix->slots[j] - 1]->hash & mask;
        /* Move j back to i when its home is not in the cyclic range (i, j]. */
        int in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!in_range) {
            ix->slots[i] = ix->slots[j];
            ix->slots[j] = 0;
            i = j;
        }
    }
}

NC4_obj *
nc4_index_find(const NC4_index *ix, const char *name)
{
    if (ix == NULL || ix->n == 0 || name == NULL)
        return NULL;
    uint32_t h = hash_name(name);
    size_t mask = ix->nslots - 1;
    size_t i = h & mask;
    while (ix->slots[i]) {
        NC4_obj *o = ix->items[ix->slots[i] - 1];
        if (o->hash == h && strcmp(o->name, name) == 0)
            return o;
        i = (i + 1) & mask;
    }
    return NULL;
}

int
nc4_index_rename(NC4_index *ix, NC4_obj *obj, const char *newname)
{
    char *copy = strdup(newname);
    size_t pos, s;
    if (copy == NULL)
        return NC_ENOMEM;
    /* Find obj's position through its slot: items are searched by name. */
    pos = ix->n;
    if (ix->n) {
        size_t mask = ix->nslots - 1;
        size_t i = obj->hash & mask;
        while (ix->slots[i]) {
            if (ix->items[ix->slots[i] - 1] == obj) {
                pos = ix->slots[i] - 1;
                break;
            }
            i = (i + 1) & mask;
        }
    }
    if (pos == ix->n) {  /* not indexed here: only rename */
        free(obj->name);
        obj->name = copy;
        obj->hash = hash_name(copy);
        return NC_NOERR;
    }
    s = find_slot_of(ix, pos);
    if (s < ix->nslots)
        slot_delete(ix, s);
    free(obj->name);
    obj->name = copy;
    obj->hash = hash_name(copy);
    slot_insert(ix, pos);
    return NC_NOERR;
}

void
nc4_index_remove(NC4_index *ix, size_t pos, int renumber)
{
    if (pos >= ix->n)
        return;
    memmove(ix->items + pos, ix->items + pos + 1, (ix->n - pos - 1) * sizeof(*ix->items));
    ix->n--;
    if (renumber)
        for (size_t i = pos; i < ix->n; i++)
            ix->items[i]->id--;
    /* Positions after pos moved: rebuild the table in place. */
    memset(ix->slots, 0, ix->nslots * sizeof(uint32_t));
    for (size_t i = 0; i < ix->n; i++)
        slot_insert(ix, i);
}

void
nc4_index_move(NC4_index *ix, size_t from, size_t to)
{
    NC4_obj *o;
    if (from >= ix->n || to >= ix->n || from == to)
        return;
    o = ix->items[from];
    if (from < to)
        memmove(ix->items + from, ix->items + from + 1, (to - from) * sizeof(*ix->items));
    else
        memmove(ix->items + to + 1, ix->items + to, (from - to) * sizeof(*ix->items));
    ix->items[to] = o;
    memset(ix->slots, 0, ix->nslots * sizeof(uint32_t));
    for (size_t i = 0; i < ix->n; i++)
        slot_insert(ix, i);
}

void
nc4_index_clear(NC4_index *ix)
{
    free(ix->items);
    free(ix->slots);
    nc4_index_init(ix);
}
