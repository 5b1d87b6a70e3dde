/* mkimage: makes the ready image (src/instance.c) at build time. It initialises
 * the guest as an engine without a ready image does (linked with an empty one)
 * and writes the image it made to FILE, which src/ready_image.S then puts into
 * the library: a process starts from it instead of running the guest's start.
 *
 *   mkimage FILE
 *
 * Exit status 0, or 1 with a message on stderr (FILE is then not left behind). */
#include <stdio.h>

#include "buf.h"
#include "instance.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkimage FILE\n");
        return 1;
    }
    char msg[256] = "";
    capsa__image *img = NULL;
    if (capsa__image_new(&capsa__default_allocator, NULL, 0, &img, msg, sizeof(msg)) != CAPSA_OK) {
        fprintf(stderr, "mkimage: cannot make the guest image: %s\n", msg);
        return 1;
    }
    FILE *f = fopen(argv[1], "wb");
    int ok = f && capsa__image_write_ready(img, f) == 0;
    if (f && fclose(f) != 0)
        ok = 0;
    capsa__image_free(img);
    if (!ok) {
        fprintf(stderr, "mkimage: cannot write %s\n", argv[1]);
        remove(argv[1]);
        return 1;
    }
    return 0;
}
