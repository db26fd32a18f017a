/* nccopy_main.c: the nccopy command; the tool itself is nccopy_run(). */
#include "nctools.h"

int
main(int argc, char *argv[])
{
    return nccopy_run(argc, argv, stderr);
}
