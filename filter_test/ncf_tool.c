/* ncf_tool.c: drive libfilter from the command line, for the interop
 * scripts (h5py writes/reads the raw chunks this produces/consumes).
 *
 *   ncf_tool encode SPECS TYPESIZE IN OUT        prints the filter mask
 *   ncf_tool decode SPECS TYPESIZE NBYTES MASK IN OUT
 *   ncf_tool quantize float|double MODE NSD IN OUT
 *   ncf_tool avail ID                            prints source and codec name
 *
 * SPECS: "id,p1,p2|id,..." (ncaux_h5filterspec_parselist syntax); "-" for
 * an empty chain.  Exit status 0 on success, 1 with the NC_* error printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_aux.h>
#include "ncfilter.h"

static int
fail(const char *what, int stat)
{
    fprintf(stderr, "ncf_tool: %s: %s (%d)\n", what, nc_strerror(stat), stat);
    return 1;
}

static int
make_chain(const char *txt, size_t typesize, ncf_chain **chainp)
{
    NC_H5_Filterspec **vec = NULL;
    ncf_filter_spec *specs = NULL;
    size_t n = 0, i;
    int stat;
    if (strcmp(txt, "-") == 0)
        return ncf_chain_create(0, NULL, typesize, chainp);
    if ((stat = ncaux_h5filterspec_parselist(txt, NULL, &n, &vec)))
        return stat;
    specs = calloc(n + 1, sizeof(*specs));
    for (i = 0; specs && i < n; i++) {
        specs[i].id = vec[i]->filterid;
        specs[i].flags = 0;
        specs[i].nparams = vec[i]->nparams;
        specs[i].params = vec[i]->params;
    }
    stat = specs ? ncf_chain_create(n, specs, typesize, chainp) : NC_ENOMEM;
    for (i = 0; i < n; i++)
        ncaux_h5filterspec_free(vec[i]);
    free(vec);
    free(specs);
    return stat;
}

int
main(int argc, char **argv)
{
    int stat;
    void *in = NULL;
    size_t inlen = 0;
    if (argc < 2)
        return 2;
    if (strcmp(argv[1], "avail") == 0 && argc == 3) {
        const ncf_codec *c;
        if ((stat = ncf_codec_find((unsigned)strtoul(argv[2], NULL, 10), &c)))
            return fail("avail", stat);
        printf("%s %s %s\n", c->source, c->name ? c->name : "-", c->codec ? c->codec : "-");
        return 0;
    }
    if (strcmp(argv[1], "encode") == 0 && argc == 6) {
        ncf_chain *chain;
        void *out;
        size_t outlen;
        unsigned mask;
        if ((stat = make_chain(argv[2], strtoul(argv[3], NULL, 10), &chain)))
            return fail("chain", stat);
        if ((stat = ncaux_readfile(argv[4], &inlen, &in)))
            return fail("read", NC_EIO);
        if ((stat = ncf_chain_encode(chain, in, inlen, &out, &outlen, &mask)))
            return fail("encode", stat);
        if (ncaux_writefile(argv[5], outlen, out))
            return fail("write", NC_EIO);
        printf("%u\n", mask);
        free(out);
        free(in);
        ncf_chain_free(chain);
        return 0;
    }
    if (strcmp(argv[1], "decode") == 0 && argc == 8) {
        ncf_chain *chain;
        size_t nbytes = strtoul(argv[4], NULL, 10);
        unsigned mask = (unsigned)strtoul(argv[5], NULL, 10);
        void *out;
        if ((stat = make_chain(argv[2], strtoul(argv[3], NULL, 10), &chain)))
            return fail("chain", stat);
        if ((stat = ncaux_readfile(argv[6], &inlen, &in)))
            return fail("read", NC_EIO);
        if ((out = malloc(nbytes ? nbytes : 1)) == NULL)
            return fail("decode", NC_ENOMEM);
        if ((stat = ncf_chain_decode(chain, mask, in, inlen, out, nbytes)))
            return fail("decode", stat);
        if (ncaux_writefile(argv[7], nbytes, out))
            return fail("write", NC_EIO);
        free(out);
        free(in);
        ncf_chain_free(chain);
        return 0;
    }
    if (strcmp(argv[1], "quantize") == 0 && argc == 7) {
        int mode = atoi(argv[3]), nsd = atoi(argv[4]);
        if ((stat = ncaux_readfile(argv[5], &inlen, &in)))
            return fail("read", NC_EIO);
        if (strcmp(argv[2], "float") == 0)
            stat = ncf_quantize_float(mode, nsd, NULL, in, inlen / sizeof(float));
        else
            stat = ncf_quantize_double(mode, nsd, NULL, in, inlen / sizeof(double));
        if (stat)
            return fail("quantize", stat);
        if (ncaux_writefile(argv[6], inlen, in))
            return fail("write", NC_EIO);
        free(in);
        return 0;
    }
    fprintf(stderr, "usage: see ncf_tool.c\n");
    return 2;
}
