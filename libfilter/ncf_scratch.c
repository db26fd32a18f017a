/* ncf_scratch.c: the library's per-thread scratch (see ncfilter.h).
 *
 * One pthread key; each thread that asks gets one block holding grow-only
 * byte buffers (ncf_scratch_get, slots named in ncfilter.h) and codec
 * state objects (ncf_scratch_state, slots in ncf_codecs.h).  Everything is
 * freed when the thread exits.  Reusing buffers matters: a fresh
 * chunk-sized allocation per chunk costs a page fault per 4 KiB, most of
 * a read's time on small machines.  Also compiled into the HDF5 plugins,
 * which have their own copy.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "ncfilter.h"
#include "ncf_codecs.h"

typedef struct block {
    unsigned char *buf[NCF_SCRATCH_NSLOTS];
    size_t cap[NCF_SCRATCH_NSLOTS];
    void *state[NCF_STATE_NSLOTS];
    void (*release[NCF_STATE_NSLOTS])(void *);
} block;

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int key_ok;

static void
block_free(void *v)
{
    block *b = v;
    if (b == NULL)
        return;
    for (int i = 0; i < NCF_SCRATCH_NSLOTS; i++)
        free(b->buf[i]);
    for (int i = 0; i < NCF_STATE_NSLOTS; i++)
        if (b->state[i]) {
            if (b->release[i])
                b->release[i](b->state[i]);
            free(b->state[i]);
        }
    free(b);
}

static void
key_init(void)
{
    key_ok = pthread_key_create(&key, block_free) == 0;
}

static block *
block_get(void)
{
    block *b;
    pthread_once(&once, key_init);
    if (!key_ok)
        return NULL;
    if ((b = pthread_getspecific(key)) == NULL) {
        if ((b = calloc(1, sizeof(*b))) == NULL)
            return NULL;
        if (pthread_setspecific(key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    return b;
}

unsigned char *
ncf_scratch_get(int slot, size_t n, size_t slack)
{
    block *b;
    if (slot < 0 || slot >= NCF_SCRATCH_NSLOTS || (b = block_get()) == NULL)
        return NULL;
    if (b->cap[slot] < n || b->buf[slot] == NULL) {
        /* The old contents need not survive: free, then allocate. */
        size_t cap = slack > SIZE_MAX - n ? n : n + slack;
        free(b->buf[slot]);
        b->cap[slot] = 0;
        if ((b->buf[slot] = malloc(cap ? cap : 1)) == NULL)
            return NULL;
        b->cap[slot] = cap;
    }
    return b->buf[slot];
}

void *
ncf_scratch_state(int slot, size_t size, void (*release)(void *))
{
    block *b;
    if (slot < 0 || slot >= NCF_STATE_NSLOTS || (b = block_get()) == NULL)
        return NULL;
    if (b->state[slot] == NULL) {
        if ((b->state[slot] = calloc(1, size)) == NULL)
            return NULL;
        b->release[slot] = release;
    }
    return b->state[slot];
}
