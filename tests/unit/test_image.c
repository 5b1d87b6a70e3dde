/* The ready image (src/instance.c, made at build time by tools/mkimage.c): the
 * library links one, and an engine's image is the file that holds it, mapped; an
 * image made from it is the image that initialising the guest makes (the same
 * capsa__image_id, so a checkpoint taken over one restores over the other), and
 * so is one made from a copy of it in memory that is no file's (copied then);
 * writing the image initialisation made gives exactly the bytes linked in (the
 * build's image is this build's); a sandbox from it runs; and a ready image that
 * is truncated, of another guest or format, or whose memory is not what its
 * header says or smaller than the guest's is not used: the guest is initialised
 * instead, to the same image. */
#include <stdint.h>

#include "buf.h"
#include "capsa.h"
#include "instance.h"
#include "test.h"

static uint8_t init_id[32];

/* An image from ready[0..len) (NULL: by initialising the guest), its id in id;
 * returns whether it came from the ready image, or -1 when none was made. */
static int image_from(const uint8_t *ready, size_t len, uint8_t id[32])
{
    capsa__image *img = NULL;
    char msg[256] = "";
    int rc = capsa__image_new(&capsa__default_allocator, ready, len, &img, msg, sizeof(msg));
    CHECK_INT(rc, CAPSA_OK, msg);
    if (rc != CAPSA_OK)
        return -1;
    capsa__image_id(img, id);
    int ready_used = capsa__image_is_ready(img);
    capsa__image_free(img);
    return ready_used;
}

TEST(linked_image_is_the_initialised_one)
{
    size_t len = 0;
    const uint8_t *ready = capsa__ready_image_linked(&len);
    CHECK(len > 4096, "the library links a ready image");
    CHECK_INT(image_from(NULL, 0, init_id), 0, "without one, the guest is initialised");
    uint8_t id[32];
    CHECK_INT(image_from(ready, len, id), 2, "the linked ready image is used, mapped from its file");
    CHECK(memcmp(id, init_id, 32) == 0, "it is the image initialising the guest makes");
    /* A copy in memory of no file (page-aligned, as the linked one is). */
    uint8_t *copy = NULL;
    CHECK(posix_memalign((void **)&copy, 4096, len) == 0, "memory for a copy");
    if (copy) {
        memcpy(copy, ready, len);
        CHECK_INT(image_from(copy, len, id), 1, "a copy that is no file's is used, copied");
        CHECK(memcmp(id, init_id, 32) == 0, "it makes the same image");
        free(copy);
    }

    capsa__image *img = NULL;
    char msg[256] = "";
    CHECK_INT(capsa__image_new(&capsa__default_allocator, NULL, 0, &img, msg, sizeof(msg)),
              CAPSA_OK, msg);
    char *bytes = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&bytes, &n);
    CHECK(f && img && capsa__image_write_ready(img, f) == 0, "the image is written");
    if (f)
        fclose(f);
    CHECK(n == len && bytes && memcmp(bytes, ready, len) == 0,
          "written, it is byte for byte the ready image the build linked");
    free(bytes);
    capsa__image_free(img);
}

TEST(sandbox_from_ready_image_runs)
{
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(NULL, &e), CAPSA_OK, "an engine");
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(e, NULL, &sb), CAPSA_OK, "a sandbox");
    const capsa_result *r = NULL;
    static const char code[] = "return [1 + 1, typeof TextEncoder, [3, 1, 2].sort().join()]";
    CHECK_INT(capsa_run(sb, code, sizeof(code) - 1, "t.js", &r), CAPSA_OK, "a run");
    CHECK_STR(capsa_result_value(r), "[2,\"function\",\"1,2,3\"]", "the runtime is there");
    capsa_sandbox_free(sb);
    capsa_engine_free(e);
}

/* A copy of the linked image with the u32 at off set to v (off past the end:
 * the copy is cut to off bytes instead). */
static uint8_t *altered(size_t off, uint32_t v, size_t *len)
{
    size_t n = 0;
    const uint8_t *ready = capsa__ready_image_linked(&n);
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return NULL;
    memcpy(copy, ready, n);
    if (off + 4 <= n)
        capsa__store_le32(copy + off, v);
    *len = off < n && off + 4 > n ? off : n;
    return copy;
}

TEST(bad_ready_images_are_not_used)
{
    size_t n = 0;
    const uint8_t *ready = capsa__ready_image_linked(&n);
    uint32_t pages = capsa__load_le32(ready + 12);
    struct {
        size_t off;
        uint32_t v;
        const char *what;
    } cases[] = {
        { 0, 0x21212121, "a bad magic" },
        { 8, 1, "another format version" },
        { 24, 1, "a reserved field set" },
        { 28, 1, "the other reserved field set" },
        { 32, 0x30303030, "another guest's build id" },
        { 12, pages + 1, "more memory than follows" },
        { 12, pages - 1, "less memory than follows" },
        { 12, 0xffffffffu, "a count of pages that would overflow" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = 0;
        uint8_t *copy = altered(cases[i].off, cases[i].v, &len);
        uint8_t id[32];
        int used = copy ? image_from(copy, len, id) : -1;
        TEST_REPORT(used == 0 && memcmp(id, init_id, 32) == 0,
                    "a ready image with %s is not used (the guest is initialised)", cases[i].what);
        free(copy);
    }
    /* One page of memory, well-formed, but smaller than the guest's own. */
    size_t len = 0;
    uint8_t *copy = altered(12, 1, &len);
    uint8_t id[32];
    CHECK(copy && image_from(copy, 4096 + 65536, id) == 0 && memcmp(id, init_id, 32) == 0,
          "a ready image of less memory than the guest starts with is not used");
    free(copy);
    copy = altered(n - 1, 0, &len); /* cut by one byte */
    CHECK(copy && len == n - 1 && image_from(copy, len, id) == 0 &&
              memcmp(id, init_id, 32) == 0,
          "a truncated ready image is not used");
    CHECK(image_from(ready, 40, id) == 0, "nor one shorter than its header");
    free(copy);
}

int main(void)
{
    RUN(linked_image_is_the_initialised_one);
    RUN(sandbox_from_ready_image_runs);
    RUN(bad_ready_images_are_not_used);
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}
