/* The ready image (src/instance.c): the guest's memory and globals once
 * initialised, made at build time by tools/mkimage.c, in the library's read-only
 * data between capsa__ready_image and capsa__ready_image_end. Assembled with
 * READY_IMAGE naming the file; without it (mkimage's own link) the image is
 * empty and the guest is initialised at start. Page-aligned, so that the pages a
 * process reads come from the file as they are. */
    .section .rodata.capsa_ready_image, "a"
    .balign 4096
    .globl capsa__ready_image
    .hidden capsa__ready_image
capsa__ready_image:
#ifdef READY_IMAGE
    .incbin READY_IMAGE
#endif
    .globl capsa__ready_image_end
    .hidden capsa__ready_image_end
capsa__ready_image_end:
    .section .note.GNU-stack, "", @progbits
