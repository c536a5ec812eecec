/* test_knob_words.c - an engine message in the console's words
 * (app/knob_words.h): a console knob's flag loses its dashes, the advice
 * "use --KNOB VALUE" becomes the command to type, a flag that is no
 * console knob stays, dashes that start no flag name stay, and a short
 * buffer is cut and terminated. */
/* run-under: asan */
#include "test_util.h"

#include "app/knob_words.h"

static void expect(const char *engine, const char *console)
{
    char out[512];
    knob_words(engine, out, sizeof out);
    assert_string_equal(out, console);
}

static void test_knob_names_and_advice(void **state)
{
    (void)state;
    expect("--device-mem 4194304 is too small for 24 chunks (needs 4399360 bytes); use --chunks auto",
           "device-mem 4194304 is too small for 24 chunks (needs 4399360 bytes); use 'set chunks auto'");
    expect("use --chunks auto, or a larger --device-mem", "use 'set chunks auto', or a larger device-mem");
    expect("--subchunks 8 needs --pipeline on", "subchunks 8 needs pipeline on");
    expect("use --device-mem", "use device-mem"); /* advice without a value: the name alone */
}

static void test_other_dashes_stay(void **state)
{
    (void)state;
    expect("restart with --ranks N", "restart with --ranks N"); /* a flag, not a console knob */
    expect("a--chunks b -- c --", "a--chunks b -- c --");       /* no flag starts inside a word or without a name */
    expect("--chunks-x 3", "--chunks-x 3");
    expect("", "");
}

static void test_short_buffer(void **state)
{
    (void)state;
    char out[12];
    knob_words("use --chunks auto now", out, sizeof out);
    assert_string_equal(out, "use 'set ch");
    knob_words("x", out, 1);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_knob_names_and_advice),
        cmocka_unit_test(test_other_dashes_stay),
        cmocka_unit_test(test_short_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
