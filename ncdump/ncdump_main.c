/* ncdump_main.c: the ncdump command; the tool itself is ncdump_run(). */
#include <locale.h>

#include "nctools.h"

int
main(int argc, char *argv[])
{
    setlocale(LC_ALL, "C");
    return ncdump_run(argc, argv, stdout, stderr);
}
