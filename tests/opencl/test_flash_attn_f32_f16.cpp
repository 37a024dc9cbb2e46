// placeholder until the seed 004 kernel lands
#include <gtest/gtest.h>
