/* tst_registry.c: plugin discovery through libfilter's registry.
 *
 *   tst_registry OURPLUGINDIR [DEBIANPLUGINDIR]
 * Run with HDF5_PLUGIN_PATH unset.  Built-ins are always there; lz4
 * (32004, only as Debian's plugin) appears exactly when the plugin path
 * holds Debian's directory; nc_plugin_path_set() changes take effect at the
 * next look-up; empty and bogus paths are no error; our codec wrappers name
 * codecs; a found plugin decodes what it encodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_aux.h>
#include "nctst.h"
#include "ncfilter.h"

static int
set_path(const char *path)
{
    NCPluginList l = {0, NULL};
    int stat;
    if ((stat = ncaux_plugin_path_parse(path, ':', &l)))
        return stat;
    stat = nc_plugin_path_set(&l);
    ncaux_plugin_path_clear(&l);
    return stat;
}

int
main(int argc, char **argv)
{
    const ncf_codec *c;
    const char *ours = argc > 1 ? argv[1] : "/nonexistent";
    const char *deb = argc > 2 ? argv[2] : NULL;
    char *dirs = NULL;
    int have_deb = deb && access(deb, R_OK) == 0;

    if (getenv("HDF5_PLUGIN_PATH") != NULL) {
        fprintf(stderr, "run with HDF5_PLUGIN_PATH unset\n");
        return 77;
    }
    /* Unset: HDF5's default plus our install dir; built-ins regardless. */
    OK(ncf_plugin_dirs(&dirs));
    CHECK(dirs && strstr(dirs, "/usr/local/hdf5/lib/plugin") != NULL, "default dirs: %s", dirs ? dirs : "");
    free(dirs);
    OK(ncf_codec_find(32015, &c));
    CHECK(c->builtin, "zstd built in");
    OK(ncf_filter_avail(1));
    EXPECT(ncf_filter_avail(32004), NC_ENOFILTER);

    if (have_deb) {
        OK(set_path(deb));
        OK(ncf_codec_find(32004, &c));
        CHECK(!c->builtin && c->source && strncmp(c->source, deb, strlen(deb)) == 0, "lz4 from %s", deb);
        /* The plugin runs through the chain like a built-in. */
        {
            unsigned p = 0;
            ncf_filter_spec s = {32004, 0, 1, &p};
            ncf_chain *ch;
            static unsigned char in[100000], back[100000];
            void *enc = NULL;
            size_t enclen, i;
            unsigned mask;
            for (i = 0; i < sizeof(in); i++)
                in[i] = (unsigned char)(i / 100);
            OK(ncf_chain_create(1, &s, 1, &ch));
            OK(ncf_chain_encode(ch, in, sizeof(in), &enc, &enclen, &mask));
            CHECK(enclen < sizeof(in) / 4, "lz4 compresses: %zu", enclen);
            OK(ncf_chain_decode(ch, mask, enc, enclen, back, sizeof(back)));
            CHECK(memcmp(in, back, sizeof(in)) == 0, "lz4 round trip");
            free(enc);
            ncf_chain_free(ch);
        }
        /* Built-ins still win for their ids (Debian has bzip2 and blosc). */
        OK(ncf_codec_find(307, &c));
        CHECK(c->builtin, "bzip2 stays built in");
        /* Path changed: the plugin is gone at the next look-up. */
        OK(set_path(ours));
        EXPECT(ncf_filter_avail(32004), NC_ENOFILTER);
        OK(set_path(deb));
        OK(ncf_filter_avail(32004));
    } else {
        printf("no Debian plugin dir: lz4 checks skipped\n");
    }
    /* Empty and bogus paths: no plugin, no error, built-ins fine. */
    OK(set_path(""));
    EXPECT(ncf_filter_avail(32004), NC_ENOFILTER);
    OK(ncf_filter_avail(4));
    OK(set_path("/nonexistent/a:/dev/null:/etc"));
    EXPECT(ncf_filter_avail(32004), NC_ENOFILTER);
    OK(ncf_filter_avail(32001));
    /* Our dir: codec wrappers load (nothing beyond the built-ins' ids). */
    OK(set_path(ours));
    EXPECT(ncf_filter_avail(32004), NC_ENOFILTER);
    OK(ncf_codec_find_name("bz2", &c));
    CHECK(c->id == 307, "bz2 is 307");
    ncf_finalize();
    /* Usable again after finalize. */
    OK(ncf_filter_avail(2));
    ncf_finalize();
    return nct_summary("tst_registry");
}
