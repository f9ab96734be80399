#include <criterion/criterion.h>
Test(placeholder, x) { cr_assert(1); }
